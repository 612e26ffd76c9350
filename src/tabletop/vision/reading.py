"""What the reader says about the dice in one picture: immutable, JSON-ready results."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from .errors import SettingsError


class DieStatus(enum.Enum):
    """Whether a found die's value can be trusted."""

    READ = "read"  # flat, value known with enough confidence
    COCKED = "cocked"  # leaning on something: no face is up
    UNREADABLE = "unreadable"  # a die, but the value is not sure enough to announce


@dataclass(frozen=True)
class DieReading:
    """One die found in a picture; `value` is None unless the status is READ."""

    value: int | None
    confidence: float
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels of the picture
    status: DieStatus

    @property
    def center(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2.0, (self.box[1] + self.box[3]) / 2.0)

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "confidence": round(self.confidence, 3),
            "box": list(self.box),
            "status": self.status.value,
        }


def reading_order(die: DieReading) -> tuple[int, float]:
    """A die's place in reading order: rows of 40 pixels top to bottom, left to right."""
    return round(die.center[1] / 40), die.center[0]


@dataclass(frozen=True)
class FrameReading:
    """Every die found in one picture, in reading order (top to bottom, left to right)."""

    dice: tuple[DieReading, ...]

    @property
    def values(self) -> tuple[int, ...]:
        """The values read, sorted; dice that are not READ are left out."""
        return tuple(sorted(d.value for d in self.dice if d.value is not None))

    @property
    def all_read(self) -> bool:
        return all(d.status is DieStatus.READ for d in self.dice)

    @property
    def unsure(self) -> tuple[int, ...]:
        """The places in `dice` of the dice found but not read for sure (UNREADABLE): the
        table asks for each of them rather than guess its value."""
        return tuple(i for i, d in enumerate(self.dice) if d.status is DieStatus.UNREADABLE)

    def to_json(self) -> list[dict[str, Any]]:
        return [d.to_json() for d in self.dice]


@dataclass(frozen=True)
class Expectation:
    """What the game waits for: the next throw's dice at rest, and whose throw it is.

    `dice` counts every die in the tray once the throw rests, kept ones included. `rethrown` is
    how many of them are thrown again in a reroll (the others stay where they lie); None means
    a fresh throw, for which the tray must hold no die of the last throw, unless `may_keep`
    says the thrower may leave some lying without the game knowing how many (a poker draw).
    """

    dice: int
    who: str = ""
    rethrown: int | None = None
    may_keep: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.dice <= 40:
            raise SettingsError(f"Expectation.dice: 1 to 40 dice, not {self.dice}")
        if self.rethrown is not None and not 1 <= self.rethrown <= self.dice:
            raise SettingsError(
                f"Expectation.rethrown: 1 to {self.dice} dice (the throw's), not {self.rethrown}"
            )
