"""Touch pads: the MPR121 driver, debouncing, the wrap-around of ticks and the touch extension
of the protocol (runs under CPython and MicroPython)."""

import struct

from fwhelpers import Mat, frames, touch_pads, vectors

from tabletop.firmware import mpr121, wire
from tabletop.firmware.simhw import SimMpr121Bus, SimTable, VirtualClock
from tabletop.firmware.ticks import TickCounter, ticks_diff
from tabletop.firmware.touch import (
    RELEASED,
    SIDE_FAR,
    SIDE_NEAR,
    SIDE_UNKNOWN,
    TOUCHED,
    MuxedI2C,
    TouchPads,
    split_seat_zones,
    split_zones_per_chip,
    zones_per_chip,
)


def _touch_vectors():
    return vectors("touch-v1.json")


def test_touch_messages_match_their_golden_bytes():
    checked = 0
    for message in _touch_vectors()["messages"]:
        fields = message["fields"]
        if message["kind"] == "capabilities":
            frame = wire.encode_capabilities(
                fields["extensions"], fields["touch_zones"], fields["sample_ms"], fields["debounce"]
            )
        elif message["kind"] == "touch":
            events = [tuple(e) for e in fields["events"]]
            frame = wire.encode_touch(fields["boot_id"], fields["seq"], events)
        else:
            continue
        assert frame.hex() == message["frame_hex"], message["name"]
        checked += 1
    assert checked == 6


def test_hello_requests_of_both_kinds_of_host_are_read():
    for message in _touch_vectors()["messages"]:
        if message["kind"] != "hello_request":
            continue
        found = frames(bytes.fromhex(message["frame_hex"]))
        assert len(found) == 1 and found[0][0] == wire.HELLO_REQUEST
        fields = message["fields"]
        got = wire.decode_hello_request(found[0][1])
        assert got == (fields["version"], fields["extensions"]), message["name"]
    assert wire.decode_hello_request(b"") == (0, 0)  # as lenient as v1 firmware


def test_a_damaged_touch_frame_is_skipped_and_the_next_one_found():
    for stream in _touch_vectors()["streams"]:
        got = [[t, bytes(p).hex()] for t, p in frames(bytes.fromhex(stream["stream_hex"]))]
        assert got == stream["frames"], stream["name"]


def test_zones_are_wired_twelve_to_a_chip_and_the_pad_gets_the_fourth():
    wiring = zones_per_chip(37)
    assert [len(z) for z in wiring] == [12, 12, 12, 1]
    assert wiring[3] == [36] and wiring[1][0] == 12
    try:
        zones_per_chip(49)
    except ValueError as error:
        assert "4 touch chips" in str(error)
    else:
        raise AssertionError("49 zones fit on four chips?")


def test_the_driver_sets_the_chip_up_in_stop_mode_then_runs_it():
    clock = VirtualClock()
    i2c = SimMpr121Bus(SimTable(12), [list(range(12))], clock, clock)
    chip = mpr121.Mpr121(i2c, 0x5A, 12)
    chip.start()
    registers = i2c.registers[0x5A]
    assert registers[mpr121.ECR] == 0x80 | 12
    assert registers[mpr121.CONFIG2] == 0x20  # ESI 1 ms, SFI 4
    assert registers[mpr121.DEBOUNCE] == 0
    assert registers[0x41] == mpr121.TOUCH_LEVEL and registers[0x42] == mpr121.RELEASE_LEVEL
    assert registers[0x57] == mpr121.TOUCH_LEVEL and registers[0x58] == mpr121.RELEASE_LEVEL
    assert registers[0x31] == 0xFF  # NCL falling (AN3944)
    assert chip.touched() == 0


def test_the_status_register_gives_the_touched_electrodes():
    clock = VirtualClock()
    table = SimTable(14)
    i2c = SimMpr121Bus(table, [list(range(12)), [12, 13]], clock, clock, response_ms=4)
    first = mpr121.Mpr121(i2c, 0x5A)
    second = mpr121.Mpr121(i2c, 0x5B, 2)
    first.start()
    second.start()
    table.touch(3, True, clock.now_ms())
    table.touch(11, True, clock.now_ms())
    table.touch(13, True, clock.now_ms())
    assert first.touched() == 0  # the chip's filter has not caught up yet
    clock.advance_ms(4)
    assert first.touched() == (1 << 3) | (1 << 11)
    assert second.touched() == 1 << 1


