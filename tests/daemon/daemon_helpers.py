"""Real brokers and daemons for the daemon tests: Mosquitto and amqtt on free ports."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from bridge.bridge import Bridge
from hardware.leds import LedConfig, SimulatedLeds
from hardware.mat import open_mat
from hardware.mat.sim import SimulatedMat
from rules.daemon.client import TableClient
from rules.daemon.service import RulesDaemon
from wire.broker import EmbeddedBroker, free_port
from wire.mqtt import BrokerUrl

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


def wait_until(check: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


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


def remove_in_background(folder: Path) -> None:
    """Removes `folder` in a process of its own, which may outlive this one. A session's
    PostgreSQL holds some ten thousand small files (each database copies its template's
    catalogs); deleting them took 10 to 30 s on a disk mounted with online discard, at the
    very end of a test worker's run, where nothing else was left to run beside it."""
    subprocess.run(
        ["sh", "-c", 'rm -rf -- "$1" </dev/null >/dev/null 2>&1 &', "sh", str(folder)],
        check=False,
    )


POSTGRES_BIN_DIRS = ("/usr/local/bin", "/usr/bin")


def postgres_bin_dir() -> Path | None:
    """Where initdb and postgres are: Debian's versioned folder, or on the PATH."""
    versioned = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    for folder in [*versioned, *(Path(p) for p in POSTGRES_BIN_DIRS)]:
        if (folder / "initdb").is_file() and (folder / "postgres").is_file():
            return folder
    found = shutil.which("initdb")
    return Path(found).parent if found else None


