"""Game masters' logins: each is a broker login of a user with the `gm` role.

The console holds no game master's rights of its own. A login opens the game master's own
MQTT connection with the name and password given, so the broker decides what it may read and
send (docs/security.md); when the table's file lists its users, the console also refuses a
user whose role is not `gm` or who is not scoped to this table, before trying the broker, and
checks the password against the user's hash where there is one.
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
from collections.abc import Sequence

from wire.mqtt import BrokerUrl, NotConnected
from wire.passwords import PasswordHashError, verify_password
from wire.roles import ALL_TABLES, Role, User, user_for

from . import ConsoleError
from .feed import GAME_MASTER, TableFeed

MAX_SESSIONS = 16


class LoginRefused(ConsoleError):
    """A login the console or the broker refused; the message says why, for the person."""


class Sessions:
    """The logged-in game masters: a token (the cookie) -> their own feed of the table."""

    def __init__(self, url: BrokerUrl, table: str, users: Sequence[User]) -> None:
        self.url = url
        self.table = table
        self.users = tuple(users)
        self._feeds: dict[str, TableFeed] = {}
        self._lock = threading.Lock()

    def open(self, username: str, password: str) -> str:
        """Logs a game master in; returns the session's token or raises LoginRefused."""
        if self.users:
            user = user_for(self.users, username)
            if user is None or (
                user.password_hash is not None and not _matches(password, user.password_hash)
            ):
                raise LoginRefused("Wrong user name or password.")
            if user.role != Role.GM:
                raise LoginRefused(
                    f"User {username!r} has the role {user.role.value}; "
                    "the game master's view needs a user with the role gm."
                )
            if ALL_TABLES not in user.tables and self.table not in user.tables:
                raise LoginRefused(f"User {username!r} is not a game master of {self.table!r}.")
        with self._lock:
            if len(self._feeds) >= MAX_SESSIONS:
                raise LoginRefused(f"{MAX_SESSIONS} game masters are logged in; log one out.")
        url = dataclasses.replace(self.url, username=username, password=password)
        feed = TableFeed(url, self.table, GAME_MASTER)
        try:
            feed.start(timeout=5.0)
        except NotConnected as failed:
            feed.stop()
            raise LoginRefused(f"The broker refused this login: {failed}") from None
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._feeds[token] = feed
        return token

    def get(self, token: str | None) -> TableFeed | None:
        if token is None:
            return None
        with self._lock:
            return self._feeds.get(token)

    def close(self, token: str | None) -> None:
        with self._lock:
            feed = self._feeds.pop(token, None) if token is not None else None
        if feed is not None:
            feed.stop()

    def close_all(self) -> None:
        with self._lock:
            feeds = list(self._feeds.values())
            self._feeds.clear()
        for feed in feeds:
            feed.stop()


def _matches(password: str, hashed: str) -> bool:
    try:
        return verify_password(password, hashed)
    except PasswordHashError:
        return False
