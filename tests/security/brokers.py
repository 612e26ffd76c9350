"""Real brokers with the tabletop roles for the security tests, and clients that play each user.

`RoleMosquitto` is a private Mosquitto on a free port configured as docs/security.md says:
the acl_file `tabletop broker acl` writes and a password_file of the same `$7$` hashes the
embedded broker checks; optionally a TLS listener. `RoleAmqtt` is the embedded broker with
the same users. `Probe` is a paho client that records what the broker answered and what
arrived, so a test can say what a user may and may not do.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from tabletop.servers import wait_until
from tabletop.wire.broker import EmbeddedBroker, free_port
from tabletop.wire.passwords import hash_password
from tabletop.wire.roles import ALL_TABLES, Role, User, mosquitto_acl

MAKE_CERTS = Path(__file__).parents[2] / "examples" / "mosquitto" / "make-certs.sh"
MOSQUITTO_PATHS = ("/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto")
# Fewer iterations than the default: the tests log in hundreds of times.
TEST_ITERATIONS = 1000

TABLE = "kitchen"
OTHER = "cellar"


@dataclass(frozen=True)
class Account:
    """A user of the test brokers with the password the tests log in with."""

    name: str
    role: Role
    tables: tuple[str, ...]

    @property
    def password(self) -> str:
        return f"pw-{self.name}"


ACCOUNTS = {
    account.name: account
    for account in (
        Account("rules", Role.DAEMON, (TABLE,)),
        Account("pi", Role.BRIDGE, (TABLE,)),
        Account("gm", Role.GM, (TABLE,)),
        Account("screen", Role.VIEWER, (TABLE,)),
        # Every table: the publishers and the witness of the tests.
        Account("rules-all", Role.DAEMON, (ALL_TABLES,)),
        Account("pi-all", Role.BRIDGE, (ALL_TABLES,)),
        Account("witness", Role.GM, (ALL_TABLES,)),
    )
}


def users(accounts: Sequence[Account] = tuple(ACCOUNTS.values())) -> list[User]:
    return [
        User(a.name, a.role, a.tables, hash_password(a.password, iterations=TEST_ITERATIONS))
        for a in accounts
    ]


def topic(relative: str, table: str = TABLE) -> str:
    return f"tabletop/v1/{table}/{relative}"


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex((host, port)) == 0


def mosquitto_binary() -> str:
    found = shutil.which("mosquitto") or next(
        (path for path in MOSQUITTO_PATHS if os.access(path, os.X_OK)), None
    )
    if found is None:
        raise RuntimeError("the mosquitto binary is missing: scripts/test.sh installs it")
    return found


def make_certs(directory: Path, *names: str) -> Path:
    """A CA and a server certificate for `names`, made as docs/security.md says."""
    subprocess.run(["sh", str(MAKE_CERTS), str(directory), *names], check=True, capture_output=True)
    return directory


class RoleMosquitto:
    """A private Mosquitto with the generated acl_file and a password_file of `$7$` hashes."""

    def __init__(
        self,
        workdir: Path,
        accounts: Sequence[User],
        *,
        tls: tuple[Path, Path] | None = None,
    ) -> None:
        self.workdir = workdir
        self.users = list(accounts)
        self.tls = tls  # (certificate, key)
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = workdir / f"mosquitto-{self.port}.log"

    @property
    def name(self) -> str:
        return "mosquitto"

    def start(self) -> None:
        acl = self.workdir / f"tabletop-{self.port}.acl"
        passwords = self.workdir / f"tabletop-{self.port}.passwd"
        acl.write_text(mosquitto_acl(self.users))
        passwords.write_text("".join(f"{user.name}:{user.password_hash}\n" for user in self.users))
        passwords.chmod(0o600)
        lines = [f"listener {self.port} 127.0.0.1"]
        if self.tls is not None:
            certificate, key = self.tls
            lines += [f"certfile {certificate}", f"keyfile {key}"]
        lines += [
            "allow_anonymous false",
            f"password_file {passwords}",
            f"acl_file {acl}",
            "persistence false",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
        ]
        if os.geteuid() == 0:
            lines.append("user root")
        config = self.workdir / f"mosquitto-{self.port}.conf"
        config.write_text("\n".join(lines) + "\n")
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [mosquitto_binary(), "-c", str(config)], stdout=log, stderr=log
            )
        wait_until(lambda: port_open(self.port), 10, f"mosquitto on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None


class RoleAmqtt:
    """The embedded broker with the same users."""

    def __init__(self, accounts: Sequence[User]) -> None:
        self.port = free_port()
        self.broker = EmbeddedBroker("127.0.0.1", self.port, accounts)

    @property
    def name(self) -> str:
        return "amqtt"

    def start(self) -> None:
        self.broker.start()

    def stop(self) -> None:
        self.broker.stop()


RoleBroker = RoleMosquitto | RoleAmqtt


@dataclass
class Probe:
    """A paho client playing one user: what the broker answered, and what arrived."""

    port: int
    username: str | None
    password: str | None
    client_id: str = ""
    connack: list[str] = field(default_factory=list)
    granted: dict[str, bool] = field(default_factory=dict)
    messages: list[tuple[str, bytes, bool]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.client_id = self.client_id or f"probe-{os.urandom(6).hex()}"
        self.client = paho.Client(
            CallbackAPIVersion.VERSION2, client_id=self.client_id, protocol=paho.MQTTv311
        )
        if self.username is not None:
            self.client.username_pw_set(self.username, self.password)
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message
        self._pending: dict[int, list[str]] = {}

    @classmethod
    def of(cls, port: int, name: str, **options: str) -> Probe:
        account = ACCOUNTS[name]
        return cls(port, account.name, account.password, **options)

    def connect(self, wait: bool = True) -> str:
        """Connects; returns the CONNACK reason ('Success', 'Not authorized', ...)."""
        self.client.connect("127.0.0.1", self.port, keepalive=30)
        self.client.loop_start()
        if wait:
            wait_until(lambda: bool(self.connack), 10, f"CONNACK for {self.username}")
        return self.connack[0] if self.connack else ""

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def subscribe(self, *filters: str) -> dict[str, bool]:
        """Subscribes and waits for the SUBACK; returns which filters the broker granted."""
        with self.lock:  # the SUBACK may come before subscribe() returns its message id
            result, mid = self.client.subscribe([(f, 1) for f in filters])
            assert result == paho.MQTT_ERR_SUCCESS
            self._pending[mid] = list(filters)
        wait_until(lambda: all(f in self.granted for f in filters), 10, "SUBACK")
        return {f: self.granted[f] for f in filters}

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        """Publishes with QoS 1 and waits until the broker has it (PUBACK)."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        info.wait_for_publish(10)
        assert info.is_published(), f"no PUBACK for {topic}"

    def received(self, topic: str | None = None, payload: bytes | None = None) -> bool:
        with self.lock:
            return any(
                (topic is None or t == topic) and (payload is None or p == payload)
                for t, p, _ in self.messages
            )

    def topics(self) -> set[str]:
        with self.lock:
            return {t for t, _, _ in self.messages}

    def payloads(self) -> set[bytes]:
        with self.lock:
            return {p for _, p, _ in self.messages}

    def wait_for(self, topic: str, payload: bytes | None = None, timeout: float = 10.0) -> None:
        wait_until(lambda: self.received(topic, payload), timeout, f"{topic} at {self.username}")

    def _on_connect(
        self,
        client: paho.Client,
        userdata: object,
        flags: paho.ConnectFlags,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        self.connack.append(str(reason))
        if reason.is_failure:
            client.disconnect()  # no retries: a refusal is the answer a test looks for

    def _on_subscribe(
        self,
        client: paho.Client,
        userdata: object,
        mid: int,
        reasons: list[ReasonCode],
        properties: Properties | None,
    ) -> None:
        with self.lock:
            for topic_filter, reason in zip(self._pending.pop(mid, []), reasons, strict=False):
                self.granted[topic_filter] = not reason.is_failure

    def _on_message(self, client: paho.Client, userdata: object, message: paho.MQTTMessage) -> None:
        with self.lock:
            self.messages.append((message.topic, bytes(message.payload), bool(message.retain)))


def raw_connect(
    port: int,
    client_id: str,
    username: str | None = None,
    password: str | None = None,
    will: tuple[str, bytes] | None = None,
) -> tuple[socket.socket, int]:
    """A bare MQTT 3.1.1 CONNECT over a socket: returns it and the CONNACK return code.

    For what paho makes hard: a last will from a connection that then just drops.
    """

    def text(value: str | bytes) -> bytes:
        data = value.encode() if isinstance(value, str) else value
        return len(data).to_bytes(2, "big") + data

    flags = 0x02  # clean session
    payload = text(client_id)
    if will is not None:
        flags |= 0x04 | 0x08 | 0x20  # will, QoS 1, retained
        payload += text(will[0]) + text(will[1])
    if username is not None:
        flags |= 0x80
        payload += text(username)
    if password is not None:
        flags |= 0x40
        payload += text(password)
    body = b"\x00\x04MQTT\x04" + bytes([flags]) + (30).to_bytes(2, "big") + payload
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    length = len(body)
    encoded = b""
    while True:
        digit, length = length % 128, length // 128
        encoded += bytes([digit | (0x80 if length else 0)])
        if not length:
            break
    sock.sendall(b"\x10" + encoded + body)
    answer = b""
    while len(answer) < 4:
        chunk = sock.recv(4 - len(answer))
        if not chunk:
            break
        answer += chunk
    return sock, answer[3] if len(answer) == 4 else -1
