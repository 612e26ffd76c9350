"""The host's decoder and encoder against the golden vectors the firmware is tested with."""

from __future__ import annotations

import zlib
from typing import Any

import pytest

from tabletop.hardware.mat import protocol
from tabletop.hardware.mat.errors import FrameError
from tabletop.hardware.mat.framing import FrameDecoder, encode_frame
from tabletop.hardware.mat.protocol import (
    Face,
    Hello,
    LedSetting,
    Log,
    MessageType,
    Pong,
    Result,
    ScanSetting,
    Snapshot,
    decode_message,
)


def test_the_crc_is_zlibs_crc32(vectors: dict[str, Any]) -> None:
    check = vectors["crc32_check"]
    assert zlib.crc32(bytes.fromhex(check["input_hex"])) == check["crc32"]


def _messages(vectors: dict[str, Any], direction: str) -> list[dict[str, Any]]:
    return [m for m in vectors["messages"] if m["direction"] == direction]


def test_every_mat_message_decodes_to_its_fields(vectors: dict[str, Any]) -> None:
    for vector in _messages(vectors, "mat_to_host"):
        frames = FrameDecoder().feed(bytes.fromhex(vector["frame_hex"]))
        assert len(frames) == 1, vector["name"]
        message = decode_message(frames[0].msg_type, frames[0].payload)
        fields = vector["fields"]
        if isinstance(message, Snapshot):
            assert (message.boot_id, message.seq, message.uptime_ms, int(message.reason)) == (
                fields["boot_id"],
                fields["seq"],
                fields["uptime_ms"],
                fields["reason"],
            )
            got = [
                {
                    "present": z.present,
                    "face": z.face.value,
                    "fault": z.fault,
                    "generation": z.generation,
                    "quality": z.quality,
                    "level": z.level,
                    "uid": z.uid.hex(),
                }
                for z in message.zones
            ]
            assert got == fields["zones"], vector["name"]
        elif isinstance(message, Hello):
            assert message == Hello(
                fields["version"],
                fields["boot_id"],
                fields["seats"],
                fields["slots"],
                fields["pad"],
                fields["firmware"],
            )
            assert message.zone_count == 37
        elif isinstance(message, Pong):
            assert message == Pong(fields["nonce"], fields["uptime_ms"])
        elif isinstance(message, Result):
            assert (message.for_type, message.code.value, message.text) == (
                fields["for_type"],
                fields["code"],
                fields["text"],
            )
        else:
            assert isinstance(message, Log)
            assert (message.level, message.text) == (fields["level"], fields["text"])


def test_every_snapshot_vector_round_trips_through_the_host_encoder(
    vectors: dict[str, Any],
) -> None:
    for vector in _messages(vectors, "mat_to_host"):
        if vector["kind"] != "snapshot":
            continue
        frame = bytes.fromhex(vector["frame_hex"])
        message = decode_message(MessageType.SNAPSHOT, FrameDecoder().feed(frame)[0].payload)
        assert isinstance(message, Snapshot)
        assert encode_frame(MessageType.SNAPSHOT, protocol.encode_snapshot(message)) == frame


def test_every_host_command_encodes_to_its_golden_bytes(vectors: dict[str, Any]) -> None:
    built = {
        "hello_request": protocol.hello_request(),
        "snapshot_request": protocol.snapshot_request(),
        "ping": protocol.ping(0x12345678),
        "set_leds": protocol.set_leds(
            [LedSetting(0, 255, 128, 0), LedSetting(255, 0, 0, 0, blink=True)]
        ),
        "configure": protocol.configure(
            {ScanSetting.PRESENT_READS: 3, ScanSetting.HEARTBEAT_MS: 500}
        ),
    }
    vectors_by_kind = {v["kind"]: v for v in _messages(vectors, "host_to_mat")}
    assert set(vectors_by_kind) == set(built)
    for kind, (msg_type, payload) in built.items():
        assert encode_frame(msg_type, payload).hex() == vectors_by_kind[kind]["frame_hex"], kind


@pytest.mark.parametrize("chunk", [1, 3, 1000])
def test_damaged_streams_give_exactly_the_good_frames(vectors: dict[str, Any], chunk: int) -> None:
    for stream in vectors["streams"]:
        data = bytes.fromhex(stream["stream_hex"])
        decoder = FrameDecoder()
        got = []
        for at in range(0, len(data), chunk):
            got += [[f.msg_type, f.payload.hex()] for f in decoder.feed(data[at : at + chunk])]
        assert got == stream["frames"], stream["name"]


def test_damage_is_counted_by_kind() -> None:
    ping = encode_frame(MessageType.PING, b"\x01\x00\x00\x00")
    decoder = FrameDecoder()
    damaged = bytearray(ping)
    damaged[-2] ^= 0xFF
    oversized = bytes([0xA5, 1, 2, 0xFF, 0xFF])
    frames = decoder.feed(bytes(damaged) + oversized + bytes([0xA5, 0]) + ping)
    assert len(frames) == 1
    stats = decoder.stats
    assert (stats.crc_errors, stats.oversized, stats.bad_versions) == (1, 1, 1)
    assert stats.frames == 1


def test_a_frame_from_another_protocol_version_is_recognised_not_decoded() -> None:
    body = bytes([2, 0x01, 0, 0])
    frame = bytes([0xA5]) + body + zlib.crc32(body).to_bytes(4, "little")
    decoder = FrameDecoder()
    (found,) = decoder.feed(frame)
    assert found.version == 2
    assert decoder.stats.versions_seen == {2}


@pytest.mark.parametrize(
    ("msg_type", "payload", "message"),
    [
        (0x02, b"\x00" * 13, "SNAPSHOT header needs 14 bytes"),
        (0x02, bytes(12) + b"\x00\x01" + b"\x01\x00", "zone 0 card needs"),
        (
            0x02,
            bytes(12) + b"\x00\x01" + b"\x01\x00" + b"\x64\x00\x00\x05" + bytes(5),
            "UID size 5",
        ),
        (0x02, bytes(12) + b"\x09\x00", "unknown reason 9"),
        (0x02, bytes(12) + b"\x00\x01" + b"\xf0\x00", "unknown flags 0xf0"),
        (0x02, bytes(12) + b"\x00\x00" + b"\x00", "1 bytes after the last zone"),
        (0x01, bytes([1, 0, 0, 0, 0, 9, 6, 1, 0]), "impossible layout 9x6"),
        (0x03, b"\x00", "PONG: needs 8 bytes"),
        (0x04, b"\x85\x09", "unknown code 9"),
        (0x83, b"", "PING is a host command"),
        (0x42, b"", "unknown message type 0x42"),
    ],
)
def test_a_checked_frame_that_does_not_read_is_refused_with_the_reason(
    msg_type: int, payload: bytes, message: str
) -> None:
    with pytest.raises(FrameError, match=message):
        decode_message(msg_type, payload)


def test_describe_gives_a_person_one_line_per_message(vectors: dict[str, Any]) -> None:
    lines = []
    for vector in _messages(vectors, "mat_to_host"):
        frame = FrameDecoder().feed(bytes.fromhex(vector["frame_hex"]))[0]
        lines.append(protocol.describe(decode_message(frame.msg_type, frame.payload)))
    assert any(line.startswith("SNAPSHOT boot=deadbeef seq=7 reason=change") for line in lines)
    assert any("0:04a1b2c3d4e5f6/up/q100/g1" in line for line in lines)
    assert any(line.startswith("HELLO v1 boot=deadbeef 6x6+pad") for line in lines)
    assert all("\n" not in line for line in lines)
    assert Face.DOWN.text == "down"