def test_a_missing_or_wrong_chip_is_a_fault_naming_its_address():
    clock = VirtualClock()
    i2c = SimMpr121Bus(SimTable(12), [list(range(12))], clock, clock)
    i2c.absent.add(0x5A)
    try:
        mpr121.Mpr121(i2c, 0x5A).start()
    except mpr121.TouchChipFault as fault:
        assert "0x5a" in str(fault) and "no answer" in str(fault)
    else:
        raise AssertionError("a missing chip started")
    i2c.absent.clear()
    i2c.registers[0x5A][mpr121.CONFIG2] = 0
    i2c.readfrom_mem = lambda address, register, count: bytes(count)  # reads all zeros
    try:
        mpr121.Mpr121(i2c, 0x5A).start()
    except mpr121.TouchChipFault as fault:
        assert "not an MPR121" in str(fault)
    else:
        raise AssertionError("a chip that is not an MPR121 started")
    try:
        mpr121.Mpr121(i2c, 0x50)
    except ValueError as error:
        assert "0x5a-0x5d" in str(error)
    else:
        raise AssertionError("an MPR121 at 0x50?")


def _pads(count=13):
    clock = VirtualClock()
    table = SimTable(count)
    logs = []
    pads, i2c = touch_pads(table, count, clock, lambda level, text: logs.append((level, text)))
    pads.start(clock.now_ms())
    return pads, i2c, table, clock, logs


def _poll_at(pads, clock, ms):
    clock.us = ms * 1000
    pads.poll(ms)


def test_a_touch_is_dated_by_the_first_poll_that_saw_it_not_by_the_debounce():
    pads, _i2c, table, clock, _logs = _pads()
    table.touch(5, True, 100)
    for ms in (101, 103, 104):  # the chip reports it from 104 (4 ms filter)
        _poll_at(pads, clock, ms)
    assert pads.take_events() == []  # seen once: not settled yet
    _poll_at(pads, clock, 107)
    assert pads.take_events() == [(5, TOUCHED, 104)]
    assert pads.touched_zones() == [5]
    table.touch(5, False, 300)
    for ms in (304, 306):
        _poll_at(pads, clock, ms)
    assert pads.take_events() == [(5, RELEASED, 304)]
    assert pads.touched_zones() == []


def test_a_blip_seen_by_one_poll_is_not_a_touch():
    pads, _i2c, table, clock, _logs = _pads()
    table.touch(7, True, 100)
    _poll_at(pads, clock, 104)  # the chip shows the touch from 104 ...
    table.touch(7, False, 104)
    _poll_at(pads, clock, 108)  # ... and the release from 108
    _poll_at(pads, clock, 111)
    assert pads.take_events() == []
    assert pads.touched_zones() == []


def test_a_chip_that_stops_answering_releases_its_zones_and_is_retried():
    pads, i2c, table, clock, logs = _pads()
    table.touch(12, True, 0)  # zone 12 is the second chip's first electrode
    for ms in (5, 8):
        _poll_at(pads, clock, ms)
    assert pads.take_events() == [(12, TOUCHED, 5)]
    i2c.absent.add(0x5B)
    _poll_at(pads, clock, 10)
    assert pads.take_events() == [(12, RELEASED, 10)]
    assert logs and "0x5b" in logs[-1][1] and logs[-1][0] == wire.LOG_ERROR
    i2c.absent.clear()
    _poll_at(pads, clock, 500)  # not retried before RETRY_MS
    assert pads.take_events() == []
    for ms in (1011, 1014, 1017):
        _poll_at(pads, clock, ms)
    assert "answers again" in logs[-1][1]
    assert pads.take_events() == [(12, TOUCHED, 1014)]


def test_ticks_are_counted_past_their_wrap_around():
    assert ticks_diff(5, (1 << 30) - 3) == 8
    assert ticks_diff((1 << 30) - 3, 5) == -8
    readings = [(1 << 30) - 10, (1 << 30) - 1, 4, 1000]
    counter = TickCounter(lambda: readings.pop(0))
    assert [counter.now_ms() for _ in range(4)] == [0, 9, 14, 1010]


