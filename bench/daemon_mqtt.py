"""Benchmark of the rules daemon over MQTT: durable commands per second, and reply latency.

    .venv/bin/python bench/daemon_mqtt.py [--commands 20000] [--round-trips 2000]

Starts a private Mosquitto on a free port (and, with --broker amqtt, the embedded broker
instead), runs `tabletop rules` as its own process with a fresh SQLite log (WAL,
synchronous=FULL), then:

1. throughput: publishes N commands at once (QoS 1, each with an id) and times until the
   last reply; every reply must be ok, and the log must hold every command afterwards;
2. latency: M commands one at a time, each waiting for its reply (p50/p99);
3. a bare MQTT round trip through the same broker in the same run: an echo process that
   republishes what it receives, timed the same way, for the ratio.

The commands are a legal game that never ends: a new game, the reveals, then challenges
(Critical Number 3) each followed by a roll of 6, which always succeeds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from tabletop.figures import percentile
from tabletop.wire.broker import free_port

ROOT = Path(__file__).resolve().parent.parent
TABLE = "bench"
COMMAND_TOPIC = f"tabletop/v1/{TABLE}/game/command"
REPLY_TOPIC = f"tabletop/v1/{TABLE}/game/reply"
AVAILABILITY_TOPIC = f"tabletop/v1/{TABLE}/rules/availability"
ECHO_SCRIPT = """
import socket, sys
import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion
c = paho.Client(CallbackAPIVersion.VERSION2, client_id="bench-echo")
c.on_socket_open = lambda c, u, s: s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
c.on_connect = lambda c, u, f, rc, p: c.subscribe("bench/ping", 1)
c.on_message = lambda c, u, m: c.publish("bench/pong", m.payload, 1)
c.connect("127.0.0.1", int(sys.argv[1]))
c.loop_forever()
"""


def wait_port(port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"nothing listens on port {port} after {timeout} s")


def commands(count: int) -> list[dict[str, Any]]:
    """A legal game of `count` commands that never ends."""
    out: list[dict[str, Any]] = [
        {
            "cmd": "new_game",
            "players": [
                {"name": "Ana", "descriptor": "sly", "archetype": "Cat burglar", "lucky": [7]},
                {"name": "Bo", "descriptor": "sharp", "archetype": "Sniper", "lucky": [3]},
            ],
            "seed": 1,
        },
        {"cmd": "reveal", "player": "Ana", "slot": 1},
        {"cmd": "reveal", "player": "Bo", "slot": 1},
    ]
    while len(out) < count:
        player = "Ana" if len(out) % 4 == 1 else "Bo"
        out.append({"cmd": "challenge", "player": player, "method": "slyness", "critical": 3})
        out.append({"cmd": "roll", "value": 6})
    return out[:count]


def wait_online(port: int, daemon: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    """Waits for the daemon's retained "online": it is published only after the daemon's
    subscriptions (src/tabletop/wire/mqtt.py), so a command sent after it is heard. (A fixed sleep
    lost the first commands when a busy machine started the daemon slowly.)"""
    online = threading.Event()
    waiter = paho.Client(CallbackAPIVersion.VERSION2, client_id="bench-wait-online")
    waiter.on_connect = lambda c, u, f, rc, p: c.subscribe(AVAILABILITY_TOPIC, 1)
    waiter.on_message = lambda c, u, m: online.set() if m.payload == b"online" else None
    waiter.connect("127.0.0.1", port)
    waiter.loop_start()
    try:
        deadline = time.monotonic() + timeout
        while not online.wait(0.2):
            if daemon.poll() is not None:
                raise SystemExit(f"the rules daemon exited with status {daemon.returncode}")
            if time.monotonic() > deadline:
                raise SystemExit(f"the rules daemon was not online after {timeout:g} s")
    finally:
        waiter.loop_stop()
        waiter.disconnect()


class Harness:
    """One paho client that publishes and times the answers (the same for daemon and echo)."""

    def __init__(self, port: int, listen: str) -> None:
        self.arrived: dict[str, float] = {}
        self.replies: list[dict[str, Any]] = []
        self.changed = threading.Condition()
        self.listen = listen
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-{listen[-4:]}")
        self.client.max_inflight_messages_set(1000)
        self.client.on_socket_open = lambda c, u, s: s.setsockopt(
            socket.IPPROTO_TCP, socket.TCP_NODELAY, 1
        )
        self.client.on_message = self._on_message
        subscribed = threading.Event()
        self.client.on_subscribe = lambda *a: subscribed.set()
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe(listen, 1)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        if not subscribed.wait(10):
            raise SystemExit("the benchmark client could not subscribe")

    def _on_message(self, client: paho.Client, userdata: object, message: paho.MQTTMessage) -> None:
        now = time.perf_counter()
        body = json.loads(message.payload)
        with self.changed:
            self.arrived[str(body["id"])] = now
            self.replies.append(body)
            self.changed.notify_all()

    def wait(self, key: str, timeout: float = 30.0) -> float:
        with self.changed:
            if not self.changed.wait_for(lambda: key in self.arrived, timeout):
                raise SystemExit(f"no answer for {key} in {timeout} s")
            return self.arrived[key]

    def round_trips(self, topic: str, payloads: list[dict[str, Any]]) -> list[float]:
        times = []
        for body in payloads:
            start = time.perf_counter()
            self.client.publish(topic, json.dumps(body), 1)
            times.append(self.wait(str(body["id"])) - start)
        return times

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_broker(kind: str, port: int, workdir: Path) -> subprocess.Popen[bytes]:
    if kind == "mosquitto":
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        config = workdir / "mosquitto.conf"
        lines = [f"listener {port} 127.0.0.1", "allow_anonymous true", "persistence false"]
        lines += ["set_tcp_nodelay true", "max_queued_messages 100000", "log_type error"]
        if os.geteuid() == 0:
            lines.append("user root")
        config.write_text("\n".join(lines) + "\n")
        process = subprocess.Popen([binary, "-c", str(config)], stderr=subprocess.DEVNULL)
    else:
        process = subprocess.Popen(
            [sys.executable, "-m", "tabletop", "broker", "--bind", f"127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL,
        )
    wait_port(port)
    return process


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=20_000)
    parser.add_argument("--round-trips", type=int, default=2_000)
    parser.add_argument("--broker", choices=("mosquitto", "amqtt"), default="mosquitto")
    parser.add_argument("--sync", choices=("full", "normal"), default="full")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="daemon-bench-"))
    port = free_port()
    db = workdir / "games.sqlite3"
    processes = [start_broker(args.broker, port, workdir)]
    try:
        processes.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tabletop",
                    "rules",
                    "--table",
                    TABLE,
                    "--broker",
                    f"mqtt://127.0.0.1:{port}",
                    "--db",
                    str(db),
                ],
                stderr=subprocess.DEVNULL,
                cwd=ROOT,
            )
        )
        processes.append(subprocess.Popen([sys.executable, "-c", ECHO_SCRIPT, str(port)]))
        harness = Harness(port, REPLY_TOPIC)
        echo = Harness(port, "bench/pong")
        wait_online(port, processes[1])

        # 1. throughput, pipelined
        game = [{**c, "id": f"t{n}"} for n, c in enumerate(commands(args.commands))]
        watched = {"daemon": processes[1].pid, "broker": processes[0].pid, "client": os.getpid()}
        cpu_before = {name: cpu_seconds(pid) for name, pid in watched.items()}
        start = time.perf_counter()
        for body in game:
            harness.client.publish(COMMAND_TOPIC, json.dumps(body), 1)
        end = harness.wait(game[-1]["id"], timeout=300)
        seconds = end - start
        cpu = {name: cpu_seconds(pid) - cpu_before[name] for name, pid in watched.items()}
        refused = [r for r in harness.replies if not r["ok"]]
        if refused:
            raise SystemExit(f"{len(refused)} commands refused, e.g. {refused[0]}")
        with sqlite3.connect(db) as check:
            (logged,) = check.execute("SELECT count(*) FROM commands").fetchone()
        assert logged == len(game), f"the log holds {logged} of {len(game)} commands"

        # 2. latency through the daemon, one command at a time (the game goes on)
        more = [
            {**c, "id": f"l{n}"}
            for n, c in enumerate(commands(args.commands + args.round_trips)[args.commands :])
        ]
        daemon_rtt = harness.round_trips(COMMAND_TOPIC, more)
        # 3. bare round trip through the same broker
        bare_rtt = echo.round_trips("bench/ping", [{"id": f"e{n}"} for n in range(len(more))])
        harness.close()
        echo.close()

        ms = 1000.0
        p50, p99 = percentile(daemon_rtt, 0.5) * ms, percentile(daemon_rtt, 0.99) * ms
        b50, b99 = percentile(bare_rtt, 0.5) * ms, percentile(bare_rtt, 0.99) * ms
        print(f"broker: {args.broker}; durable log: SQLite WAL, synchronous={args.sync.upper()}")
        print(
            f"throughput: {len(game)} commands in {seconds:.2f} s = "
            f"{len(game) / seconds:,.0f} durable commands/s"
        )
        print(
            "CPU during the throughput run: "
            + ", ".join(f"{name} {used:.2f} s" for name, used in cpu.items())
            + f" (daemon: {cpu['daemon'] / len(game) * 1e6:.0f} us per command)"
        )
        with open("/proc/loadavg") as loadavg:
            print(f"load average at the end: {loadavg.read().split()[0]} on {os.cpu_count()} CPUs")
        print(
            f"command -> reply: p50 {p50:.2f} ms, p99 {p99:.2f} ms, "
            f"mean {statistics.fmean(daemon_rtt) * ms:.2f} ms ({len(daemon_rtt)} round trips)"
        )
        print(f"bare MQTT round trip: p50 {b50:.2f} ms, p99 {b99:.2f} ms")
        print(f"ratio to bare: p50 {p50 / b50:.2f}x, p99 {p99 / b99:.2f}x")
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
