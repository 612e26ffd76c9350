"""MQTT plumbing every table daemon shares: broker URLs and a client with a reconnect lifecycle.

`parse_broker_url` reads `mqtt://user:pass@host:1883`, `mqtts://host` and `embedded://host:port`
(the broker `tabletop broker` runs in-process; clients reach it as plain MQTT), or a
comma-separated list of mqtt(s) URLs: the nodes of a broker cluster, or brokers that bridge one
another, which a link moves through in turn when the one it uses goes.

`MqttLink` wraps a paho-mqtt 2.x client (always `CallbackAPIVersion.VERSION2`), in the Home
Assistant way: paho's callbacks only decode and queue; the owner's thread takes items from
`get()` (paho's network work runs on its own thread, or inside `get()` with threaded=False),
and when an item says the link (re)connected, `get()` first resubscribes and
republishes every retained message the owner set with `publish_retained`, so a broker restart
(which forgets retained messages when it has no persistence) heals itself, and so does a move
to another broker of the list (a cluster node keeps its retained messages and sessions to
itself). A last will is set on every connection, to whichever broker; `stop()` publishes the
will's "clean stop" payload itself.
Everything stays within MQTT 3.1.1, so the embedded amqtt broker and Mosquitto behave alike.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import queue
import re
import socket
import ssl
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import parse_qs, unquote, urlsplit

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

log = logging.getLogger(__name__)

DEFAULT_PORTS: Final = {"mqtt": 1883, "mqtts": 8883, "embedded": 1883}
DEFAULT_BROKER_URL: Final = "embedded://127.0.0.1:1883"
BROKER_ENV: Final = "TABLETOP_BROKER"


class MqttError(Exception):
    """Root of the errors the MQTT plumbing raises."""


class BrokerUrlError(MqttError):
    """A broker URL that cannot be used; the message names the part at fault."""


class NotConnected(MqttError):
    """The broker could not be reached in the time allowed."""


class TlsRefused(NotConnected):
    """TLS failed (a certificate refused, no TLS at that port): set-up to fix, not a wait."""


class LoginRefused(NotConnected):
    """The broker answered the login with a refusal (a wrong user name or password, a user
    not authorised): waiting would not change it, so the first connection's wait ends."""


# MQTT 5 reason codes (paho maps 3.1.1's CONNACK codes 4 and 5 to them): a login refused
# for what it is. Others ("server unavailable", 3) may heal by themselves: waited for.
_LOGIN_REFUSALS: Final = frozenset({134, 135})  # bad user name or password, not authorized


@dataclass(frozen=True, slots=True)
class BrokerUrl:
    """Where a broker is and how to log in: the parsed form of a broker URL.

    `alternates` are the other brokers of a list (`mqtt://a,mqtt://b`): where a link goes,
    in turn, when the one it uses is lost or cannot be reached.
    """

    scheme: str
    host: str
    port: int
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: str | None = None
    insecure: bool = False
    alternates: tuple[BrokerUrl, ...] = ()

    @property
    def every(self) -> tuple[BrokerUrl, ...]:
        """Each broker of the list, this one first, each on its own (without alternates)."""
        return (dataclasses.replace(self, alternates=()), *self.alternates)

    def with_login(self, username: str | None, password: str | None) -> BrokerUrl:
        """The same brokers, each logged in to as `username` (a cluster shares its users)."""
        return dataclasses.replace(
            self,
            username=username,
            password=password,
            alternates=tuple(
                dataclasses.replace(other, username=username, password=password)
                for other in self.alternates
            ),
        )

    @property
    def tls(self) -> bool:
        return self.scheme == "mqtts"

    @property
    def embedded(self) -> bool:
        """True when this URL asks for the in-process amqtt broker."""
        return self.scheme == "embedded"

    def __str__(self) -> str:
        """The URL (a list: each, comma-separated) without its password, for logs and messages."""
        user = f"{self.username}@" if self.username else ""
        own = f"{self.scheme}://{user}{self.host}:{self.port}"
        return ",".join([own, *(str(other) for other in self.alternates)])


# A comma that starts another URL (`...,mqtt://`): a comma inside a password does not.
_LIST_COMMA: Final = re.compile(r",\s*(?=[A-Za-z][A-Za-z0-9+.-]*://)")


