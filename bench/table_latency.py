"""Benchmark: card laid -> state published and die at rest -> state published, on the simulated
table through a private Mosquitto, with 3 and 6 seats.

    .venv/bin/python bench/table_latency.py [--games 2] [--seats 3 6] [--camera]

Each run plays whole games with `tabletop.sim` (simulated mat with its reader timing model,
bridge, rules daemon with --sync full, simulated people). Reported per run:
- card laid -> state: from the simulated hand laying the card to the retained state arriving
  at a client (the mat's scan and debounce included);
- host share: from the bridge passing on the mat's (or the camera's) report to the state
  arriving: the part the Pi's software adds (target: under 20 ms at p99);
- die at rest -> state: from the vision pipeline announcing the throw to the state arriving.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabletop.sim.runner import SimulatedTable
from tabletop.wire.broker import free_port
from tabletop.wire.mqtt import BrokerUrl


def start_mosquitto(port: int, folder: Path) -> subprocess.Popen[bytes]:
    binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    config = folder / "mosquitto.conf"
    config.write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        "set_tcp_nodelay true\nmax_queued_messages 100000\n"
    )
    process = subprocess.Popen([binary, "-c", str(config)], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process
        time.sleep(0.05)
    process.kill()
    raise SystemExit("mosquitto did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seats", type=int, nargs="+", default=[3, 6])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--camera", action="store_true", help="read throws with the vision pipeline"
    )
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        broker = start_mosquitto(port, Path(folder))
        try:
            for seats in args.seats:
                print(f"{seats} seats: playing {args.games} game(s)...", file=sys.stderr)
                table = SimulatedTable(
                    seats=seats,
                    games=args.games,
                    seed=args.seed,
                    mistake_rate=0.0,
                    camera=args.camera,
                    broker=BrokerUrl("mqtt", "127.0.0.1", port),
                )
                summary = table.run().to_json()
                results.append({"seats": seats, "broker": "mosquitto", **summary})
                print(json.dumps(results[-1]["latency_ms"]), file=sys.stderr)
        finally:
            broker.terminate()
            broker.wait(10)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
