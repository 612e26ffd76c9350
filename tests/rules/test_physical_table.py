"""Commands that carry what a physical table shows: the hands dealt, the cards drawn, a card
used after the challenge was declared."""

from __future__ import annotations

from typing import Any

import pytest

from tabletop.rules.games.errors import DrawError, SetupError
from tabletop.rules.games.sixshooter import Game, Outcome, event_name, state_to_json
from tabletop.rules.games.sixshooter.errors import CardNotUsable, LuckyNumberError
from tabletop.rules.games.sixshooter.events import ChallengeResolved
from tests.rules.table import HANDS, PLAYERS, new_game, roll, run, slots


def dealt_game(hands: dict[str, list[str]] | None = None, **extra: Any) -> Game:
    game = Game()
    game.execute({"cmd": "new_game", "players": PLAYERS, "hands": hands or HANDS, **extra})
    return game


def test_new_game_takes_the_hands_seen_on_the_mat() -> None:
    game = dealt_game()
    assert slots(game.state, "Ana") == [c.lower() for c in HANDS["Ana"]]
    assert slots(game.state, "Bo") == [c.lower() for c in HANDS["Bo"]]
    assert len(game.state.deck) == 40
    dealt = {c for hand in HANDS.values() for c in hand}
    assert not dealt & {c.code for c in game.state.deck}


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        (
            {"Ana": HANDS["Ana"], "Bo": [*HANDS["Bo"][:5], "JS"]},
            "JS is dealt twice: to Ana and to Bo",
        ),
        ({"Ana": HANDS["Ana"]}, "the hands dealt are for Ana, but the players in play are Ana, Bo"),
        (
            {"Ana": HANDS["Ana"], "Bo": [*HANDS["Bo"][:5], "JK1"]},
            "Bo's slot 6 holds JK1, but jokers are off",
        ),
    ],
)
def test_a_deal_that_cannot_be_is_refused(hands: dict[str, list[str]], message: str) -> None:
    with pytest.raises(SetupError, match=message):
        dealt_game(hands)


def test_turn_order_takes_the_cards_drawn_at_the_table() -> None:
    game = dealt_game()
    run(
        game,
        {"cmd": "reveal", "player": "Ana", "slot": 1},
        {"cmd": "reveal", "player": "Bo", "slot": 1},
    )
    with pytest.raises(
        DrawError,
        match=r"Ana must draw again \(tied with Bo\) for turn order: no more drawn cards were given",
    ):
        game.execute({"cmd": "turn_order", "players": ["Ana", "Bo"], "draws": ["9D", "9H"]})
    with pytest.raises(DrawError, match="JS cannot be drawn: it is not in the deck"):
        game.execute({"cmd": "turn_order", "players": ["Ana", "Bo"], "draws": ["JS", "2D"]})
    run(game, {"cmd": "turn_order", "players": ["Ana", "Bo"], "draws": ["9D", "9H", "2D", "8D"]})
    assert list(game.state.turn_order) == ["Bo", "Ana"]
    assert [c.code for c in game.state.discard] == ["9D", "9H", "2D", "8D"]


def test_the_lucky_replacement_is_the_card_laid_in_the_slot() -> None:
    game = new_game(HANDS, reveal={"Ana": 4, "Bo": 1})
    run(
        game,
        {
            "cmd": "challenge",
            "player": "Ana",
            "method": "slyness",
            "critical": 6,
            "card": {"player": "Ana", "slot": 4},
        },
    )
    with pytest.raises(LuckyNumberError, match="JC cannot be the replacement"):
        game.execute({"cmd": "lucky", "player": "Ana", "replace": True, "card": "JC"})
    run(game, {"cmd": "lucky", "player": "Ana", "replace": True, "card": "10D"})
    assert slots(game.state, "Ana")[3] == "10D"
    assert "10D" not in {c.code for c in game.state.deck}


def test_a_card_lifted_after_the_challenge_was_declared_lowers_it_before_the_roll() -> None:
    """ "You must declare your use of a card and discard it before you make a roll." """
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 1})
    run(game, {"cmd": "challenge", "player": "Ana", "method": "slyness", "critical": 5})
    run(game, {"cmd": "boost", "player": "Ana", "card": {"player": "Ana", "slot": 1}})
    assert state_to_json(game.state)["pending"]["critical"] == 3
    with pytest.raises(CardNotUsable, match="already has a card or a wager"):
        game.execute({"cmd": "boost", "player": "Ana", "wager": 1})
    run(game, *roll(3))
    resolved = [e for e in game.events if isinstance(e, ChallengeResolved)][-1]
    assert resolved.outcome is Outcome.SUCCESS_ROLL_HAND


def test_a_boost_to_zero_or_lower_succeeds_without_the_roll() -> None:
    game = new_game(HANDS, reveal={"Ana": 6, "Bo": 1})
    run(game, {"cmd": "challenge", "player": "Ana", "method": "slyness", "critical": 4})
    run(game, {"cmd": "boost", "player": "Ana", "card": {"player": "Ana", "slot": 6}})  # ace: -5
    assert event_name(game.events[-1]) == "challenge_resolved"
    assert state_to_json(game.state)["pending"] is None and game.state.challenge is None


def test_a_helper_card_lifted_for_a_declared_challenge() -> None:
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 1})
    run(game, {"cmd": "challenge", "player": "Bo", "method": "slyness", "critical": 5})
    run(game, {"cmd": "boost", "player": "Bo", "card": {"player": "Ana", "slot": 1}})
    assert state_to_json(game.state)["pending"]["critical"] == 3


def test_start_adventure_takes_the_new_deal_seen_on_the_mat() -> None:
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 1})
    run(game, {"cmd": "end_adventure"})
    again = {
        "Ana": ["2H", "3D", "4S", "5C", "6H", "7D"],
        "Bo": ["8H", "9D", "10S", "JH", "QS", "KD"],
    }
    run(game, {"cmd": "start_adventure", "hands": again})
    assert slots(game.state, "Bo") == [c.lower() for c in again["Bo"]]


@pytest.mark.parametrize(
    ("draws", "settled"),
    [
        ([], False),
        (["9D"], False),
        (["9D", "2H"], True),
        (["9D", "9H"], False),
        (["9D", "9H", "2D"], False),
        (["9D", "9H", "2D", "8D"], True),
    ],
)
def test_the_reader_knows_when_draws_settle_the_order(draws: list[str], settled: bool) -> None:
    from tabletop.rules.games.cards import parse_card
    from tabletop.rules.games.sixshooter.engine import draws_decide_order

    assert draws_decide_order(["Ana", "Bo"], [parse_card(c) for c in draws], True) is settled