def parse_broker_url(url: str) -> BrokerUrl:
    """Reads a broker URL, or a comma-separated list of them; raises BrokerUrlError naming
    what is wrong.

    Query options for mqtts: `ca=PATH` (a CA bundle instead of the system's) and
    `insecure=1` (skip certificate checks: for a test bench only). The brokers of a list are
    one service (a cluster's nodes): all mqtt://, or all mqtts:// with the same options; the
    embedded broker, which the command itself runs, is never one of several.
    """
    texts = _LIST_COMMA.split(url.strip())
    if len(texts) == 1:
        return _parse_one(texts[0])
    if any(not part.strip() for part in texts):
        raise BrokerUrlError(f"broker URL list {url!r} has an empty entry")
    brokers = [_parse_one(part) for part in texts]
    first = brokers[0]
    for other in brokers:
        if other.embedded:
            raise BrokerUrlError(
                f"broker URL list {url!r}: {other} is the embedded broker, which this command "
                "runs itself; a list names brokers that run elsewhere (mqtt:// or mqtts://)"
            )
        if (other.scheme, other.ca_file, other.insecure) != (
            first.scheme,
            first.ca_file,
            first.insecure,
        ):
            raise BrokerUrlError(
                f"broker URL list {url!r}: {other} is not reached as {first} is; the brokers "
                "of a list are one service: all mqtt://, or all mqtts:// with the same options"
            )
    addresses = [(b.host, b.port) for b in brokers]
    twice = next((b for n, b in enumerate(brokers) if (b.host, b.port) in addresses[:n]), None)
    if twice is not None:
        raise BrokerUrlError(f"broker URL list {url!r} names {twice.host}:{twice.port} twice")
    return dataclasses.replace(first, alternates=tuple(brokers[1:]))


def _parse_one(url: str) -> BrokerUrl:
    text = url.strip()
    if "://" not in text:
        raise BrokerUrlError(
            f"broker URL {url!r} has no scheme: write mqtt://HOST:1883, mqtts://HOST "
            "or embedded://127.0.0.1:1883"
        )
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise BrokerUrlError(
            f"broker URL {url!r}: unknown scheme {parts.scheme!r} "
            "(expected mqtt, mqtts or embedded)"
        )
    if not parts.hostname:
        raise BrokerUrlError(f"broker URL {url!r} names no host")
    if "," in parts.hostname:
        raise BrokerUrlError(
            f"broker URL {url!r}: a host name has no comma; in a list, give each URL its "
            "scheme: mqtt://a:1883,mqtt://b:1883"
        )
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError:
        raise BrokerUrlError(f"broker URL {url!r}: the port must be a number 1-65535") from None
    if parts.path not in ("", "/"):
        raise BrokerUrlError(f"broker URL {url!r}: a path ({parts.path!r}) means nothing here")
    query = parse_qs(parts.query, keep_blank_values=True)
    unknown = sorted(set(query) - {"ca", "insecure"})
    if unknown:
        raise BrokerUrlError(f"broker URL {url!r}: unknown option {unknown[0]!r}")
    if query and scheme != "mqtts":
        raise BrokerUrlError(f"broker URL {url!r}: options ca and insecure need mqtts://")
    ca_file = query["ca"][-1] if "ca" in query else None
    insecure = query.get("insecure", ["0"])[-1].lower() in ("1", "true", "yes")
    if scheme == "embedded" and parts.username:
        raise BrokerUrlError(f"broker URL {url!r}: the embedded broker takes no credentials")
    return BrokerUrl(
        scheme=scheme,
        host=parts.hostname,
        port=port,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password is not None else None,
        ca_file=ca_file,
        insecure=insecure,
    )


@dataclass(frozen=True, slots=True)
class Message:
    """A message that arrived on a subscribed topic (topic and raw payload, nothing decoded)."""

    topic: str
    payload: bytes
    retain: bool = False


