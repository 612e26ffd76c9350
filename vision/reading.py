"""What the reader says about the dice in one picture: immutable, JSON-ready results."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


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

    def to_json(self) -> list[dict[str, Any]]:
        return [d.to_json() for d in self.dice]
