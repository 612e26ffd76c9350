"""Host commands, snapshots and heartbeats (CPython and MicroPython)."""

import struct

from fwhelpers import Mat, card, parse_snapshot

from tabletop.firmware import config, wire
from tabletop.firmware.touch import SIDE_FAR, SIDE_NEAR, SIDE_UNKNOWN


def test_boot_sends_hello_then_a_snapshot_once_every_zone_is_known():
    mat = Mat(seats=2, slots=3)
    mat.table.place(4, card(4))  # lying on the mat before power-up
    mat.controller.start()
    sent = mat.take_sent()
    assert [t for t, _ in sent] == [wire.HELLO]
    hello = sent[0][1]
    assert hello[0] == 1 and struct.unpack("<I", hello[1:5])[0] == 0xB007
    assert list(hello[5:8]) == [2, 3, 1]
    assert mat.command(wire.SNAPSHOT_REQUEST) == []  # not yet: it would say "empty"
    mat.run_until(lambda: mat.controller.ready, 500)
    mat.controller.service()
    snapshots = mat.snapshots()
    assert len(snapshots) == 1
    head, zones = snapshots[0]
    assert head["reason"] == wire.REASON_BOOT and head["seq"] == 1
    assert len(zones) == 7
    assert [i for i, z in enumerate(zones) if z["present"]] == [4]


def test_a_settled_change_sends_a_snapshot_at_once():
    mat = Mat()
    mat.controller.start()
    mat.run_until(lambda: mat.controller.ready)
    mat.take_sent()
    mat.table.place(2, card(7), "down")
    mat.run_until(lambda: mat.zones.states[2].uid is not None)
    mat.controller.service()
    snapshots = mat.snapshots()
    assert snapshots, "no snapshot after the change"
    head, zones = snapshots[-1]
    assert head["reason"] == wire.REASON_CHANGE
    assert zones[2]["present"] and zones[2]["uid"] == card(7).uid.hex()
    assert zones[2]["face"] == wire.FACE_DOWN and zones[2]["generation"] == 1


def test_a_quiet_mat_sends_a_heartbeat_about_once_a_second():
    mat = Mat()
    mat.controller.start()
    mat.run_until(lambda: mat.controller.ready)
    mat.controller.service()
    mat.take_sent()
    mat.run(3050)
    snapshots = mat.snapshots()
    assert len(snapshots) == 3
    assert all(head["reason"] == wire.REASON_HEARTBEAT for head, _ in snapshots)
    assert [head["seq"] for head, _ in snapshots] == [2, 3, 4]


def test_hello_and_snapshot_requests_are_answered():
    mat = Mat()
    mat.run_until(lambda: mat.controller.ready)
    mat.take_sent()
    assert [t for t, _ in mat.command(wire.HELLO_REQUEST, b"\x01")] == [wire.HELLO, wire.SNAPSHOT]
    sent = mat.command(wire.SNAPSHOT_REQUEST)
    assert [t for t, _ in sent] == [wire.SNAPSHOT]
    assert parse_snapshot(sent[0][1])[0]["reason"] == wire.REASON_REQUEST


def test_ping_is_answered_with_its_nonce():
    mat = Mat()
    sent = mat.command(wire.PING, struct.pack("<I", 0xCAFE))
    assert sent[0][0] == wire.PONG
    assert struct.unpack("<I", sent[0][1][:4])[0] == 0xCAFE


def test_leds_are_set_per_zone_and_for_all():
    mat = Mat()
    sent = mat.command(wire.SET_LEDS, bytes([2, 255, 0, 0, 9, 0, 1, 200, 10, 0, 1]))
    assert sent == [(wire.RESULT, bytes([wire.SET_LEDS, wire.OK]))]
    assert mat.leds.colours[0] == (0, 0, 9, 0)
    assert mat.leds.colours[1] == (200, 10, 0, 1)
    assert mat.leds.shows == 1


def test_an_led_for_a_missing_zone_is_refused():
    mat = Mat()
    sent = mat.command(wire.SET_LEDS, bytes([1, 40, 1, 1, 1, 0]))
    assert sent[0][1][1] == wire.BAD_VALUE and b"no zone 40" in sent[0][1]
    assert mat.leds.shows == 0


