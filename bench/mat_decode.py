"""Host decode throughput: frames, snapshots and events per second from a full 37-zone mat.

Builds a stream of snapshots as the mat sends them (36 cards, 7-byte UIDs, one card moving per
snapshot) and pushes it through the three host layers in 4 KiB reads, as the reader thread does.

    .venv/bin/python bench/mat_decode.py
"""

from __future__ import annotations

import random
import time

from tabletop.hardware.mat.cardmap import simulated_deck
from tabletop.hardware.mat.framing import FrameDecoder, encode_frame
from tabletop.hardware.mat.protocol import (
    Face,
    MessageType,
    Snapshot,
    SnapshotReason,
    ZoneReading,
    decode_message,
    encode_snapshot,
)
from tabletop.hardware.mat.session import MatSession

FRAMES = 5_000
CHUNK = 4096


def build_stream(corrupt_share: float) -> tuple[bytes, int]:
    rng = random.Random(1)
    deck = simulated_deck()
    uids = [bytes.fromhex(u) for u in sorted(deck.cards)]
    hello = encode_frame(
        MessageType.HELLO, bytes([1]) + (7).to_bytes(4, "little") + bytes([6, 6, 1, 3]) + b"sim"
    )
    generations = [1] * 37
    present = [True] * 36 + [False]
    parts = [hello]
    corrupted = 0
    for seq in range(1, FRAMES + 1):
        moving = rng.randrange(36)
        present[moving] = not present[moving]
        generations[moving] = (generations[moving] + 1) & 0xFF
        zones = tuple(
            ZoneReading(True, Face.UP, False, generations[i], 100, 11000, uids[i])
            if present[i]
            else ZoneReading(False, Face.UNKNOWN, False, generations[i])
            for i in range(37)
        )
        frame = bytearray(
            encode_frame(
                MessageType.SNAPSHOT,
                encode_snapshot(Snapshot(7, seq, seq, SnapshotReason.CHANGE, zones)),
            )
        )
        if rng.random() < corrupt_share:
            frame[rng.randrange(len(frame))] ^= 1 << rng.randrange(8)
            corrupted += 1
        parts.append(bytes(frame))
    return b"".join(parts), corrupted


def run(stream: bytes, layer: str) -> tuple[float, int]:
    start = time.perf_counter()
    count = 0
    if layer == "framing":
        decoder = FrameDecoder()
        for at in range(0, len(stream), CHUNK):
            count += len(decoder.feed(stream[at : at + CHUNK]))
    elif layer == "messages":
        decoder = FrameDecoder()
        for at in range(0, len(stream), CHUNK):
            for frame in decoder.feed(stream[at : at + CHUNK]):
                decode_message(frame.msg_type, frame.payload)
                count += 1
    else:
        session = MatSession("bench", simulated_deck())
        session.opened(0.0)
        for at in range(0, len(stream), CHUNK):
            count += len(session.receive(stream[at : at + CHUNK], 0.0))
        count = session.stats.snapshots
    return time.perf_counter() - start, count


def main() -> int:
    for share in (0.0, 0.01):
        stream, corrupted = build_stream(share)
        print(
            f"stream: {FRAMES} snapshots of 37 zones, {len(stream) / 1e6:.2f} MB, "
            f"{corrupted} with a flipped bit"
        )
        for layer in ("framing", "messages", "session"):
            best = min((run(stream, layer) for _ in range(3)), key=lambda r: r[0])
            seconds, count = best
            print(
                f"  {layer:9} {count / seconds:9.0f} snapshots/s  "
                f"{len(stream) / seconds / 1e6:6.1f} MB/s  ({count} good)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