def _touch_frames(sent):
    out = []
    for msg_type, payload in sent:
        if msg_type == wire.TOUCH:
            boot_id, seq, count = struct.unpack("<IHB", payload[:7])
            events = [struct.unpack("<BBI", payload[7 + 6 * i : 13 + 6 * i]) for i in range(count)]
            out.append((boot_id, seq, events))
    return out


def _boot(mat):
    mat.controller.start()
    mat.run_until(lambda: mat.controller.ready)
    mat.controller.service()
    mat.take_sent()


def _touch_and_run(mat, zone, ms=30):
    mat.table.touch(zone, True, mat.clock.now_ms())
    mat.run(ms)
    mat.controller.service()
    return mat.take_sent()


def test_a_v1_host_gets_no_capabilities_and_no_touch_frames():
    mat = Mat(seats=2, slots=3, touch=True)
    _boot(mat)
    sent = mat.command(wire.HELLO_REQUEST, bytes([1]))
    assert [t for t, _ in sent] == [wire.HELLO, wire.SNAPSHOT]
    sent = _touch_and_run(mat, 4)
    assert _touch_frames(sent) == [] and mat.touch.touched_zones() == [4]
    assert all(t in (wire.SNAPSHOT, wire.LOG) for t, _ in sent)


def test_a_host_that_asks_gets_capabilities_then_timed_touch_events():
    mat = Mat(seats=2, slots=3, touch=True)
    _boot(mat)
    sent = mat.command(wire.HELLO_REQUEST, bytes([1, wire.EXT_TOUCH]))
    assert [t for t, _ in sent] == [wire.HELLO, wire.CAPABILITIES, wire.SNAPSHOT]
    assert list(sent[1][1]) == [wire.EXT_TOUCH, 1, 7, 1, 2]
    touched_at = mat.clock.now_ms()
    sent = _touch_and_run(mat, 4)
    touches = _touch_frames(sent)
    assert len(touches) == 1
    boot_id, seq, events = touches[0]
    assert (boot_id, seq) == (0xB007, 1)
    assert [(z, s) for z, s, _ in events] == [(4, 1)]
    # Dated by the first poll after the chip's 4 ms filter: a scan step (at most ~6 ms) later.
    assert touched_at + 4 <= events[0][2] <= touched_at + 4 + 8, (touched_at, events)
    mat.table.touch(4, False, mat.clock.now_ms())
    mat.run(30)
    mat.controller.service()
    assert [e[:2] for _, _, es in _touch_frames(mat.take_sent()) for e in es] == [(4, 0)]
    # A later v1 HELLO_REQUEST (another host took the port) turns the touch frames off again.
    mat.command(wire.HELLO_REQUEST, bytes([1]))
    assert _touch_frames(_touch_and_run(mat, 1)) == []


def test_a_mat_without_touch_pads_says_so():
    mat = Mat(seats=2, slots=3)
    _boot(mat)
    sent = mat.command(wire.HELLO_REQUEST, bytes([1, wire.EXT_TOUCH]))
    assert [t for t, _ in sent] == [wire.HELLO, wire.CAPABILITIES, wire.SNAPSHOT]
    assert list(sent[1][1]) == [0, 1, 0, 0, 0]


def test_touch_times_wrap_on_the_wire_modulo_2_32():
    mat = Mat(seats=1, slots=2, touch=True)
    mat.clock.us = ((1 << 32) - 3) * 1000
    _boot(mat)
    mat.command(wire.HELLO_REQUEST, bytes([1, wire.EXT_TOUCH]))
    mat.table.touch(1, True, mat.clock.now_ms())
    mat.run(20)
    mat.controller.service()
    ((_boot_id, _seq, events),) = _touch_frames(mat.take_sent())
    assert events[0][0] == 1 and events[0][2] < 100  # past 2**32 ms: counted from 0 again


# -- whose hand: split pads (docs/mat.md, "Whose hand: split pads") ---------------------------


class _MaskChip:
    """A touch chip whose status the test sets electrode by electrode."""

    def __init__(self, address=0x5A):
        self.address = address
        self.mask = 0

    def start(self):
        return None

    def touched(self):
        return self.mask


