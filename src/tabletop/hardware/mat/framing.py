"""Frames on the serial line: pure bytes in, checked frames out, damage counted.

A frame is SOF (0xA5), version, type, payload length (u16 LE), payload, then a CRC-32 (zlib's,
LE) over version..payload. The decoder holds no clock and no port: the reader thread feeds it
whatever bytes arrived and calls `drop_stale()` when a partial frame stops arriving.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

SOF = 0xA5
VERSION = 1
# Every protocol version keeps SOF, version, type, length and the CRC where v1 has them, so a
# host can recognise a mat that speaks another version and say so.
MAX_VERSION = 15
HEADER_SIZE = 5
CRC_SIZE = 4
MAX_PAYLOAD = 1024
_SOF_BYTE = bytes([SOF])
_HEADER = struct.Struct("<BBBH")
_CRC = struct.Struct("<I")


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame that passed its CRC; `version` other than VERSION means a newer or older mat."""

    msg_type: int
    payload: bytes
    version: int = VERSION


@dataclass(slots=True)
class FrameStats:
    """What the decoder saw: good frames, and every kind of damage it skipped."""

    frames: int = 0
    bytes_in: int = 0
    skipped_bytes: int = 0
    crc_errors: int = 0
    bad_versions: int = 0  # a version byte no protocol will ever use (0, or over 15)
    oversized: int = 0
    truncated: int = 0
    versions_seen: set[int] = field(default_factory=set)  # checked frames of other versions

    @property
    def damaged(self) -> int:
        """Frames (or frame-looking starts) rejected for any reason."""
        return self.crc_errors + self.bad_versions + self.oversized + self.truncated


def encode_frame(msg_type: int, payload: bytes = b"") -> bytes:
    """Returns the frame carrying `payload` as a message of `msg_type`."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes is over the {MAX_PAYLOAD}-byte limit")
    body = _HEADER.pack(SOF, VERSION, msg_type, len(payload)) + payload
    return body + _CRC.pack(zlib.crc32(body[1:]))


class FrameDecoder:
    """Cuts a byte stream into checked frames, resynchronising on any byte after damage.

    When a candidate frame fails (bad version, oversized length, CRC), the search restarts one
    byte after its SOF, so a good frame that began inside the damaged one is still found.
    """

    def __init__(self) -> None:
        self.stats = FrameStats()
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[Frame]:
        """Adds received bytes; returns the complete, checked frames now available."""
        self.stats.bytes_in += len(data)
        self._buffer += data
        return self._scan()

    @property
    def pending(self) -> int:
        """Bytes held while waiting for the rest of a frame."""
        return len(self._buffer)

    def drop_stale(self) -> list[Frame]:
        """Gives up on a partial frame (its sender stopped mid-frame); returns what follows it."""
        if not self._buffer:
            return []
        self.stats.truncated += 1
        self.stats.skipped_bytes += 1
        del self._buffer[0]
        return self._scan()

    def reset(self) -> None:
        """Forgets buffered bytes (after the port was closed and opened again)."""
        self._buffer.clear()

    def _scan(self) -> list[Frame]:
        buffer = self._buffer
        stats = self.stats
        frames: list[Frame] = []
        start = 0
        size = len(buffer)
        while True:
            sof = buffer.find(_SOF_BYTE, start)
            if sof < 0:
                stats.skipped_bytes += size - start
                start = size
                break
            stats.skipped_bytes += sof - start
            start = sof
            if size - start < HEADER_SIZE:
                break
            _, version, msg_type, length = _HEADER.unpack_from(buffer, start)
            if not 1 <= version <= MAX_VERSION:
                stats.bad_versions += 1
                stats.skipped_bytes += 1
                start += 1
                continue
            if length > MAX_PAYLOAD:
                stats.oversized += 1
                stats.skipped_bytes += 1
                start += 1
                continue
            end = start + HEADER_SIZE + length + CRC_SIZE
            if size < end:
                break
            (expected,) = _CRC.unpack_from(buffer, end - CRC_SIZE)
            if zlib.crc32(memoryview(buffer)[start + 1 : end - CRC_SIZE]) != expected:
                stats.crc_errors += 1
                stats.skipped_bytes += 1
                start += 1
                continue
            payload = bytes(buffer[start + HEADER_SIZE : end - CRC_SIZE])
            frames.append(Frame(msg_type, payload, version))
            if version != VERSION:
                stats.versions_seen.add(version)
            stats.frames += 1
            start = end
        del buffer[:start]
        return frames
