"""The console as a server one can start and stop in-process: `ConsoleServer`.

    server = ConsoleServer(url, "main")
    server.start()          # connects to the broker, serves on a free port
    print(server.url)       # http://127.0.0.1:PORT/
    server.stop()

uvicorn serves the app on a thread of its own, with its own event loop, so a program (a test,
`tabletop sim`) can run a console beside whatever else it does.

Off this machine the console serves over TLS only (`certfile`, `keyfile`): the game master's
broker password and the session cookie cross the venue's network. Plain HTTP is served on a
loopback address only, and so is a console without users (anyone who reaches it would be the
game master).
"""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from tabletop.config.places import corrections_folder
from tabletop.rules import games
from tabletop.wire.mqtt import BrokerUrl
from tabletop.wire.roles import User

from . import ConsoleError
from .app import build_app
from .corrections import Corrections
from .feed import ROOM, TableFeed
from .gate import (
    DESCRIPTOR_RESERVE,
    LISTEN_BACKLOG,
    MAX_CONNECTIONS,
    PER_CLIENT,
    REQUEST_DEADLINE,
    ConnectionGate,
    fit_descriptors,
    gated_protocol,
)
from .guard import LOOPBACK_NAMES, ServedNames, is_loopback
from .seats import default_seats_file
from .sessions import IDLE_SECONDS, LIFETIME_SECONDS, Sessions

log = logging.getLogger(__name__)