def _split_pads(split=(0, 1)):
    wiring = split_zones_per_chip(3, split)
    chips = [_MaskChip(0x5A + i) for i in range(len(wiring))]
    pads = TouchPads(chips, wiring)
    pads.start(0)
    return pads, chips[0]


def test_split_pads_take_two_electrodes_near_then_far_and_need_the_mux_past_four_chips():
    wiring = split_zones_per_chip(37, set(range(36)))
    assert [len(chip) for chip in wiring] == [12, 12, 12, 12, 12, 12, 1]
    assert wiring[0][:3] == [(0, SIDE_NEAR), (0, SIDE_FAR), (1, SIDE_NEAR)]
    assert wiring[6] == [36]  # the draw pad stays whole
    assert split_zones_per_chip(3, ()) == [[0, 1, 2]]
    try:
        split_zones_per_chip(49, set(range(48)))
    except ValueError as error:
        assert "8 touch chips" in str(error)
    else:
        raise AssertionError("96 electrodes fit on eight chips?")


def test_the_half_a_finger_reaches_first_names_the_side_it_came_from():
    pads, chip = _split_pads()
    chip.mask = 0b0010  # zone 0's far half: a hand from across the table
    pads.poll(100)
    chip.mask = 0b0011  # the finger lands on both halves
    pads.poll(103)
    pads.poll(106)
    # the near half follows: this finger spreading, or the owner's hand (the judge decides)
    assert pads.take_events_with_sides() == [
        (0, TOUCHED, 100, SIDE_FAR),
        (0, TOUCHED, 103, SIDE_NEAR),
    ]
    assert pads.touched_zones() == [0]
    chip.mask = 0b0001  # lifting: the far half goes first, the zone is still touched
    pads.poll(200)
    pads.poll(203)
    assert pads.take_events_with_sides() == []
    chip.mask = 0
    pads.poll(206)
    pads.poll(209)
    assert pads.take_events_with_sides() == [(0, RELEASED, 206, SIDE_UNKNOWN)]
    chip.mask = 0b0100  # zone 1's near half: the owner's hand
    pads.poll(300)
    pads.poll(303)
    chip.mask = 0b1100  # then its far half too: no change of the zone for a host without sides
    pads.poll(306)
    pads.poll(309)
    assert pads.take_events() == [(1, TOUCHED, 300)]  # the v1 shape: no side


def test_both_halves_first_seen_in_one_poll_is_an_unknown_side():
    pads, chip = _split_pads()
    chip.mask = 0b0011
    pads.poll(50)
    pads.poll(53)
    assert pads.take_events_with_sides() == [(0, TOUCHED, 50, SIDE_UNKNOWN)]


def test_a_whole_pad_beside_split_ones_reports_no_side():
    pads, chip = _split_pads()
    chip.mask = 0b10000  # zone 2: a whole pad, the fifth electrode
    pads.poll(10)
    pads.poll(13)
    assert pads.take_events_with_sides() == [(2, TOUCHED, 10, SIDE_UNKNOWN)]


class _SwitchBus:
    """An I2C bus that records the writes to the switch and the chip reads."""

    def __init__(self):
        self.log = []

    def writeto(self, address, data):
        self.log.append(("select", address, data[0]))

    def readfrom_mem(self, address, register, count):
        self.log.append(("read", address, register))
        return bytes(count)

    def writeto_mem(self, address, register, data):
        self.log.append(("write", address, register))


def test_the_mux_selects_a_channel_only_when_another_was_selected_last():
    bus = _SwitchBus()
    selected = [None]
    first, second = MuxedI2C(bus, 0, selected), MuxedI2C(bus, 1, selected)
    first.readfrom_mem(0x5A, 0, 2)
    first.readfrom_mem(0x5B, 0, 2)
    second.writeto_mem(0x5A, 0x5E, b"\x00")
    assert bus.log == [
        ("select", 0x70, 0x01),
        ("read", 0x5A, 0),
        ("read", 0x5B, 0),
        ("select", 0x70, 0x02),
        ("write", 0x5A, 0x5E),
    ]
    try:
        MuxedI2C(bus, 8, selected)
    except ValueError as error:
        assert "channels 0-7" in str(error)
    else:
        raise AssertionError("channel 8?")


