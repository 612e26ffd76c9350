"""Benchmark of one rules daemon serving a room: 200 tables in one process.

    .venv/bin/python bench/room.py [--tables 200] [--seconds 30] [--saturate 20000]
                                   [--failover [--hosts 3]]

Starts a private Mosquitto on a free port, then `tabletop rules --tables t000,...` as ONE
process with a fresh SQLite log (WAL, synchronous=FULL), and measures:

1. start: from spawning the process until every table's retained `rules/availability` says
   `online` (a subscriber to tabletop/v1/+/rules/availability);
2. the room at play: every table gets one command every 2 s (spread evenly), and beside it
   mat and dice traffic on every table's mat/event and dice/event (2 mat events and 0.2 dice
   events per table per second, through the same broker); command -> reply latency at the
   client (p50, p99, max) and the daemon's memory (VmRSS, VmHWM) at the end;
3. saturation: N commands across all tables published at once; commands per second until
   the last reply;
4. with --failover (needs PostgreSQL's initdb/postgres): a private PostgreSQL, `--hosts`
   daemons on it (default 2): how long until the joining hosts hold an even share, then
   `kill -9` of the first host; the time until every table it held answers again.

The commands are a legal game that never ends (bench/daemon_mqtt.py): a new game, reveals,
then challenges each followed by a roll of 6.
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import multiprocessing
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from daemon_mqtt import commands, cpu_seconds, start_broker  # noqa: E402

from tabletop.figures import percentile  # noqa: E402
from tabletop.wire.broker import free_port  # noqa: E402


class Room:
    """One paho client for the whole room: sends commands and times their replies."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sent: dict[str, float] = {}
        self.latency: dict[str, float] = {}
        self.refused: dict[str, dict[str, Any]] = {}
        self.online: set[str] = set()
        self.lock = threading.Condition()
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id="bench-room")
        self.client.max_inflight_messages_set(5000)
        self.client.max_queued_messages_set(0)
        # Small packets must not wait for Nagle's algorithm (40 ms delayed ACKs).
        self.client.on_socket_open = lambda c, u, s: s.setsockopt(
            socket.IPPROTO_TCP, socket.TCP_NODELAY, 1
        )
        self.client.on_message = self._on_message
        subscribed = threading.Event()
        self.client.on_subscribe = lambda *a: subscribed.set()
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe(
            [("tabletop/v1/+/game/reply", 1), ("tabletop/v1/+/rules/availability", 1)]
        )
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        if not subscribed.wait(10):
            raise SystemExit("the benchmark client could not subscribe")

    def _on_message(self, client: paho.Client, userdata: object, message: paho.MQTTMessage) -> None:
        now = time.perf_counter()
        table = message.topic.split("/")[2]
        with self.lock:
            if message.topic.endswith("/rules/availability"):
                if message.payload == b"online":
                    self.online.add(table)
                else:
                    self.online.discard(table)
            else:
                reply = json.loads(message.payload)
                key = str(reply.get("id"))
                if key in self.sent and key not in self.latency:
                    self.latency[key] = now - self.sent[key]
                    if not reply.get("ok"):
                        self.refused[key] = reply
            self.lock.notify_all()

    def send(self, table: str, body: dict[str, Any]) -> None:
        with self.lock:
            self.sent[str(body["id"])] = time.perf_counter()
        self.client.publish(f"tabletop/v1/{table}/game/command", json.dumps(body), 1)

    def wait(self, check: Any, timeout: float, what: str) -> None:
        with self.lock:
            if not self.lock.wait_for(check, timeout):
                raise SystemExit(f"timed out after {timeout} s waiting for {what}")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in kB."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0])
    return found


def rules_process(
    port: int,
    tables: list[str],
    db: str,
    name: str,
    log: Path,
    *,
    sync: str = "full",
    profile: str | None = None,
) -> subprocess.Popen[bytes]:
    profiler = ["-m", "cProfile", "-o", profile] if profile else []
    return subprocess.Popen(
        [
            sys.executable,
            *profiler,
            "-m",
            "tabletop",
            "rules",
            "--tables",
            ",".join(tables),
            "--name",
            name,
            "--broker",
            f"mqtt://127.0.0.1:{port}",
            "--db",
            db,
            "--sync",
            sync,
        ],
        stdout=subprocess.DEVNULL,
        stderr=log.open("ab"),
    )


