"""Number of dice in pool: skill rank (at most 6), obstacles, conditions, circumstances, bonuses,
the Vigor die, the GM's 6d."""

from __future__ import annotations

import pytest

from tabletop.rules.games.errors import InvalidCommand, UnknownPlayer
from tabletop.rules.games.steamfunkateers.engine import Game
from tabletop.rules.games.steamfunkateers.model import PoolError, VigorError
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


def test_a_level_two_obstacle_on_an_unfamiliar_action_takes_three_dice() -> None:
    """ "Level-2 subtracts 2 dice from a player's pool." and "Unfamiliarity: ... a level-1
    penalty should be applied": the page lists them one after the other, so they add up."""
    game = new_game()
    check(game, pool("Ana", 5, obstacle=2, unfamiliar=True))
    assert dice(game) == [2]
    assert game.state.round is not None
    assert game.state.round.pools[0].label == "Athletics 5 -2 obstacle -1 unfamiliar"


def test_obstacles_conditions_and_circumstances_all_add_up() -> None:
    """ "Conditions: These will regularly provide penalties." "Circumstantial modifiers
    overlap pretty freely with Conditions, but can be positive or negative.\""""
    game = new_game()
    check(game, pool("Ana", 6, obstacle=[2, 1], conditions=1), {"npc": "Thugs", "circumstance": -2})
    assert dice(game) == [2, 4]


def test_bonuses_add_up_too() -> None:
    """ "a 1d (1 die) bonus might be awarded" (applicability) beside a positive circumstance
    ("Holding a superior or inferior position (e.g. high ground, cover)")."""
    game = new_game()
    check(game, pool("Ana", 2, bonus=1, circumstance=2))
    assert dice(game) == [5]


def test_a_pool_key_that_is_not_one_is_refused_by_name() -> None:
    with pytest.raises(InvalidCommand, match=r"pools\[0\].obstcle: a pool takes no such key"):
        check(new_game(), pool("Ana", 3, obstcle=1))
    with pytest.raises(InvalidCommand, match=r"pools\[0\].obstacle\[1\]: expected 1 to 2"):
        check(new_game(), pool("Ana", 3, obstacle=[1, 3]))


def test_the_gm_verb_writes_every_modifier() -> None:
    from tabletop.rules.games.steamfunkateers.actions import pool_spec

    spec = pool_spec("Ana=6,obstacle=2,obstacle=1,unfamiliar,conditions=1,circumstance=-1,bonus")
    assert spec == {
        "player": "Ana",
        "rank": 6,
        "obstacle": [2, 1],
        "unfamiliar": True,
        "conditions": 1,
        "circumstance": -1,
        "bonus": 1,
    }
    game = new_game()
    check(game, spec)
    assert dice(game) == [1]  # 6 - 3 - 1 - 1 - 1 + 1


def test_a_roll_with_a_bought_extra_die_cannot_be_rerolled_too() -> None:
    """Reroll: "You can only spend a point of Vigor once for each roll." An extra die bought
    with Vigor is that roll's one spend, so its dice stand (the option's default)."""
    game = new_game(vigor=2)
    check(game, pool("Ana", 2, extra_die=True))
    game.execute({"cmd": "roll", "values": [1, 2, 3]})
    assert game.state.round is None  # kept at once: no reroll is on offer
    assert vigor(game, "Ana") == 1
    assert game.state.last_result is not None and game.state.last_result.failed == ("Ana",)


def test_the_option_lets_a_roll_have_an_extra_die_and_a_reroll() -> None:
    """`vigor_once_per_roll` false reads the sentence as the reroll's own limit."""
    game = Game()
    game.execute(
        {
            "cmd": "new_game",
            "players": ["Ana"],
            "options": {"starting_vigor": 2, "vigor_once_per_roll": False},
        }
    )
    check(game, pool("Ana", 2, extra_die=True))
    game.execute({"cmd": "roll", "values": [1, 2, 3]})
    game.execute({"cmd": "reroll", "values": [6, 2, 3]})
    assert vigor(game, "Ana") == 0
    assert game.state.last_result is not None and game.state.last_result.failed == ()
