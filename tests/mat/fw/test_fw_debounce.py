"""Debouncing and face classification (runs under CPython and MicroPython)."""

from tabletop.firmware.config import ScanConfig
from tabletop.firmware.debounce import ZoneState, classify_face
from tabletop.firmware.wire import FACE_DOWN, FACE_UNKNOWN, FACE_UP

UID_A = b"\x04\x01\x02\x03\x04\x05\x06"
UID_B = b"\x04\x09\x09\x09\x09\x09\x09"


def test_a_card_settles_after_the_configured_agreeing_reads():
    config = ScanConfig()
    config.present_reads = 3
    state = ZoneState()
    assert not state.observe_card(UID_A, FACE_UP, 11000, config)
    assert not state.observe_card(UID_A, FACE_UP, 11000, config)
    assert state.uid is None and state.unsettled
    assert state.observe_card(UID_A, FACE_UP, 11000, config)
    assert state.uid == UID_A and state.face == FACE_UP and state.generation == 1
    assert not state.unsettled
    assert state.quality == 100


def test_disagreeing_reads_start_the_count_again():
    config = ScanConfig()
    state = ZoneState()
    state.observe_card(UID_A, FACE_UP, 0, config)
    assert not state.observe_card(UID_B, FACE_UP, 0, config)
    assert state.observe_card(UID_B, FACE_UP, 0, config)
    assert state.uid == UID_B


def test_a_miss_between_first_reads_cancels_the_candidate():
    config = ScanConfig()
    state = ZoneState()
    state.observe_card(UID_A, FACE_UP, 0, config)
    assert not state.observe_miss(config)
    assert not state.observe_card(UID_A, FACE_UP, 0, config)
    assert state.uid is None


def test_a_card_is_dropped_only_after_k_misses_in_a_row():
    config = ScanConfig()
    config.absent_misses = 3
    state = ZoneState()
    # A card the reader has found every time for a while: `absent_misses` drop it.
    for _ in range(200):
        state.observe_card(UID_A, FACE_UP, 0, config)
    assert state.misses_to_drop(config) == 3
    assert not state.observe_miss(config)
    assert not state.observe_miss(config)
    assert state.unsettled
    assert not state.observe_card(UID_A, FACE_UP, 0, config)  # a hand passed over: no change
    assert state.generation == 1
    # Those two misses were learnt: a card missed now and then needs a few more in a row.
    needed = state.misses_to_drop(config)
    assert needed > 3
    for _ in range(needed - 1):
        assert not state.observe_miss(config)
    assert state.observe_miss(config)
    assert state.uid is None and state.face == FACE_UNKNOWN and state.generation == 2


def test_quality_counts_the_misses_of_a_settled_card():
    config = ScanConfig()
    state = ZoneState()
    for _ in range(2):
        state.observe_card(UID_A, FACE_UP, 0, config)
    state.observe_miss(config)
    for _ in range(5):
        state.observe_card(UID_A, FACE_UP, 0, config)
    assert state.quality == 87  # 7 of the last 8


def test_a_flip_settles_after_agreeing_reads_and_bumps_the_generation():
    config = ScanConfig()
    state = ZoneState()
    state.observe_card(UID_A, FACE_UP, 0, config)
    state.observe_card(UID_A, FACE_UP, 0, config)
    assert not state.observe_card(UID_A, FACE_DOWN, 45000, config)
    assert state.observe_card(UID_A, FACE_DOWN, 45000, config)
    assert state.face == FACE_DOWN and state.generation == 2


def test_the_generation_wraps_at_256():
    config = ScanConfig()
    config.present_reads = 1
    config.absent_misses = 1
    state = ZoneState()
    for _ in range(128):
        state.observe_card(UID_A, FACE_UP, 0, config)
        while state.uid is not None:
            state.observe_miss(config)
    assert state.generation == 0


def test_face_classification_has_a_dead_band():
    config = ScanConfig()  # threshold 24000, hysteresis 2000, faces brighter than backs
    assert classify_face(45000, FACE_UNKNOWN, config) == FACE_DOWN  # the sensor sees the face
    assert classify_face(11000, FACE_UNKNOWN, config) == FACE_UP
    assert classify_face(25000, FACE_UP, config) == FACE_UP
    assert classify_face(25000, FACE_DOWN, config) == FACE_DOWN
    assert classify_face(25000, FACE_UNKNOWN, config) == FACE_DOWN
    assert classify_face(26500, FACE_UP, config) == FACE_DOWN


def test_a_deck_with_bright_backs_inverts_the_rule():
    config = ScanConfig()
    config.face_brighter = 0
    assert classify_face(45000, FACE_UNKNOWN, config) == FACE_UP
    assert classify_face(11000, FACE_UNKNOWN, config) == FACE_DOWN
