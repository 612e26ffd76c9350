"""Deck files: the examples read and say they are examples; a bad file names its key."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tabletop.rules.games.showdown.decks import (
    CardType,
    Condition,
    DeckError,
    RerollTarget,
    deck_to_json,
    enrolment_codes,
    load_deck,
    read_deck,
    split_code,
)

from .helpers import EXAMPLES, plain_deck


@pytest.mark.parametrize("name", ["cowboy", "desperado"])
def test_the_example_decks_read_and_are_marked_as_example_values(name: str) -> None:
    path = EXAMPLES / f"{name}.toml"
    deck = load_deck(path)
    assert deck.name == name and deck.example
    assert "EXAMPLE VALUES FOR TESTING" in path.read_text().splitlines()[0]
    assert {c.type for c in deck.cards} == set(CardType)  # every type the seed names
    assert read_deck(deck_to_json(deck), name) == deck
    flinch = next(c for c in deck.cards if c.type is CardType.FLINCH)
    assert flinch.condition is Condition.OPPONENT_NEXT_IS_DRAW


def _deck(tmp_path: Path, text: str) -> Path:
    base = (EXAMPLES / "cowboy.toml").read_text()
    path = tmp_path / "cowboy.toml"
    path.write_text(base + text)
    return path


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            '\n[[cards]]\nid = "x"\ntitle = "X"\ntype = "focus"\nspeed = "fast"\n',
            "cowboy.toml: cards[16].speed: expected an integer, got 'fast'",
        ),
        (
            '\n[[cards]]\nid = "x"\ntitle = "X"\ntype = "laser"\n',
            "cowboy.toml: cards[16].type: expected one of draw, focus, reach, distract, flinch, re-roll",
        ),
        (
            '\n[[cards]]\nid = "draw-1"\ntitle = "X"\ntype = "draw"\n',
            "cowboy.toml: cards[16].id: 'draw-1' is used twice",
        ),
        (
            '\n[[cards]]\nid = "x"\ntitle = "X"\ntype = "focus"\nrerolls = "self"\n',
            "cowboy.toml: cards[16].rerolls: only a re-roll card re-rolls",
        ),
        (
            '\n[[cards]]\nid = "x"\ntitle = "X"\ntype = "focus"\nsped = 1\n',
            "cowboy.toml: cards[16].sped: no such key",
        ),
        (
            '\n[[cards]]\nid = "x"\ntitle = "X"\ntype = "focus"\naccuracy = 40\n',
            "cowboy.toml: cards[16].accuracy: expected -12 to 12, got 40",
        ),
        (
            '\n[[cards]]\nid = "Big Iron"\ntitle = "X"\ntype = "focus"\n',
            "cowboy.toml: cards[16].id: expected lower-case letters",
        ),
    ],
)
def test_a_bad_card_is_refused_naming_the_file_and_the_key(
    tmp_path: Path, extra: str, message: str
) -> None:
    with pytest.raises(DeckError) as error:
        load_deck(_deck(tmp_path, extra))
    assert str(error.value).startswith(message)


def test_a_bad_file_names_itself(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n")
    with pytest.raises(DeckError, match="broken.toml: not a valid deck file"):
        load_deck(broken)
    with pytest.raises(DeckError, match="cannot read deck"):
        load_deck(tmp_path / "missing.toml")
    raw = tomllib.loads((EXAMPLES / "cowboy.toml").read_text())
    with pytest.raises(DeckError, match="d.toml: version: this program reads deck version 1"):
        read_deck({**raw, "version": 2}, "d.toml")
    with pytest.raises(DeckError, match="d.toml: cards: a deck needs at least 6 cards"):
        read_deck({**raw, "cards": raw["cards"][:5]}, "d.toml")


def test_re_roll_targets_and_conditions_have_defaults_and_can_be_set() -> None:
    deck = read_deck(
        plain_deck(
            "cowboy",
            [
                {"id": "r", "title": "R", "type": "re-roll"},
                {"id": "o", "title": "O", "type": "re-roll", "rerolls": "either"},
                {"id": "f", "title": "F", "type": "flinch", "condition": "always"},
            ],
        )
    )
    assert deck.card("r").rerolls is RerollTarget.SELF  # type: ignore[union-attr]
    assert deck.card("o").rerolls is RerollTarget.EITHER  # type: ignore[union-attr]
    assert deck.card("f").condition is Condition.ALWAYS  # type: ignore[union-attr]


def test_card_codes_name_their_deck() -> None:
    codes = enrolment_codes(load_deck(EXAMPLES / "cowboy.toml"))
    assert codes[0] == "cowboy/draw-1" and len(codes) == len(set(codes)) == 16
    assert all(split_code(code) is not None for code in codes)
    assert split_code("cowboy/draw-1") == ("cowboy", "draw-1")
    assert split_code("QS") is None and split_code("Cowboy/x") is None