@dataclass(frozen=True, slots=True)
class Connected:
    """The link (re)connected; subscriptions and retained messages were restored before this."""

    reconnect: bool
    broker: BrokerUrl | None = None  # which broker of the list it reached


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The link lost its broker; paho reconnects with backoff on its own."""

    reason: str


Inbound = Message | Connected | Disconnected


@dataclass(frozen=True, slots=True)
class Will:
    """The last will: published by the broker if the link dies; `clean` is sent on stop()."""

    topic: str
    payload: bytes
    clean: bytes | None = None
    qos: int = 1
    retain: bool = True


class MqttLink:
    """One MQTT connection with a lifecycle: will, backoff, resubscribe, republish retained.

    Threaded (the default), paho's network thread reads and writes the socket and `get()`
    waits on what it queued. With `threaded=False` the owner's own thread does the network
    work inside `get()`: nothing changes threads, so a request is answered without two thread
    hand-offs (the rules daemon does this); the owner must then call `get()` at least every
    few seconds, which keeps the connection alive and reconnects it.
    """

    def __init__(
        self,
        url: BrokerUrl,
        client_id: str,
        *,
        subscriptions: Iterable[tuple[str, int]] = (),
        will: Will | None = None,
        keepalive: int = 15,
        min_backoff: float = 0.1,
        max_backoff: float = 5.0,
        max_inflight: int = 20,
        threaded: bool = True,
    ) -> None:
        self.url = url
        self.client_id = client_id
        self.subscriptions = tuple(subscriptions)
        self.will = will
        self.keepalive = keepalive
        self.min_backoff = min_backoff
        self.max_backoff = max_backoff
        self.max_inflight = max_inflight
        self.threaded = threaded
        self._brokers = url.every
        self._attempts = 0
        self._reached_since_attempt = False  # the last attempt connected (see _on_pre_connect)
        self._broker = self._brokers[0]
        self._backoff = min_backoff
        self._next_attempt = 0.0
        self._inbox: queue.SimpleQueue[Inbound] = queue.SimpleQueue()
        self._retained: dict[str, tuple[bytes, int]] = {}
        self._retained_lock = threading.Lock()
        self._connected = threading.Event()
        self._connections = 0
        self._refusal: str | None = None
        self._login_refused = False  # the last CONNACK refused the login itself
        self._awaited = False  # start() waits for the first connection now
        # Plain MQTT sent to a TLS port: found by one probe after the first connection the
        # broker dropped before answering (issue 33.7), said rather than waited out.
        self._probed_tls = False
        self._speaks_tls: str | None = None
        self._restored = False  # subscriptions and retained messages sent since connecting
        self._corked = False
        self._client: paho.Client | None = None

    # -- lifecycle ------------------------------------------------------------------------

    def start(self, timeout: float | None = 10.0) -> None:
        """Starts connecting in the background; with a timeout, waits for the first connection.

        Raises NotConnected if the broker cannot be reached within `timeout` (the link keeps
        trying until stop()), LoginRefused at once when the broker refuses the login.
        """
        client = paho.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            clean_session=True,
            protocol=paho.MQTTv311,
        )
        client.on_pre_connect = self._on_pre_connect
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_socket_open = _no_delay
        client.reconnect_delay_set(
            min_delay=max(1, round(self.min_backoff)), max_delay=max(1, round(self.max_backoff))
        )
        client.max_inflight_messages_set(self.max_inflight)
        if self.url.tls:
            context = tls_context(self.url)
            # paho retries a failed handshake as if the broker were not up yet; a refused
            # certificate never heals, so say so now rather than time out.
            problem = tls_problem(self.url, context)
            if problem is not None:
                raise TlsRefused(f"cannot connect to the MQTT broker at {self.url}: {problem}")
            client.tls_set_context(context)
        if self.will is not None:
            client.will_set(self.will.topic, self.will.payload, self.will.qos, self.will.retain)
        self._client = client
        client.connect_async(self.url.host, self.url.port, keepalive=self.keepalive)
        if self.threaded:
            client.loop_start()
        if timeout is not None and not self._wait_first(timeout):
            if self._login_refused:
                raise LoginRefused(
                    f"no connection to the MQTT broker at {self.url}: the broker refused it "
                    f"({self._refusal})"
                )
            why = f": the broker refused it ({self._refusal})" if self._refusal else ""
            raise NotConnected(
                f"no connection to the MQTT broker at {self.url} in {timeout:g} s{why}"
            )

    def _wait_first(self, timeout: float) -> bool:
        """Waits for the first connection; raises TlsRefused as soon as the port is found to
        speak TLS to a plain mqtt:// URL (a set-up to fix, not a broker to wait for), and
        returns False as soon as the broker refuses the login (the caller says so)."""
        deadline = time.monotonic() + timeout
        self._awaited = True
        try:
            return self._wait_first_until(deadline)
        finally:
            self._awaited = False

    def _wait_first_until(self, deadline: float) -> bool:
        while True:
            left = deadline - time.monotonic()
            if self.wait_connected(max(0.0, min(left, 0.02))):
                return True
            if self._login_refused:
                return False
            if self._speaks_tls is not None:
                raise TlsRefused(
                    f"cannot connect to the MQTT broker at {self.url}: {self._speaks_tls}"
                )
            if left <= 0:
                return False

    def wait_connected(self, timeout: float) -> bool:
        """Waits until the link is connected; False if it is not within `timeout` seconds.

        Unthreaded, it does the network work meanwhile; what arrives stays queued for get().
        """
        if self.threaded:
            return self._connected.wait(timeout)
        deadline = time.monotonic() + timeout
        while not self._connected.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._drive(min(left, 0.1))
        return True

    def client_id_at(self, index: int) -> str:
        """The client id the link uses with the `index`-th broker of the list."""
        return self.client_id if index == 0 else f"{self.client_id}-{index + 1}"

    @property
    def broker(self) -> BrokerUrl:
        """The broker of the list the link is connected to, or tries now."""
        return self._broker

    @property
    def refusal(self) -> str | None:
        """Why the broker last refused the connection (e.g. "Not authorized"), if it did."""
        return self._refusal

    @property
    def is_connected(self) -> bool:
        return self._connected.is_set()

    def stop(self, timeout: float = 2.0) -> None:
        """Publishes the will's clean-stop payload (if any), disconnects and stops the thread."""
        client = self._client
        if client is None:
            return
        if self.will is not None and self.will.clean is not None and self.is_connected:
            info = client.publish(
                self.will.topic, self.will.clean, self.will.qos, retain=self.will.retain
            )
            deadline = time.monotonic() + timeout
            while not info.is_published() and time.monotonic() < deadline:
                if self.threaded:
                    time.sleep(0.01)
                else:
                    self._drive(0.05)
            if not info.is_published():
                log.warning("could not publish %s before stopping", self.will.topic)
        client.disconnect()
        if self.threaded:
            client.loop_stop()
        self._client = None
        self._connected.clear()

    def drop(self) -> None:
        """Closes the connection as a crash would, with no DISCONNECT: the broker sees the
        socket close and publishes the will (for fault injection, `src/tabletop/sim/faults.py`)."""
        client = self._client
        if client is None:
            return
        if self.threaded:
            client.loop_stop()
        sock = client.socket()
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.close()
        self._client = None
        self._connected.clear()

    # -- the owner's side -----------------------------------------------------------------

    def get(self, timeout: float | None = None) -> Inbound | None:
        """The next inbound item, or None after `timeout` seconds with nothing.

        On a Connected item the subscriptions and retained messages are restored (here, in
        the owner's thread) before it is returned.
        """
        if self.threaded:
            try:
                item = (
                    self._inbox.get(timeout=timeout) if timeout != 0 else self._inbox.get_nowait()
                )
            except queue.Empty:
                return None
        else:
            found = self._take_driving(timeout)
            if found is None:
                return None
            item = found
        if isinstance(item, Connected):
            self._restore()
        return item

    def _take_driving(self, timeout: float | None) -> Inbound | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                return self._inbox.get_nowait()
            except queue.Empty:
                pass
            left = 1.0 if deadline is None else deadline - time.monotonic()
            self._drive(max(0.0, left))
            try:
                return self._inbox.get_nowait()
            except queue.Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    return None

    def _drive(self, timeout: float) -> None:
        """Unthreaded: one round of network work (connect, read, write, keepalive)."""
        client = self._client
        if client is None:
            time.sleep(timeout)
            return
        if client.socket() is None:
            now = time.monotonic()
            if now < self._next_attempt:
                time.sleep(min(timeout, self._next_attempt - now))
                return
            try:
                client.reconnect()
            except (OSError, ssl.SSLError) as error:
                self._schedule_reconnect(f"cannot reach {self.url}: {error}")
                return
        if client.loop(timeout) != MQTTErrorCode.MQTT_ERR_SUCCESS and client.socket() is None:
            self._schedule_reconnect(f"lost {self.url}")

    def _schedule_reconnect(self, why: str) -> None:
        log.debug("%s; next try in %.1f s", why, self._backoff)
        self._next_attempt = time.monotonic() + self._backoff
        self._backoff = min(self.max_backoff, max(self.min_backoff, self._backoff * 2))

    def publish(self, topic: str, payload: bytes, qos: int = 1) -> paho.MQTTMessageInfo:
        """Publishes a non-retained message (queued by paho while disconnected)."""
        return self._require_client().publish(topic, payload, qos, retain=False)

    def publish_retained(self, topic: str, payload: bytes, qos: int = 1) -> None:
        """Publishes a retained message and remembers it, to publish again after a reconnect.

        Until the link has (re)subscribed after connecting, it is only remembered: so that
        a retained "online" never reaches the broker before the subscriptions that make it
        true.
        """
        with self._retained_lock:
            self._retained[topic] = (payload, qos)
            ready = self._restored
        if ready:
            self._require_client().publish(topic, payload, qos, retain=True)

    @contextlib.contextmanager
    def corked(self) -> Iterator[None]:
        """Holds back small writes and sends them together at the end (Linux TCP_CORK).

        For a burst of publishes (a reply, its events, the state): one segment instead of
        one per packet, for the same latency, since the cork comes off when the burst ends.
        """
        client = self._client
        sock = client.socket() if client is not None else None
        cork = getattr(socket, "TCP_CORK", None)
        if not isinstance(sock, socket.socket) or cork is None or sock.family == socket.AF_UNIX:
            yield
            return
        try:
            sock.setsockopt(socket.IPPROTO_TCP, cork, 1)
        except OSError:
            yield
            return
        self._corked = True
        try:
            yield
        finally:
            self._corked = False
            with contextlib.suppress(OSError):  # the socket may have closed meanwhile
                sock.setsockopt(socket.IPPROTO_TCP, cork, 0)

    def flush(self) -> None:
        """Inside corked(): sends what is held back now, and goes on holding back."""
        client = self._client
        sock = client.socket() if client is not None else None
        cork = getattr(socket, "TCP_CORK", None)
        if self._corked and isinstance(sock, socket.socket) and cork is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, cork, 0)
                sock.setsockopt(socket.IPPROTO_TCP, cork, 1)

    def subscribe(self, topic_filter: str, qos: int = 1) -> None:
        """Adds a subscription now and after every reconnect."""
        self.subscriptions = (*self.subscriptions, (topic_filter, qos))
        if self.is_connected:
            self._require_client().subscribe(topic_filter, qos)

    def _require_client(self) -> paho.Client:
        if self._client is None:
            raise MqttError("the MQTT link is not started")
        return self._client

    def _restore(self) -> None:
        client = self._client
        if client is None:
            return
        if self.subscriptions:
            client.subscribe(list(self.subscriptions))
        with self._retained_lock:
            retained = list(self._retained.items())
            self._restored = True
        for topic, (payload, qos) in retained:
            client.publish(topic, payload, qos, retain=True)

    # -- paho's network thread: decode and queue, nothing else ---------------------------

    def _on_pre_connect(self, client: paho.Client, userdata: object) -> None:
        """Aims each connection attempt: the list's first broker after a connection (or at
        first), the next one after an attempt that failed.

        So every program given the same list meets on the first broker that is up: a cluster
        whose nodes keep retained messages to themselves (RabbitMQ's) then holds each view on
        the node where its readers are.
        """
        if self._reached_since_attempt or self._attempts == 0:
            index = 0
        else:
            index = (self._brokers.index(self._broker) + 1) % len(self._brokers)
        self._reached_since_attempt = False
        broker = self._brokers[index]
        self._attempts += 1
        if broker != self._broker and len(self._brokers) > 1:
            log.info("MQTT link %s: trying the broker at %s", self.client_id, broker)
        self._broker = broker
        # paho's host and port setters refuse while a reconnect is under way, and reconnect()
        # reads these two right after this callback (paho 2.x): the one place to aim it.
        client._host = broker.host
        client._port = broker.port
        # One client id per broker of the list: a cluster node that died keeps, in the
        # cluster's records, the session queue it homed for the id that used it (RabbitMQ
        # 3.x refuses that id elsewhere until the node is back), so each node gets its own.
        client._client_id = self.client_id_at(index).encode()
        if broker.username is not None:
            client.username_pw_set(broker.username, broker.password)
        else:
            client.username_pw_set(None)

    def _on_connect(
        self,
        client: paho.Client,
        userdata: object,
        flags: paho.ConnectFlags,
        reason_code: ReasonCode,
        properties: Properties | None,
    ) -> None:
        if reason_code.is_failure:
            self._refusal = str(reason_code)
            self._login_refused = reason_code.value in _LOGIN_REFUSALS
            log.warning("the broker at %s refused the connection: %s", self.url, reason_code)
            if self._login_refused and self._awaited and not self._connections:
                # start() is about to say so: no retry (paho's next one waits a second first,
                # which stop() would wait out)
                client.disconnect()
            return
        self._connections += 1
        self._login_refused = False
        self._reached_since_attempt = True
        self._backoff = self.min_backoff
        with self._retained_lock:
            self._restored = False
        self._connected.set()
        self._inbox.put(Connected(reconnect=self._connections > 1, broker=self._broker))

    def _on_disconnect(
        self,
        client: paho.Client,
        userdata: object,
        flags: paho.DisconnectFlags,
        reason_code: ReasonCode,
        properties: Properties | None,
    ) -> None:
        was_connected = self._connected.is_set()
        self._connected.clear()
        with self._retained_lock:
            self._restored = False
        if was_connected:
            self._inbox.put(Disconnected(str(reason_code)))
        elif not self.url.tls and not self._probed_tls and self._refusal is None:
            # Dropped before the broker's answer: a TLS listener does that to a plain CONNECT.
            # (A broker that answered, if only to refuse, speaks plain MQTT: no probe.)
            self._probed_tls = True
            if speaks_tls(self.url.host, self.url.port):
                self._speaks_tls = (
                    f"{self.url.host}:{self.url.port} speaks TLS, not plain MQTT: use "
                    f"mqtts://{self.url.host}:{self.url.port} (with ?ca=CA.crt when the "
                    "broker's certificate is not signed by a CA this machine trusts)"
                )
                self._refusal = self._speaks_tls
                log.warning("the broker at %s: %s", self.url, self._speaks_tls)

    def _on_message(self, client: paho.Client, userdata: object, message: paho.MQTTMessage) -> None:
        self._inbox.put(Message(message.topic, bytes(message.payload), bool(message.retain)))


