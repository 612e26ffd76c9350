"""From a stream of frames to throws: the events a game hears about the dice.

Only a throw counts: dice seen moving (away from any hand in the tray) that come to rest. Once
they are still, and no hand is in the tray, the reader reads every frame, and the throw is
announced once, when `agree` frames in a row give the same dice. A cocked or unreadable die is
announced as such, never guessed. Dice set down under a hand are not a throw.

A throw is never dropped without a word: when the watcher cannot tell (the readings keep
disagreeing, no die is found where dice rolled, the game expected another number of dice, dice
of the last throw still lie in the tray), it announces `unclear` with the reason in plain
words, so the table can ask for a re-throw.

Each die at rest is matched with the last announced reading (place and size): a die that lay
there before is `kept` (or `moved` when it was turned or pushed), the others `thrown`. That is
what a reroll of some dice needs; `expect` tells the watcher what the game waits for.
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .calibration import Calibration
from .classify import ValueClassifier
from .reader import DiceReader, die_side
from .reading import DieReading, DieStatus, Expectation, FrameReading
from .rest import RestDetector, RestObservation, TrayState

Image = npt.NDArray[np.uint8]
VERSION = 1
# Mean colour change (0-255 per channel) below which a die's place looks as it did: noise and
# a drifting lamp stay well under it, a die taken away (tray where it lay) goes far over.
SAME_PLACE_CHANGE = 20.0
NONE_FOUND = "dice rolled but no die was found at rest: throw again"


class ThrowEventKind(enum.Enum):
    """The closed set of things the watcher announces."""

    ROLLING = "rolling"  # dice are moving: a throw has started
    ROLLED = "rolled"  # a throw came to rest and every die was read
    COCKED = "cocked"  # a throw came to rest with a die leaning: re-roll by the table's rules
    UNREADABLE = "unreadable"  # a throw came to rest but a die could not be read for sure
    UNCLEAR = "unclear"  # a throw came to rest but the watcher cannot tell: `reason` says why
    HAND = "hand"  # a hand (or anything large) is in the tray
    CLEARED = "cleared"  # the tray is empty again


# The kinds that end a throw: exactly one of them follows every ROLLING.
SETTLED_KINDS = frozenset(
    {
        ThrowEventKind.ROLLED,
        ThrowEventKind.COCKED,
        ThrowEventKind.UNREADABLE,
        ThrowEventKind.UNCLEAR,
    }
)


class DieOrigin(enum.Enum):
    """Where a die at rest comes from, against the last reading announced."""

    THROWN = "thrown"  # came to rest in this throw
    KEPT = "kept"  # lay in the same place, same face up, before the throw
    MOVED = "moved"  # a kept die that was pushed or turned by the throw


@dataclass(frozen=True)
class ThrowEvent:
    """One announcement; `values` is sorted and only holds dice read for sure. `origins` has
    one entry per die of `reading`, in its order; `reason` says why a throw is UNCLEAR (or
    cocked, or unreadable) in plain words."""

    kind: ThrowEventKind
    frame: int
    timestamp: float
    values: tuple[int, ...] = ()
    reading: FrameReading | None = None
    reason: str = ""
    who: str = ""
    origins: tuple[DieOrigin, ...] = ()

    def values_of(self, origin: DieOrigin) -> tuple[int, ...]:
        """The sorted values read of the dice with that origin (kept, moved or thrown)."""
        if self.reading is None:
            return ()
        return tuple(
            sorted(
                d.value
                for d, o in zip(self.reading.dice, self.origins, strict=True)
                if o is origin and d.value is not None
            )
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "v": VERSION,
            "event": self.kind.value,
            "frame": self.frame,
            "t": round(self.timestamp, 3),
        }
        if self.who:
            data["who"] = self.who
        if self.reason:
            data["reason"] = self.reason
        if self.reading is not None:
            data["values"] = list(self.values)
            dice = self.reading.to_json()
            for die, origin in zip(dice, self.origins, strict=True):
                die["origin"] = origin.value
            data["dice"] = dice
            if self.reading.unsure:
                # Each die the reader could not read for sure, by its place in `dice` and its
                # box in the frame: the table asks for it (tapped on the throw's photo, or
                # thrown again) and no roll goes to the game (docs/mqtt.md, issue 49).
                data["unsure"] = [{"die": i, "box": dice[i]["box"]} for i in self.reading.unsure]
            if any(o is not DieOrigin.THROWN for o in self.origins):
                data["kept"] = list(self.values_of(DieOrigin.KEPT))
                data["moved"] = list(self.values_of(DieOrigin.MOVED))
                data["thrown"] = list(self.values_of(DieOrigin.THROWN))
        return data


def _signature(reading: FrameReading) -> tuple[Any, ...]:
    """What must stay the same across frames for a reading to be believed."""
    return tuple(sorted((d.status.value, d.value or 0) for d in reading.dice))


def dice_word(count: int) -> str:
    """A count in words for messages people read: "1 die", "3 dice"."""
    return f"{count} {'die' if count == 1 else 'dice'}"


def match_dice(
    previous: FrameReading | None, current: FrameReading, rethrown: int | None = None
) -> tuple[DieOrigin, ...]:
    """Which dice of `current` lay in the tray in `previous` (one origin per die, in order).

    A die is kept when a die of about the same size lay within a third of a side of it,
    showing the same face; moved when one lay there showing another face (turned). When the
    game says how many dice were rethrown, dice beyond that count that are not in their old
    places are kept dice pushed by the throw: the ones nearest to an old place that is now
    empty."""
    n = len(current.dice)
    origins = [DieOrigin.THROWN] * n
    if previous is None or not previous.dice:
        return tuple(origins)
    pairs = sorted(
        (_distance(a, b) / _side(a, b), i, j)
        for i, a in enumerate(current.dice)
        for j, b in enumerate(previous.dice)
        # Boxes of one die differ by up to about 1.5x between readings (the search's sizes
        # come in 1.25x steps, and a watcher told what to expect searches fewer of them).
        if 0.6 <= _size(a) / max(_size(b), 1.0) <= 1.67
    )
    used_now: set[int] = set()
    used_before: set[int] = set()
    ratios: dict[int, float] = {}
    for ratio, i, j in pairs:
        if ratio > 0.35 or i in used_now or j in used_before:
            continue
        ratios[i] = ratio
        used_now.add(i)
        used_before.add(j)
        same_face = (current.dice[i].status, current.dice[i].value) == (
            previous.dice[j].status,
            previous.dice[j].value,
        )
        origins[i] = DieOrigin.KEPT if same_face else DieOrigin.MOVED
    if rethrown is not None:
        stayed = [i for i in range(n) if origins[i] is not DieOrigin.THROWN]
        extra = len(stayed) - (n - rethrown)
        if extra > 0:
            # More dice in old places than were kept: a rethrown die landed where a taken one
            # lay. The turned ones, then the farthest from their old places, were thrown.
            order = sorted(stayed, key=lambda i: (origins[i] is DieOrigin.KEPT, -ratios[i]))
            for i in order[:extra]:
                origins[i] = DieOrigin.THROWN
                used_now.discard(i)
        pushed = n - rethrown - len(used_now)
        if pushed > 0:
            free = [b for j, b in enumerate(previous.dice) if j not in used_before]
            if free:
                candidates = sorted(
                    (min(_distance(a, b) for b in free), i)
                    for i, a in enumerate(current.dice)
                    if i not in used_now
                )
                for _, i in candidates[:pushed]:
                    origins[i] = DieOrigin.MOVED
    return tuple(origins)


def _size(die: DieReading) -> float:
    return float(die.box[2] - die.box[0] + die.box[3] - die.box[1]) / 2.0


def _side(a: DieReading, b: DieReading) -> float:
    return max(1.0, (_size(a) + _size(b)) / 2.0)


def _distance(a: DieReading, b: DieReading) -> float:
    return math.dist(a.center, b.center)


@dataclass
class ThrowWatcher:
    """Turns frames into ThrowEvents; feed it with `feed(image)` or run it over a source."""

    reader: DiceReader
    detector: RestDetector = field(default_factory=RestDetector)
    settle: int = 2  # still frames before the first reading
    agree: int = 3  # readings in a row that must match
    give_up: int = 15  # still frames of disagreeing readings before "unclear"
    min_moving: int = 3  # moving frames in a row before it counts as a throw (a nudge moves
    # for a frame or two; a throw rolls for many)
    hand_quiet: int = 5  # frames after a hand in which a hand again is the same one
    state: TrayState = TrayState.EMPTY
    last_observation: RestObservation | None = None
    last_reading: FrameReading | None = None
    expectation: Expectation | None = None  # what the next throw should be (see `expect`)
    announced: FrameReading | None = None  # the dice at rest when the last throw was announced
    before: FrameReading | None = None  # of those, the ones still lying when this throw began
    _announced_image: Image | None = None
    _calm_image: Image | None = None  # the last frame in which nothing moved
    _armed: bool = False
    _readings: list[FrameReading] = field(default_factory=list)
    _frame: int = 0
    _moving_run: int = 0
    _since_hand: int = 1 << 30
    # The dice's side learnt from the last throw read in full; while the game says what to
    # expect, the reader searches only around it (a third of the work uncalibrated), and the
    # full search checks any reading that does not give the expected count.
    _die_size: float | None = None
    _cocked_run: int = 0  # throws announced cocked in a row (see `slanted_view`)
    # The last frame read, the die size searched, and its reading: the same picture again
    # (a still tray from a camera without noise, the simulated one) is not read again.
    _last_read: tuple[Image, float | None, FrameReading] | None = None
    readings: int = 0  # frames the reader read (a frame seen before is not read again)

    def expect(self, expectation: Expectation | None) -> None:
        """Tells the watcher what the next throw should be (None: anything). It holds for one
        throw: the announcement that ends the next throw uses it up."""
        self.expectation = expectation

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
        moving_fraction = self.detector.settings.moving_fraction
        loose = observation.moving > moving_fraction
        if new is TrayState.HAND:
            if self._armed and self._readings:
                # The dice lay still and were being read when a hand reached in: whatever it
                # does next, this throw must not pass without a word.
                found = any(r.dice for r in self._readings)
                reason = (
                    "a hand reached in before the dice read the same a few frames in a row"
                    if found
                    else "dice rolled but no die was found at rest before a hand reached in"
                )
                events.append(self._announce(self._readings[-1], index, stamp, reason))
            if self._since_hand > self.hand_quiet:
                events.append(ThrowEvent(ThrowEventKind.HAND, index, stamp))
            self._since_hand = 0
            self._readings.clear()
        elif new is TrayState.EMPTY and not self._armed:
            # (Armed, "empty" is read anyway: uncalibrated, a die by the wall may not count
            # as present, and the reader has the last word on whether dice lie there.)
            if self.state is not TrayState.EMPTY:
                events.append(ThrowEvent(ThrowEventKind.CLEARED, index, stamp))
            self._readings.clear()
        elif self._armed and new is not TrayState.MOVING and self._settled():
            events.extend(self._read(image, index, stamp))
        if loose:
            # Dice rolling in the tray, beside a hand that threw them too, or just after it
            # left: the hand's own motion is not counted (see tabletop.vision.rest), nor what moves
            # only at the frame's edge (fingertips reaching in are not thick enough to be a
            # hand; dice flying in over the edge roll on into the tray).
            if observation.rolling > moving_fraction:
                self._moving_run += 1
            if not self._armed and self._moving_run >= self.min_moving:
                events.append(ThrowEvent(ThrowEventKind.ROLLING, index, stamp))
                self._armed = True
                self.before = self._still_lying()
            self._readings.clear()
        else:
            self._moving_run = 0
            if new in (TrayState.STILL, TrayState.EMPTY):
                self._calm_image = image
        self.state = new
        return events

    def _still_lying(self) -> FrameReading | None:
        """The dice of the last announcement that still lay in the tray just before this throw:
        their places look as they did then. (A die taken by a hand leaves the tray there;
        "empty", uncalibrated, is no proof: a die by the wall may not count as present.)"""
        then, now = self._announced_image, self._calm_image
        if self.announced is None or then is None or now is None or then.shape != now.shape:
            return None
        kept = []
        for die in self.announced.dice:
            x0, y0, x1, y1 = die.box
            # The middle of the box: the die itself, not the tray around its corners.
            mx, my = (x1 - x0) // 5, (y1 - y0) // 5
            a = then[y0 + my : y1 - my, x0 + mx : x1 - mx].astype(np.int16)
            b = now[y0 + my : y1 - my, x0 + mx : x1 - mx].astype(np.int16)
            if a.size and float(np.abs(a - b).mean()) < SAME_PLACE_CHANGE:
                kept.append(die)
        return FrameReading(tuple(kept))

    def _settled(self) -> bool:
        return self.detector.still_frames > self.settle

    def _read(self, image: Image, index: int, stamp: float) -> list[ThrowEvent]:
        quick = self.expectation is not None and self._die_size is not None
        self.reader.die_size = self._die_size if quick else None
        reading = self.read_frame(image)
        self.last_reading = reading
        self._readings.append(reading)
        recent = self._readings[-self.agree :]
        signature = _signature(reading)
        agreed = len(recent) == self.agree and all(_signature(r) == signature for r in recent)
        expected = self.expectation.dice if self.expectation is not None else None
        if quick and len(reading.dice) != expected:
            # Not the count the game expects: do dice of another size lie there? The full
            # search decides; if it finds otherwise, the learnt size is forgotten and the
            # readings start again. Asked at once, not once the readings agree: searched at
            # a wrong size, dice of another size may read differently frame after frame.
            self.reader.die_size = None
            if len(self.reader.read(image).dice) != len(reading.dice):
                self._die_size = None
                self._readings.clear()
                return []
        if agreed and expected is not None and 0 < len(reading.dice) < expected:
            # Fewer dice than the game expects, the same frame after frame: one may be pressed
            # against others so that the locator sees no peak of its own. A closer look, on a
            # grid at the dice's size, is taken only when it finds exactly the expected count.
            reading = self.reader.recount(image, reading, expected, self._die_size)
        if agreed and reading.dice:
            return [self._announce(reading, index, stamp)]
        if agreed and len(self._readings) >= 2 * self.agree:
            # No die, frame after frame, where dice rolled: say so rather than wait.
            return [self._announce(reading, index, stamp, NONE_FOUND)]
        if len(self._readings) >= self.give_up:
            if any(r.dice for r in self._readings):
                reason = (
                    f"the dice did not read the same in {self.give_up} frames at rest: throw again"
                )
            else:
                reason = NONE_FOUND
            return [self._announce(reading, index, stamp, reason)]
        return []

    def read_frame(self, image: Image) -> FrameReading:
        """The reader's reading of the frame; the last one again when the frame is the same
        picture as the last read, searched at the same size (the reader gives the same
        reading of the same picture: only something that changed is read)."""
        last = self._last_read
        size = self.reader.die_size
        if (
            last is not None
            and last[1] == size
            and last[0].shape == image.shape
            and np.array_equal(last[0], image)
        ):
            return last[2]
        reading = self.reader.read(image)
        self.readings += 1
        self._last_read = (image.copy(), size, reading)
        return reading

    def _announce(
        self, reading: FrameReading, index: int, stamp: float, unclear: str = ""
    ) -> ThrowEvent:
        """The one announcement that ends a throw; uses up the expectation."""
        expectation = self.expectation
        self._armed = False
        self._readings.clear()
        self.expectation = None
        rethrown = expectation.rethrown if expectation is not None else None
        origins = match_dice(self.before, reading, rethrown)
        self.announced = reading
        self._announced_image = self._calm_image
        who = expectation.who if expectation is not None else ""
        reason = unclear or self._doubt(reading, origins, expectation)
        if reason:
            return ThrowEvent(
                ThrowEventKind.UNCLEAR, index, stamp, reading.values, reading, reason, who, origins
            )
        statuses = {d.status for d in reading.dice}
        if DieStatus.COCKED in statuses:
            self._cocked_run += 1
            calibration = self.reader.calibration
            viewed = calibration is not None and calibration.view is not None
            slant = slanted_view(reading, self._cocked_run, viewed=viewed)
            if slant:
                return ThrowEvent(
                    ThrowEventKind.UNCLEAR, index, stamp, reading.values, reading, slant, who,
                    origins,
                )  # fmt: skip
            kind = ThrowEventKind.COCKED
            reason = "a die is leaning on something: no face is up"
        elif DieStatus.UNREADABLE in statuses:
            self._cocked_run = 0
            kind = ThrowEventKind.UNREADABLE
            unsure = len(reading.unsure)
            reason = f"{dice_word(unsure)} could not be read for sure"
        else:
            self._cocked_run = 0
            kind = ThrowEventKind.ROLLED
            self._die_size = die_side(reading)
        return ThrowEvent(kind, index, stamp, reading.values, reading, reason, who, origins)

    @staticmethod
    def _doubt(
        reading: FrameReading, origins: tuple[DieOrigin, ...], expectation: Expectation | None
    ) -> str:
        """Why the reading is not the throw the game expects, in words; "" when it is."""
        if expectation is None:
            return ""
        whose = f" for {expectation.who}" if expectation.who else ""
        found = len(reading.dice)
        if found != expectation.dice:
            return (
                f"expected {dice_word(expectation.dice)}{whose}, "
                f"found {dice_word(found)} in the tray"
            )
        stayed = sum(o is not DieOrigin.THROWN for o in origins)
        if expectation.rethrown is None and stayed and not expectation.may_keep:
            still = "is" if stayed == 1 else "are"
            return f"{dice_word(stayed)} of the last throw {still} still in the tray"
        if expectation.rethrown is not None:
            kept = expectation.dice - expectation.rethrown
            if stayed != kept:
                return (
                    f"expected {dice_word(kept)} kept and {dice_word(expectation.rethrown)} "
                    f"thrown again{whose}, but {dice_word(stayed)} lay where they were"
                )
        return ""

    def run(self, frames: Iterable[tuple[Image, float]]) -> Iterator[ThrowEvent]:
        """Every event from a sequence of (image, timestamp) pairs."""
        for image, stamp in frames:
            yield from self.feed(image, stamp)


SLANT_RUN = 3  # throws in a row with a die that looks cocked before the camera is doubted
CAMERA_ADVICE = (
    "the camera may be looking at the tray at a slant: mount it straight above the tray, or "
    "calibrate it with a board in the tray (tabletop dice calibrate --board 9x6), "
    "then throw again"
)
# ... for a camera whose slant a board already measured: it may have been moved since.
MOVED_CAMERA_ADVICE = (
    "the camera may have moved since it was calibrated: calibrate it again with the board "
    "(tabletop dice calibrate --board 9x6), then throw again"
)


def slanted_view(reading: FrameReading, cocked_run: int, *, viewed: bool = False) -> str:
    """Why a throw that reads as cocked may be the camera's fault, in words ("" when nothing
    says so). A die seen from the side shows its side faces, as only a leaning die does from
    straight above, so a camera at a slant makes most dice look cocked (docs/vision.md, Other
    tables). Real dice seldom lean, and two in three of a throw at once, or a throw with a
    leaning die `SLANT_RUN` times in a row, point at the camera. The throw is then `unclear`
    with this advice, rather than `cocked` again and again with no hint why. `viewed`: the
    reader already takes a board's measure of the camera's slant out (tabletop.vision.view)."""
    cocked = sum(d.status is DieStatus.COCKED for d in reading.dice)
    dice = len(reading.dice)
    advice = MOVED_CAMERA_ADVICE if viewed else CAMERA_ADVICE
    if cocked >= 2 and 3 * cocked >= 2 * dice:
        return f"{cocked} of {dice} dice look as if leaning on something; {advice}"
    if cocked and cocked_run >= SLANT_RUN:
        return (
            f"each of the last {cocked_run} throws had a die that looks as if leaning on "
            f"something; {advice}"
        )
    return ""


def values_of(events: Iterable[ThrowEvent]) -> list[tuple[int, ...]]:
    """The values of every ROLLED event, in order: what a game would take from the dice."""
    return [e.values for e in events if e.kind is ThrowEventKind.ROLLED]


__all__ = [
    "SETTLED_KINDS",
    "DieOrigin",
    "Expectation",
    "ThrowEvent",
    "ThrowEventKind",
    "ThrowWatcher",
    "dice_word",
    "match_dice",
    "values_of",
]


def table_watcher(
    calibration: Calibration | None = None, values: ValueClassifier | None = None
) -> ThrowWatcher:
    """The dice pipeline a table reads its tray with: the reader on the calibration (its tray,
    its view) and the table's value network, and the rest detector against the calibration's
    empty tray. The one place it is put together, for the bridge, `tabletop dice watch`,
    `tabletop check` and the simulated table alike (uncalibrated: the whole picture, and a
    detector that learns the empty tray from the first still frames)."""
    background = calibration.background if calibration is not None else None
    return ThrowWatcher(
        DiceReader(calibration=calibration, values=values), RestDetector(background=background)
    )