class ConsoleServer:
    """The web console of one table: the room's feed, the game masters' sessions, the server."""

    def __init__(
        self,
        url: BrokerUrl,
        table: str,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        users: Sequence[User] = (),
        game: str = games.DEFAULT_GAME,
        certfile: str | Path | None = None,
        keyfile: str | Path | None = None,
        server_names: Sequence[str] = (),
        session_idle: float = IDLE_SECONDS,
        session_lifetime: float = LIFETIME_SECONDS,
        corrections: str | Path | None = None,
        seats_file: str | Path | None = None,
        max_connections: int = MAX_CONNECTIONS,
        per_client: int = PER_CLIENT,
        request_deadline: float = REQUEST_DEADLINE,
    ) -> None:
        if (certfile is None) != (keyfile is None):
            raise ConsoleError("TLS needs both a certificate (--certfile) and its key (--keyfile)")
        self.broker_url = url
        self.table = table
        self.host = host
        self.port = port
        self.certfile = None if certfile is None else str(certfile)
        self.keyfile = None if keyfile is None else str(keyfile)
        self.users = tuple(users)
        self.room = TableFeed(url, table, ROOM)
        self.sessions = Sessions(url, table, users, idle=session_idle, lifetime=session_lifetime)
        self.game = game
        # corrected throws, kept for the table's next enrolment
        # (src/tabletop/console/corrections.py)
        folder = corrections_folder(table, corrections)
        self.corrections = Corrections(folder, table)
        # the seats' phones' joins, kept across a restart (src/tabletop/console/seats.py)
        self.seats_file = Path(seats_file) if seats_file is not None else default_seats_file(table)
        self.served = self._served_names(server_names)
        # what one connection, one client and all of them may hold (src/tabletop/console/gate.py)
        self.gate = ConnectionGate(
            max_connections=max_connections, per_client=per_client, deadline=request_deadline
        )
        self._sweep_every = max(0.2, min(30.0, session_idle / 4, session_lifetime / 4))
        self._sweeper_stop = threading.Event()
        self._sweeper: threading.Thread | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def tls(self) -> bool:
        return self.certfile is not None

    @property
    def url(self) -> str:
        """Where the room view is (the game master's is `url + "gm"`)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}/"

    def _served_names(self, names: Sequence[str]) -> ServedNames:
        """The Host names the console answers to: loopback names, the bound address, and the
        names given; without users, loopback names only (no one else may be game master)."""
        if not self.users:
            strangers = [name for name in names if not is_loopback(name)]
            if strangers or not is_loopback(self.host):
                raise ConsoleError(
                    "without users anyone who reaches the console is the game master: serve "
                    "on 127.0.0.1 only, or list the users in the table's file (--config) "
                    "and log the console in as a display user (docs/security.md)"
                )
            return ServedNames.of(LOOPBACK_NAMES)
        if not is_loopback(self.host) and not self.tls:
            raise ConsoleError(
                f"--bind {self.host}: off this machine the console serves over TLS only (the "
                "game master's password crosses the network): give --certfile and --keyfile, "
                "or bind 127.0.0.1 (docs/console.md)"
            )
        bound = () if self.host in ("0.0.0.0", "::") else (self.host,)
        return ServedNames.of((*LOOPBACK_NAMES, *bound, *names))

    def start(self, timeout: float = 10.0) -> None:
        """Binds the address, starts following the table and serving; returns once serving.

        The broker need not be up: the page says the table is offline until it is."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind((self.host, self.port))
        except OSError as failed:
            listener.close()
            raise ConsoleError(
                f"cannot serve on {self.host}:{self.port}: {failed.strerror}"
            ) from None
        self.port = listener.getsockname()[1]
        self._socket = listener
        tls = self._tls_context() if self.tls else None
        self._fit_descriptors()
        self.room.start(timeout=None)
        app = build_app(
            self.room,
            self.sessions,
            self.game,
            self.served,
            secure=self.tls,
            corrections=self.corrections,
            seats_store=self.seats_file,
        )
        config = uvicorn.Config(
            app,
            # uvicorn's h11 protocol behind the gate, which also runs TLS
            # (src/tabletop/console/gate.py)
            http=gated_protocol(self.gate, tls, H11Protocol),
            log_level="warning",
            timeout_graceful_shutdown=2,
            lifespan="off",
            backlog=LISTEN_BACKLOG,
            timeout_keep_alive=5,  # an idle kept-alive connection is closed after 5 s
            # the console's own limits on what one connection may hold open
            h11_max_incomplete_event_size=16_384,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [listener]}, name="console-http"
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise ConsoleError(f"the console did not start serving on {self.url}")
            time.sleep(0.02)
        self._sweeper_stop.clear()
        self._sweeper = threading.Thread(target=self._sweep, name="console-sessions", daemon=True)
        self._sweeper.start()

    def _sweep(self) -> None:
        """Ends sessions past their lifetime even while a page follows them."""
        while not self._sweeper_stop.wait(self._sweep_every):
            self.sessions.sweep()

    def _fit_descriptors(self) -> None:
        """Makes room for the connections the gate lets in: raises the soft limit on open files
        (a login shell's and systemd's default is 1,024), or lowers the cap to what fits."""
        wanted = self.gate.max_connections + LISTEN_BACKLOG + DESCRIPTOR_RESERVE
        limit = fit_descriptors(wanted)
        if limit < wanted:
            fits = max(16, limit - LISTEN_BACKLOG - DESCRIPTOR_RESERVE)
            log.warning(
                "the console may open %d files (ulimit -n): it serves %d connections at once, "
                "not %d (raise LimitNOFILE, deploy/tabletop-console.service)",
                limit,
                fits,
                self.gate.max_connections,
            )
            self.gate.max_connections = fits

    def _tls_context(self) -> ssl.SSLContext:
        """The TLS settings, reading the certificate and key once before serving, to say what
        is wrong in words."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        for path in (self.certfile, self.keyfile):
            try:
                Path(str(path)).open("rb").close()
            except FileNotFoundError:
                raise ConsoleError(f"TLS: cannot read {path}: no such file") from None
            except PermissionError:
                raise ConsoleError(f"TLS: cannot read {path}: permission denied") from None
            except OSError as failed:
                raise ConsoleError(f"TLS: cannot read {path}: {failed.strerror}") from None
        try:
            context.load_cert_chain(str(self.certfile), str(self.keyfile))
        except (ssl.SSLError, OSError) as bad:
            raise ConsoleError(
                f"TLS: {self.certfile} and {self.keyfile} are not a PEM certificate and its "
                f"private key ({bad})"
            ) from None
        return context

    def stop(self) -> None:
        """Ends every page's stream, stops serving and leaves the broker."""
        self._sweeper_stop.set()
        if self._sweeper is not None:
            self._sweeper.join(5)
            self._sweeper = None
        self.sessions.close_all()
        self.room.stop()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

    def __enter__(self) -> ConsoleServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
