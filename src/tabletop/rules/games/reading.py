"""What a table reader says: the mat's view of a slot, and the actions a reading amounts to.

Any game's reader (`tabletop.rules.games.game.TableReader`) speaks in these: a command to execute,
an alert naming the seat and slot to fix, an alert cleared. The daemon acts on them without knowing
the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

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
    # For the game master only (`referee/alert`), never the room's `table/alert`: a concealed
    # poker hand the tray does not bear out is the game master's to judge, not the room's.
    private: bool = False


@dataclass(frozen=True, slots=True)
class AlertCleared:
    """The table matches again where the alert `key` was raised."""

    key: str


Action = Execute | Alert | AlertCleared


@dataclass
class DiceTrayReader:
    """What the reader of a game without cards does with all but the dice: a request goes
    through as it is, the mat's slots are not read, a card on the draw pad is an alert, a
    refusal is an alert keyed `refused`, and time changes nothing. A game's reader subclasses
    it, names the game in `title` and writes `observe_dice`
    (`tabletop.rules.games.game.TableReader`)."""

    title: ClassVar[str] = "This game"
    seats: Sequence[str]
    grace: float = 1.0
    instructions: list[str] = field(default_factory=list)
    seen: dict[tuple[int, int], SlotView] = field(default_factory=dict)

    def request(self, state: Any, command: dict[str, Any], now: float) -> list[Action]:
        return [Execute(command)]

    def observe_slot(
        self, state: Any, seat: int, slot: int, view: SlotView, now: float
    ) -> list[Action]:
        return []

    def observe_pad(self, state: Any, card: Any, now: float) -> list[Action]:
        return [Alert("pad", f"{self.title} uses no cards: take the card off the pad")]

    def refused(self, command: dict[str, Any], error: str) -> list[Action]:
        return [Alert("refused", error)]

    def applied(self, state: Any, command: dict[str, Any], now: float) -> list[Action]:
        return []

    def tick(self, state: Any, now: float) -> list[Action]:
        return []
