"""Benchmark of a hall: daemon hosts on one PostgreSQL and a 3-node RabbitMQ cluster.

    .venv/bin/python bench/venue.py [--tables 1000] [--hosts 3] [--seconds 20]

Starts a private RabbitMQ cluster (three nodes, their MQTT plugin; src/tabletop/servers.py)
and a private PostgreSQL, then `--hosts` times `tabletop rules --tables ...` with the three
nodes as one broker list (`--broker` repeated, in the same order everywhere) and measures:

1. start: until every table's `rules/availability` said `online`, and until the hosts hold an
   even share of the leases (at most one apart);
2. the room at play: one command every 2 s per table (spread evenly), command -> reply latency
   (p50, p99, max), each host's memory;
3. a node and a host lost together: `kill -9` of the first node (where every program met) and
   of the first host; the time until every table answers again (the tables the dead host held
   come back from the others, the others' tables from the next node).

The benchmark's own client is on the third node, which is never killed.
"""

from __future__ import annotations

import argparse
import collections
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from daemon_mqtt import commands  # noqa: E402
from room import Room, at_play, lease_holders, memory  # noqa: E402

from tabletop.figures import percentile  # noqa: E402


def host_process(
    ports: list[int], tables: list[str], db: str, name: str, log: Path
) -> subprocess.Popen[bytes]:
    brokers = [arg for port in ports for arg in ("--broker", f"mqtt://127.0.0.1:{port}")]
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tabletop",
            "rules",
            "--tables",
            ",".join(tables),
            "--name",
            name,
            *brokers,
            "--db",
            db,
        ],
        stdout=subprocess.DEVNULL,
        stderr=log.open("ab"),
    )


def main() -> None:
    from tabletop.servers import PostgreSQL, RabbitCluster

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--hosts", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument(
        "--retained-store",
        choices=["dets", "ets"],
        default="dets",
        help="where the nodes keep retained messages (RabbitMQ's default: dets, on disk)",
    )
    parser.add_argument(
        "--no-kill",
        action="store_true",
        help="stop after the room at play (no node or host killed)",
    )
    args = parser.parse_args()
    tables = [f"v{n:04d}" for n in range(args.tables)]
    results: dict[str, Any] = {
        "tables": len(tables),
        "hosts": args.hosts,
        "retained_store": args.retained_store,
    }
    cluster = RabbitCluster(3, args.retained_store)
    database = PostgreSQL()
    hosts: list[subprocess.Popen[bytes]] = []
    logs = Path(tempfile.mkdtemp(prefix="tabletop-venue-"))  # the hosts' stderr, kept
    results["logs"] = str(logs)
    try:
        cluster.start()
        database.start()
        db = database.new_database()
        ports = [node.port for node in cluster.nodes]
        room = Room(ports[2])
        started = time.perf_counter()
        for number in range(1, args.hosts + 1):
            hosts.append(host_process(ports, tables, db, f"host{number}", logs / f"h{number}.log"))
        room.wait(lambda: room.online >= set(tables), 120, "every table online")
        results["all_online_s"] = round(time.perf_counter() - started, 2)
        while time.perf_counter() - started < 120:
            shares = collections.Counter(lease_holders(db, tables).values())
            if len(shares) == args.hosts and max(shares.values()) - min(shares.values()) <= 1:
                break
            time.sleep(0.1)
        results["even_s"] = round(time.perf_counter() - started, 2)
        results["shares"] = sorted(shares.values())
        latencies = at_play(room, tables, args.seconds, False)
        results["at_play"] = {
            "commands": len(latencies),
            "p50_ms": round(percentile(latencies, 0.5) * 1000, 2),
            "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
            "max_ms": round(max(latencies) * 1000, 2),
        }
        results["hosts_rss_kB"] = [memory(host.pid)["VmRSS"] for host in hosts]
        if not args.no_kill:
            offset = int(args.seconds / 2.0) + 1
            cluster.nodes[0].kill()
            hosts[0].send_signal(signal.SIGKILL)
            hosts[0].wait()
            killed = time.perf_counter()
            answered: dict[str, float] = {}
            attempt = 0
            streams = {table: commands(offset + 2) for table in tables}
            while len(answered) < len(tables) and time.perf_counter() - killed < 120:
                attempt += 1
                for table in tables:
                    if table not in answered:
                        body = {**streams[table][offset], "id": f"{table}-k{attempt}"}
                        room.send(table, body)
                time.sleep(0.5)  # a resend every 0.5 s, as a patient client would
                with room.lock:
                    for table in tables:
                        if table not in answered and any(
                            f"{table}-k{n}" in room.latency for n in range(1, attempt + 1)
                        ):
                            answered[table] = time.perf_counter() - killed
            times = sorted(answered.values())
            results["node_and_host_killed"] = {
                "tables_answering": len(answered),
                "p50_s": round(percentile(times, 0.5), 2) if times else None,
                "all_s": round(times[-1], 2) if len(times) == len(tables) else None,
                "shares_after": sorted(
                    collections.Counter(lease_holders(db, tables).values()).values()
                ),
            }
        room.close()
    finally:
        for host in hosts:
            if host.poll() is None:
                host.send_signal(signal.SIGTERM)
                try:
                    host.wait(20)
                except subprocess.TimeoutExpired:
                    host.kill()
        database.stop()
        cluster.stop()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
