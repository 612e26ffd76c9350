"""Game masters' logins: each is a broker login of a user with the `gm` role.

The console holds no game master's rights of its own. A login opens the game master's own
MQTT connection with the name and password given, so the broker decides what it may read and
send (docs/security.md); when the table's file lists its users, the console also refuses a
user whose role is not `gm` or who is not scoped to this table, before trying the broker, and
checks the password against the user's hash where there is one.

A session ends: after `idle` seconds with no request and no page following the table, and
`lifetime` seconds after the login whatever happens (the cookie's Max-Age says the same to the
browser). A closed browser leaves a session behind with no page: the same user's next login
replaces it, and when `MAX_SESSIONS` are open a new login ends the one used least recently
(one with no page first), so the limit can never lock every game master out.

The seats' phones follow their seats through any live session (`live_feed`): a phone outlives
the game master who gave its code (src/tabletop/console/seats.py).

A login costs a password hash and a broker login: `login()` runs them on a pool of its own
(`LOGIN_WORKERS` threads, at most `LOGIN_QUEUE` waiting), never on the threads the game
master's actions use, and each client address tries one login at a time, waiting longer after
each wrong one past a few (src/tabletop/console/throttle.py), so a flood of wrong passwords costs at
most `LOGIN_WORKERS` cores and slows only the addresses that send it (issue 51, C2 and C3).
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from tabletop.wire.mqtt import BrokerUrl, NotConnected
from tabletop.wire.mqtt import LoginRefused as BrokerLoginRefused
from tabletop.wire.passwords import PasswordHashError, verify_password
from tabletop.wire.roles import ALL_TABLES, Role, User, user_for

from . import ConsoleError
from .feed import GAME_MASTER, TableFeed
from .throttle import Throttle, TryLater

MAX_SESSIONS = 16
IDLE_SECONDS = 2 * 3600.0  # a game master away from the table for two hours logs in again
LIFETIME_SECONDS = 12 * 3600.0  # an evening's table; a session never outlives it
# A session with no page for this long is stale: its user's next login replaces it. Not at
# once: a page that has just logged in takes a moment to open its stream.
STALE_SECONDS = 10.0
LOGIN_WORKERS = 2  # logins checked at once: the most cores a flood of them can take
LOGIN_QUEUE = 8  # logins waiting for a worker; more are asked to try again shortly


class LoginRefused(ConsoleError):
    """A login the console or the broker refused; the message says why, for the person.

    `wrong`: the credentials were refused (counts against the address); False when the
    broker could not be reached, which says nothing of the password."""

    def __init__(self, message: str, *, wrong: bool = True) -> None:
        super().__init__(message)
        self.wrong = wrong


@dataclass(slots=True)
class Session:
    """One logged-in game master: their own feed of the table, and when it was last used."""

    user: str
    feed: TableFeed
    opened: float
    used: float

    def active(self) -> bool:
        """True while a page follows the table through this session."""
        return self.feed.pages > 0


class Sessions:
    """The logged-in game masters: a token (the cookie) -> their session."""

    def __init__(
        self,
        url: BrokerUrl,
        table: str,
        users: Sequence[User],
        *,
        idle: float = IDLE_SECONDS,
        lifetime: float = LIFETIME_SECONDS,
        limit: int = MAX_SESSIONS,
        stale: float = STALE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if limit < 1:
            raise ValueError("the session limit must be 1 or more")
        self.url = url
        self.table = table
        self.users = tuple(users)
        self.idle = idle
        self.lifetime = lifetime
        self.limit = limit
        self.stale = stale
        self.clock = clock
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()
        self.throttle = Throttle("login")
        self._pool: ThreadPoolExecutor | None = None
        self._waiting = 0  # logins handed to the pool and not yet answered

    async def login(self, client: str, username: str, password: str) -> str:
        """`open()` for a request from `client` (its address), off the event loop on the
        login pool; raises TryLater before any work when the address must wait or the
        pool is full, LoginRefused as open() does."""
        self.throttle.begin(client)
        outcome: bool | None = None  # right, wrong, or neither (the broker out of reach)
        try:
            with self._lock:
                if self._waiting >= LOGIN_QUEUE:
                    raise TryLater(
                        2.0, "The console is checking many logins at once: try again shortly."
                    )
                self._waiting += 1
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(LOGIN_WORKERS, "console-login")
                pool = self._pool
            try:
                loop = asyncio.get_running_loop()
                token = await loop.run_in_executor(pool, self.open, username, password)
            except LoginRefused as refused:
                outcome = False if refused.wrong else None
                raise
            finally:
                with self._lock:
                    self._waiting -= 1
            outcome = True
            return token
        finally:
            if outcome is None:
                self.throttle.abandon(client)
            else:
                self.throttle.done(client, right=outcome)

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
        url = self.url.with_login(username, password)
        feed = TableFeed(url, self.table, GAME_MASTER)
        try:
            feed.start(timeout=5.0)
        except NotConnected as failed:
            feed.stop()
            raise LoginRefused(
                _broker_refusal(failed), wrong=isinstance(failed, BrokerLoginRefused)
            ) from None
        token = secrets.token_urlsafe(32)
        now = self.clock()
        with self._lock:
            ended = self._expired(now)
            # the same user's stale sessions (a closed browser) are replaced
            ended += [
                key
                for key, session in self._sessions.items()
                if session.user == username
                and not session.active()
                and now - session.used >= self.stale
            ]
            feeds = [self._sessions.pop(gone).feed for gone in set(ended)]
            while len(self._sessions) >= self.limit:
                oldest = min(
                    self._sessions,
                    key=lambda key: (self._sessions[key].active(), self._sessions[key].used),
                )
                feeds.append(self._sessions.pop(oldest).feed)
            self._sessions[token] = Session(username, feed, now, now)
        _stop_all(feeds)
        return token

    def get(self, token: str | None) -> TableFeed | None:
        """The feed of a live session (and marks it used now), or None."""
        if token is None:
            return None
        now = self.clock()
        with self._lock:
            session = self._sessions.get(token)
            if session is None:
                return None
            if self._ended(session, now):
                del self._sessions[token]
                _stop_later(session.feed)
                return None
            session.used = now
            return session.feed

    def live_feed(self) -> TableFeed | None:
        """A logged-in game master's feed, for the seats' phones (any of them will do: each
        reads every seat): one with a page open first, then the one used last; None when no
        game master is logged in. Looking does not count as a use of the session."""
        now = self.clock()
        with self._lock:
            live = [s for s in self._sessions.values() if not self._ended(s, now)]
        if not live:
            return None
        return max(live, key=lambda session: (session.active(), session.used)).feed

    def touch(self, token: str | None) -> None:
        """Marks a session used now: a page that stops following it was using it till now."""
        with self._lock:
            session = self._sessions.get(token) if token is not None else None
            if session is not None:
                session.used = max(session.used, self.clock())

    def seconds_left(self, token: str | None) -> float:
        """How long until the session ends at the latest (its absolute lifetime); 0 if none."""
        with self._lock:
            session = self._sessions.get(token) if token is not None else None
            if session is None:
                return 0.0
            return max(0.0, session.opened + self.lifetime - self.clock())

    def sweep(self) -> int:
        """Ends every session past its idle or absolute lifetime; returns how many."""
        with self._lock:
            feeds = [self._sessions.pop(token).feed for token in self._expired(self.clock())]
        _stop_all(feeds)
        return len(feeds)

    @property
    def count(self) -> int:
        with self._lock:
            return len(self._sessions)

    def close(self, token: str | None) -> None:
        with self._lock:
            session = self._sessions.pop(token, None) if token is not None else None
        if session is not None:
            session.feed.stop()

    def close_all(self) -> None:
        """Ends every session, and the login pool (a login under way is waited for)."""
        with self._lock:
            feeds = [session.feed for session in self._sessions.values()]
            self._sessions.clear()
            pool, self._pool = self._pool, None
        _stop_all(feeds)
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _ended(self, session: Session, now: float) -> bool:
        if now - session.opened >= self.lifetime:
            return True
        return not session.active() and now - session.used >= self.idle

    def _expired(self, now: float) -> list[str]:
        return [token for token, session in self._sessions.items() if self._ended(session, now)]


def _broker_refusal(failed: NotConnected) -> str:
    """The broker's refusal in the words a person at the login form needs."""
    text = str(failed)
    lowered = text.lower()
    if "not authori" in lowered or "bad user name or password" in lowered:
        return "The broker refused this user name or password."
    return f"The broker refused this login: {text}"


def _stop_all(feeds: Sequence[TableFeed]) -> None:
    for feed in feeds:
        feed.stop()


def _stop_later(feed: TableFeed) -> None:
    """Stops a feed off the caller's thread (the event loop must not wait for it)."""
    threading.Thread(target=feed.stop, name="console-session-end", daemon=True).start()


def _matches(password: str, hashed: str) -> bool:
    try:
        return verify_password(password, hashed)
    except PasswordHashError:
        return False