def test_a_fully_split_mat_reads_seven_chips_through_the_switch_and_feels_the_side():
    clock = VirtualClock()
    table = SimTable(37)
    split = split_seat_zones(6, 6, 0x3F)
    pads, i2c = touch_pads(table, 37, clock, None, split)
    assert len(pads.chips) == 7 and i2c.muxed
    assert [c.address for c in pads.chips] == [0x5A, 0x5B, 0x5C, 0x5D, 0x5A, 0x5B, 0x5C]
    assert isinstance(pads.chips[5].i2c, MuxedI2C) and pads.chips[5].i2c.channel == 1
    pads.start(0)
    # s6.4 (zone 33) lies on the sixth chip, behind channel 1: a hand from across the table
    # reaches its far half first, the near half 8 ms later; the draw pad (36) stays whole.
    table.touch(33, True, 100, SIDE_FAR, 8)
    table.touch(36, True, 100)
    for ms in range(100, 130, 3):
        _poll_at(pads, clock, ms)
    events = pads.take_events_with_sides()
    assert [(z, s, side) for z, s, _t, side in events] == [
        (33, TOUCHED, SIDE_FAR),
        (36, TOUCHED, SIDE_UNKNOWN),
        (33, TOUCHED, SIDE_NEAR),
    ]
    far_ms, near_ms = events[0][2], events[2][2]
    # the chip's 4 ms filter and the 3 ms polls (each poll's reads take ~1 ms of the bus)
    assert 103 <= far_ms <= 107 and 5 <= near_ms - far_ms <= 11
    table.touch(33, False, 200)
    for ms in range(200, 215, 3):
        _poll_at(pads, clock, ms)
    ((zone, state, released_ms, side),) = pads.take_events_with_sides()
    assert (zone, state, side) == (33, RELEASED, SIDE_UNKNOWN) and 203 <= released_ms <= 207


def test_a_finger_lifted_before_it_reached_the_other_half_never_touches_it():
    table = SimTable(2)
    table.touch(0, True, 100, SIDE_NEAR, 10)
    table.touch(0, False, 105)
    assert table.feels(0, SIDE_NEAR, 104) and not table.feels(0, SIDE_NEAR, 105)
    assert not any(table.feels(0, SIDE_FAR, ms) for ms in (100, 105, 110, 200))
    assert table.touched[0] is False


def test_two_fingers_on_one_pad_keep_it_touched_until_both_leave():
    table = SimTable(2)
    table.touch(1, True, 100, SIDE_FAR, 5)  # the attacker's finger
    table.touch(1, True, 150, SIDE_NEAR, 5)  # the defender's, while the first is still there
    table.touch(1, False, 250)  # the attacker's leaves
    assert table.feels(1, SIDE_NEAR, 260) and table.feels(1, SIDE_FAR, 260)
    table.touch(1, False, 300)
    assert not table.feels(1, None, 300)


def test_split_seats_name_the_zones_of_those_seats_and_only_seats_the_mat_has():
    assert split_seat_zones(2, 3, 0) == set()
    assert split_seat_zones(2, 3, 0b10) == {3, 4, 5}
    assert split_seat_zones(6, 6, 0x3F) == set(range(36))
    try:
        split_seat_zones(2, 3, 0b100)
    except ValueError as error:
        assert "past 2: the mat has 2 seats" in str(error)
    else:
        raise AssertionError("seat 3 split on a mat of two seats?")


# -- touch extension v2: sides on the wire (src/tabletop/firmware/vectors/touch-v2.json) -------------------


def _touch_sides_frames(sent):
    out = []
    for msg_type, payload in sent:
        if msg_type == wire.TOUCH_SIDES:
            boot_id, seq, count = struct.unpack("<IHB", payload[:7])
            events = [struct.unpack("<BBBI", payload[7 + 7 * i : 14 + 7 * i]) for i in range(count)]
            out.append((boot_id, seq, events))
    return out


