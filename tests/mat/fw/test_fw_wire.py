"""Firmware framing and messages against the golden vectors (runs under CPython and MicroPython)."""

import struct

from fwhelpers import vectors

from tabletop.firmware import wire


def test_crc_matches_the_vector_and_the_software_fallback():
    check = vectors()["crc32_check"]
    data = bytes.fromhex(check["input_hex"])
    assert wire.checksum(data) == check["crc32"]
    assert wire._crc32_soft(data) == check["crc32"]


def _encode(message):
    fields = message["fields"]
    kind = message["kind"]
    if kind == "hello":
        return wire.encode_hello(
            fields["boot_id"], fields["seats"], fields["slots"], fields["pad"], fields["firmware"]
        )
    if kind == "snapshot":
        records = [
            wire.encode_zone(
                z["present"],
                z["face"],
                z["fault"],
                z["generation"],
                z["quality"],
                z["level"],
                bytes.fromhex(z["uid"]),
            )
            for z in fields["zones"]
        ]
        return wire.encode_snapshot(
            fields["boot_id"], fields["seq"], fields["uptime_ms"], fields["reason"], records
        )
    if kind == "pong":
        return wire.encode_pong(fields["nonce"], fields["uptime_ms"])
    if kind == "result":
        return wire.encode_result(fields["for_type"], fields["code"], fields["text"])
    if kind == "log":
        return wire.encode_log(fields["level"], fields["text"])
    raise AssertionError("no encoder for " + kind)


def test_every_message_the_mat_sends_matches_its_golden_bytes():
    checked = 0
    for message in vectors()["messages"]:
        if message["direction"] == "mat_to_host":
            assert _encode(message).hex() == message["frame_hex"], message["name"]
            checked += 1
    assert checked >= 6


def test_every_host_command_in_the_vectors_is_read_back():
    seen = []
    for message in vectors()["messages"]:
        if message["direction"] != "host_to_mat":
            continue
        found = wire.FrameReader().feed(bytes.fromhex(message["frame_hex"]))
        assert len(found) == 1, message["name"]
        msg_type, payload = found[0]
        fields = message["fields"]
        kind = message["kind"]
        if kind == "ping":
            assert msg_type == wire.PING
            assert wire.decode_ping(payload) == fields["nonce"]
        elif kind == "set_leds":
            assert msg_type == wire.SET_LEDS
            assert [list(e) for e in wire.decode_set_leds(payload)] == fields["leds"]
        elif kind == "configure":
            assert msg_type == wire.CONFIGURE
            assert [list(p) for p in wire.decode_configure(payload)] == fields["settings"]
        elif kind == "hello_request":
            assert msg_type == wire.HELLO_REQUEST
            assert payload[0] == fields["version"]
        elif kind == "snapshot_request":
            assert msg_type == wire.SNAPSHOT_REQUEST
            assert payload == b""
        seen.append(kind)
    assert sorted(seen) == ["configure", "hello_request", "ping", "set_leds", "snapshot_request"]


def test_damaged_streams_give_exactly_the_good_frames():
    for stream in vectors()["streams"]:
        reader = wire.FrameReader()
        data = bytes.fromhex(stream["stream_hex"])
        got = []
        # Byte by byte: resynchronisation must not depend on how the bytes arrive.
        for i in range(len(data)):
            got += [[t, bytes(p).hex()] for t, p in reader.feed(data[i : i + 1])]
        assert got == stream["frames"], stream["name"]


def test_a_partial_frame_that_stops_arriving_is_dropped_and_what_follows_is_kept():
    ping = wire.encode_frame(wire.PING, struct.pack("<I", 9))
    reader = wire.FrameReader()
    assert reader.feed(bytes([wire.SOF, 1, 2, 200, 0]) + ping) == []
    assert reader.pending() > 0
    assert [t for t, _ in reader.drop_stale()] == [wire.PING]
    assert reader.damaged == 1


def test_bad_command_payloads_are_refused_with_a_reason():
    for decode, payload in (
        (wire.decode_ping, b"\x01"),
        (wire.decode_set_leds, b"\x02\x00"),
        (wire.decode_configure, b"\x01\x01"),
        (wire.decode_configure, b""),
    ):
        try:
            decode(payload)
        except wire.CommandError as error:
            assert error.code == wire.BAD_PAYLOAD
            assert "length" in error.text or "bytes" in error.text
        else:
            raise AssertionError("accepted %r" % payload)


def test_a_payload_over_the_limit_is_not_framed():
    try:
        wire.encode_frame(wire.LOG, bytes(wire.MAX_PAYLOAD + 1))
    except ValueError as error:
        assert "1025" in str(error)
    else:
        raise AssertionError("framed an oversized payload")
