"""Missed reads of a lying card (worn stickers, cards off-centre) never become card events
(runs under CPython and MicroPython). bench/mat_sweep.py --misses measures it at length."""

from fwhelpers import Mat, card

from tabletop.firmware.config import ScanConfig
from tabletop.firmware.debounce import MAX_MISSES, ZoneState
from tabletop.firmware.wire import FACE_UP

UID_A = b"\x04\x01\x02\x03\x04\x05\x06"


def _settled(config, reads):
    state = ZoneState()
    for _ in range(reads):
        state.observe_card(UID_A, FACE_UP, 11000, config)
    return state


def test_a_card_just_laid_is_trusted_more_with_each_read():
    config = ScanConfig()
    needed = [_settled(config, reads).misses_to_drop(config) for reads in (2, 12, 200)]
    assert needed[0] > needed[1] > needed[2] == config.absent_misses
    assert needed[0] <= MAX_MISSES


def test_a_card_often_missed_needs_more_misses_in_a_row_and_still_goes_when_lifted():
    config = ScanConfig()
    state = _settled(config, 2)
    # Two reads in five miss, for 500 reads: not once a drop.
    for read in range(500):
        if read % 5 in (1, 3):
            assert not state.observe_miss(config)
        else:
            assert not state.observe_card(UID_A, FACE_UP, 11000, config)
    assert state.generation == 1
    needed = state.misses_to_drop(config)
    assert 15 <= needed <= MAX_MISSES
    # Lifted: every read misses; it goes after `needed` of them.
    for _ in range(needed - 1):
        assert not state.observe_miss(config)
    assert state.observe_miss(config)
    assert state.uid is None and state.generation == 2


def test_the_least_misses_to_drop_is_still_absent_misses():
    config = ScanConfig()
    config.absent_misses = 6
    assert _settled(config, 200).misses_to_drop(config) == 6


def test_readers_missing_four_reads_in_ten_move_no_card():
    mat = Mat(miss_rate=0.4)  # three zones, two buses: over 100 reads a second each
    mat.table.place(0, card(1))
    mat.table.place(1, card(2))
    states = mat.zones.states
    mat.run_until(lambda: states[0].uid is not None and states[1].uid is not None)
    generations = (states[0].generation, states[1].generation)
    reads = sum(s.reads for s in mat.scanners)
    mat.run(10000)
    assert sum(s.reads for s in mat.scanners) - reads > 2000
    # With three misses in a row dropping a card, this was about 80 removed + placed.
    assert (states[0].generation, states[1].generation) == generations
    mat.table.remove(1)
    took = mat.run_until(lambda: states[1].uid is None)
    assert took < 2 * 300  # modelled: two buses take turns in one thread