def tls_context(url: BrokerUrl) -> ssl.SSLContext:
    """The TLS settings of an mqtts:// URL: its `ca` file, else the system's CAs."""
    try:
        context = ssl.create_default_context(cafile=url.ca_file)
    except (OSError, ssl.SSLError) as error:
        reason = getattr(error, "strerror", None) or getattr(error, "reason", None) or error
        raise TlsRefused(
            f"broker URL {url}: cannot read the CA file {url.ca_file}: {reason}"
        ) from None
    if url.insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def speaks_tls(host: str, port: int, timeout: float = 2.0) -> bool:
    """Whether `host:port` completes a TLS handshake (its certificate unchecked: this only
    tells a TLS port from a plain one, to say which URL to use)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with (
            socket.create_connection((host, port), timeout=timeout) as sock,
            context.wrap_socket(sock, server_hostname=host),
        ):
            return True
    except (OSError, ssl.SSLError):
        return False


def tls_problem(url: BrokerUrl, context: ssl.SSLContext, timeout: float = 5.0) -> str | None:
    """What stops a TLS handshake with the broker, or None if it works or nothing answers yet."""
    try:
        sock = socket.create_connection((url.host, url.port), timeout=timeout)
    except OSError:
        return None  # not up yet, or unreachable: paho keeps trying
    with sock:
        try:
            with context.wrap_socket(sock, server_hostname=url.host):
                return None
        except ssl.SSLCertVerificationError as error:
            checked = f"the CA file {url.ca_file}" if url.ca_file else "the system's CAs"
            return f"certificate verify failed: {error.verify_message} (checked with {checked})"
        except ssl.SSLError as error:
            return f"the TLS handshake failed ({error.reason or error}): is it a TLS port?"
        except (TimeoutError, ConnectionResetError) as error:
            what = (
                f"got no answer in {timeout:g} s"
                if isinstance(error, TimeoutError)
                else "was cut off by the broker"
            )
            return (
                f"the TLS handshake {what}: is it a plain MQTT port (mqtt://, usually 1883) "
                "rather than a TLS one (mqtts://, usually 8883)?"
            )
        except OSError:
            return None


def _no_delay(client: paho.Client, userdata: object, sock: object) -> None:
    # Small packets (a PUBACK, then a reply) must not wait for Nagle's algorithm: without
    # this every command round trip costs a 40 ms delayed ACK.
    if isinstance(sock, socket.socket) and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
