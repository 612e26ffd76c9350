"""Six-Gun Showdown's events: immutable facts, each with versioned JSON (`{"v": 1, "type": ...}`).

Every field is a string, a number, a boolean, None or a tuple of those, except the decks of
`GameStarted`, which travel as deck-file objects (`decks.deck_to_json`), so the log alone
rebuilds a game: no deck file is read again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from ..errors import InvalidCommand
from ..game import EventCodec
from .decks import Deck, DeckError, deck_to_json, read_deck

EVENT_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class GameStarted:
    """Two gunslingers sit down: their names, decks (in seat order) and the options chosen."""

    players: tuple[str, ...]
    decks: tuple[Deck, ...]
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A round begins: how many bullets each player loads (six, or all they have left)."""

    number: int
    bullets: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Loaded:
    """A player laid their bullets face down and declared ready: (slot, card id) each."""

    player: str
    bullets: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class Touched:
    """A player touched one of their face-down bullets to choose it (at_ms: the table's time)."""

    player: str
    slot: int
    at_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Revealed:
    """A player turned a bullet face up."""

    player: str
    slot: int
    card: str


@dataclass(frozen=True, slots=True)
class Drew:
    """A player revealed a Draw card: their intent to shoot."""

    player: str


@dataclass(frozen=True, slots=True)
class Reached:
    """A player moved toward the opponent's cards without revealing a Draw."""

    player: str


@dataclass(frozen=True, slots=True)
class RaceDecided:
    """Who was first to the defender's cards (the winner's name), from what the table saw:
    the two touch times when known and the tie window they were judged with (None in events
    logged before it was recorded)."""

    winner: str
    attacker_ms: int | None = None
    defender_ms: int | None = None
    how: str = ""
    tie_window_ms: int | None = None


@dataclass(frozen=True, slots=True)
class ShotsCalled:
    """The shots to resolve, in order; players in one group shoot at the same time."""

    groups: tuple[tuple[str, ...], ...]
    speeds: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Rolled:
    """A shooter's die."""

    player: str
    value: int


@dataclass(frozen=True, slots=True)
class Rerolled:
    """A Re-roll card's owner had a shooter's die thrown again."""

    by: str
    card: str
    shooter: str
    value: int


@dataclass(frozen=True, slots=True)
class RerollDeclined:
    """A Re-roll card's owner lets the die stand (the card stays unused)."""

    by: str
    card: str


@dataclass(frozen=True, slots=True)
class ShotResolved:
    """A shot's final die, the Accuracy that affected the shooter, and whether it hit."""

    shooter: str
    value: int
    accuracy: int
    hit: bool


@dataclass(frozen=True, slots=True)
class ReplyOpened:
    """The attacker missed: the defender may still reveal cards and shoot back."""

    player: str


@dataclass(frozen=True, slots=True)
class Passed:
    """The defender reveals no more cards this round."""

    player: str


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """A round is over: points scored, who hit, the cards spent (full decks), who must discard."""

    number: int
    scored: tuple[tuple[str, int], ...]
    hits: tuple[str, ...]
    spent: tuple[tuple[str, tuple[str, ...]], ...] = ()
    discards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Discarded:
    """A Single Shot player discarded revealed cards from their deck."""

    player: str
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GameWon:
    """The game is over: the winner (None: tied with no bullets left) and why."""

    winner: str | None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game master ended the game."""


Event = (
    GameStarted
    | RoundStarted
    | Loaded
    | Touched
    | Revealed
    | Drew
    | Reached
    | RaceDecided
    | ShotsCalled
    | Rolled
    | Rerolled
    | RerollDeclined
    | ShotResolved
    | ReplyOpened
    | Passed
    | RoundEnded
    | Discarded
    | GameWon
    | GameEnded
)

_TYPES: Final[dict[str, type[Any]]] = {
    "game_started": GameStarted,
    "round_started": RoundStarted,
    "loaded": Loaded,
    "touched": Touched,
    "revealed": Revealed,
    "drew": Drew,
    "reached": Reached,
    "race_decided": RaceDecided,
    "shots_called": ShotsCalled,
    "rolled": Rolled,
    "rerolled": Rerolled,
    "reroll_declined": RerollDeclined,
    "shot_resolved": ShotResolved,
    "reply_opened": ReplyOpened,
    "passed": Passed,
    "round_ended": RoundEnded,
    "discarded": Discarded,
    "game_won": GameWon,
    "game_ended": GameEnded,
}


def _write(value: Any) -> Any:
    return deck_to_json(value) if isinstance(value, Deck) else value


def _read_decks(decks: Any) -> tuple[Deck, ...]:
    if not isinstance(decks, list):
        raise InvalidCommand("decks: expected a list of decks", "decks")
    try:
        return tuple(read_deck(d, f"decks[{i}]") for i, d in enumerate(decks))
    except DeckError as error:
        raise InvalidCommand(str(error), "decks") from None


CODEC: Final = EventCodec(
    "Six-Gun Showdown", EVENT_VERSION, _TYPES, write=_write, read={"decks": _read_decks}
)
event_type = CODEC.type_name
event_to_json = CODEC.to_json


def event_from_json(raw: dict[str, Any]) -> Event:
    """An event from its JSON; InvalidCommand naming what is wrong if it is not one."""
    event: Event = CODEC.from_json(raw)
    return event
