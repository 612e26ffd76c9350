"""What a game asks of the physical table and says to it: its mat's layout, its LEDs, and the
reader that turns mat zones, touches and thrown dice into commands, instructions and alerts.

Pure: the readers are handed observations and the clock's reading, and return actions.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol, runtime_checkable

from .reading import Action, SlotView
from .waits import Reroll


@dataclass(frozen=True, slots=True)
class MatLayout:
    """The mat a game needs: slots per seat (zones `s<seat>.<slot>`), a draw pad, which deck."""

    slots_per_seat: int
    pad: bool = False
    deck: str | None = None  # "standard-52", "standard-54" (with jokers), or None for no cards


@dataclass(frozen=True, slots=True)
class SeatLights:
    """One seat's indicator LEDs: how many are lit, and whether they blink (out of play)."""

    lit: int
    blinking: bool = False


class SlotShow(Enum):
    """What a slot's guidance LED on the mat says (any game's vocabulary; the bridge picks the
    colour, docs/mqtt.md): alerts, in blinking red, go over all of these."""

    TURN = "turn"  # these slots may be played now: whose turn it is
    RACE = "race"  # both hands race for these slots
    WON = "won"  # this slot won the race (or the contest)
    LOST = "lost"  # these slots lost it


@dataclass(frozen=True, slots=True)
class SlotLight:
    """One slot's guidance LED: 0-based seat, 1-based slot, and what it shows."""

    seat: int
    slot: int
    show: SlotShow

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "slot": self.slot, "show": self.show.value}


@dataclass(frozen=True, slots=True)
class Indicators:
    """What the seats' LEDs show in this game, and what they mean (for the docs and the UI);
    `slots`: the mat's slot LEDs a game lights (whose turn, a race and its result)."""

    meaning: str
    seats: tuple[SeatLights, ...]
    slots: tuple[SlotLight, ...] = ()


class TableReader(Protocol):
    """Reads a physical table for one game: mat and dice observations in, actions out.

    Its actions are `tabletop.rules.games.reading`'s `Execute`, `Alert` and `AlertCleared`; `seen`
    is what the mat last showed in each (0-based seat, 1-based slot). The reader does no I/O and
    reads no clock: callers pass `now`.

    A reader that cares when a slot is touched (a mat with touch pads) also has
    `observe_touch` (`TouchReader`); it is optional, and a reader without it never hears of
    touches (`touch_observer`)."""

    instructions: list[str]
    seen: dict[tuple[int, int], SlotView]

    def request(self, state: Any, command: dict[str, Any], now: float) -> list[Action]: ...

    def observe_slot(
        self, state: Any, seat: int, slot: int, view: SlotView, now: float
    ) -> list[Action]: ...

    def observe_pad(self, state: Any, card: Any, now: float) -> list[Action]: ...

    def observe_dice(
        self, state: Any, values: Sequence[int], now: float, reroll: Reroll | None = None
    ) -> list[Action]:
        """A throw at rest: its values, and `reroll` when the camera saw dice stay from the last."""
        ...

    def refused(self, command: dict[str, Any], error: str) -> list[Action]: ...

    def applied(self, state: Any, command: dict[str, Any], now: float) -> list[Action]: ...

    def tick(self, state: Any, now: float) -> list[Action]: ...


# The half of a split touch pad a finger reached first (docs/mat.md, "Whose hand: split pads"):
# the slot owner's side, the side across the table, or both at once.
TOUCH_SIDES = ("near", "far", "unknown")


class SnapshotReader(Protocol):
    """The optional part of a `TableReader` that reads a mat's snapshot whole: every slot it
    changed at once, judged together. Slot by slot, a fresh reader (a restarted daemon) sees a
    card not yet reported as lifted, and may read a move nobody made; a reader without it hears
    the snapshot slot by slot (`observe_slot`)."""

    def observe_slots(
        self, state: Any, views: Mapping[tuple[int, int], SlotView], now: float
    ) -> list[Action]: ...


@runtime_checkable
class TouchReader(Protocol):
    """The optional part of a `TableReader` for mats with touch pads (docs/mat-protocol.md)."""

    def observe_touch(
        self, state: Any, seat: int, slot: int, at_ms: int, now: float
    ) -> list[Action]:
        """A finger landed on (0-based seat, 1-based slot) at `at_ms`, the mat controller's
        milliseconds since its boot: compare touches by `at_ms`, not by `now` (when the
        message arrived), which carries the link's delays.

        Where the slot's pad is split, the table also passes `side=` one of `TOUCH_SIDES`
        (whose hand it was); a reader that takes no `side` is never passed one."""
        ...


def touch_observer(
    reader: TableReader,
) -> Callable[..., list[Action]] | None:
    """The reader's `observe_touch` as a call that takes the touch's `side=` (None: no side),
    handing the side on only to a reader whose `observe_touch` takes one; None for a game
    that does not use touches."""
    observe = getattr(reader, "observe_touch", None)
    if not callable(observe):
        return None
    takes_side = "side" in inspect.signature(observe).parameters

    def call(
        state: Any, seat: int, slot: int, at_ms: int, now: float, *, side: str | None = None
    ) -> list[Action]:
        if side is None or not takes_side:
            return list(observe(state, seat, slot, at_ms, now))
        return list(observe(state, seat, slot, at_ms, now, side=side))

    return call
