"""Six Shooter events: immutable facts the engine records, and their JSON form for the game log.

The state of a game is the fold of its events (see state.py), so every event carries what is
needed to replay it without dice or shuffles: a reshuffle records the new order, a draw the card.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..cards import Card, parse_card
from ..errors import InvalidCommand
from .commands import OperatorSpec
from .model import Descriptor, Method, Options, Outcome

EVENT_FORMAT_VERSION = 1


class RollPurpose(Enum):
    """Why the game waits for a die."""

    CHALLENGE = "challenge"
    ROLL_HAND = "roll_hand"
    CONTEST = "contest"


@dataclass(frozen=True, slots=True)
class GameStarted:
    """The roster, options and the full deck order, top card first."""

    players: tuple[OperatorSpec, ...]
    jokers: bool
    seed: int | str
    deck: tuple[Card, ...]
    options: Options


@dataclass(frozen=True, slots=True)
class CardsDealt:
    """Each player's six cards, slot 1 first, all face-down, taken from the top of the deck."""

    hands: tuple[tuple[str, tuple[Card, ...]], ...]


@dataclass(frozen=True, slots=True)
class CardRevealed:
    """A player's setup choice turned face-up."""

    player: str
    slot: int
    card: Card


@dataclass(frozen=True, slots=True)
class PlayBegan:
    """Every player has revealed a card: play begins."""


@dataclass(frozen=True, slots=True)
class DeckReshuffled:
    """The deck ran out: the discard pile, shuffled into this order (top first), is the deck."""

    deck: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class TurnOrderDrawn:
    """A player drew this card from the deck for turn order; it goes to the discard pile."""

    player: str
    card: Card
    value: int


@dataclass(frozen=True, slots=True)
class TurnOrderSet:
    """The turn order decided by the draws."""

    order: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StageOpened:
    """A multi-stage challenge that needs `needed` successes in all."""

    stage: str
    needed: int


@dataclass(frozen=True, slots=True)
class CardUsed:
    """A face-up card used on a roll, discarded before the roll."""

    owner: str
    slot: int
    card: Card
    for_player: str
    reduction: int


@dataclass(frozen=True, slots=True)
class ChallengeDeclared:
    """A challenge attempt: `critical` is the effective Critical Number after Strikes, the cap,
    the card and the wager."""

    player: str
    method: Method
    base: int
    critical: int
    wager: int
    stage: str | None
    boosted: bool


@dataclass(frozen=True, slots=True)
class ChallengeBoosted:
    """Before the roll, a card or a wager lowered the challenge's Critical Number to `critical`."""

    player: str
    reduction: int
    wager: int
    critical: int


@dataclass(frozen=True, slots=True)
class RollCalled:
    """The game now also waits for this player's die (queued after what it already waits for)."""

    player: str
    purpose: RollPurpose


@dataclass(frozen=True, slots=True)
class DieRolled:
    """The die the game waited for first."""

    player: str
    purpose: RollPurpose
    value: int


@dataclass(frozen=True, slots=True)
class ChallengeResolved:
    """How the challenge ended; `roll` is None when the Critical Number was 0 or lower."""

    player: str
    roll: int | None
    critical: int
    outcome: Outcome
    stage: str | None


@dataclass(frozen=True, slots=True)
class StageProgressed:
    """A success counted toward a multi-stage challenge."""

    stage: str
    successes: int
    needed: int


@dataclass(frozen=True, slots=True)
class StageOvercome:
    """A multi-stage challenge got all the successes it needed."""

    stage: str


@dataclass(frozen=True, slots=True)
class CardFlipped:
    """Rolling Your Hand found a face-down card: it is now face-up."""

    player: str
    slot: int
    card: Card


@dataclass(frozen=True, slots=True)
class CardDiscarded:
    """Rolling Your Hand found a face-up card: it goes to the discard pile."""

    player: str
    slot: int
    card: Card


@dataclass(frozen=True, slots=True)
class JokerKept:
    """Rolling Your Hand found a face-up joker, which is never discarded from a hand."""

    player: str
    slot: int


@dataclass(frozen=True, slots=True)
class StrikeGained:
    """Strikes gained (one for an empty slot rolled, or the wager of a failed All Or Nothing)."""

    player: str
    count: int
    total: int
    cause: str


@dataclass(frozen=True, slots=True)
class OperatorRemoved:
    """The third Strike: the Operator is out of play for this adventure; `discarded` are the
    cards that left their hand for the discard pile."""

    player: str
    discarded: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class LuckyOffered:
    """A card matching the owner's Lucky Number was discarded from this slot."""

    player: str
    slot: int
    card: Card


@dataclass(frozen=True, slots=True)
class LuckyReplaced:
    """The owner drew this card face-up into the slot of the discarded lucky card."""

    player: str
    slot: int
    card: Card


@dataclass(frozen=True, slots=True)
class LuckyDeclined:
    """No replacement: the owner declined, or no card was left to draw (`reason`)."""

    player: str
    slot: int
    reason: str


@dataclass(frozen=True, slots=True)
class ContestStarted:
    """A player-versus-player contest between two Operators."""

    players: tuple[str, str]
    methods: tuple[tuple[str, Method], ...]


