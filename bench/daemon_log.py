"""Benchmark of the rules daemon's core without the network: the referee and its durable log.

    .venv/bin/python bench/daemon_log.py [--commands 3000]

Decides commands (JSON bytes, as they come off MQTT) and commits them to a fresh SQLite log,
in batches of 1, 10 and 100 commands per transaction, for both sync modes; prints durable
commands per second. This is the ceiling the daemon's batching approaches under load, and
the cost of a disk sync per command when it does not batch.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from daemon_mqtt import commands

from tabletop.daemon.referee import Referee
from tabletop.daemon.store import GameLog


def run(count: int, batch: int, sync: str) -> float:
    """Durable commands per second for `count` commands committed `batch` at a time."""
    with tempfile.TemporaryDirectory() as workdir:
        log = GameLog(Path(workdir) / "games.sqlite3", "bench", sync=sync)
        log.open()
        referee = Referee(log)
        referee.load()
        payloads = [
            json.dumps({**command, "id": f"b{n}"}).encode()
            for n, command in enumerate(commands(count))
        ]
        start = time.perf_counter()
        for index, payload in enumerate(payloads, start=1):
            if not referee.handle(payload).ok:
                raise SystemExit(f"command {index} refused")
            if index % batch == 0:
                referee.commit()
        referee.commit()
        seconds = time.perf_counter() - start
        log.close()
    return count / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=3000)
    args = parser.parse_args()
    print(f"{args.commands} commands of a legal game, decided and logged (durable commands/s):")
    print(f"{'commands per commit':>20} {'sync=full':>12} {'sync=normal':>12}")
    for batch in (1, 10, 100):
        full = run(args.commands, batch, "full")
        normal = run(args.commands, batch, "normal")
        print(f"{batch:>20} {full:>12,.0f} {normal:>12,.0f}")


if __name__ == "__main__":
    main()
