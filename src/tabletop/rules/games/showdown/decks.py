"""Six-Gun Showdown's decks as data: a deck file (TOML) lists each card and what it does.

The seed names the card types and what each does ("FOCUS: Improves a Player's Accuracy", ...)
but prints no numbers and no deck list, so the numbers live in a deck file an owner writes from
their printed cards (`docs/rules-showdown.md`, "Entering your decks"):

    format = "six-gun-showdown-deck"
    version = 1
    name = "cowboy"                 # the deck's code on the mat: cards read as cowboy/<id>
    title = "Cowboy"
    kind = "full"                   # or "single-shot" (Six-Gun Showdown: Single Shot)

    [[cards]]
    id = "draw-1"
    title = "Quick Draw"
    type = "draw"                   # draw, focus, reach, distract, flinch, re-roll
    speed = 1                       # for the player who reveals it
    accuracy = 0
    opponent_speed = 0              # for that player's opponent
    opponent_accuracy = 0
    # condition = "opponent-next-is-draw"   (a Flinch's, by default)
    # rerolls = "self"                      (a Re-roll's: self, opponent or either)

`read_deck` checks a parsed file (or the same object as JSON, as a `new_game` carries it) and
names the key at fault: `cowboy.toml: cards[3].speed: expected an integer`. It does no I/O;
`load_deck` reads a file and is for the command line only.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Final

from ..errors import InvalidCommand, quote

DECK_FORMAT: Final = "six-gun-showdown-deck"
DECK_VERSION: Final = 1
BULLETS: Final = 6  # "Each player selects 6 of their cards"
# A deck's name and a card's id become the card's code on the mat (`cowboy/draw-1`).
_CODE = re.compile(r"^[a-z0-9][a-z0-9-]{0,23}$")
# Modifiers far beyond a d6 are a typing slip, not a card.
MODIFIER_LIMIT: Final = 12


class DeckError(InvalidCommand):
    """A deck file or deck object that cannot be read; the message names the file and the key."""


class CardType(Enum):
    """The six kinds of bullet the seed describes ("CARD DESCRIPTIONS")."""

    DRAW = "draw"
    FOCUS = "focus"
    REACH = "reach"
    DISTRACT = "distract"
    FLINCH = "flinch"
    REROLL = "re-roll"


class DeckKind(Enum):
    """The full game's decks, or Single Shot's (whose revealed bullets go back to the deck)."""

    FULL = "full"
    SINGLE_SHOT = "single-shot"


class Condition(Enum):
    """When a card's modifiers count."""

    ALWAYS = "always"
    # "FLINCH: ... is not included if Opponent's next card/bullet is not a Draw card"
    OPPONENT_NEXT_IS_DRAW = "opponent-next-is-draw"


class RerollTarget(Enum):
    """Whose die a Re-roll card lets its owner throw again ("the affected players dice")."""

    SELF = "self"
    OPPONENT = "opponent"
    EITHER = "either"


@dataclass(frozen=True, slots=True)
class DeckCard:
    """One printed card: its id and title, type, modifiers, and when they count."""

    id: str
    title: str
    type: CardType
    speed: int = 0
    accuracy: int = 0
    opponent_speed: int = 0
    opponent_accuracy: int = 0
    condition: Condition = Condition.ALWAYS
    rerolls: RerollTarget | None = None  # a Re-roll card's; None for every other type

    @property
    def is_draw(self) -> bool:
        return self.type is CardType.DRAW


@dataclass(frozen=True, slots=True)
class Deck:
    """One character's deck: its name (the mat code's prefix), title, kind and cards."""

    name: str
    title: str
    kind: DeckKind
    cards: tuple[DeckCard, ...]
    example: bool = False  # the file says its numbers are made up (the shipped examples)

    def card(self, card_id: str) -> DeckCard | None:
        return next((c for c in self.cards if c.id == card_id), None)

    def code(self, card_id: str) -> str:
        """The card's code on the mat and in the card map: `deck/id`."""
        return f"{self.name}/{card_id}"


def enrolment_codes(deck: Deck) -> list[str]:
    """The card codes to tag, in the deck file's order: what `tabletop cards enrol --deck FILE`
    asks for, card by card, and writes into the card map against each tag's UID."""
    return [deck.code(card.id) for card in deck.cards]


def split_code(code: str) -> tuple[str, str] | None:
    """(deck, id) from a card code `deck/id`; None when it is not one."""
    deck, sep, card = code.partition("/")
    if not sep or not _CODE.match(deck) or not _CODE.match(card):
        return None
    return deck, card


def _fail(where: str, message: str) -> DeckError:
    return DeckError(f"{where}: {message}", where)


