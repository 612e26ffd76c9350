"""Real brokers and daemons for the daemon tests: Mosquitto and amqtt on free ports."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tabletop.bridge.bridge import Bridge
from tabletop.daemon.client import TableClient
from tabletop.daemon.service import RulesDaemon
from tabletop.hardware.leds import LedConfig, SimulatedLeds
from tabletop.hardware.mat import open_mat
from tabletop.hardware.mat.sim import SimulatedMat
from tabletop.servers import port_open, wait_until
from tabletop.wire.broker import EmbeddedBroker, free_port
from tabletop.wire.mqtt import BrokerUrl

DATA = Path(__file__).parent / "data"

ROSTER = {
    "cmd": "new_game",
    "players": [
        {"name": "Ana", "descriptor": "sly", "archetype": "Cat burglar", "lucky": [7]},
        {"name": "Bo", "descriptor": "sharp", "archetype": "Sniper", "lucky": [3]},
    ],
    "seed": 4,
}

# Payloads for the fuzzers: raw bytes, any JSON, and command-shaped objects with wrong fields.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
command_names = st.sampled_from(
    [
        "new_game",
        "reveal",
        "turn_order",
        "challenge",
        "multi_stage",
        "roll",
        "lucky",
        "contest",
        "boost",
        "concede",
        "end_adventure",
        "grant_lucky",
        "return",
        "retire",
        "start_adventure",
        "end_game",
        "fly",
    ]
)
field_names = st.sampled_from(
    [
        "player",
        "players",
        "slot",
        "value",
        "values",
        "method",
        "critical",
        "card",
        "wager",
        "stage",
        "replace",
        "id",
        "v",
        "needed",
        "from",
        "to",
        "number",
        "drop_lucky",
        "source",
    ]
)
fields = st.one_of(
    json_values,
    st.sampled_from(["Ana", "Bo", "slyness", "charm", "impossible"]),
    st.integers(-2, 8),
    st.fixed_dictionaries({"player": st.sampled_from(["Ana", "Bo"]), "slot": st.integers(0, 7)}),
)
commands = st.builds(
    lambda name, body: {"cmd": name, **body},
    command_names,
    st.dictionaries(field_names, fields, max_size=4),
)
payloads = st.one_of(
    st.binary(max_size=64),
    json_values.map(lambda v: json.dumps(v).encode()),
    commands.map(lambda c: json.dumps(c).encode()),
)

MOSQUITTO_PATHS = ("/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto")


def mosquitto_binary() -> str:
    found = shutil.which("mosquitto") or next(
        (path for path in MOSQUITTO_PATHS if os.access(path, os.X_OK)), None
    )
    if found is None:
        raise RuntimeError(
            "the mosquitto binary is missing: scripts/test.sh installs it "
            "(apt-get install mosquitto)"
        )
    return found


class Mosquitto:
    """A private Mosquitto on a free port with its own configuration file (no persistence)."""

    def __init__(
        self, workdir: Path, port: int | None = None, users: dict[str, str] | None = None
    ) -> None:
        self.port = port or free_port()
        self.config = workdir / f"mosquitto-{self.port}.conf"
        self.passwords = workdir / f"mosquitto-{self.port}.passwd"
        self.users = users or {}
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> BrokerUrl:
        return BrokerUrl("mqtt", "127.0.0.1", self.port)

    def start(self) -> None:
        lines = [f"listener {self.port} 127.0.0.1"]
        if self.users:
            self.passwords.write_text("")
            for user, password in self.users.items():
                subprocess.run(
                    ["mosquitto_passwd", "-b", str(self.passwords), user, password], check=True
                )
            self.passwords.chmod(0o600)
            lines += ["allow_anonymous false", f"password_file {self.passwords}"]
        else:
            lines.append("allow_anonymous true")
        lines += [
            "set_tcp_nodelay true",
            "max_queued_messages 100000",
            "persistence false",
            "log_dest stderr",
            "log_type error",
        ]
        if os.geteuid() == 0:
            lines.append("user root")
        self.config.write_text("\n".join(lines) + "\n")
        self.process = subprocess.Popen(
            [mosquitto_binary(), "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(lambda: port_open(self.port), 10, f"mosquitto on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None
        wait_until(lambda: not port_open(self.port), 10, "mosquitto to close its port")


class AmqttBroker:
    """The embedded broker, as `tabletop rules` starts it, on a free port."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.broker = EmbeddedBroker("127.0.0.1", self.port)

    @property
    def url(self) -> BrokerUrl:
        return BrokerUrl("mqtt", "127.0.0.1", self.port)

    def start(self) -> None:
        self.broker = EmbeddedBroker("127.0.0.1", self.port)
        self.broker.start()

    def stop(self) -> None:
        self.broker.stop()


