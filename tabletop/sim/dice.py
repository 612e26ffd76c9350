"""The simulated dice tray: dice thrown by a simulated player become a dice event."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any


class DiceTray:
    """Throws wait here until the bridge takes them as dice events."""

    def __init__(self) -> None:
        self._throws: queue.Queue[tuple[int, ...]] = queue.Queue()
        # Called when a throw is announced (the die at rest and read), for latency figures.
        self.announce: Callable[[], None] = lambda: None
        self._unread = 0  # throws not yet read and handed to the bridge
        self._lock = threading.Lock()

    def throw(self, values: Sequence[int]) -> None:
        """Dice thrown; they come to rest showing `values`."""
        with self._lock:
            self._unread += 1
        self._throws.put(tuple(values))

    @property
    def busy(self) -> bool:
        """True while a throw is still rolling or being read: the table cannot have answered
        it yet, so the people wait for it rather than throw again."""
        with self._lock:
            return self._unread > 0

    def _read(self) -> None:
        with self._lock:
            self._unread -= 1

    def events(self, stop: threading.Event) -> Iterator[dict[str, Any]]:
        """The bridge's dice source: one `rolled` event per throw, until `stop` is set."""
        while not stop.is_set():
            try:
                values = self._throws.get(timeout=0.05)
            except queue.Empty:
                continue
            self.announce()
            yield {"event": "rolled", "values": list(values)}
            self._read()  # the bridge asks for the next event once it published this one


class RenderedDiceTray(DiceTray):
    """Each throw is rendered by the simulated camera and read by the real vision pipeline, so
    the simulated table hears only what the camera can see (an unreadable die included).

    One camera films the whole game: one tray and light, as at a real table, while each throw
    brings its own die, place and turn, and a hand takes the last die before the next throw.
    """

    def __init__(self, seed: int = 1) -> None:
        super().__init__()
        self.seed = seed

    def events(self, stop: threading.Event) -> Iterator[dict[str, Any]]:
        from hardware.camera.sim import SimulatedCamera, ThrowPlan
        from vision.reader import DiceReader
        from vision.watch import ThrowWatcher

        watcher = ThrowWatcher(DiceReader())
        camera = SimulatedCamera([], seed=self.seed)
        with camera:
            first = True
            while not stop.is_set():
                try:
                    values = self._throws.get(timeout=0.05)
                except queue.Empty:
                    continue
                plan = ThrowPlan(dice=len(values), values=values, hand_first=not first)
                camera.extend([plan])
                first = False
                answered = False
                while (frame := camera.read()) is not None and not stop.is_set():
                    for event in watcher.feed(frame.image, frame.timestamp):
                        if event.kind.value in ("rolled", "cocked", "unreadable", "unclear"):
                            announced = event.to_json()
                            self.announce()
                            yield announced
                            if not answered:  # the bridge published what the camera saw
                                answered = True
                                self._read()
                if not answered:
                    self._read()  # every frame of the throw seen, and nothing to tell
