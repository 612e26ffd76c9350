"""Benchmark of a rules daemon's restart on a long log: how long until its tables are back.

    .venv/bin/python bench/restart.py [--tables 1] [--commands 100000] [--restarts 3]
                                      [--no-snapshots]
    .venv/bin/python bench/restart.py --acks 5000


Writes a SQLite log (WAL) of `--tables` tables, each with `--commands` commands of a legal game
that never ends (bench/daemon_mqtt.py), through the referee and its log as the daemon writes
them (`--no-snapshots`: a log as a daemon without snapshots wrote it, the state only in the
events). Then, `--restarts` times: a private Mosquitto on a free loopback port, one
`tabletop rules --tables ...` process on that log, and the time from spawning it until every
table's retained `rules/availability` says `online` and has answered one command; the daemon's
peak memory (VmHWM) at that point. Prints each run and the median.

`--acks N`: what a snapshot costs the command it rides with. N commands decided and committed
one at a time (one transaction each: what an acknowledgement waits for) on a fresh log, with
`--sync normal` (no disk sync: the CPU) and `full`, with snapshots every SNAPSHOT_EVERY
commands and without: the commits' p50 / p99 without a snapshot, the p50 and max of those that
carried one, and the time to build one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from daemon_mqtt import commands, cpu_seconds, start_broker  # noqa: E402
from room import Room, memory, rules_process  # noqa: E402

from tabletop.daemon import referee as referee_module  # noqa: E402
from tabletop.daemon.referee import Referee  # noqa: E402
from tabletop.daemon.store import GameLog, LogDatabase, append_together  # noqa: E402
from tabletop.figures import percentile  # noqa: E402
from tabletop.wire.broker import free_port  # noqa: E402

BATCH = 500
# 0 on code from before snapshots (PYTHONPATH=<a checkout of it>: the figures before).
SNAPSHOT_EVERY = int(getattr(referee_module, "SNAPSHOT_EVERY", 0))


def write_log(db: Path, tables: list[str], count: int, every: int, tail: int) -> float:
    """Writes `count` commands to every table of a fresh log, a snapshot every `every` (0:
    none) but none in the last `tail`; returns the seconds it took."""
    started = time.perf_counter()
    database = LogDatabase(db, "normal")
    database.open()
    referees = []
    for table in tables:
        assert database.claim(table)
        referee = Referee(GameLog(db, table, "normal", database=database))
        referee.snapshot_every = every
        referee.load()
        referees.append(referee)
    payloads = [json.dumps(command) for command in commands(count)]
    last = count - tail
    for start, end in [(s, min(s + BATCH, last)) for s in range(0, last, BATCH)] + [(last, count)]:
        for referee in referees:
            referee.snapshot_every = every if end <= last else 0
            for n, text in enumerate(payloads[start:end], start=start):
                body = text[:-1] + f', "id": "w{n}"}}'
                if not referee.handle(body.encode()).ok:
                    raise SystemExit(f"table {referee.table}: command {n} refused")
        append_together([(referee.log, referee.pending()) for referee in referees])
        for referee in referees:
            referee.saved()
    database.checkpoint()
    database.close()
    return time.perf_counter() - started


def acks(count: int, every: int, sync: str) -> dict[str, float]:
    """Commit times (ms) of `count` single commands: p50 and p99 of those without a snapshot,
    p50 and max of those that carried one, and the mean time to build one (`_snapshot`)."""
    with tempfile.TemporaryDirectory() as folder:
        log = GameLog(Path(folder) / "games.sqlite3", "bench", sync)
        log.open()
        referee = Referee(log)
        referee.snapshot_every = every
        referee.load()
        plain: list[float] = []
        carrying: list[float] = []
        building: list[float] = []
        for n, command in enumerate(commands(count)):
            referee.handle(json.dumps({**command, "id": f"a{n}"}).encode())
            before = log.snapshot_seq
            started = time.perf_counter()
            referee.commit()
            seconds = (time.perf_counter() - started) * 1000
            (carrying if log.snapshot_seq != before else plain).append(seconds)
            if n % 50 == 0:
                started = time.perf_counter()
                referee._snapshot()
                building.append((time.perf_counter() - started) * 1000)
        log.close()
    plain.sort()
    return {
        "p50": statistics.median(plain),
        "p99": percentile(plain, 0.99),
        "with p50": statistics.median(carrying) if carrying else 0.0,
        "with max": max(carrying, default=0.0),
        "build": statistics.mean(building),
    }


def restart(
    port: int, tables: list[str], db: Path, workdir: Path
) -> tuple[float, float, int, float]:
    """Seconds until every table is online, until each answered a command, peak kB, and the
    daemon's CPU seconds until online (what a busy machine does not stretch)."""
    room = Room(port)
    try:
        started = time.perf_counter()
        daemon = rules_process(port, tables, str(db), "bench-restart", workdir / "daemon.log")
        try:
            room.wait(lambda: room.online >= set(tables), 600, "every table online")
            online = time.perf_counter() - started
            cpu = cpu_seconds(daemon.pid)
            peak = memory(daemon.pid)["VmHWM"]
            for table in tables:
                # A command the game refuses (no such player): answered, and nothing changes.
                # The same id each time: logged once, then answered again from the log.
                room.send(table, {"id": f"ask-{table}", "cmd": "challenge"})
            room.wait(lambda: len(room.latency) >= len(tables), 120, "every table's reply")
            answered = time.perf_counter() - started
        finally:
            daemon.terminate()
            daemon.wait(30)
    finally:
        room.close()
    return online, answered, peak, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument("--commands", type=int, default=100_000)
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--no-snapshots", action="store_true")
    parser.add_argument(
        "--every", type=int, default=SNAPSHOT_EVERY, help="a snapshot every N commands"
    )
    parser.add_argument(
        "--tail",
        type=int,
        default=None,
        help="commands after the last snapshot (default: the most there can be, N - 2, as "
        "the first restart's question adds one)",
    )
    parser.add_argument("--acks", type=int, default=0, help="measure commit times instead")
    args = parser.parse_args()
    if args.acks:
        if not 1 <= args.acks <= 100_000:
            raise SystemExit("bounded: --acks 1-100,000")
        runs = [(sync, every) for sync in ("normal", "full") for every in (0, SNAPSHOT_EVERY)]
        for sync, every in runs * 2:  # interleaved: the disk's syncs vary
            found = acks(args.acks, every, sync)
            kind = f"a snapshot every {every}" if every else "no snapshots"
            line = f"{args.acks:,} commits, --sync {sync}, {kind}: without one p50 "
            line += f"{found['p50']:.2f} ms, "
            line += f"p99 {found['p99']:.2f} ms"
            if every:
                line += f"; carrying one p50 {found['with p50']:.2f} ms, max "
                line += f"{found['with max']:.2f} ms; building one {found['build']:.3f} ms"
            print(line)
        return
    if not (1 <= args.tables <= 200 and 1 <= args.commands <= 200_000 and args.restarts <= 10):
        raise SystemExit("bounded: 1-200 tables, 1-200,000 commands each, at most 10 restarts")
    tables = [f"t{n:03d}" for n in range(args.tables)]
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        db = workdir / "games.sqlite3"
        every = 0 if args.no_snapshots else args.every
        tail = min(max(0, every - 2) if args.tail is None else args.tail, args.commands)
        seconds = write_log(db, tables, args.commands, every, tail)
        size = sum(p.stat().st_size for p in workdir.glob("games.sqlite3*")) / 1e6
        kind = f"a snapshot every {every}, {tail} after the last" if every else "no snapshots"
        print(
            f"{args.tables} table(s) x {args.commands:,} commands ({kind}): log written in "
            f"{seconds:.1f} s, {size:.1f} MB"
        )
        port = free_port()
        broker = start_broker("mosquitto", port, workdir)
        try:
            runs = []
            for number in range(1, args.restarts + 1):
                online, answered, peak, cpu = restart(port, tables, db, workdir)
                runs.append((online, answered, peak, cpu))
                print(
                    f"restart {number}: all online {online:.2f} s (daemon CPU {cpu:.2f} s), all "
                    f"answered {answered:.2f} s, peak RSS {peak / 1024:.0f} MB"
                )
        finally:
            broker.terminate()
            broker.wait(10)
        print(
            f"median: online {statistics.median(r[0] for r in runs):.2f} s (CPU "
            f"{statistics.median(r[3] for r in runs):.2f} s), answered "
            f"{statistics.median(r[1] for r in runs):.2f} s, peak RSS "
            f"{statistics.median(r[2] for r in runs) / 1024:.0f} MB"
        )


if __name__ == "__main__":
    main()
