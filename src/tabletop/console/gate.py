"""What one connection may hold of the console, below HTTP: a cap per client address and in
all, and a deadline for each request to arrive (issue 51, C1).

Before this, one laptop on the guest Wi-Fi took the console down: 2,000 requests whose headers
never finish, opened in 0.6 s, held every descriptor the console had (1,024), and the room's
TV, the game master's login and every seat screen timed out for as long as they were held.
Now, counted from the moment the connection is accepted (before TLS, so a handshake that never
starts counts too):

- a request's headers and body must arrive within `deadline` seconds of the connection (or,
  on a kept-alive connection, of its first byte); a TLS handshake within the same deadline; a
  connection past it is closed. An idle kept-alive connection is closed by uvicorn after 5 s;
  an open page's stream (a request that arrived) lives on;
- one client address holds at most `per_client` connections (a browser opens at most 6 to
  one server; a device with several tabs and the TV's page stays far below): more are closed
  at once, before a byte is read. 127.0.0.1 and ::1, this machine's own programs (and a
  reverse proxy in front, which keeps its own limits), are not capped per address;
- all clients together hold at most `max_connections`; at that cap a newcomer still gets in
  when some address holds more than it would: that address's oldest connection is closed, so
  one client with many connections cannot keep out a device that has few.

uvicorn's own protocol (h11) serves each admitted connection; TLS is started here
(`loop.start_tls`) rather than by uvicorn, since uvicorn's TLS runs the handshake before any
code of the console sees the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import Callable
from typing import Any

import h11

log = logging.getLogger(__name__)

REQUEST_DEADLINE = 10.0  # a phone on a poor Wi-Fi sends a 4 KiB login in well under this
PER_CLIENT = 32
MAX_CONNECTIONS = 512
LISTEN_BACKLOG = 128  # connections accepted in one go before the gate sees any of them
UNCAPPED_CLIENTS = frozenset({"127.0.0.1", "::1"})
# What the console needs besides its connections: the broker links (one per game master's
# session), the listening socket, the event loop's own, files being read, the accept burst.
DESCRIPTOR_RESERVE = 128

# h11's states of the client's side while its request has not fully arrived
_ARRIVING = (h11.IDLE, h11.SEND_BODY)


class ConnectionGate:
    """The connections the console holds, by client address; who may open another."""

    def __init__(
        self,
        *,
        max_connections: int = MAX_CONNECTIONS,
        per_client: int = PER_CLIENT,
        deadline: float = REQUEST_DEADLINE,
    ) -> None:
        if max_connections < 1 or per_client < 1 or deadline <= 0:
            raise ValueError("the connection caps must be 1 or more and the deadline over 0")
        self.max_connections = max_connections
        self.per_client = per_client
        self.deadline = deadline
        self._held: dict[str, list[GatedProtocol]] = {}
        self.total = 0
        # counts since start, for tests and bench/console_safety.py
        self.refused = 0
        self.evicted = 0
        self.timed_out = 0

    def held_by(self, client: str) -> int:
        """How many connections `client` holds now."""
        return len(self._held.get(client, ()))

    def admit(self, connection: GatedProtocol) -> bool:
        """Counts a new connection in, or says it must be closed (False)."""
        client = connection.client
        held = self._held.get(client, [])
        if client not in UNCAPPED_CLIENTS and len(held) >= self.per_client:
            self.refused += 1
            return False
        if self.total >= self.max_connections:
            heaviest = max(self._held.values(), key=len, default=[])
            if len(heaviest) <= len(held) + 1:
                self.refused += 1
                return False
            self.evicted += 1
            heaviest[0].close()  # its oldest: a stream or a request that never finished
        self._held.setdefault(client, []).append(connection)
        self.total += 1
        return True

    def release(self, connection: GatedProtocol) -> None:
        """Counts a connection out (closed, refused, or past its deadline); idempotent."""
        held = self._held.get(connection.client)
        if held is None or connection not in held:
            return
        held.remove(connection)
        if not held:
            del self._held[connection.client]
        self.total -= 1


class GatedProtocol(asyncio.Protocol):
    """One TCP connection: admitted by the gate, timed until each request has arrived, then
    handed to uvicorn's HTTP protocol (`inner`), through TLS when the console serves it."""

    def __init__(
        self,
        inner: asyncio.Protocol,
        gate: ConnectionGate,
        tls: ssl.SSLContext | None,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.inner = inner
        self.gate = gate
        self.tls = tls
        self.loop = loop
        self.client = ""
        self._raw: asyncio.BaseTransport | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._handed_over = False
        # what TLS decrypted right at the handshake's end, before `start_tls` returned
        self._early: list[bytes] = []
        self._handshake: asyncio.Task[None] | None = None

    # -- the TCP side ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._raw = transport
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        # a dual-stack listener names IPv4 clients ::ffff:a.b.c.d: one client, one name
        self.client = address.removeprefix("::ffff:")
        if not self.gate.admit(self):
            _abort(transport)
            return
        self._arm()
        if self.tls is None:
            self._hand_over(transport)
        else:
            self._handshake = self.loop.create_task(self._start_tls(transport, self.tls))

    async def _start_tls(self, transport: asyncio.BaseTransport, context: ssl.SSLContext) -> None:
        assert isinstance(transport, asyncio.Transport)
        try:
            secured = await self.loop.start_tls(
                transport, self, context, server_side=True, ssl_handshake_timeout=self.gate.deadline
            )
        except (OSError, ssl.SSLError, TimeoutError, ConnectionError):
            self._closed()  # a failed or timed-out handshake: not the console's error
            return
        except asyncio.CancelledError:  # the console stops
            self._closed()
            raise
        if secured is None or secured.is_closing():  # closed during the handshake
            self._closed()
            return
        self._hand_over(secured)

    def _hand_over(self, transport: asyncio.BaseTransport) -> None:
        self._handed_over = True
        self.inner.connection_made(transport)
        early, self._early = self._early, []
        for data in early:
            self.data_received(data)

    # -- what arrives (from TCP, or from TLS once the handshake is done) ------------------

    def data_received(self, data: bytes) -> None:
        if not self._handed_over:
            self._early.append(data)  # TLS reads on at once after the handshake
            return
        self.inner.data_received(data)
        self._follow_request()

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self._handed_over else None

    def connection_lost(self, exc: Exception | None) -> None:
        if self._handed_over:
            self.inner.connection_lost(exc)
        self._closed()

    def pause_writing(self) -> None:
        if self._handed_over:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self._handed_over:
            self.inner.resume_writing()

    # -- the deadline ---------------------------------------------------------------------

    def _follow_request(self) -> None:
        """Times a request while it arrives: from its first byte till its body's end."""
        connection = getattr(self.inner, "conn", None)
        state = getattr(connection, "their_state", None)
        if state in _ARRIVING:
            self._arm()
        else:
            self._disarm()

    def _arm(self) -> None:
        if self._timer is None:
            self._timer = self.loop.call_later(self.gate.deadline, self._expire)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expire(self) -> None:
        self._timer = None
        self.gate.timed_out += 1
        self.close()

    def close(self) -> None:
        """Closes the connection at once (no response: its request never arrived)."""
        self.gate.release(self)
        if self._raw is not None:
            _abort(self._raw)

    def _closed(self) -> None:
        self._disarm()
        self.gate.release(self)


def _abort(transport: asyncio.BaseTransport) -> None:
    """Closes without lingering: the descriptor is free at once."""
    with contextlib.suppress(Exception):
        if isinstance(transport, asyncio.WriteTransport):
            transport.abort()
        else:
            transport.close()


def gated_protocol(
    gate: ConnectionGate, tls: ssl.SSLContext | None, inner_class: Callable[..., Any]
) -> type[asyncio.Protocol]:
    """The protocol class uvicorn is given (`Config(http=...)`): it builds uvicorn's own
    `inner_class` for each connection and puts it behind the gate."""

    class Gated(GatedProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            loop = kwargs.get("_loop") or asyncio.get_running_loop()
            super().__init__(inner_class(*args, **kwargs), gate, tls, loop)

    return Gated


def fit_descriptors(wanted: int) -> int:
    """Raises this process's soft limit on open files towards `wanted` (as far as the hard
    limit allows); returns the limit now in force."""
    try:
        import resource
    except ImportError:  # not on Linux: nothing to raise
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return wanted if soft == resource.RLIM_INFINITY else int(soft)