class PostgreSQL:
    """A private PostgreSQL server on a free port, in a folder of its own.

    PostgreSQL refuses to run as root; as root (CI) the server runs as the `postgres` user
    (Debian's package makes it), else as `nobody`, in a folder that user owns.
    """

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.bin = postgres_bin_dir()
        self.workdir: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self._databases = itertools.count(1)

    def _as_owner(self) -> list[str]:
        if os.geteuid() != 0:
            return []
        import pwd

        for user in ("postgres", "nobody"):
            try:
                pwd.getpwnam(user)
            except KeyError:
                continue
            return ["runuser", "-u", user, "--"]
        raise RuntimeError("running as root, and neither user postgres nor nobody exists")

    def start(self) -> None:
        if self.bin is None:
            raise RuntimeError(
                "PostgreSQL (initdb, postgres) is missing: scripts/test.sh installs it "
                "(apt-get install postgresql)"
            )
        import tempfile

        self.workdir = Path(tempfile.mkdtemp(prefix="tabletop-pg-"))
        prefix = self._as_owner()
        if prefix:
            shutil.chown(self.workdir, prefix[2])
        data = self.workdir / "data"
        subprocess.run(
            [
                *prefix,
                str(self.bin / "initdb"),
                "-D",
                str(data),
                "-U",
                "tabletop",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.process = subprocess.Popen(
            [
                *prefix,
                str(self.bin / "postgres"),
                "-D",
                str(data),
                "-p",
                str(self.port),
                "-h",
                "127.0.0.1",
                "-k",
                str(self.workdir),
                "-c",
                "fsync=on",
                "-c",
                "max_connections=200",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(lambda: port_open(self.port), 30, f"postgres on port {self.port}")
        wait_until(self._accepts, 30, "postgres to accept connections")

    def _accepts(self) -> bool:
        import psycopg

        try:
            psycopg.connect(self.url("postgres"), connect_timeout=2).close()
        except psycopg.OperationalError:
            return False
        return True

    def url(self, database: str) -> str:
        return f"postgresql://tabletop@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database on this server: its URL."""
        import psycopg

        name = f"log{next(self._databases)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        if self.process is not None:
            # An immediate shutdown: the data goes with the folder, so nothing need be written
            # first, and it ends the sessions a test left open. (As root, a SIGTERM reached
            # runuser, which gave the server 2 s to end its sessions, then killed it alone.)
            assert self.bin is not None and self.workdir is not None
            subprocess.run(
                [
                    *self._as_owner(),
                    str(self.bin / "pg_ctl"),
                    *("stop", "-D", str(self.workdir / "data"), "-m", "immediate", "-w"),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=60,
                check=False,
            )
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
            self.process = None
        if self.workdir is not None:
            remove_in_background(self.workdir)
            self.workdir = None


RABBITMQ_SERVER_PATHS = ("/usr/lib/rabbitmq/bin/rabbitmq-server", "/usr/sbin/rabbitmq-server")


def rabbitmq_server() -> str | None:
    """RabbitMQ's own start script (not Debian's wrapper, which switches to its user)."""
    for path in RABBITMQ_SERVER_PATHS:
        if os.access(path, os.X_OK):
            return path
    return shutil.which("rabbitmq-server")


class RabbitMQ:
    """A private RabbitMQ node with its MQTT plugin on free ports, in a folder of its own.

    Its own node name, ports, database, logs, Erlang cookie (HOME) and plugin list, so it
    never meets a RabbitMQ the machine runs already. Anonymous MQTT from this machine only.
    """

    def __init__(self, cookie: str | None = None, retained_store: str = "dets") -> None:
        self.port = free_port()
        self.amqp_port = free_port()
        self.dist_port = free_port()
        self.nodename = f"tabletop{self.port}@localhost"
        # Nodes of one cluster share an Erlang cookie; a lone node makes its own.
        self.cookie = cookie
        # Where the MQTT plugin keeps retained messages: "dets" (on disk, RabbitMQ's default)
        # or "ets" (in memory; lost with the node, as the daemon republishes them anyway).
        self.retained_store = retained_store
        self.workdir: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> BrokerUrl:
        return BrokerUrl("mqtt", "127.0.0.1", self.port)

    def start(self) -> None:
        import tempfile

        script = rabbitmq_server()
        if script is None:
            raise RuntimeError(
                "rabbitmq-server is missing: scripts/test.sh installs it "
                "(apt-get install rabbitmq-server)"
            )
        self.workdir = work = Path(tempfile.mkdtemp(prefix="tabletop-rabbitmq-"))
        if self.cookie is not None:
            (work / ".erlang.cookie").write_text(self.cookie)
            (work / ".erlang.cookie").chmod(0o400)
        (work / "enabled_plugins").write_text("[rabbitmq_mqtt].\n")
        (work / "rabbitmq.conf").write_text(
            f"listeners.tcp.default = 127.0.0.1:{self.amqp_port}\n"
            f"mqtt.listeners.tcp.default = 127.0.0.1:{self.port}\n"
            "mqtt.allow_anonymous = true\n"
            f"mqtt.retained_message_store = rabbit_mqtt_retained_msg_store_{self.retained_store}\n"
        )
        env = {
            **os.environ,
            "HOME": str(work),  # its own Erlang cookie
            "RABBITMQ_NODENAME": self.nodename,
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.amqp_port),
            "RABBITMQ_DIST_PORT": str(self.dist_port),
            "RABBITMQ_MNESIA_BASE": str(work / "mnesia"),
            "RABBITMQ_LOG_BASE": str(work / "log"),
            "RABBITMQ_CONFIG_FILE": str(work / "rabbitmq.conf"),
            "RABBITMQ_ADVANCED_CONFIG_FILE": str(work / "advanced.config"),
            "RABBITMQ_CONF_ENV_FILE": str(work / "rabbitmq-env.conf"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(work / "enabled_plugins"),
            "RABBITMQ_PID_FILE": str(work / "rabbitmq.pid"),
        }
        self.process = subprocess.Popen(
            [script],
            env=env,
            cwd=work,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # stop() ends the script and the Erlang VM it starts
        )
        # A safety net, not a speed figure: an Erlang VM's boot is CPU-heavy, and three nodes of
        # a cluster booting at once on a host loaded twice over took more than 120 s.
        wait_until(lambda: port_open(self.port), 300, f"RabbitMQ's MQTT port {self.port}")

    def ctl(self, *arguments: str, timeout: float = 120) -> str:
        """Runs rabbitmqctl against this node (with its cookie); its output."""
        assert self.workdir is not None, "the node is not started"
        done = subprocess.run(
            [rabbitmq_tool("rabbitmqctl"), "-n", self.nodename, *arguments],
            env={**os.environ, "HOME": str(self.workdir)},
            cwd=self.workdir,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"rabbitmqctl {' '.join(arguments)}: {done.stderr or done.stdout}")
        return done.stdout

    def kill(self) -> None:
        """Ends the node at once (SIGKILL to its Erlang VM), as a machine's loss would."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(30)
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
            self.process = None
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None


def rabbitmq_tool(name: str) -> str:
    """One of RabbitMQ's own CLI scripts (not Debian's wrapper, which switches users)."""
    own = Path("/usr/lib/rabbitmq/bin") / name
    return str(own) if os.access(own, os.X_OK) else (shutil.which(name) or name)


class RabbitCluster:
    """Private RabbitMQ nodes with their MQTT plugin, joined into one cluster.

    Each node has its own node name, ports (AMQP, MQTT, Erlang distribution) and folder; they
    share one Erlang cookie. The nodes start together, then each but the first joins the
    first (`rabbitmqctl stop_app; join_cluster; start_app`).
    """

    def __init__(self, size: int, retained_store: str = "dets") -> None:
        import secrets

        cookie = secrets.token_hex(16).upper()
        self.nodes = [RabbitMQ(cookie, retained_store) for _ in range(size)]

    @property
    def url(self) -> BrokerUrl:
        """Every node's MQTT port, as one broker list."""
        first, *others = [node.url for node in self.nodes]
        return BrokerUrl(first.scheme, first.host, first.port, alternates=tuple(others))

    def start(self) -> None:
        failures: list[BaseException] = []

        def start(node: RabbitMQ) -> None:
            try:
                node.start()
            except BaseException as error:  # said by the test's own thread, below
                failures.append(error)

        starting = [threading.Thread(target=start, args=(node,)) for node in self.nodes]
        for thread in starting:
            thread.start()
        for thread in starting:
            thread.join()
        if failures:
            raise RuntimeError(f"a RabbitMQ node did not start: {failures[0]}") from failures[0]
        if any(node.process is None or node.process.poll() is not None for node in self.nodes):
            raise RuntimeError("a RabbitMQ node did not start: its process ended")
        seed = self.nodes[0].nodename
        for node in self.nodes[1:]:
            node.ctl("stop_app")
            node.ctl("join_cluster", seed)
            node.ctl("start_app")
        wait_until(lambda: all(port_open(node.port) for node in self.nodes), 300, "the MQTT ports")

    def running_nodes(self) -> str:
        alive = next(node for node in self.nodes if node.process is not None)
        return alive.ctl("cluster_status", "--formatter", "json")

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
