"""What a table reader says: the mat's view of a slot, and the actions a reading amounts to.

Any game's reader (`rules.game.TableReader`) speaks in these: a command to execute, an alert
naming the seat and slot to fix, an alert cleared. The daemon acts on them without knowing
the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import Card


@dataclass(frozen=True, slots=True)
class SlotView:
    """What one slot of the mat holds: a card (None when empty) and whether it lies face-up.

    `code` names a card that is not a standard playing card: a game's own deck card as the
    card map calls it (`cowboy/draw-1`, Six-Gun Showdown's decks), or `?UID` for a tag the card
    map does not know; `card` is then None."""

    card: Card | None = None
    face_up: bool = False
    code: str | None = None


EMPTY = SlotView()


@dataclass(frozen=True, slots=True)
class Execute:
    """A command the table's actions amount to; the daemon executes it like any other."""

    command: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Alert:
    """Something on the table that fits nothing; `key` identifies it until it is cleared."""

    key: str
    message: str
    seat: int | None = None  # 0-based seat and 1-based slot of the zone to fix, if any
    slot: int | None = None


@dataclass(frozen=True, slots=True)
class AlertCleared:
    """The table matches again where the alert `key` was raised."""

    key: str


Action = Execute | Alert | AlertCleared