def test_touch_v2_messages_match_their_golden_bytes():
    checked = 0
    for message in vectors("touch-v2.json")["messages"]:
        fields = message["fields"]
        if message["kind"] == "capabilities":
            frame = wire.encode_capabilities(
                fields["extensions"],
                fields["touch_zones"],
                fields["sample_ms"],
                fields["debounce"],
                fields["split_zones"],
            )
        elif message["kind"] == "touch_sides":
            events = [tuple(e) for e in fields["events"]]
            frame = wire.encode_touch_sides(fields["boot_id"], fields["seq"], events)
        elif message["kind"] == "hello_request":
            found = frames(bytes.fromhex(message["frame_hex"]))
            got = wire.decode_hello_request(found[0][1])
            assert got == (fields["version"], fields["extensions"]), message["name"]
            checked += 1
            continue
        else:
            continue
        assert frame.hex() == message["frame_hex"], message["name"]
        checked += 1
    assert checked == 7
    for stream in vectors("touch-v2.json")["streams"]:
        got = [[t, bytes(p).hex()] for t, p in frames(bytes.fromhex(stream["stream_hex"]))]
        assert got == stream["frames"], stream["name"]


def test_a_host_that_asks_for_sides_gets_v2_capabilities_and_the_side_of_each_touch():
    mat = Mat(seats=2, slots=3, touch=True, split_seats=0b10)  # seat 2's pads are split
    _boot(mat)
    sides = wire.EXT_TOUCH | wire.EXT_TOUCH_SIDES
    sent = mat.command(wire.HELLO_REQUEST, bytes([1, sides]))
    assert [t for t, _ in sent] == [wire.HELLO, wire.CAPABILITIES, wire.SNAPSHOT]
    # touch v2, 7 zones, and the bitmap: zones 3-5 (seat 2) split
    assert list(sent[1][1]) == [sides, 2, 7, 1, 2, 0b111000]
    # Seat 1's hand on seat 2's slot 1 (zone 3), from across the table: the far half first.
    mat.table.touch(3, True, mat.clock.now_ms(), SIDE_FAR, 10)
    mat.run(40)
    mat.controller.service()
    sides_frames = _touch_sides_frames(mat.take_sent())
    assert [seq for _b, seq, _e in sides_frames] == list(range(1, len(sides_frames) + 1))
    events = [e for _b, _s, es in sides_frames for e in es]
    assert [(z, s, side) for z, s, side, _t in events] == [(3, 1, SIDE_FAR), (3, 1, SIDE_NEAR)]
    assert 6 <= events[1][3] - events[0][3] <= 14
    # A whole pad (seat 1) says no side.
    mat.table.touch(1, True, mat.clock.now_ms())
    mat.run(30)
    mat.controller.service()
    events = [e for _b, _s, es in _touch_sides_frames(mat.take_sent()) for e in es]
    assert [(z, s, side) for z, s, side, _t in events] == [(1, 1, SIDE_UNKNOWN)]


def test_a_host_that_asks_for_touch_alone_gets_touch_v1_from_a_split_mat():
    mat = Mat(seats=2, slots=3, touch=True, split_seats=0b10)
    _boot(mat)
    sent = mat.command(wire.HELLO_REQUEST, bytes([1, wire.EXT_TOUCH]))
    assert list(sent[1][1]) == [wire.EXT_TOUCH, 1, 7, 1, 2]  # five bytes, version 1
    mat.table.touch(3, True, mat.clock.now_ms(), SIDE_FAR, 10)
    mat.run(40)
    mat.controller.service()
    sent = mat.take_sent()
    assert _touch_sides_frames(sent) == []
    # one zone change, no side: the second half is no news to a host without sides
    assert [e[:2] for _, _, es in _touch_frames(sent) for e in es] == [(3, 1)]


def test_split_seats_changed_by_configure_are_announced_to_a_host_that_asked_for_extensions():
    mat = Mat(seats=2, slots=3, touch=True)
    _boot(mat)
    mat.command(wire.HELLO_REQUEST, bytes([1, wire.EXT_TOUCH | wire.EXT_TOUCH_SIDES]))
    sent = mat.command(wire.CONFIGURE, bytes([1]) + struct.pack("<BH", 10, 0b01))
    assert [t for t, _ in sent] == [wire.RESULT, wire.CAPABILITIES]
    assert list(sent[1][1])[5:] == [0b000111]  # seat 1's zones 0-2 now split
    mat.command(wire.HELLO_REQUEST, bytes([1]))  # a v1 host: no CAPABILITIES after CONFIGURE
    sent = mat.command(wire.CONFIGURE, bytes([1]) + struct.pack("<BH", 10, 0))
    assert [t for t, _ in sent] == [wire.RESULT]