def traffic(port: int, tables: list[str], seconds: float, ready: Any = None) -> None:
    """Mat and dice messages beside the commands: 2 mat and 0.2 dice events per table per s.

    Run in a process of its own with its own connection, as each table's bridge is, and spread
    evenly over each half second: published in bursts from the benchmark's own process, 1,100
    messages every 0.5 s at 1,000 tables held its interpreter while replies were arriving, and
    their measured latency grew with the room (docs/benchmarks.md, "1,000 tables")."""
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id="bench-room-traffic")
    client.max_queued_messages_set(0)
    client.connect("127.0.0.1", port)
    client.loop_start()
    if ready is not None:
        ready.set()  # started and connected: its start-up is not timed
    start = time.perf_counter()
    gap = 0.5 / len(tables)
    tick = 0
    while time.perf_counter() - start < seconds:
        for index, table in enumerate(tables):
            due = start + tick * 0.5 + index * gap
            time.sleep(max(0.0, due - time.perf_counter()))
            mat = {"v": 1, "bridge": f"b-{table}", "seq": tick, "slot": "1.1", "card": "AS"}
            client.publish(f"tabletop/v1/{table}/mat/event", json.dumps(mat), 0)
            if (tick + index) % 10 == 0:
                dice = {"v": 1, "bridge": f"b-{table}", "seq": tick, "values": [3, 5]}
                client.publish(f"tabletop/v1/{table}/dice/event", json.dumps(dice), 0)
        tick += 1
    client.disconnect()
    client.loop_stop()


def at_play(
    room: Room, tables: list[str], seconds: float, side_traffic: bool, interval: float = 2.0
) -> list[float]:
    """One command every `interval` s per table, spread evenly; their latencies."""
    rounds = int(seconds / interval)
    streams = {table: commands(rounds + 3) for table in tables}
    keys = []
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    side = context.Process(target=traffic, args=(room.port, tables, seconds, ready), daemon=True)
    if side_traffic:
        side.start()
        if not ready.wait(60):
            raise SystemExit("the side traffic's process did not start")
    # The benchmark's own full garbage collections walked its growing latency table and
    # delayed whatever reply was arriving by 30-280 ms: measured as the daemon's tail, it was
    # ours. Everything made so far is left out of them (docs/benchmarks.md, "1,000 tables").
    gc.collect()
    gc.freeze()
    start = time.perf_counter()
    gap = interval / len(tables)
    for step in range(rounds):
        for index, table in enumerate(tables):
            due = start + step * interval + index * gap
            time.sleep(max(0.0, due - time.perf_counter()))
            key = f"{table}-p{step}"
            room.send(table, {**streams[table][step], "id": key})
            keys.append(key)
    if side_traffic:
        side.join(seconds + 10)
    room.wait(lambda: all(k in room.latency for k in keys), 60, "the replies at play")
    return [room.latency[k] for k in keys]


def print_timeline(latencies: list[float], gap: float) -> None:
    """Each second of play (by when the command was sent): count, p50, p99 and max in ms."""
    seconds: dict[int, list[float]] = collections.defaultdict(list)
    for index, latency in enumerate(latencies):
        seconds[int(index * gap)].append(latency)
    for second, values in sorted(seconds.items()):
        print(
            f"second {second:3d}: {len(values):5d} commands, p50 "
            f"{percentile(values, 0.5) * 1000:7.1f} ms, p99 {percentile(values, 0.99) * 1000:7.1f}"
            f" ms, max {max(values) * 1000:7.1f} ms",
            file=sys.stderr,
        )


def saturate(room: Room, tables: list[str], count: int, offset: int) -> float:
    """Commands per second with `count` commands published at once across the tables."""
    per_table = count // len(tables)
    streams = {table: commands(offset + per_table) for table in tables}
    keys = []
    start = time.perf_counter()
    for step in range(per_table):
        for table in tables:
            key = f"{table}-s{step}"
            room.send(table, {**streams[table][offset + step], "id": key})
            keys.append(key)
    room.wait(lambda: all(k in room.latency for k in keys), 300, "the saturation replies")
    return len(keys) / (time.perf_counter() - start)


def lease_holders(db: str, tables: list[str]) -> dict[str, int]:
    """Which database connection (server pid) holds each table's lease now."""
    import psycopg

    from tabletop.daemon.store import lease_key

    keys = {lease_key(table): table for table in tables}
    with psycopg.connect(db, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid, ((classid::bigint << 32) | objid::bigint) FROM pg_locks "
            "WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND mode = 'ExclusiveLock'"
        ).fetchall()
    return {keys[key]: pid for pid, key in rows if key in keys}


