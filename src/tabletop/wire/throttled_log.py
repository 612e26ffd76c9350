"""Warnings that cannot flood a log: one line per key per interval, then a count of the rest.

Anyone on the broker can send a table a thousand bad messages a second; each deserves a
warning, but a disk full of them helps nobody.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable


class ThrottledLog:
    """Logs at most one message per key every `interval` seconds, saying how many it held back."""

    def __init__(
        self,
        logger: logging.Logger,
        interval: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.interval = interval
        self.clock = clock
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def warning(self, key: str, message: str, *args: object) -> bool:
        """Logs the warning unless one with this key was logged recently; True if logged."""
        now = self.clock()
        last = self._last.get(key)
        if last is not None and now - last < self.interval:
            self._held[key] = self._held.get(key, 0) + 1
            return False
        held = self._held.pop(key, 0)
        self._last[key] = now
        if held and last is not None:
            message += " (and %d more like it in the last %.0f s)"
            args = (*args, held, now - last)
        self.logger.warning(message, *args)
        return True
