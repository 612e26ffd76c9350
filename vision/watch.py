"""From a stream of frames to throws: the events a game hears about the dice.

Only a throw counts: dice seen moving (without a hand in the tray) that come to rest. Once
they are still the reader reads every frame, and the throw is announced when `agree` frames
in a row give the same dice. A cocked or unreadable die is announced as such, never guessed.
A hand in the tray cancels what was in progress: dice placed by hand are not a throw.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .reader import DiceReader
from .reading import DieStatus, FrameReading
from .rest import RestDetector, RestObservation, TrayState

Image = npt.NDArray[np.uint8]
VERSION = 1


class ThrowEventKind(enum.Enum):
    """The closed set of things the watcher announces."""

    ROLLING = "rolling"  # dice are moving: a throw has started
    ROLLED = "rolled"  # a throw came to rest and every die was read
    COCKED = "cocked"  # a throw came to rest with a die leaning: re-roll by the table's rules
    UNREADABLE = "unreadable"  # a throw came to rest but a die could not be read for sure
    HAND = "hand"  # a hand (or anything large) is in the tray
    CLEARED = "cleared"  # the tray is empty again


@dataclass(frozen=True)
class ThrowEvent:
    """One announcement; `values` is sorted and only holds dice read for sure."""

    kind: ThrowEventKind
    frame: int
    timestamp: float
    values: tuple[int, ...] = ()
    reading: FrameReading | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "v": VERSION,
            "event": self.kind.value,
            "frame": self.frame,
            "t": round(self.timestamp, 3),
        }
        if self.reading is not None:
            data["values"] = list(self.values)
            data["dice"] = self.reading.to_json()
        return data


def _signature(reading: FrameReading) -> tuple[Any, ...]:
    """What must stay the same across frames for a reading to be believed."""
    return tuple(sorted((d.status.value, d.value or 0) for d in reading.dice))


@dataclass
class ThrowWatcher:
    """Turns frames into ThrowEvents; feed it with `feed(image)` or run it over a source."""

    reader: DiceReader
    detector: RestDetector = field(default_factory=RestDetector)
    settle: int = 2  # still frames before the first reading
    agree: int = 3  # readings in a row that must match
    give_up: int = 15  # still frames of disagreeing readings before "unreadable"
    min_moving: int = 3  # moving frames in a row before it counts as a throw (a nudge moves
    # for a frame or two; a throw rolls for many)
    hand_quiet: int = 5  # frames after a hand during which motion is the hand leaving
    state: TrayState = TrayState.EMPTY
    last_observation: RestObservation | None = None
    last_reading: FrameReading | None = None
    _armed: bool = False
    _readings: list[FrameReading] = field(default_factory=list)
    _frame: int = 0
    _moving_run: int = 0
    _since_hand: int = 1 << 30

    def feed(self, image: Image, timestamp: float | None = None) -> list[ThrowEvent]:
        """Takes one frame; returns what it made happen (usually nothing)."""
        stamp = time.monotonic() if timestamp is None else timestamp
        observation = self.detector.observe(image)
        self.last_observation = observation
        new = observation.state
        events: list[ThrowEvent] = []
        index = self._frame
        self._frame += 1

        self._since_hand += 1
        if new is TrayState.HAND:
            if self._since_hand > self.hand_quiet:
                events.append(ThrowEvent(ThrowEventKind.HAND, index, stamp))
            self._since_hand = 0
            self._armed = False
            self._readings.clear()
        elif new is TrayState.MOVING:
            if self._since_hand > self.hand_quiet:
                self._moving_run += 1
            if not self._armed and self._moving_run >= self.min_moving:
                events.append(ThrowEvent(ThrowEventKind.ROLLING, index, stamp))
                self._armed = True
            self._readings.clear()
        elif new is TrayState.EMPTY and not self._armed:
            # (Armed, "empty" is read anyway: uncalibrated, a die by the wall may not count
            # as present, and the reader has the last word on whether dice lie there.)
            if self.state is not TrayState.EMPTY:
                events.append(ThrowEvent(ThrowEventKind.CLEARED, index, stamp))
            self._armed = False
            self._readings.clear()
        elif self._armed and self.detector.still_frames > self.settle:
            events.extend(self._read(image, index, stamp))
        if new is not TrayState.MOVING:
            self._moving_run = 0
        self.state = new
        return events

    def _read(self, image: Image, index: int, stamp: float) -> list[ThrowEvent]:
        reading = self.reader.read(image)
        self.last_reading = reading
        if not reading.dice:
            return []
        self._readings.append(reading)
        recent = self._readings[-self.agree :]
        signature = _signature(reading)
        if len(recent) == self.agree and all(_signature(r) == signature for r in recent):
            self._armed = False
            self._readings.clear()
            statuses = {d.status for d in reading.dice}
            if DieStatus.COCKED in statuses:
                kind = ThrowEventKind.COCKED
            elif DieStatus.UNREADABLE in statuses:
                kind = ThrowEventKind.UNREADABLE
            else:
                kind = ThrowEventKind.ROLLED
            return [ThrowEvent(kind, index, stamp, reading.values, reading)]
        if len(self._readings) >= self.give_up:
            self._armed = False
            self._readings.clear()
            return [ThrowEvent(ThrowEventKind.UNREADABLE, index, stamp, (), reading)]
        return []

    def run(self, frames: Iterable[tuple[Image, float]]) -> Iterator[ThrowEvent]:
        """Every event from a sequence of (image, timestamp) pairs."""
        for image, stamp in frames:
            yield from self.feed(image, stamp)


def values_of(events: Iterable[ThrowEvent]) -> list[tuple[int, ...]]:
    """The values of every ROLLED event, in order: what a game would take from the dice."""
    return [e.values for e in events if e.kind is ThrowEventKind.ROLLED]


__all__ = ["ThrowEvent", "ThrowEventKind", "ThrowWatcher", "values_of"]
