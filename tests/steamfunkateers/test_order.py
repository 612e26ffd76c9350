"""Turn order: Empathy outside conflicts; Spot or Empathy in conflicts, tie-breaks, then a die."""

from __future__ import annotations

import pytest

from tabletop.rules.games.errors import InvalidCommand
from tabletop.rules.games.steamfunkateers.engine import Game
from tabletop.rules.games.steamfunkateers.model import TurnOrderError
from tests.steamfunkateers.helpers import new_game, roll


def order(game: Game, kind: str, **ranks: list[int]) -> None:
    entrants = [{"who": who, "ranks": r} for who, r in ranks.items()]
    game.execute({"cmd": "turn_order", "kind": kind, "entrants": entrants})


def test_outside_conflicts_the_next_highest_empathy_goes_next() -> None:
    game = new_game(players=("Ana", "Bo", "Cy"))
    order(game, "scene", Ana=[2], Bo=[4], Cy=[3])
    assert game.state.order is not None and game.state.order.order == ("Bo", "Cy", "Ana")


def test_a_physical_tie_on_spot_goes_to_athletics_then_physique() -> None:
    game = new_game(players=("Ana", "Bo", "Cy"))
    order(game, "physical", Ana=[3, 1, 5], Bo=[3, 2, 0], Cy=[3, 2, 1])
    assert game.state.order is not None and game.state.order.order == ("Cy", "Bo", "Ana")


def test_a_tie_after_the_tertiary_skill_is_broken_by_a_die_highest_wins() -> None:
    game = new_game()
    order(game, "mental", Ana=[2, 2, 2], Bo=[2, 2, 2], Thug=[3, 0, 0])
    state = game.state
    assert state.order is not None and state.order.order == ()
    assert state.order.next_tie_thrower == "Ana"
    roll(game, 4)
    roll(game, 4)  # tied again: both throw again
    assert game.state.order is not None and game.state.order.order == ()
    roll(game, 2)
    roll(game, 5)
    assert game.state.order is not None and game.state.order.order == ("Thug", "Bo", "Ana")


def test_the_tie_die_is_a_single_die() -> None:
    game = new_game()
    order(game, "scene", Ana=[2], Bo=[2])
    with pytest.raises(InvalidCommand, match="Ana throws a single die, got 2"):
        roll(game, 4, 5)


def test_the_gm_goes_once_for_every_npc_and_a_round_of_turns_is_an_exchange() -> None:
    game = new_game()
    order(game, "physical", Ana=[4, 0, 0], Thug=[3, 0, 0], Brute=[2, 0, 0], Bo=[1, 0, 0])
    state = game.state
    assert state.order is not None and state.order.npcs == ("Thug", "Brute")
    seen = []
    for _ in range(4):
        assert game.state.order is not None
        seen.append(game.state.order.current)
        game.execute({"cmd": "end_turn"})
    assert seen == ["Ana", "Thug", "Brute", "Bo"]
    assert game.state.order is not None and game.state.order.exchange == 2
    assert game.state.order.current == "Ana"
    game.execute({"cmd": "end_conflict"})
    assert game.state.order is None


def test_an_order_needs_one_rank_per_compared_skill() -> None:
    game = new_game()
    with pytest.raises(InvalidCommand, match=r"entrants\[0\].ranks: expected 3 ranks"):
        order(game, "physical", Ana=[3], Bo=[2, 2, 2])
    with pytest.raises(TurnOrderError, match="no turn order is set"):
        game.execute({"cmd": "end_turn"})
