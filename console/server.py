"""The console as a server one can start and stop in-process: `ConsoleServer`.

    server = ConsoleServer(url, "main")
    server.start()          # connects to the broker, serves on a free port
    print(server.url)       # http://127.0.0.1:PORT/
    server.stop()

uvicorn serves the app on a thread of its own, with its own event loop, so a program (a test,
`tabletop sim`) can run a console beside whatever else it does.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Sequence

import uvicorn

from rules import games
from wire.mqtt import BrokerUrl
from wire.roles import User

from . import ConsoleError
from .app import build_app
from .feed import ROOM, TableFeed
from .sessions import Sessions


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
    ) -> None:
        self.broker_url = url
        self.table = table
        self.host = host
        self.port = port
        self.room = TableFeed(url, table, ROOM)
        self.sessions = Sessions(url, table, users)
        self.game = game
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def url(self) -> str:
        """Where the room view is (the game master's is `url + "gm"`)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

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
        self.room.start(timeout=None)
        app = build_app(self.room, self.sessions, self.game)
        config = uvicorn.Config(
            app, log_level="warning", timeout_graceful_shutdown=2, lifespan="off"
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

    def stop(self) -> None:
        """Ends every page's stream, stops serving and leaves the broker."""
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
