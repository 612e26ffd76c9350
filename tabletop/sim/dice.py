"""The simulated dice tray: a die thrown by a simulated player becomes a dice event."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any


class DiceTray:
    """Throws wait here until the bridge takes them as dice events."""

    def __init__(self) -> None:
        self._throws: queue.Queue[int] = queue.Queue()
        self.thrown: list[int] = []

    def throw(self, value: int) -> None:
        """A die thrown; it comes to rest showing `value`."""
        self.thrown.append(value)
        self._throws.put(value)

    def events(self, stop: threading.Event) -> Iterator[dict[str, Any]]:
        """The bridge's dice source: one `rolled` event per throw, until `stop` is set."""
        while not stop.is_set():
            try:
                value = self._throws.get(timeout=0.05)
            except queue.Empty:
                continue
            yield {"event": "rolled", "values": [value]}
