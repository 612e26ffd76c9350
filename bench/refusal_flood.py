"""Benchmark: what a flood of large refused commands costs a table (issue 13, finding 3).

    .venv/bin/python bench/refusal_flood.py [--flood 300] [--size 60000] [--round-trips 200]

Runs the rules daemon on the embedded broker (in this process, on a free port) with a fresh
log, starts a game, then times M commands one at a time (p50/p99 reply latency) before and
after an anonymous client sends N refused commands of about SIZE bytes each. Prints the size
of the retained state before and after, and the latencies, as JSON. Before the fix the state
grew by every refusal (300 x 60 KB: 18 MB, republished after every command).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tabletop.daemon.client import TableClient  # noqa: E402
from tabletop.daemon.service import RulesDaemon  # noqa: E402
from tabletop.figures import percentile  # noqa: E402
from tabletop.wire.broker import EmbeddedBroker, free_port  # noqa: E402

ROSTER = {
    "cmd": "new_game",
    "players": [
        {"name": "Ana", "descriptor": "sly", "lucky": [7]},
        {"name": "Bo", "descriptor": "sharp", "lucky": [3]},
    ],
    "seed": 1,
}


def latencies(table: TableClient, count: int) -> dict[str, float]:
    """Reply latency of `count` refused-but-cheap commands, one at a time, in ms."""
    times = []
    for _ in range(count):
        started = time.perf_counter()
        table.send({"cmd": "reveal", "player": "Nobody", "slot": 1})
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {
        "p50_ms": round(statistics.median(times), 2),
        "p99_ms": round(percentile(times, 0.99), 2),
    }


def state_bytes(table: TableClient) -> int:
    table.sync()
    return len(json.dumps(table.state()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=300, help="refused commands sent")
    parser.add_argument("--size", type=int, default=60_000, help="bytes of each")
    parser.add_argument("--round-trips", type=int, default=200, help="timed commands")
    args = parser.parse_args()
    broker = EmbeddedBroker("127.0.0.1", free_port())
    broker.start()
    with tempfile.TemporaryDirectory() as tmp:
        daemon = RulesDaemon(broker.url, "flood", Path(tmp) / "log.sqlite3")
        stop = threading.Event()
        daemon.start(timeout=10)
        thread = threading.Thread(target=daemon.run, args=(stop,))
        thread.start()
        try:
            with TableClient(broker.url, "flood") as table:
                table.send(ROSTER)
                before = {"state_bytes": state_bytes(table), **latencies(table, args.round_trips)}
                filler = "x" * args.size
                for n in range(args.flood):
                    table.send({"cmd": "roll", "value": filler, "id": f"flood-{n}"})
                    if n % 50 == 49:
                        print(f"flood: {n + 1} of {args.flood} sent", file=sys.stderr)
                after = {"state_bytes": state_bytes(table), **latencies(table, args.round_trips)}
        finally:
            stop.set()
            thread.join(10)
            daemon.close()
            broker.stop()
    result: dict[str, Any] = {
        "flood": args.flood,
        "payload_bytes": args.size,
        "before": before,
        "after": after,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
