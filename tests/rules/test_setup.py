"""Operators and setting up the game (Six Shooter v0.03, "Operators" and "Setting up the game")."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tabletop.rules.games.cards import Suit
from tabletop.rules.games.errors import InvalidCommand, RulesError, SetupError, WrongPhase
from tabletop.rules.games.sixshooter import Descriptor, Game, Method, Phase, state_to_json
from tests.rules.table import new_game, slots

HANDS = {
    "Ana": ["2S", "3S", "4S", "5S", "6S", "7S"],
    "Bo": ["2C", "3C", "4C", "5C", "6C", "7C"],
}


def player(
    name: str, descriptor: str = "sly", lucky: Any = (7,), archetype: str = ""
) -> dict[str, Any]:
    return {"name": name, "descriptor": descriptor, "archetype": archetype, "lucky": list(lucky)}


def test_the_four_descriptors_and_their_suits_and_methods() -> None:
    """ "Dangerous (Clubs) ... Sharp (Diamonds) ... Sly (Spades) ... Charming (Hearts)", and
    "clubs for Danger, diamonds for Sharpness, spades for Slyness, and hearts for Charm"."""
    assert {d.value: (d.suit, d.method) for d in Descriptor} == {
        "dangerous": (Suit.CLUBS, Method.DANGER),
        "sharp": (Suit.DIAMONDS, Method.SHARPNESS),
        "sly": (Suit.SPADES, Method.SLYNESS),
        "charming": (Suit.HEARTS, Method.CHARM),
    }


def test_an_archetype_is_free_text_kept_as_given() -> None:
    """ "An Archetype is a word or short phrase ... no direct bearing on game mechanics"."""
    game = Game()
    game.execute(
        {"cmd": "new_game", "players": [player("Ana", archetype="Noir Détective, retired")]}
    )
    assert state_to_json(game.state)["players"][0]["archetype"] == "Noir Détective, retired"


@pytest.mark.parametrize("number", [1, 11, 0, "7"])
def test_a_lucky_number_is_from_2_to_10(number: object) -> None:
    """ "Each player should pick a Lucky Number for their Operator from 2 to 10." """
    with pytest.raises(InvalidCommand, match=r"new_game\.players\[0\]\.lucky\[0\]"):
        Game().execute({"cmd": "new_game", "players": [player("Ana", lucky=[number])]})


def test_no_two_operators_start_with_the_same_lucky_number() -> None:
    """ "No two Operators at the same table should start with the same Lucky Number." """
    with pytest.raises(SetupError, match="Bo and Ana both start with Lucky Number 7|Ana and Bo"):
        Game().execute(
            {"cmd": "new_game", "players": [player("Ana", lucky=[7]), player("Bo", lucky=[7])]}
        )


def test_the_deck_is_52_cards_or_54_with_jokers() -> None:
    """ "A 52 card deck, jokers optional" """
    for jokers, total in ((False, 52), (True, 54)):
        game = Game()
        game.execute({"cmd": "new_game", "players": [player("Ana")], "jokers": jokers, "seed": 3})
        state = game.state
        in_hands = sum(1 for op in state.operators.values() for s in op.slots if s.card)
        assert len(state.deck) + in_hands == total


def test_a_given_deck_must_be_complete_and_without_repeats() -> None:
    deck = [f"{r}{s}" for s in "CDHS" for r in ["A", *map(str, range(2, 11)), "J", "Q", "K"]]
    with pytest.raises(SetupError, match="lacks AS"):
        Game().execute(
            {"cmd": "new_game", "players": [player("Ana")], "deck": deck[:-13] + deck[-12:]}
        )
    with pytest.raises(SetupError, match="holds 2C more than once"):
        Game().execute({"cmd": "new_game", "players": [player("Ana")], "deck": [*deck[:-1], "2C"]})
    with pytest.raises(SetupError, match="jokers are off"):
        Game().execute({"cmd": "new_game", "players": [player("Ana")], "deck": [*deck[:-1], "JK1"]})


def test_the_shuffle_comes_from_the_seed_only() -> None:
    """All randomness comes from the seed carried in the game, so a replay is exact."""

    def dealt(seed: int) -> dict[str, Any]:
        game = Game()
        game.execute(
            {"cmd": "new_game", "players": [player("Ana"), player("Bo", lucky=[3])], "seed": seed}
        )
        return state_to_json(game.state)

    assert dealt(5) == dealt(5)
    assert dealt(5)["players"] != dealt(6)["players"]


def test_six_cards_dealt_face_down_round_robin_kth_card_into_slot_k() -> None:
    """ "deal six cards to each player ... place their six cards face-down in a line going from
    left to right" (decision: one card at a time in the players' order, k-th card to slot k)."""
    game = new_game(HANDS)
    assert slots(game.state, "Ana") == ["2s", "3s", "4s", "5s", "6s", "7s"]
    assert slots(game.state, "Bo") == ["2c", "3c", "4c", "5c", "6c", "7c"]
    assert len(game.state.deck) == 52 - 12
    assert game.state.phase is Phase.SETUP


