"""Private servers on this machine, each on free ports in a folder of its own, for trying the
table's shared setups without touching a server the machine runs already: a PostgreSQL for the
rules daemons' shared log (`tabletop rules --db postgresql://...`) and a cluster of RabbitMQ
nodes with their MQTT plugin (a broker per host). The benchmarks of a room and a venue
(bench/room.py, bench/venue.py) start them; they need the servers' own programs installed
(scripts/test.sh installs both: apt-get install postgresql rabbitmq-server).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tabletop.wire.broker import free_port
from tabletop.wire.mqtt import BrokerUrl


def wait_until(check: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    """Returns once `check()` holds; TimeoutError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


def port_open(port: int) -> bool:
    """Whether something listens on `port` of 127.0.0.1."""
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


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
            # first, and it ends the sessions a client left open. (As root, a SIGTERM reached
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
            except BaseException as error:  # raised on the caller's thread, below
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
