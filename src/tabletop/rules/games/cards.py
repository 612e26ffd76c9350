"""Playing cards as values: suits, ranks, card codes like "QS" and "JK1", and full decks.

Nothing here belongs to one game, so other card games on the table can share it.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from enum import Enum

from .errors import InvalidCommand, quote


class Suit(Enum):
    """The four French suits, with the letter used in card codes."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"


class Rank(Enum):
    """Card ranks with the text used in card codes; JOKER has no suit."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"
    JOKER = "JK"

    @property
    def pips(self) -> int | None:
        """The printed number for 2-10, else None (faces, aces and jokers carry no number)."""
        return _PIPS.get(self)

    @property
    def is_face_or_ace(self) -> bool:
        """True for J, Q, K and A."""
        return self in (Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE)


_PIPS = {rank: int(rank.value) for rank in Rank if rank.value.isdigit()}
_RANKS_BY_TEXT = {rank.value: rank for rank in Rank}
_SUITS_BY_TEXT = {suit.value: suit for suit in Suit}


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card; jokers are numbered (JK1, JK2) so the two stay distinct."""

    rank: Rank
    suit: Suit | None = None
    joker_number: int = 0

    @property
    def is_joker(self) -> bool:
        """True for either joker."""
        return self.rank is Rank.JOKER

    @property
    def code(self) -> str:
        """The card's code, such as "10H", "AS" or "JK2"."""
        if self.suit is None:
            return f"JK{self.joker_number}"
        return self.rank.value + self.suit.value

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code!r})"


def parse_card(text: str, where: str = "card") -> Card:
    """Returns the card for a code such as "QS", "10h" or "JK1"; raises InvalidCommand otherwise."""
    card = _CARDS_BY_CODE.get(text.upper()) if isinstance(text, str) else None
    if card is None:
        raise InvalidCommand(
            f"{where}: {quote(text)} is not a card code; use rank A 2-10 J Q K followed by suit "
            "C D H S (as in 'QS' or '10H'), or JK1 / JK2 for jokers",
            field=where,
        )
    return card


def standard_deck(jokers: bool) -> tuple[Card, ...]:
    """Returns the 52 cards (54 with jokers) in a fixed, documented order: suit by suit, A to K."""
    cards = [Card(rank, suit) for suit in Suit for rank in Rank if rank is not Rank.JOKER]
    if jokers:
        cards += [Card(Rank.JOKER, None, 1), Card(Rank.JOKER, None, 2)]
    return tuple(cards)


def shuffled(cards: tuple[Card, ...] | list[Card], seed: str) -> tuple[Card, ...]:
    """Returns the cards shuffled by a private generator seeded from `seed` (no global state)."""
    order = list(cards)
    random.Random(seed).shuffle(order)
    return tuple(order)


_CARDS_BY_CODE: dict[str, Card] = {card.code: card for card in standard_deck(jokers=True)}
# "T" for ten is common in card software; accept it on input, always write "10".
_CARDS_BY_CODE.update({f"T{suit.value}": Card(Rank.TEN, suit) for suit in Suit})


# A card of a game's own deck (Six-Gun Showdown's bullets): `deck/id`, both lower-case letters,
# digits and '-', as a deck file names them (src/tabletop/rules/games/showdown/decks.py).
_DECK_PART = r"[a-z0-9][a-z0-9-]{0,23}"
DECK_CODE = re.compile(rf"^{_DECK_PART}/{_DECK_PART}$")


@dataclass(frozen=True, slots=True)
class DeckCard:
    """One card of a game's own deck as the mat and the card map name it: `cowboy/draw-1`.

    The deck file says what the card does; here it is only a name a tag can carry."""

    deck: str
    id: str

    @property
    def code(self) -> str:
        """The card's code, `deck/id`."""
        return f"{self.deck}/{self.id}"

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"DeckCard({self.code!r})"


# What a tag can be stuck on: a playing card or a game deck's card.
TaggedCard = Card | DeckCard


def parse_tagged(text: str, where: str = "card") -> TaggedCard:
    """A playing card's code (`QS`) or a game deck's card (`cowboy/draw-1`); raises
    InvalidCommand naming `where` for anything else."""
    if isinstance(text, str) and DECK_CODE.match(text):
        deck, _, card_id = text.partition("/")
        return DeckCard(deck, card_id)
    if isinstance(text, str) and "/" in text:
        raise InvalidCommand(
            f"{where}: {quote(text)} is not a deck card code; use deck/id in lower-case "
            "letters, digits and '-' (as in 'cowboy/draw-1')",
            field=where,
        )
    return parse_card(text, where)