@dataclass(frozen=True, slots=True)
class ContestBoosted:
    """A contestant improves their next exchange with a card's reduction or a wager."""

    player: str
    reduction: int
    wager: int


@dataclass(frozen=True, slots=True)
class ContestExchanged:
    """Both contestants rolled; `scores` are each roll as the opponent's Critical Number (+ the
    opponent's Strikes, at most 7, - the opponent's card and wager); `losers` roll hands."""

    rolls: tuple[tuple[str, int], ...]
    scores: tuple[tuple[str, int], ...]
    losers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ContestEnded:
    """The contest is over; `losers` conceded or gained a Strike (both may lose at once)."""

    losers: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class AdventureEnded:
    """The adventure ended; `retired` had three Strikes and no Lucky Number to lose."""

    adventure: int
    retired: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LuckyGranted:
    """End of adventure: a player with a face card or Ace face-up gave an extra Lucky Number."""

    giver: str
    to: str
    number: int


@dataclass(frozen=True, slots=True)
class OperatorReturning:
    """A removed Operator lost a Lucky Number to rejoin at the next adventure."""

    player: str
    dropped: int


@dataclass(frozen=True, slots=True)
class OperatorRetired:
    """An Operator left the campaign for good."""

    player: str


@dataclass(frozen=True, slots=True)
class AdventureStarted:
    """A new adventure: Strikes reset, every card gathered and shuffled into this deck order."""

    adventure: int
    deck: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over; nothing more is accepted."""


Event = (
    GameStarted
    | CardsDealt
    | CardRevealed
    | PlayBegan
    | DeckReshuffled
    | TurnOrderDrawn
    | TurnOrderSet
    | StageOpened
    | CardUsed
    | ChallengeDeclared
    | ChallengeBoosted
    | RollCalled
    | DieRolled
    | ChallengeResolved
    | StageProgressed
    | StageOvercome
    | CardFlipped
    | CardDiscarded
    | JokerKept
    | StrikeGained
    | OperatorRemoved
    | LuckyOffered
    | LuckyReplaced
    | LuckyDeclined
    | ContestStarted
    | ContestBoosted
    | ContestExchanged
    | ContestEnded
    | AdventureEnded
    | LuckyGranted
    | OperatorReturning
    | OperatorRetired
    | AdventureStarted
    | GameEnded
)

EVENT_TYPES: dict[str, type[Any]] = {
    "".join("_" + c.lower() if c.isupper() else c for c in cls.__name__).lstrip("_"): cls
    for cls in typing.get_args(Event)
}
_TYPE_NAMES = {cls: name for name, cls in EVENT_TYPES.items()}


def event_name(event: Event) -> str:
    """The snake_case name of an event's type, as written in the log (e.g. "card_discarded")."""
    return _TYPE_NAMES[type(event)]


def event_to_json(event: Event) -> dict[str, Any]:
    """Returns the event as a JSON object: {"type": name, "v": 1, ...its fields}."""
    out: dict[str, Any] = {"type": _TYPE_NAMES[type(event)], "v": EVENT_FORMAT_VERSION}
    for field in dataclasses.fields(event):
        out[field.name] = _encode(getattr(event, field.name))
    return out


def event_from_json(raw: object) -> Event:
    """Reads an event written by event_to_json; raises InvalidCommand naming what is wrong."""
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise InvalidCommand("an event must be a JSON object with a 'type'")
    cls = EVENT_TYPES.get(raw["type"])
    if cls is None:
        raise InvalidCommand(f"unknown event type {raw['type']!r}")
    if raw.get("v", EVENT_FORMAT_VERSION) != EVENT_FORMAT_VERSION:
        raise InvalidCommand(f"event format version {raw.get('v')!r} is not supported")
    hints = _hints(cls)
    try:
        values = {
            field.name: _decode(hints[field.name], raw[field.name])
            for field in dataclasses.fields(cls)
        }
    except (KeyError, TypeError, ValueError) as error:
        raise InvalidCommand(f"event {raw['type']!r} is damaged: {error}") from error
    event: Event = cls(**values)
    return event


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _encode(value: object) -> Any:
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_encode(item) for item in value]
    if isinstance(value, Options):
        return value.to_json()
    if isinstance(value, OperatorSpec):
        return {
            "name": value.name,
            "descriptor": value.descriptor.value,
            "archetype": value.archetype,
            "lucky": list(value.lucky),
        }
    return value


def _decode(hint: Any, raw: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        if raw is None:
            return None
        options = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        for option in options:
            if option in (int, str) and isinstance(raw, option):
                return raw
        return _decode(options[0], raw)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], item) for item in raw)
        if len(args) != len(raw):
            raise ValueError(f"expected {len(args)} items, got {len(raw)}")
        return tuple(_decode(arg, item) for arg, item in zip(args, raw, strict=True))
    if hint is Card:
        return parse_card(raw)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(raw)
    if hint is Options:
        return Options.from_json(raw)
    if hint is OperatorSpec:
        return OperatorSpec(
            raw["name"], Descriptor(raw["descriptor"]), raw["archetype"], tuple(raw["lucky"])
        )
    if hint in (int, str, bool) and not isinstance(raw, hint):
        raise TypeError(f"expected {hint.__name__}, got {raw!r}")
    return raw
