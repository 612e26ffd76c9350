"""Number of dice in pool: skill rank (at most 6), obstacles, circumstance, Vigor die, the GM's 6d."""

from __future__ import annotations

import pytest

from rules.errors import InvalidCommand, UnknownPlayer
from rules.steamfunkateers.model import PoolError, VigorError
from tests.steamfunkateers.helpers import check, new_game, pool, vigor


def dice(game: object) -> list[int]:
    round_ = game.state.round  # type: ignore[attr-defined]
    return [p.dice for p in round_.pools]


def test_a_player_rolls_as_many_dice_as_the_skill_rank() -> None:
    game = new_game()
    check(game, pool("Ana", 4))
    assert dice(game) == [4]


def test_a_skill_rank_over_six_is_refused_naming_the_maximum() -> None:
    game = new_game()
    with pytest.raises(PoolError, match="over the maximum Skill rank of 6"):
        check(game, pool("Ana", 7))
    assert game.state.round is None


def test_obstacles_take_one_or_two_dice_and_a_circumstance_gives_one() -> None:
    game = new_game()
    check(game, pool("Ana", 4, obstacle=2, bonus=1))
    assert dice(game) == [3]
    with pytest.raises(InvalidCommand, match=r"pools\[0\].obstacle: expected 0 to 2, got 3"):
        new_game().execute({"cmd": "check", "pools": [pool("Ana", 4, obstacle=3)]})


def test_a_pool_with_no_die_left_is_refused() -> None:
    with pytest.raises(PoolError, match="Ana would throw 0 dice"):
        check(new_game(), pool("Ana", 1, obstacle=1))


def test_an_extra_die_costs_the_player_one_vigor_and_is_refused_without_vigor() -> None:
    game = new_game(vigor=1)
    check(game, pool("Ana", 3, extra_die=True))
    assert dice(game) == [4] and vigor(game, "Ana") == 0
    broke = new_game(vigor=0)
    with pytest.raises(VigorError, match="Ana has 0 Vigor, an extra die costs 1"):
        check(broke, pool("Ana", 3, extra_die=True))
    assert vigor(broke, "Ana") == 0, "a refused command spends nothing"


def test_the_gm_rolls_six_dice_plus_one_per_outnumbering_npc() -> None:
    game = new_game()
    check(game, {"npc": "Thugs", "outnumbering": 2})
    assert dice(game) == [8]


def test_the_gms_extra_die_gives_each_player_one_vigor() -> None:
    game = new_game(vigor=0)
    check(game, {"npc": "Thugs", "extra_die": True})
    assert dice(game) == [7]
    assert vigor(game, "Ana") == 1 and vigor(game, "Bo") == 1 and vigor(game, "GM") == 0


def test_an_unknown_player_and_a_pool_given_twice_are_refused() -> None:
    game = new_game()
    with pytest.raises(
        UnknownPlayer, match=r"no player named Zed at this table \(seated: Ana, Bo\)"
    ):
        check(game, pool("Zed", 3))
    with pytest.raises(PoolError, match="Ana already has a pool"):
        check(game, pool("Ana", 3), pool("Ana", 2))
