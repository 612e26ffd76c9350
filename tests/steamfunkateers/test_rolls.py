"""Successes are sixes; no six goes wrong; four or more on the first roll; the Vigor reroll."""

from __future__ import annotations

import pytest

from tabletop.rules.games.errors import InvalidCommand, OutOfTurn
from tabletop.rules.games.steamfunkateers.engine import Game
from tabletop.rules.games.steamfunkateers.model import RerollError, VigorError
from tests.steamfunkateers.helpers import check, new_game, pool, roll, vigor


def reroll(game: Game, *values: int) -> None:
    game.execute({"cmd": "reroll", "values": list(values)})


def test_sixes_are_successes_and_one_six_succeeds() -> None:
    game = new_game(vigor=0)
    check(game, pool("Ana", 3))
    roll(game, 6, 2, 3)
    result = game.state.last_result
    assert result is not None
    assert result.sixes == (("Ana", 1),) and result.winners == ("Ana",) and result.failed == ()


def test_no_six_means_something_goes_wrong() -> None:
    game = new_game(vigor=0)
    check(game, pool("Ana", 3))
    roll(game, 1, 2, 5)
    assert game.state.last_result is not None and game.state.last_result.failed == ("Ana",)


def test_four_sixes_on_the_first_roll_are_extraordinary_but_not_after_a_reroll() -> None:
    game = new_game(vigor=0)
    check(game, pool("Ana", 5))
    roll(game, 6, 6, 6, 6, 1)
    assert game.state.last_result is not None
    assert game.state.last_result.extraordinary == ("Ana",)
    late = new_game(vigor=1)
    check(late, pool("Ana", 5))
    roll(late, 6, 6, 6, 1, 1)
    reroll(late, 6, 6, 6, 6, 6)
    assert late.state.last_result is not None
    assert late.state.last_result.sixes == (("Ana", 5),)
    assert late.state.last_result.extraordinary == ()


def test_a_throw_with_the_wrong_number_of_dice_is_refused() -> None:
    game = new_game()
    check(game, pool("Ana", 3))
    with pytest.raises(InvalidCommand, match="Ana's pool is 3 dice, got 2"):
        roll(game, 6, 6)
    with pytest.raises(InvalidCommand, match=r"values\[1\]: expected a die face 1 to 6, got 7"):
        roll(game, 6, 7, 1)


def test_a_reroll_costs_the_player_one_vigor_and_gives_the_gm_one() -> None:
    game = new_game(vigor=1)
    check(game, pool("Ana", 3))
    roll(game, 6, 2, 3)
    assert game.state.round is not None, "a reroll is still possible: the pool waits"
    reroll(game, 6, 6, 4)
    assert vigor(game, "Ana") == 0 and vigor(game, "GM") == 1
    assert game.state.last_result is not None
    assert game.state.last_result.sixes == (("Ana", 2),)


def test_the_rethrown_dice_alone_may_be_entered() -> None:
    game = new_game(vigor=1)
    check(game, pool("Ana", 3))
    roll(game, 6, 2, 3)
    reroll(game, 6, 1)
    assert game.state.last_result is not None
    assert game.state.last_result.sixes == (("Ana", 2),)


def test_a_reroll_that_takes_a_six_away_is_refused_in_words() -> None:
    game = new_game(vigor=1)
    check(game, pool("Ana", 3))
    roll(game, 6, 6, 3)
    with pytest.raises(RerollError, match="a six was taken away: 2 sixes stay in the tray"):
        reroll(game, 6, 1, 3)
    with pytest.raises(RerollError, match="the 1 rethrown dice or the whole tray of 3, got 2"):
        reroll(game, 1, 3)
    assert vigor(game, "Ana") == 1


def test_only_one_reroll_per_roll() -> None:
    game = new_game(vigor=3)
    check(game, pool("Ana", 3), pool("Bo", 2))
    roll(game, 1, 2, 3)
    reroll(game, 1, 1, 1)
    assert game.state.round is not None and game.state.round.current is not None
    assert game.state.round.current.who == "Bo", "after the reroll the pool is kept"
    roll(game, 1, 1)
    game.execute({"cmd": "keep"})
    with pytest.raises(OutOfTurn):
        reroll(game, 1, 1, 1)
    assert vigor(game, "Ana") == 2


def test_a_reroll_is_not_offered_without_vigor_or_when_every_die_is_a_six() -> None:
    game = new_game(vigor=0)
    check(game, pool("Ana", 2))
    roll(game, 1, 2)
    assert game.state.round is None, "no Vigor: the dice stand"
    rich = new_game(vigor=1)
    check(rich, pool("Ana", 2))
    roll(rich, 6, 6)
    assert rich.state.round is None and vigor(rich, "Ana") == 1


def test_the_gm_rerolls_an_npc_pool_for_one_vigor_and_gains_none() -> None:
    game = new_game(vigor=0, gm_vigor=1)
    check(game, {"npc": "Thugs"})
    roll(game, 1, 2, 3, 4, 5, 6)
    reroll(game, 6, 6, 2, 3, 4, 6)
    assert vigor(game, "GM") == 0


def test_keep_needs_a_throw_first() -> None:
    game = new_game()
    check(game, pool("Ana", 2))
    with pytest.raises(OutOfTurn, match="has not thrown yet"):
        game.execute({"cmd": "keep"})
    with pytest.raises(RerollError, match="roll first"):
        reroll(game, 1, 1)


def test_calls_wait_while_dice_are_awaited() -> None:
    game = new_game()
    check(game, pool("Ana", 2))
    with pytest.raises(OutOfTurn, match="Ana throws 2 dice first"):
        check(game, pool("Bo", 2))


def test_spending_vigor_the_player_lacks_is_refused() -> None:
    game = new_game(vigor=0)
    with pytest.raises(VigorError):
        game.execute({"cmd": "narrate", "bids": {"Ana": 1}})