Broker = Mosquitto | AmqttBroker


class DaemonThread:
    """A RulesDaemon served on a thread of the test process."""

    def __init__(self, url: BrokerUrl, table: str, db: Path, **options: Any) -> None:
        self.daemon = RulesDaemon(url, table, db, **options)
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self.daemon.run, args=(self.stop_event,))

    def start(self) -> None:
        self.daemon.start(timeout=10)
        assert self.daemon.link.is_connected
        self.thread.start()

    def stop(self) -> None:
        self.stop_event.set()
        self.thread.join(10)
        self.daemon.close()


class QuietLink:
    """Below the daemon's lowest layer, for a `TableServer` with no broker: keeps what would
    have been published, in order."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes]] = []

    def publish(self, topic: str, payload: bytes, *args: Any, **kwargs: Any) -> None:
        self.sent.append((topic, payload))

    def publish_retained(self, topic: str, payload: bytes, *args: Any, **kwargs: Any) -> None:
        self.sent.append((topic, payload))

    def bodies(self, topic: str) -> list[Any]:
        """Every JSON payload published on `topic`, oldest first."""
        return [json.loads(payload) for sent, payload in self.sent if sent == topic]


class MatTable:
    """A whole table on threads of the test process: the simulated mat (real firmware behind a
    pty) at `mat_url`, the bridge with simulated LEDs, and a rules daemon reading the table
    for two seats. `start()`, then `close()`."""

    def __init__(
        self, url: BrokerUrl, table: str, db: Path, mat_url: str, **daemon_options: Any
    ) -> None:
        self.daemon = DaemonThread(url, table, db, seats=["Ana", "Bo"], grace=0.3, **daemon_options)
        self.leds = SimulatedLeds(LedConfig(seats=2, test_pattern_seconds=0))
        self.mat = open_mat(mat_url)
        self.bridge = Bridge(url, table, self.mat, self.leds)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.bridge.run, args=(self.stop,))

    @property
    def sim(self) -> SimulatedMat:
        """The simulated mat behind the pty."""
        sim = self.mat.simulator
        assert sim is not None
        return sim

    def start(self) -> None:
        self.daemon.start()
        self.bridge.start()
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.bridge.close()
        self.daemon.stop()


@contextlib.contextmanager
def running_daemon(url: BrokerUrl, table: str, db: Path) -> Iterator[DaemonThread]:
    daemon = DaemonThread(url, table, db)
    daemon.start()
    try:
        yield daemon
    finally:
        daemon.stop()


@contextlib.contextmanager
def client(url: BrokerUrl, table: str, follow_events: bool = False) -> Iterator[TableClient]:
    table_client = TableClient(url, table, follow_events=follow_events)
    table_client.start()
    try:
        yield table_client
    finally:
        table_client.close()


def daemon_process(url: BrokerUrl, table: str, db: Path) -> subprocess.Popen[bytes]:
    """`tabletop rules` as its own process, as a table runs it (`--broker` once per broker)."""
    brokers = [arg for b in url.every for arg in ("--broker", f"mqtt://127.0.0.1:{b.port}")]
    return subprocess.Popen(
        [sys.executable, "-m", "tabletop", "rules", "--table", table, *brokers, "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def kill_hard(process: subprocess.Popen[Any]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(10)


def full_game_commands() -> list[dict[str, Any]]:
    lines = (DATA / "full_game.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def pump_until(
    table_client: TableClient, check: Callable[[], bool], timeout: float = 10.0, what: str = ""
) -> None:
    """Files the client's messages until `check()` holds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or 'messages'}")
        table_client.pump(0.05)