def _text(raw: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = raw.get(key, default)
    if value is None:
        raise _fail(f"{where}{key}", "missing")
    if not isinstance(value, str) or not value.strip() or len(value) > 60:
        raise _fail(f"{where}{key}", f"expected a text of 1 to 60 characters, got {quote(value)}")
    return value.strip()


def _code(raw: Mapping[str, Any], key: str, where: str) -> str:
    value = _text(raw, key, where)
    if not _CODE.match(value):
        raise _fail(
            f"{where}{key}",
            f"expected lower-case letters, digits and '-' (at most 24), got {quote(value)}",
        )
    return value


def _integer(raw: Mapping[str, Any], key: str, where: str) -> int:
    value = raw.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(f"{where}{key}", f"expected an integer, got {quote(value)}")
    if abs(value) > MODIFIER_LIMIT:
        raise _fail(f"{where}{key}", f"expected -{MODIFIER_LIMIT} to {MODIFIER_LIMIT}, got {value}")
    return value


def _choice(raw: Mapping[str, Any], key: str, where: str, kind: type[Enum], default: Any) -> Any:
    value = raw.get(key, default)
    for member in kind:
        if member.value == value:
            return member
    allowed = ", ".join(str(m.value) for m in kind)
    raise _fail(f"{where}{key}", f"expected one of {allowed}, got {quote(value)}")


_CARD_KEYS: Final = frozenset(
    {
        "id",
        "title",
        "type",
        "speed",
        "accuracy",
        "opponent_speed",
        "opponent_accuracy",
        "condition",
        "rerolls",
    }
)
_DECK_KEYS: Final = frozenset({"format", "version", "name", "title", "kind", "example", "cards"})


def _unknown(raw: Mapping[str, Any], known: frozenset[str], where: str) -> None:
    for key in raw:
        if key not in known:
            raise _fail(f"{where}{key}", f"no such key (expected {', '.join(sorted(known))})")


def read_card(raw: object, where: str) -> DeckCard:
    """One card from its table; `where` is the prefix of every key it names (`cards[3].`)."""
    if not isinstance(raw, Mapping):
        raise _fail(where.rstrip("."), f"expected a table of the card's keys, got {quote(raw)}")
    _unknown(raw, _CARD_KEYS, where)
    kind: CardType = _choice(raw, "type", where, CardType, None)
    flinch = kind is CardType.FLINCH
    default_condition = Condition.OPPONENT_NEXT_IS_DRAW.value if flinch else "always"
    condition: Condition = _choice(raw, "condition", where, Condition, default_condition)
    rerolls: RerollTarget | None = None
    if kind is CardType.REROLL:
        rerolls = _choice(raw, "rerolls", where, RerollTarget, "self")
    elif "rerolls" in raw:
        raise _fail(f"{where}rerolls", "only a re-roll card re-rolls")
    return DeckCard(
        id=_code(raw, "id", where),
        title=_text(raw, "title", where),
        type=kind,
        speed=_integer(raw, "speed", where),
        accuracy=_integer(raw, "accuracy", where),
        opponent_speed=_integer(raw, "opponent_speed", where),
        opponent_accuracy=_integer(raw, "opponent_accuracy", where),
        condition=condition,
        rerolls=rerolls,
    )


def read_deck(raw: object, source: str = "deck") -> Deck:
    """A deck from a parsed deck file (or its JSON); a DeckError naming `source` and the key."""
    if not isinstance(raw, Mapping):
        raise DeckError(f"{source}: expected a table (a deck file), got {quote(raw)}", source)
    where = f"{source}: "
    if raw.get("format") != DECK_FORMAT:
        raise _fail(
            f"{source}: format", f'expected "{DECK_FORMAT}", got {quote(raw.get("format"))}'
        )
    if raw.get("version") != DECK_VERSION:
        raise _fail(
            f"{source}: version",
            f"this program reads deck version {DECK_VERSION}, got {quote(raw.get('version'))}",
        )
    _unknown(raw, _DECK_KEYS, where)
    name = _code(raw, "name", where)
    title = _text(raw, "title", where)
    kind: DeckKind = _choice(raw, "kind", where, DeckKind, "full")
    example = raw.get("example", False)
    if not isinstance(example, bool):
        raise _fail(f"{source}: example", f"expected true or false, got {quote(example)}")
    raw_cards = raw.get("cards")
    if not isinstance(raw_cards, list):
        raise _fail(f"{source}: cards", "expected a list of cards ([[cards]] tables)")
    cards: list[DeckCard] = []
    for index, raw_card in enumerate(raw_cards):
        card = read_card(raw_card, f"{source}: cards[{index}].")
        if any(c.id == card.id for c in cards):
            raise _fail(f"{source}: cards[{index}].id", f"{quote(card.id)} is used twice")
        cards.append(card)
    if len(cards) < BULLETS:
        raise _fail(
            f"{source}: cards",
            f"a deck needs at least {BULLETS} cards to load six bullets, this one has {len(cards)}",
        )
    return Deck(name, title, kind, tuple(cards), example)


def card_to_json(card: DeckCard) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": card.id,
        "title": card.title,
        "type": card.type.value,
        "speed": card.speed,
        "accuracy": card.accuracy,
        "opponent_speed": card.opponent_speed,
        "opponent_accuracy": card.opponent_accuracy,
        "condition": card.condition.value,
    }
    if card.rerolls is not None:
        out["rerolls"] = card.rerolls.value
    return out


def deck_to_json(deck: Deck) -> dict[str, Any]:
    """The deck as a deck file's object (what `read_deck` reads back)."""
    return {
        "format": DECK_FORMAT,
        "version": DECK_VERSION,
        "name": deck.name,
        "title": deck.title,
        "kind": deck.kind.value,
        "example": deck.example,
        "cards": [card_to_json(card) for card in deck.cards],
    }


def load_deck(path: str | Path) -> Deck:
    """Reads a deck file (TOML, or JSON when it ends in .json); a DeckError naming the file."""
    import json

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise DeckError(f"cannot read deck {path}: {error.strerror}", str(path)) from None
    except UnicodeDecodeError as error:
        raise DeckError(f"{path.name}: not UTF-8 text (byte {error.start})", str(path)) from None
    try:
        data: Any = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as error:
        raise DeckError(f"{path.name}: not a valid deck file: {error}", str(path)) from None
    return read_deck(data, path.name)