def test_configure_changes_the_scan():
    mat = Mat()
    payload = bytes([2]) + struct.pack("<BH", 1, 3) + struct.pack("<BH", 3, 250)
    assert mat.command(wire.CONFIGURE, payload) == [(wire.RESULT, bytes([wire.CONFIGURE, 0]))]
    assert mat.zones.config.present_reads == 3
    assert mat.zones.config.heartbeat_ms == 250


def test_a_refused_configure_changes_nothing():
    mat = Mat()
    payload = bytes([2]) + struct.pack("<BH", 1, 3) + struct.pack("<BH", 2, 99)
    sent = mat.command(wire.CONFIGURE, payload)
    assert sent[0][1][1] == wire.BAD_VALUE
    assert b"absent_misses must be 1-10, not 99" in sent[0][1]
    assert mat.zones.config.present_reads == 2
    sent = mat.command(wire.CONFIGURE, bytes([1]) + struct.pack("<BH", 42, 1))
    assert sent[0][1][1] == wire.BAD_KEY


def test_configure_split_seats_reads_the_pads_split_and_refuses_a_seat_the_mat_lacks():
    mat = Mat(seats=2, slots=3, touch=True)  # built with whole pads
    whole = mat.controller.touch
    assert mat.zones.config.split_seats == 0 and len(whole.electrodes) == 7
    split = struct.pack("<BH", config.SPLIT_SEATS, 0b100)
    sent = mat.command(wire.CONFIGURE, bytes([1]) + split)
    assert sent[0][1][1] == wire.BAD_VALUE and b"past 2: the mat has 2 seats" in sent[0][1]
    assert mat.controller.touch is whole and mat.zones.config.split_seats == 0
    sent = mat.command(wire.CONFIGURE, bytes([1]) + struct.pack("<BH", config.SPLIT_SEATS, 64))
    assert b"split_seats must be 0-63, not 64" in sent[0][1]
    # Seat 2 split: its three slots take two electrodes each, seat 1 and the pad one.
    sent = mat.command(wire.CONFIGURE, bytes([1]) + struct.pack("<BH", config.SPLIT_SEATS, 2))
    assert sent == [(wire.RESULT, bytes([wire.CONFIGURE, wire.OK]))]
    pads = mat.controller.touch
    assert pads is not whole and len(pads.electrodes) == 10
    assert (3, SIDE_NEAR) in pads.electrodes and (5, SIDE_FAR) in pads.electrodes
    assert (0, SIDE_UNKNOWN) in pads.electrodes and (6, SIDE_UNKNOWN) in pads.electrodes
    # The same value again builds nothing anew.
    mat.command(wire.CONFIGURE, bytes([1]) + struct.pack("<BH", config.SPLIT_SEATS, 2))
    assert mat.controller.touch is pads


def test_an_unknown_command_gets_a_result_not_silence():
    mat = Mat()
    sent = mat.command(0x9F)
    assert sent[0][1][:2] == bytes([0x9F, wire.UNKNOWN_COMMAND])


def test_a_damaged_command_is_ignored():
    mat = Mat()
    frame = bytearray(wire.encode_frame(wire.PING, struct.pack("<I", 1)))
    frame[6] ^= 0x10
    mat.link.inbox.extend(frame)
    mat.controller.service()
    assert [t for t, _ in mat.take_sent() if t == wire.PONG] == []
    assert mat.controller.reader.damaged == 1


def test_a_command_with_a_damaged_length_does_not_swallow_the_next_ones():
    mat = Mat()
    broken = bytearray(wire.encode_frame(wire.PING, struct.pack("<I", 1)))
    broken[3] = 0xF0  # claims 1008 bytes of payload
    mat.link.inbox.extend(broken + wire.encode_frame(wire.PING, struct.pack("<I", 2)))
    mat.controller.service()
    assert [t for t, _ in mat.take_sent() if t == wire.PONG] == []
    mat.clock.advance_ms(60)
    mat.controller.service()
    pongs = [p for t, p in mat.take_sent() if t == wire.PONG]
    assert [struct.unpack("<I", p[:4])[0] for p in pongs] == [2]
