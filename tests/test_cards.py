"""Card codes and decks: "A 52 card deck, jokers optional"."""

import pytest

from tabletop.rules.games.cards import Card, Rank, Suit, parse_card, shuffled, standard_deck
from tabletop.rules.games.errors import InvalidCommand


def test_a_deck_has_52_distinct_cards_and_54_with_jokers() -> None:
    assert len(set(standard_deck(jokers=False))) == 52
    deck = standard_deck(jokers=True)
    assert len(set(deck)) == 54
    assert [c.code for c in deck if c.is_joker] == ["JK1", "JK2"]


@pytest.mark.parametrize(
    ("code", "card"),
    [
        ("QS", Card(Rank.QUEEN, Suit.SPADES)),
        ("10h", Card(Rank.TEN, Suit.HEARTS)),
        ("TD", Card(Rank.TEN, Suit.DIAMONDS)),
        ("AC", Card(Rank.ACE, Suit.CLUBS)),
        ("JK2", Card(Rank.JOKER, None, 2)),
    ],
)
def test_card_codes_are_read(code: str, card: Card) -> None:
    assert parse_card(code) == card


def test_card_codes_are_written_with_10_for_ten() -> None:
    assert parse_card("TD").code == "10D"


@pytest.mark.parametrize("code", ["1S", "QX", "JK3", "", "Q", 12])
def test_a_bad_card_code_names_the_field(code: object) -> None:
    with pytest.raises(InvalidCommand, match=r"deck\[3\]: .* is not a card code"):
        parse_card(code, "deck[3]")  # type: ignore[arg-type]


def test_shuffles_depend_only_on_their_seed() -> None:
    deck = standard_deck(jokers=False)
    assert shuffled(deck, "7:deal:1") == shuffled(deck, "7:deal:1")
    assert shuffled(deck, "7:deal:1") != shuffled(deck, "8:deal:1")
    assert sorted(map(str, shuffled(deck, "x"))) == sorted(map(str, deck))
