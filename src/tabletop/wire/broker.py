"""The embedded MQTT broker (amqtt, MQTT 3.1.1), and which broker a command uses.

A fresh machine needs nothing installed to run a table: with no broker URL configured the
rules daemon starts this broker in-process (see `choose_broker`). In deployment a real broker
(Mosquitto) takes its place, named by an mqtt:// or mqtts:// URL.

With users (from the table's file) the embedded broker holds each to its role
(src/tabletop/wire/roles.py); with none it serves anonymous clients from this machine only
(src/tabletop/wire/embedded.py). A process that runs an embedded broker records where in a small
state file (`state_path`): that is how `tabletop gm` and `tabletop bridge` find it without
flags, even when it had to move off 127.0.0.1:1883.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import os
import secrets
import socket
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from .mqtt import BROKER_ENV, DEFAULT_BROKER_URL, BrokerUrl, MqttError, parse_broker_url
from .roles import User

log = logging.getLogger(__name__)

STATE_VERSION: Final = 1


class BrokerStartError(MqttError):
    """The embedded broker could not listen where it was asked to."""

    def __init__(self, message: str, address_in_use: bool = False) -> None:
        super().__init__(message)
        self.address_in_use = address_in_use


class EmbeddedBroker:
    """An amqtt broker on its own thread and event loop, started and stopped from plain code.

    With `users` it logs each one in by password and holds it to its role; with none it
    takes anonymous clients from this machine only.
    """

    def __init__(
        self, host: str = "127.0.0.1", port: int = 1883, users: Sequence[User] = ()
    ) -> None:
        self.host = host
        self.port = port
        self.users = tuple(users)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._broker: Any = None
        self._stopped: asyncio.Event | None = None

    @property
    def url(self) -> BrokerUrl:
        """How clients reach this broker."""
        return BrokerUrl("mqtt", self.host, self.port)

    def start(self, timeout: float = 10.0) -> None:
        """Listens on host:port; raises BrokerStartError if it cannot (address_in_use says why)."""
        # amqtt and its state machine library log every connection at INFO; keep them to
        # warnings so `tabletop -v` shows the table's own log.
        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLogger().level))
        started: Future[None] = Future()
        self._thread = threading.Thread(
            target=self._run, args=(started,), name=f"amqtt:{self.port}", daemon=True
        )
        self._thread.start()
        try:
            started.result(timeout)
        except OSError as error:
            self._thread.join(timeout)
            in_use = error.errno == errno.EADDRINUSE
            reason = "the address is in use" if in_use else (error.strerror or str(error))
            raise BrokerStartError(
                f"the embedded broker cannot listen on {self.host}:{self.port}: {reason}",
                address_in_use=in_use,
            ) from error
        if not self.users and not _is_loopback_host(self.host):
            log.warning(
                "the embedded broker listens on %s:%d but has no users, so it refuses every "
                "client that is not on this machine; add [[broker.users]] to the table's file "
                "(docs/security.md)",
                self.host,
                self.port,
            )

    def stop(self, timeout: float = 10.0) -> None:
        """Disconnects every client and closes the listener."""
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(timeout)
        self._thread = None

    def _config(self) -> dict[str, Any]:
        from .embedded import UserEntry

        entries = [vars(UserEntry.of(user)) for user in self.users]
        # Only our own plugins: amqtt's default set also logs every packet and publishes $SYS
        # topics every 20 s, which a table does not need.
        plugins: dict[str, Any] = {"tabletop.wire.embedded.TableAuthPlugin": {"users": entries}}
        if entries:
            plugins["tabletop.wire.embedded.TableTopicPlugin"] = {"users": entries}
        return {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}},
            "plugins": plugins,
        }

    def _run(self, started: Future[None]) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve(started))
        except Exception as error:  # the start error is reported through `started`
            if not started.done():
                started.set_exception(error)
            else:
                log.exception("the embedded broker stopped on an error")
        finally:
            # Its executor's threads (amqtt resolves names on them) end with the loop, not
            # after it: a stopped broker leaves nothing running behind.
            with contextlib.suppress(RuntimeError):
                loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()

    async def _serve(self, started: Future[None]) -> None:
        from .embedded import TableBroker

        self._stopped = asyncio.Event()
        # amqtt binds lazily inside start() and wraps OSError; probe the port first so a
        # busy port is reported as such.
        probe = await asyncio.start_server(lambda r, w: None, self.host, self.port)
        probe.close()
        await probe.wait_closed()
        broker = TableBroker(self._config(), users=bool(self.users))
        self._broker = broker
        await broker.start()
        started.set_result(None)
        await self._stopped.wait()
        # amqtt's shutdown() can hang while a client is still connected (its reader task does
        # not take the cancellation), so drop every connection first, then shut down.
        for writer in broker.writers:
            writer.close()
        await asyncio.sleep(0.05)
        try:
            await asyncio.wait_for(broker.shutdown(), timeout=5)
        except TimeoutError:
            log.warning("the embedded broker did not shut down in 5 s; stopping it anyway")
        # End what amqtt leaves running, so its sockets close while the loop still runs.
        current = asyncio.current_task()
        leftover = [task for task in asyncio.all_tasks() if task is not current]
        for task in leftover:
            task.cancel()
        await asyncio.gather(*leftover, return_exceptions=True)


@dataclass(frozen=True, slots=True)
class BrokerChoice:
    """The broker a command uses and why, in words for the person who started it."""

    url: BrokerUrl
    embedded: EmbeddedBroker | None  # started by this process, which must stop it
    reason: str


def choose_broker(
    url_text: str | None,
    source: str | None,
    users: Sequence[User] = (),
    default: str = DEFAULT_BROKER_URL,
) -> BrokerChoice:
    """Picks the broker for a command that may host one (`tabletop rules`), and says why.

    `url_text` is the URL asked for and `source` where it came from ("--broker"); with none,
    $TABLETOP_BROKER, else the embedded broker at `default`. An embedded URL starts the
    embedded broker there (with `users`). If the address is taken: by an embedded broker
    this project runs (the state file says so), that one is used; by anything else at an
    address someone asked for, that is used and the reason says so; at the default address,
    the embedded broker starts on a free port instead, since whatever listens on 1883 (a
    system Mosquitto, say) is not what a person who configured nothing expects.
    """
    if url_text is None and os.environ.get(BROKER_ENV):
        url_text, source = os.environ[BROKER_ENV], f"${BROKER_ENV}"
    asked = url_text is not None
    url = parse_broker_url(url_text if url_text is not None else default)
    if not url.embedded:
        return BrokerChoice(url, None, f"using the broker at {url}, as {source} says")
    broker = EmbeddedBroker(url.host, url.port, users)
    try:
        broker.start()
    except BrokerStartError as error:
        if not error.address_in_use:
            raise
    else:
        why = (
            f"as {source} asks"
            if asked
            else "no broker URL is configured: no --broker, [broker] url or $TABLETOP_BROKER"
        )
        return BrokerChoice(
            broker.url,
            broker,
            f"started the embedded broker on {url.host}:{url.port} ({why}){users_note(users)}",
        )
    address = f"{url.host}:{url.port}"
    there = BrokerUrl("mqtt", url.host, url.port)
    recorded = recorded_broker()
    if recorded is not None and (recorded.url.host, recorded.url.port) == (url.host, url.port):
        return BrokerChoice(
            there,
            None,
            f"using the embedded broker that `{recorded.started_by}` (pid {recorded.pid}) runs "
            f"on {address}",
        )
    what = describe_listener(url.host, url.port)
    if asked:
        return BrokerChoice(
            there, None, f"{address} ({source}) is taken by {what}: using it as the broker"
        )
    moved = _start_on_free_port(url.host, users)
    return BrokerChoice(
        moved.url,
        moved,
        f"{address} is taken by {what}, so the embedded broker listens on "
        f"{moved.host}:{moved.port} instead{users_note(users)}. `tabletop gm` and "
        f"`tabletop bridge` on this machine find it by themselves; elsewhere give "
        f"--broker mqtt://{moved.host}:{moved.port}",
    )


def broker_for(url_text: str | None) -> tuple[BrokerUrl, EmbeddedBroker | None]:
    """Where to connect for a URL given on the command line (see `choose_broker`)."""
    choice = choose_broker(url_text, "--broker")
    log.info("%s", choice.reason)
    return choice.url, choice.embedded


def client_url(url_text: str | None) -> BrokerUrl:
    """The URL a client (not hosting a broker) connects to: embedded:// becomes mqtt://.

    With no URL and no $TABLETOP_BROKER: the embedded broker that a running `tabletop rules`
    or `tabletop broker` recorded in the state file, else 127.0.0.1:1883.
    """
    text = url_text or os.environ.get(BROKER_ENV)
    if not text:
        recorded = recorded_broker()
        if recorded is not None:
            log.info(
                "using the embedded broker of `%s` (pid %d) at %s",
                recorded.started_by,
                recorded.pid,
                recorded.url,
            )
            return recorded.url
        text = DEFAULT_BROKER_URL
    url = parse_broker_url(text)
    return BrokerUrl("mqtt", url.host, url.port) if url.embedded else url


def users_note(users: Sequence[User]) -> str:
    if not users:
        return "; no users: anonymous clients from this machine only"
    return f"; {len(users)} users, each held to its role"


def _start_on_free_port(host: str, users: Sequence[User]) -> EmbeddedBroker:
    for attempt in range(5):
        broker = EmbeddedBroker(host, free_port(host), users)
        try:
            broker.start()
        except BrokerStartError as error:  # taken between the probe and the start
            if not error.address_in_use or attempt == 4:
                raise
            continue
        return broker
    raise AssertionError("unreachable")


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on at `host` now (1883 is often taken, on a Pi too): the one
    way the programs, the benchmarks and the tests pick a port."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def _is_loopback_host(host: str) -> bool:
    if host == "localhost":
        return True
    from .embedded import is_loopback

    return is_loopback(host)


def mqtt_hello(host: str, port: int, timeout: float = 1.0) -> bytes | None:
    """Says hello to what listens at host:port as an MQTT 3.1.1 client (CONNECT, then DISCONNECT)
    and returns the first bytes of its answer, or None when nothing answers.

    A whole handshake rather than a bare TCP connect, which a broker logs as an error (amqtt:
    "No data to decode MQTT packet fixed header") on every `tabletop gm` that looks for it."""
    client_id = f"tabletop-probe-{secrets.token_hex(4)}".encode()
    body = b"\x00\x04MQTT\x04\x02\x00\x0a" + len(client_id).to_bytes(2, "big") + client_id
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(bytes([0x10, len(body)]) + body)
            answer = sock.recv(4)
            with contextlib.suppress(OSError):
                sock.sendall(b"\xe0\x00")  # DISCONNECT
    except OSError:
        return None
    return answer


def describe_listener(host: str, port: int, timeout: float = 1.0) -> str:
    """What listens at host:port, in words: another MQTT broker, or some other program."""
    answer = mqtt_hello(host, port, timeout)
    if answer is not None and answer[:2] == b"\x20\x02":
        return "another MQTT broker (not one this project started; a system Mosquitto?)"
    return "a program that does not answer as an MQTT broker"


# -- the state file: where the embedded broker of this user's running command listens -------


@dataclass(frozen=True, slots=True)
class RecordedBroker:
    """An embedded broker a running command recorded: its URL, process and command."""

    url: BrokerUrl
    pid: int
    started_by: str
    users: bool


def state_path() -> Path:
    """Where the running embedded broker is recorded: $XDG_RUNTIME_DIR, else $XDG_STATE_HOME.

    Per user, so two people on one machine each find their own table.
    """
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "tabletop" / "broker.json"
    state = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return Path(state) / "tabletop" / "broker.json"


def record_broker(url: BrokerUrl, started_by: str, users: bool) -> Path | None:
    """Records this process's embedded broker for `client_url`; None if it cannot be written.

    Failing to write it never stops the broker: other commands then need --broker.
    """
    path = state_path()
    record = {
        "v": STATE_VERSION,
        "url": f"mqtt://{url.host}:{url.port}",
        "pid": os.getpid(),
        "started_by": started_by,
        "users": users,
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_text(json.dumps(record) + "\n", encoding="utf-8")
        temporary.replace(path)
    except OSError as error:
        log.warning("cannot record the broker in %s (%s): others need --broker", path, error)
        return None
    return path


def forget_broker() -> None:
    """Removes the state file if it records this process's broker."""
    path = state_path()
    recorded = _read_record(path)
    if recorded is not None and recorded.pid == os.getpid():
        with contextlib.suppress(OSError):
            path.unlink()


def recorded_broker() -> RecordedBroker | None:
    """The recorded embedded broker, if its process still runs and its port is open."""
    recorded = _read_record(state_path())
    if recorded is None or not _process_runs(recorded.pid):
        return None
    if not mqtt_hello(recorded.url.host, recorded.url.port, timeout=0.5):
        return None
    return recorded


def _read_record(path: Path) -> RecordedBroker | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("v") != STATE_VERSION:
            return None
        url = parse_broker_url(str(raw["url"]))
        return RecordedBroker(url, int(raw["pid"]), str(raw["started_by"]), bool(raw["users"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, MqttError):
        return None  # no record, or one this version cannot read: as good as none


def _process_runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# -- `tabletop broker` ------------------------------------------------------------------------