def failover(port: int, tables: list[str], workdir: Path, hosts: int) -> dict[str, Any]:
    """`hosts` daemons on one PostgreSQL: the spread when they join, then `kill -9` of the
    first; the time until every table it held answers again from another host."""
    from tabletop.servers import PostgreSQL

    server = PostgreSQL()
    server.start()
    others: list[subprocess.Popen[bytes]] = []
    try:
        db = server.new_database()
        room = Room(port)
        first = rules_process(port, tables, db, "host1", workdir / "host1.log")
        room.wait(lambda: room.online >= set(tables), 60, "the first daemon's tables")
        first_pid = next(iter(lease_holders(db, tables).values()))
        joined = time.perf_counter()
        for number in range(2, hosts + 1):
            others.append(
                rules_process(port, tables, db, f"host{number}", workdir / f"host{number}.log")
            )
        while time.perf_counter() - joined < 60:
            held = lease_holders(db, tables)
            shares = [list(held.values()).count(pid) for pid in set(held.values())]
            if len(held) == len(tables) and len(shares) == hosts and max(shares) - min(shares) <= 1:
                break
            time.sleep(0.05)
        spread_s = time.perf_counter() - joined
        for table in tables:
            room.send(table, {**commands(1)[0], "id": f"{table}-f0"})
        room.wait(lambda: all(f"{t}-f0" in room.latency for t in tables), 60, "warm-up")
        moving = [table for table, pid in lease_holders(db, tables).items() if pid == first_pid]
        first.send_signal(signal.SIGKILL)
        first.wait()
        killed = time.perf_counter()
        answered: dict[str, float] = {}
        attempt = 0
        while len(answered) < len(moving) and time.perf_counter() - killed < 60:
            attempt += 1
            for table in moving:
                if table in answered:
                    continue
                # A roll with no challenge is refused, but only by a daemon that serves it.
                room.send(table, {"cmd": "roll", "value": 6, "id": f"{table}-k{attempt}"})
            time.sleep(0.05)
            with room.lock:
                for table in moving:
                    if table not in answered and any(
                        f"{table}-k{n}" in room.latency for n in range(1, attempt + 1)
                    ):
                        answered[table] = time.perf_counter() - killed
        shares_after = sorted(collections.Counter(lease_holders(db, tables).values()).values())
        room.close()
        times = sorted(answered.values())
        return {
            "hosts": hosts,
            "spread_on_join_s": round(spread_s, 2),
            "tables_moved": len(answered),
            "of_the_dead_host": len(moving),
            "first_answer_s": round(times[0], 2) if times else float("nan"),
            "all_answer_s": round(times[-1], 2) if len(times) == len(moving) else float("nan"),
            "shares_after": shares_after,
        }
    finally:
        for process in others:
            process.send_signal(signal.SIGTERM)
            process.wait(20)
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--saturate", type=int, default=20_000)
    parser.add_argument("--failover", action="store_true")
    parser.add_argument("--hosts", type=int, default=2, help="daemon hosts with --failover")
    parser.add_argument("--sync", choices=("full", "normal"), default="full")
    parser.add_argument(
        "--interval", type=float, default=2.0, help="seconds between a table's commands"
    )
    parser.add_argument("--no-traffic", action="store_true", help="commands only, no mat/dice")
    parser.add_argument(
        "--timeline",
        action="store_true",
        help="print each second of play's p50/p99/max latency to stderr (where a tail comes from)",
    )
    parser.add_argument(
        "--profile", metavar="FILE", help="run the daemon under cProfile, its stats to FILE"
    )
    args = parser.parse_args()
    tables = [f"t{n:03d}" for n in range(args.tables)]
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        port = free_port()
        broker = start_broker("mosquitto", port, workdir)
        results: dict[str, Any] = {"tables": len(tables), "sync": args.sync}
        try:
            room = Room(port)
            started = time.perf_counter()
            daemon = rules_process(
                port,
                tables,
                str(workdir / "games.sqlite3"),
                "bench",
                workdir / "daemon.log",
                sync=args.sync,
                profile=args.profile,
            )
            room.wait(lambda: room.online >= set(tables), 60, "every table online")
            results["all_online_s"] = round(time.perf_counter() - started, 2)
            cpu_before = cpu_seconds(daemon.pid)
            latencies = at_play(room, tables, args.seconds, not args.no_traffic, args.interval)
            if args.timeline:
                print_timeline(latencies, args.interval / len(tables))
            results["daemon_cpu_at_play_s"] = round(cpu_seconds(daemon.pid) - cpu_before, 2)
            results["at_play"] = {
                "commands": len(latencies),
                "p50_ms": round(percentile(latencies, 0.5) * 1000, 2),
                "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
                "max_ms": round(max(latencies) * 1000, 2),
            }
            results["memory_kB"] = memory(daemon.pid)
            offset = int(args.seconds / args.interval)  # each table's game goes on
            results["saturation_commands_per_s"] = round(
                saturate(room, tables, args.saturate, offset), 1
            )
            results["memory_after_saturation_kB"] = memory(daemon.pid)
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(20)
            room.close()
            if args.failover:
                results["failover"] = failover(port, tables, workdir, args.hosts)
        finally:
            broker.terminate()
            broker.wait(10)
        print(json.dumps(results, indent=2))
        if room.refused:
            key, reply = next(iter(room.refused.items()))
            raise SystemExit(f"{len(room.refused)} commands were refused, e.g. {key}: {reply}")


if __name__ == "__main__":
    main()
