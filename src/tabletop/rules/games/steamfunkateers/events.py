"""Steamfunkateers' events: immutable facts, each with versioned JSON (`{"v": 1, "type": ...}`).

Every field is a string, a number, a boolean, None or a tuple of those (pairs are tuples of
two), so one codec serves every event: tuples go out as lists and come back as tuples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from ..game import EventCodec

EVENT_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class GameStarted:
    """A game begins: the players, everyone's Vigor ("GM" included), the options chosen."""

    players: tuple[str, ...]
    vigor: tuple[tuple[str, int], ...]
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class VigorChanged:
    """Someone's Vigor goes up or down by `delta`, and why (a reroll, an extra die, ...)."""

    who: str
    delta: int
    reason: str


@dataclass(frozen=True, slots=True)
class RoundCalled:
    """The game master calls pools: (thrower, dice) in throwing order, with a label each."""

    kind: str
    pools: tuple[tuple[str, int], ...]
    labels: tuple[str, ...]
    task: str = ""
    vigor_spent: tuple[str, ...] = ()  # players who spent Vigor on an extra die for this roll


@dataclass(frozen=True, slots=True)
class DiceRolled:
    """A pool's first throw, as read from the tray or typed."""

    who: str
    values: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DiceRerolled:
    """A pool's Vigor reroll: the whole tray after the non-sixes were thrown again."""

    who: str
    values: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PoolKept:
    """A thrower keeps their dice without a reroll."""

    who: str


@dataclass(frozen=True, slots=True)
class Folded:
    """A player folds out of the action in play (or the game master folds the conflict)."""

    who: str


@dataclass(frozen=True, slots=True)
class RoundResolved:
    """Every pool is thrown: sixes per pool, the winners, who failed, who rolled extraordinary."""

    sixes: tuple[tuple[str, int], ...]
    winners: tuple[str, ...]
    failed: tuple[str, ...]
    extraordinary: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ContestStarted:
    """A contest between these participants begins (NPC names stand for the GM's pools)."""

    participants: tuple[str, ...]
    goal: str = ""


@dataclass(frozen=True, slots=True)
class ExchangeWon:
    """One participant scores a victory in the contest (None: a tie, nobody scores)."""

    who: str | None


@dataclass(frozen=True, slots=True)
class ContestEnded:
    """The contest is over: won at three victories, or unresolved (folded, called off)."""

    winner: str | None


@dataclass(frozen=True, slots=True)
class OrderCalled:
    """A turn order is called: each participant's ranks in the compared skills, NPCs named."""

    kind: str
    ranks: tuple[tuple[str, tuple[int, ...]], ...]
    npcs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TieDieRolled:
    """One participant tied in the turn order throws a single die."""

    who: str
    value: int


@dataclass(frozen=True, slots=True)
class OrderSet:
    """The turn order is decided, highest first."""

    order: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """The one whose turn it was is done; the next takes theirs (a new exchange at the end)."""

    who: str


@dataclass(frozen=True, slots=True)
class ConflictEnded:
    """The conflict (or the scene's order) is over; `resolved` False when it ended by folding."""

    resolved: bool


@dataclass(frozen=True, slots=True)
class ConditionCalled:
    """A loser suffers a condition; `by` (the winner or the GM) throws one die for severity."""

    target: str
    by: str
    thrower: str
    name: str = ""


@dataclass(frozen=True, slots=True)
class ConditionSuffered:
    """The severity die is read: the condition stands at that severity."""

    target: str
    severity: int
    name: str = ""


@dataclass(frozen=True, slots=True)
class NarrationWon:
    """The highest bidder spends their bid and narrates the conflict."""

    player: str
    spent: int


@dataclass(frozen=True, slots=True)
class GmBought:
    """The game master spends Vigor on one of their options."""

    on: str
    points: int
    detail: str = ""


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over."""


Event = (
    GameStarted
    | VigorChanged
    | RoundCalled
    | DiceRolled
    | DiceRerolled
    | PoolKept
    | Folded
    | RoundResolved
    | ContestStarted
    | ExchangeWon
    | ContestEnded
    | OrderCalled
    | TieDieRolled
    | OrderSet
    | TurnEnded
    | ConflictEnded
    | ConditionCalled
    | ConditionSuffered
    | NarrationWon
    | GmBought
    | GameEnded
)

_TYPES: Final[dict[str, type[Any]]] = {
    "game_started": GameStarted,
    "vigor_changed": VigorChanged,
    "round_called": RoundCalled,
    "dice_rolled": DiceRolled,
    "dice_rerolled": DiceRerolled,
    "pool_kept": PoolKept,
    "folded": Folded,
    "round_resolved": RoundResolved,
    "contest_started": ContestStarted,
    "exchange_won": ExchangeWon,
    "contest_ended": ContestEnded,
    "order_called": OrderCalled,
    "tie_die_rolled": TieDieRolled,
    "order_set": OrderSet,
    "turn_ended": TurnEnded,
    "conflict_ended": ConflictEnded,
    "condition_called": ConditionCalled,
    "condition_suffered": ConditionSuffered,
    "narration_won": NarrationWon,
    "gm_bought": GmBought,
    "game_ended": GameEnded,
}

CODEC: Final = EventCodec("Steamfunkateers", EVENT_VERSION, _TYPES)
event_type = CODEC.type_name
event_to_json = CODEC.to_json


def event_from_json(raw: dict[str, Any]) -> Event:
    """An event from its JSON; InvalidCommand naming what is wrong if it is not one."""
    event: Event = CODEC.from_json(raw)
    return event
