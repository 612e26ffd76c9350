"""Wrong passwords and seat codes, per client address: a few free tries, then a wait that
doubles with each wrong one (issue 51, C3 and C4).

Kept per address, so a stranger's guesses slow only the stranger: a game master on another
device logs in at once, and a wrong code typed on one phone withdraws nothing from anyone
else. One try at a time per address: a client cannot queue a hundred logins while the first
is checked. A right one forgets the address's wrong tries.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

FREE_TRIES = 5  # a game master mistyping on a phone keyboard is not slowed
FIRST_WAIT = 1.0  # seconds, after the free tries; doubled by each further wrong one
LONGEST_WAIT = 60.0
FORGET_AFTER = 15 * 60.0  # an address with no wrong try for this long starts afresh
ADDRESSES_KEPT = 4_096  # the oldest is forgotten past this (a bound on memory, not a rule)


class TryLater(Exception):
    """A try refused before it is checked: the address must wait, or has one in flight."""

    def __init__(self, seconds: float, message: str) -> None:
        super().__init__(message)
        self.seconds = seconds

    @property
    def retry_after(self) -> int:
        """The wait in whole seconds, for a Retry-After header."""
        return max(1, math.ceil(self.seconds))


@dataclass(slots=True)
class _Record:
    wrong: int = 0
    allowed_at: float = 0.0  # no try before this (clock time)
    last_wrong: float = 0.0


class Throttle:
    """Per client address: how many wrong tries, until when the next one must wait."""

    def __init__(
        self,
        what: str,
        *,
        free: int = FREE_TRIES,
        first_wait: float = FIRST_WAIT,
        longest_wait: float = LONGEST_WAIT,
        forget_after: float = FORGET_AFTER,
        kept: int = ADDRESSES_KEPT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.what = what  # "login", "seat code": said in the refusal
        self.free = free
        self.first_wait = first_wait
        self.longest_wait = longest_wait
        self.forget_after = forget_after
        self.kept = kept
        self.clock = clock
        self._records: dict[str, _Record] = {}
        self._busy: set[str] = set()
        self._lock = threading.Lock()

    def begin(self, client: str) -> None:
        """Takes the address's one try slot, or raises TryLater; end with done()."""
        now = self.clock()
        with self._lock:
            record = self._current(client, now)
            if client in self._busy:
                raise TryLater(
                    1.0, f"Another {self.what} from this device is being checked: wait for it."
                )
            if record is not None and now < record.allowed_at:
                left = record.allowed_at - now
                raise TryLater(
                    left,
                    f"Too many wrong tries from this device: try again in {math.ceil(left)} s.",
                )
            self._busy.add(client)

    def done(self, client: str, *, right: bool) -> None:
        """Ends the address's try: a wrong one makes the next wait longer once past the free
        tries; a right one forgets the wrong ones."""
        now = self.clock()
        with self._lock:
            self._busy.discard(client)
            if right:
                self._records.pop(client, None)
                return
            record = self._current(client, now) or _Record()
            record.wrong += 1
            record.last_wrong = now
            over = record.wrong - self.free
            if over > 0:
                wait = min(self.longest_wait, self.first_wait * 2 ** min(over - 1, 30))
                record.allowed_at = now + wait
            self._records.pop(client, None)  # re-inserted last: the dict stays oldest first
            self._records[client] = record
            while len(self._records) > self.kept:
                del self._records[next(iter(self._records))]

    def abandon(self, client: str) -> None:
        """Ends a try that was neither right nor wrong (the broker out of reach)."""
        with self._lock:
            self._busy.discard(client)

    def wrong_tries(self, client: str) -> int:
        with self._lock:
            record = self._current(client, self.clock())
            return 0 if record is None else record.wrong

    def _current(self, client: str, now: float) -> _Record | None:
        record = self._records.get(client)
        if record is not None and now - record.last_wrong >= self.forget_after:
            del self._records[client]
            return None
        return record
