"""The scan loop against simulated readers in modelled time (CPython and MicroPython)."""

from fwhelpers import Mat, card

from tabletop.firmware.wire import FACE_DOWN, FACE_UP


def test_a_card_laid_is_settled_with_its_uid_and_face():
    mat = Mat()
    mat.run(100)
    mat.table.place(1, card(1), "down")
    mat.run_until(lambda: mat.zones.states[1].uid is not None, 300)
    state = mat.zones.states[1]
    assert state.uid == card(1).uid
    assert state.face == FACE_DOWN
    assert state.level > 40000


def test_a_card_is_confirmed_well_inside_one_sweep_of_a_full_mat():
    mat = Mat(seats=6, slots=6)
    for zone in range(36):
        if zone != 20:
            mat.table.place(zone, card(zone))
    mat.run_until(lambda: all(mat.zones.states[z].uid for z in range(36) if z != 20), 1500)
    mat.run(37)
    mat.table.place(20, card(99))
    took = mat.run_until(lambda: mat.zones.states[20].uid is not None, 500)
    # Two buses share 37 zones in one thread here (modelled time adds both buses up), so the
    # sweep is about twice as long as on the mat; the bound still rules out a second sweep.
    assert took < 150, took


def test_known_cards_are_checked_without_reading_their_uid_every_time():
    mat = Mat()
    mat.table.place(0, card(1))
    mat.run(2000)
    bus = mat.buses[0]
    assert bus.counts["wake"] > 100
    # One UID read in verify_every (8) reads, plus the reads that settled it.
    assert bus.counts["read_uid"] < bus.counts["wake"] // 4


def test_plain_reads_every_uid_every_time():
    mat = Mat(seats=1, slots=1, pad=False, buses=1)
    mat.zones.config.presence_checks = 0
    mat.table.place(0, card(1))
    mat.run(500)
    bus = mat.buses[0]
    assert bus.counts["read_uid"] == bus.counts["wake"]


def test_a_removed_card_is_dropped_after_the_misses():
    mat = Mat()
    mat.table.place(2, card(5))
    mat.run_until(lambda: mat.zones.states[2].uid is not None)
    mat.table.remove(2)
    mat.run_until(lambda: mat.zones.states[2].uid is None)
    assert mat.zones.states[2].generation == 2


def test_a_flip_changes_the_face_and_keeps_the_card():
    mat = Mat()
    mat.table.place(0, card(5), "up")
    mat.run_until(lambda: mat.zones.states[0].face == FACE_UP)
    mat.table.flip(0)
    mat.run_until(lambda: mat.zones.states[0].face == FACE_DOWN)
    assert mat.zones.states[0].uid == card(5).uid


def test_a_card_swapped_between_sweeps_is_read_again():
    mat = Mat()
    mat.table.place(0, card(1))
    mat.run_until(lambda: mat.zones.states[0].uid == card(1).uid)
    mat.table.place(0, card(2))
    mat.run_until(lambda: mat.zones.states[0].uid == card(2).uid, 1000)


def test_a_flaky_reader_does_not_move_cards():
    mat = Mat(miss_rate=0.05)
    mat.table.place(0, card(1))
    mat.run_until(lambda: mat.zones.states[0].uid is not None)
    generation = mat.zones.states[0].generation
    mat.run(3000)
    assert mat.zones.states[0].generation == generation
    assert mat.zones.states[0].quality >= 50


def test_a_hung_reader_is_reset_and_reported_then_recovers():
    mat = Mat()
    mat.table.place(1, card(3))
    mat.run_until(lambda: mat.zones.states[1].uid is not None)
    mat.take_sent()
    mat.table.hang(1)
    mat.run_until(lambda: mat.buses[1].counts["reset"] == 1 or mat.buses[0].counts["reset"] == 1)
    assert mat.zones.states[1].fault
    mat.run(100)
    assert not mat.zones.states[1].fault
    assert mat.zones.states[1].uid == card(3).uid
    logs = [bytes(p[1:]).decode() for t, p in mat.take_sent() if t == 0x05]
    assert logs and "s1.2: reader reset after 3 faults" in logs[0]


def test_the_watchdog_is_fed_only_while_every_scanner_steps():
    mat = Mat()
    mat.run(50)
    fed = mat.watchdog.feeds
    assert fed > 0
    # The second core hangs: its scanner stops stepping; the first core goes on.
    start = mat.clock.now_ms()
    while mat.clock.now_ms() - start < 1500:
        mat.scanners[0].step()
        mat.controller.service()
    stalled = mat.watchdog.feeds
    mat.scanners[0].step()
    mat.controller.service()
    assert mat.watchdog.feeds == stalled
    assert stalled > fed  # fed during the first second, before the stall counted