def test_block_deal_is_a_named_option() -> None:
    game = Game()
    deck = [f"{r}S" for r in ["A", *map(str, range(2, 11)), "J", "Q", "K"]]
    deck += [f"{r}{s}" for s in "CDH" for r in ["A", *map(str, range(2, 11)), "J", "Q", "K"]]
    game.execute(
        {
            "cmd": "new_game",
            "players": [player("Ana"), player("Bo", lucky=[3])],
            "deck": deck,
            "options": {"deal": "block"},
        }
    )
    assert slots(game.state, "Ana") == ["as", "2s", "3s", "4s", "5s", "6s"]
    assert slots(game.state, "Bo") == ["7s", "8s", "9s", "10s", "js", "qs"]


def test_each_player_turns_one_card_face_up_then_play_begins() -> None:
    """ "Have each player turn one card of their choice from their hand face-up and begin the game." """
    game = new_game(HANDS)
    game.execute({"cmd": "reveal", "player": "Ana", "slot": 3})
    assert slots(game.state, "Ana")[2] == "4S"
    assert game.state.phase is Phase.SETUP
    with pytest.raises(WrongPhase, match="already turned a card face-up \\(slot 3\\)"):
        game.execute({"cmd": "reveal", "player": "Ana", "slot": 4})
    with pytest.raises(WrongPhase, match="challenge belongs to play"):
        game.execute({"cmd": "challenge", "player": "Ana", "method": "slyness", "critical": 3})
    game.execute({"cmd": "reveal", "player": "Bo", "slot": 6})
    assert game.state.phase is Phase.PLAY


def test_options_with_an_unknown_key_are_named() -> None:
    with pytest.raises(InvalidCommand, match=r"new_game\.options\.ace_hi: unknown option"):
        Game().execute(
            {"cmd": "new_game", "players": [player("Ana")], "options": {"ace_hi": False}}
        )


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ({"cmd": "new_game", "players": []}, "at least one player"),
        (
            {"cmd": "new_game", "players": [player("Ana"), player("ana", lucky=[3])]},
            "two players are named",
        ),
        (
            {"cmd": "new_game", "players": [player(f"P{i}", lucky=[i + 2]) for i in range(9)]},
            "at most 8",
        ),
    ],
)
def test_bad_rosters_are_refused(command: dict[str, Any], message: str) -> None:
    with pytest.raises(SetupError, match=message):
        Game().execute(command)


def test_a_refused_command_leaves_state_and_log_exactly_as_they_were() -> None:
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 1})
    before = copy.deepcopy(state_to_json(game.state)), list(game.events)
    for bad in (
        {"cmd": "roll", "value": 3},
        {"cmd": "reveal", "player": "Ana", "slot": 2},
        {"cmd": "challenge", "player": "Cy", "method": "charm", "critical": 3},
        {"cmd": "challenge", "player": "Ana", "method": "charm", "critical": 8},
        {"cmd": "new_game", "players": [player("Zed")]},
    ):
        with pytest.raises(RulesError):
            game.execute(bad)
        assert (state_to_json(game.state), list(game.events)) == before
