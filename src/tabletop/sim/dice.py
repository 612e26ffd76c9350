"""The simulated dice tray: dice thrown by a simulated player become a dice event."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tabletop.bridge.dice import AwaitedThrow
    from tabletop.hardware.camera.base import Frame
    from tabletop.hardware.camera.sim import SimulatedCamera, ThrowPlan
    from tabletop.vision.reading import Expectation


class DiceTray:
    """Throws wait here until the bridge takes them as dice events."""

    # (First in the class, apart from what the tray counts, so that edits stay apart.)
    def reroll(self, keep: Sequence[int], thrown: Sequence[int]) -> None:
        """The dice of the last throw showing `keep` stay where they lie, the others are thrown
        again and come to rest showing `thrown` (tabletop.rules.games.game.RerollHands); this tray
        reports the whole tray, as it reports every throw."""
        self.throw((*keep, *thrown))

    def expect(self, expectation: Expectation | None) -> None:
        """What the table's prompt awaits (the bridge's `expect`); this tray shows no camera,
        so there is nothing to check."""

    def __init__(self) -> None:
        self._throws: queue.Queue[tuple[int, ...]] = queue.Queue()
        # Called when a throw is announced (the die at rest and read), for latency figures.
        self.announce: Callable[[], None] = lambda: None
        self._unread = 0  # throws not yet read and handed to the bridge
        self._thrown = 0  # throws since the tray was set up
        self._lock = threading.Lock()

    def throw(self, values: Sequence[int]) -> None:
        """Dice thrown; they come to rest showing `values`."""
        with self._lock:
            self._unread += 1
            self._thrown += 1
        self._throws.put(tuple(values))

    @property
    def thrown(self) -> int:
        """How many throws the tray has had: a new count is a throw the table must answer."""
        with self._lock:
            return self._thrown

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
            try:
                self.announce()
                yield {"event": "rolled", "values": list(values)}
            finally:
                # The bridge asks for the next event once it published this one; a bridge
                # stopped with the throw in hand lost it, and nobody must wait for it.
                self._read()


class RenderedDiceTray(DiceTray):
    """Each throw is rendered by the simulated camera and read by the real vision pipeline, so
    the simulated table hears only what the camera can see (an unreadable die included).

    One camera films the whole game: one tray and light, as at a real table, while each throw
    brings its own die, place and turn, and a hand takes the last die before the next throw.
    """

    def __init__(self, seed: int = 1) -> None:
        super().__init__()
        self.seed = seed
        # What stays from the last throw, one entry per throw, put before the throw itself.
        self._keeps: queue.Queue[tuple[int, ...]] = queue.Queue()
        self._awaited: AwaitedThrow | None = None
        # What reaches the watcher of each frame the camera takes: none (dropped), the frame,
        # or an earlier one again (a frozen camera); set by a fault (src/tabletop/sim/faults.py).
        self.frame_fault: Callable[[Frame], Sequence[Frame]] | None = None

    def throw(self, values: Sequence[int]) -> None:
        """Dice thrown after a hand took the last throw's: they come to rest showing `values`."""
        self._keeps.put(())
        super().throw(values)

    def reroll(self, keep: Sequence[int], thrown: Sequence[int]) -> None:
        """The dice of the last throw showing `keep` stay where they lie (as the camera saw
        them at rest); a hand takes the others and throws them, to rest showing `thrown`."""
        self._keeps.put(tuple(keep))
        super().throw((*keep, *thrown))

    def expect(self, expectation: Expectation | None) -> None:
        """What the table's prompt awaits: the watcher checks the next throw against it."""
        from tabletop.bridge.dice import AwaitedThrow

        if self._awaited is None:
            self._awaited = AwaitedThrow()
        self._awaited.set(expectation)

    @staticmethod
    def _plan(
        camera: SimulatedCamera, values: tuple[int, ...], keep: tuple[int, ...], first: bool
    ) -> ThrowPlan:
        """The camera's plan for a throw showing `values`: a hand takes the last throw's dice
        first, but those showing `keep`, which stay where they lie (found by their faces at rest);
        the others' faces are thrown. Kept faces no die shows are thrown too."""
        from tabletop.hardware.camera.sim import ThrowPlan

        if not keep:
            return ThrowPlan(dice=len(values), values=values, hand_first=not first)
        last = next((t for t in reversed(camera.rendered) if t.phase == "rest"), None)
        lying = [v or 0 for v in last.values] if last is not None else []  # 0: a cocked die
        at: list[int] = []
        for face in keep:
            place = next((i for i, v in enumerate(lying) if v == face and i not in at), None)
            if place is not None:
                at.append(place)
        thrown = list(values)
        for place in at:
            thrown.remove(lying[place])
        if not thrown:  # nothing thrown again: no reroll, the hand throws them all
            return ThrowPlan(dice=len(values), values=values)
        return ThrowPlan(dice=len(thrown), values=tuple(thrown), keep_at=tuple(at))

    def events(self, stop: threading.Event) -> Iterator[dict[str, Any]]:
        from tabletop.bridge.dice import PHOTO, PICTURE, PICTURED, photo_of, throw_caption
        from tabletop.hardware.camera.sim import SimulatedCamera
        from tabletop.vision.annotate import throw_picture
        from tabletop.vision.watch import table_watcher

        watcher = table_watcher()
        camera = SimulatedCamera([], seed=self.seed)
        with camera:
            first = True
            while not stop.is_set():
                try:
                    values = self._throws.get(timeout=0.05)
                except queue.Empty:
                    continue
                plan = self._plan(camera, values, self._keeps.get_nowait(), first)
                camera.extend([plan])
                first = False
                answered = False
                try:
                    while (taken := camera.read()) is not None and not stop.is_set():
                        if self._awaited is not None:
                            self._awaited.arm(watcher)
                        fault = self.frame_fault
                        seen = [taken] if fault is None else fault(taken)
                        for frame in seen:
                            for event in watcher.feed(frame.image, frame.timestamp):
                                if event.kind.value not in PICTURED:
                                    continue
                                announced = event.to_json()
                                # as the bridge's camera does: the annotated picture of the
                                # throw, which the bridge publishes on dice/picture (the
                                # console's /dice.jpg)
                                announced[PICTURE] = throw_picture(
                                    frame.image, event.reading, throw_caption(announced)
                                )
                                announced[PHOTO] = photo_of(frame.image)  # on dice/photo
                                self.announce()
                                yield announced
                                if not answered:  # the bridge published what the camera saw
                                    answered = True
                                    self._read()
                finally:
                    if not answered:
                        # Every frame of the throw seen and nothing to tell, or the bridge
                        # stopped while it was filmed (the throw is lost): nobody waits for it.
                        self._read()
