"""OS-SIX action rolls, dice pools, criticals, help, Luck Points, Strain and pushing your luck."""

from __future__ import annotations

from typing import Any

import pytest

from tabletop.rules.games.errors import IllegalMove, InvalidCommand
from tabletop.rules.games.ossix.engine import Game, score_action, score_gm_roll
from tabletop.rules.games.ossix.outcomes import Critical, Outcome
from tabletop.rules.games.ossix.state import PendingKind


def started(*names: str, **options: Any) -> Game:
    game = Game()
    game.execute({"cmd": "new_game", "players": list(names or ("Ana", "Bo")), "options": options})
    return game


def act(game: Game, player: str = "Ana", **fields: Any) -> None:
    game.execute({"cmd": "action", "player": player, "attribute": "agility", "score": 2, **fields})


def roll(game: Game, *values: int) -> None:
    game.execute({"cmd": "roll", "values": list(values)})


def char(game: Game, name: str = "Ana") -> Any:
    found = game.state.character(name)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("values", "pool", "outcome", "critical"),
    [
        ((1, 4, 6), 3, Outcome.COMPLETE, Critical.NONE),  # Jack's crossbow shot
        ((3, 5), 2, Outcome.PARTIAL, Critical.NONE),  # Kate's restraint
        ((2, 3), 2, Outcome.FAILURE, Critical.NONE),
        ((1, 1, 3), 3, Outcome.FAILURE, Critical.FAILURE),  # more than a single 1
        ((1, 1, 4), 3, Outcome.PARTIAL, Critical.NONE),  # a 4 above the ones
        ((1,), 1, Outcome.FAILURE, Critical.FAILURE),  # a lone 1 on 1D6
        ((1, 2), 2, Outcome.FAILURE, Critical.NONE),  # a single 1 on a bigger pool
        ((6, 6, 2), 3, Outcome.COMPLETE, Critical.SUCCESS),
        ((6, 6), 0, Outcome.COMPLETE, Critical.NONE),  # disadvantage: no critical success
        ((6, 2), -1, Outcome.FAILURE, Critical.NONE),  # disadvantage: the lowest counts
        ((1, 1), 0, Outcome.FAILURE, Critical.FAILURE),  # ... but a critical failure can
    ],
)
def test_roll_results_read_the_highest_die_and_the_criticals(
    values: tuple[int, ...], pool: int, outcome: Outcome, critical: Critical
) -> None:
    assert score_action(values, pool) == (outcome, critical)


def test_the_pool_is_attribute_plus_skill_plus_bonus_minus_penalty() -> None:
    game = started()
    act(game, skill=True, bonus=2, penalty=1)
    assert game.state.pending is not None and game.state.pending.dice == 4
    with pytest.raises(InvalidCommand, match="expected 4 dice, got 3") as error:
        roll(game, 1, 2, 3)
    assert error.value.field == "values"
    roll(game, 1, 2, 3, 5)
    assert char(game).last.outcome is Outcome.PARTIAL


def test_an_empty_pool_throws_two_dice_and_takes_the_lowest() -> None:
    game = started()
    act(game, score=1, penalty=2)
    pending = game.state.pending
    assert pending is not None and pending.disadvantage and pending.dice == 2
    roll(game, 6, 5)
    assert char(game).last.outcome is Outcome.PARTIAL


def test_a_failure_under_high_pressure_costs_one_strain_and_not_otherwise() -> None:
    game = started()
    act(game)
    roll(game, 2, 3)
    assert char(game).strain == 0
    act(game, high_pressure=True)
    roll(game, 2, 3)
    assert char(game).strain == 1


def test_a_critical_failure_costs_one_strain_and_waits_for_the_gms_panic_outcome() -> None:
    game = started()
    act(game, high_pressure=True)
    roll(game, 1, 1)
    assert char(game).strain == 1
    assert game.state.pending is not None and game.state.pending.kind is PendingKind.PANIC
    with pytest.raises(IllegalMove, match="enter Ana's Panic Roll outcome first") as error:
        act(game, "Bo")
    assert error.value.rule == "waiting"
    game.execute({"cmd": "panic", "player": "Ana", "outcome": "drops her gun"})
    assert game.state.pending is None


def test_the_option_stacks_the_high_pressure_strain_on_a_critical_failure() -> None:
    game = started(critical_failure_strain_stacks=True)
    act(game, high_pressure=True)
    roll(game, 1, 1)
    assert char(game).strain == 2


def test_a_critical_success_gives_a_bonus_next_roll_and_removes_one_strain() -> None:
    game = started()
    game.execute({"cmd": "strain", "player": "Ana", "change": 3})
    act(game)
    roll(game, 6, 6)
    assert char(game).strain == 2 and char(game).bonus_next
    act(game)
    assert game.state.pending is not None and game.state.pending.dice == 3
    assert not char(game).bonus_next


def test_help_gives_one_bonus_die_and_the_helper_one_strain_once_per_roll() -> None:
    game = started("Ana", "Bo", "Cy")
    act(game)
    game.execute({"cmd": "help", "helper": "Bo", "player": "Ana"})
    assert game.state.pending is not None and game.state.pending.dice == 3
    assert char(game, "Bo").strain == 1
    with pytest.raises(IllegalMove, match="only one Bonus") as error:
        game.execute({"cmd": "help", "helper": "Cy", "player": "Ana"})
    assert error.value.rule == "helping"
    with pytest.raises(IllegalMove, match="cannot help their own roll"):
        game.execute({"cmd": "help", "helper": "Ana", "player": "Ana"})


def test_luck_starts_at_two_banks_at_most_three_and_the_gm_awards_it() -> None:
    game = started()
    assert char(game).luck == 2
    game.execute({"cmd": "award_luck", "player": "Ana"})
    assert char(game).luck == 3
    with pytest.raises(IllegalMove, match="three Luck Points") as error:
        game.execute({"cmd": "award_luck", "player": "Ana"})
    assert error.value.rule == "gaining more luck points"
    events = game.execute({"cmd": "award_luck", "player": "all"})
    assert [e.player for e in events] == ["Bo"]


def test_a_luck_point_buys_a_bonus_only_before_the_roll() -> None:
    game = started()
    with pytest.raises(IllegalMove, match="only before Ana's action roll") as error:
        game.execute({"cmd": "spend_luck", "player": "Ana", "use": "bonus"})
    assert error.value.rule == "luck points"
    act(game)
    game.execute({"cmd": "spend_luck", "player": "Ana", "use": "bonus"})
    assert game.state.pending is not None and game.state.pending.dice == 3
    assert char(game).luck == 1


def test_a_luck_point_turns_a_partial_success_into_a_complete_one() -> None:
    game = started()
    act(game)
    roll(game, 2, 3)
    with pytest.raises(IllegalMove, match="only a partial success"):
        game.execute({"cmd": "spend_luck", "player": "Ana", "use": "upgrade"})
    act(game)
    roll(game, 2, 5)
    game.execute({"cmd": "spend_luck", "player": "Ana", "use": "upgrade"})
    assert char(game).last.outcome is Outcome.COMPLETE and char(game).last.upgraded


def test_max_damage_needs_a_complete_success() -> None:
    game = started()
    act(game)
    roll(game, 2, 5)
    with pytest.raises(IllegalMove, match="complete success"):
        game.execute({"cmd": "spend_luck", "player": "Ana", "use": "max_damage"})
    act(game)
    roll(game, 2, 6)
    game.execute({"cmd": "spend_luck", "player": "Ana", "use": "max_damage"})
    assert char(game).last.max_damage


def test_a_luck_point_reduces_an_attacks_damage_by_a_thrown_d6() -> None:
    game = started()
    game.execute({"cmd": "spend_luck", "player": "Ana", "use": "reduce_damage"})
    assert game.state.pending is not None and game.state.pending.dice == 1
    events = game.execute({"cmd": "roll", "values": [4]})
    assert events[0].number == 4 and game.state.pending is None


def test_a_luck_point_rerolls_a_failed_roll_with_the_same_pool() -> None:
    game = started()
    act(game, skill=True)
    roll(game, 1, 2, 3)
    game.execute({"cmd": "spend_luck", "player": "Ana", "use": "reroll"})
    assert game.state.pending is not None and game.state.pending.dice == 3
    roll(game, 4, 6, 2)
    assert char(game).last.outcome is Outcome.COMPLETE
    with pytest.raises(IllegalMove, match="only a failed roll"):
        game.execute({"cmd": "spend_luck", "player": "Ana", "use": "reroll"})


def test_no_luck_left_refuses_to_burn_one() -> None:
    game = started(starting_luck=0)
    act(game)
    with pytest.raises(IllegalMove, match="no Luck Point") as error:
        game.execute({"cmd": "spend_luck", "player": "Ana", "use": "bonus"})
    assert error.value.rule == "luck points"


def test_pushing_your_luck_costs_d6_then_2d6_then_3d6_and_the_point_is_used_at_once() -> None:
    game = started(starting_luck=0)
    act(game)
    roll(game, 1, 3)
    game.execute({"cmd": "push", "player": "Ana"})
    assert game.state.pending is not None and game.state.pending.dice == 1
    roll(game, 2)
    assert char(game).strain == 2 and char(game).luck == 1
    with pytest.raises(IllegalMove, match="must use the pushed Luck Point first") as error:
        act(game, "Bo")
    assert error.value.rule == "pushing your luck"
    game.execute({"cmd": "spend_luck", "player": "Ana", "use": "reroll"})
    roll(game, 2, 2)
    game.execute({"cmd": "push", "player": "Ana"})
    assert game.state.pending is not None and game.state.pending.dice == 2
    roll(game, 1, 1)
    game.execute({"cmd": "spend_luck", "player": "Ana", "use": "reroll"})
    roll(game, 2, 2)
    game.execute({"cmd": "push", "player": "Ana"})
    assert game.state.pending is not None and game.state.pending.dice == 3
    game.execute({"cmd": "roll", "values": [1, 1, 1]})
    game.execute({"cmd": "spend_luck", "player": "Ana", "use": "reduce_damage"})
    roll(game, 3)
    game.execute({"cmd": "long_rest"})
    act(game)
    roll(game, 2, 2)  # a failure since the long rest: the first push again
    game.execute({"cmd": "push", "player": "Ana"})
    assert game.state.pending is not None and game.state.pending.dice == 1


def test_pushing_needs_an_empty_bank_and_strain_below_twelve() -> None:
    game = started()
    with pytest.raises(IllegalMove, match="burn one instead") as error:
        game.execute({"cmd": "push", "player": "Ana"})
    assert error.value.rule == "pushing your luck"


def test_hitting_twelve_strain_incapacitates_and_a_push_there_gains_no_luck() -> None:
    game = started(starting_luck=0)
    act(game)
    roll(game, 2, 3)
    game.execute({"cmd": "strain", "player": "Ana", "change": 9})
    game.execute({"cmd": "push", "player": "Ana"})
    events = game.execute({"cmd": "roll", "values": [5]})
    assert [e.kind.value for e in events] == ["strain_changed", "incapacitated"]
    assert char(game).strain == 12 and char(game).luck == 0 and game.state.pending is None
    with pytest.raises(IllegalMove, match="incapacitated") as error:
        act(game)
    assert error.value.rule == "strain"
    with pytest.raises(IllegalMove, match="12 Strain"):
        game.execute({"cmd": "push", "player": "Ana"})


def test_the_d2_d3_morale_and_npc_behaviour_gm_rolls() -> None:
    assert [score_gm_roll("d3", (v,), None)[0] for v in range(1, 7)] == [1, 1, 2, 2, 3, 3]
    assert [score_gm_roll("d2", (v,), None)[0] for v in range(1, 7)] == [1, 1, 1, 2, 2, 2]
    assert score_gm_roll("behaviour", (2,), None)[1] == "openly hostile or standoffish"
    assert score_gm_roll("behaviour", (4,), None)[1] == "cautious or reticent"
    assert score_gm_roll("behaviour", (5,), None)[1] == "friendly and helpful"
    game = started()
    game.execute({"cmd": "gm_roll", "kind": "morale", "morale": 7})
    with pytest.raises(InvalidCommand, match="expected 2 dice"):
        roll(game, 6)
    events = game.execute({"cmd": "roll", "values": [3, 4]})
    assert events[0].number == 7 and events[0].target == "holds"  # greater than, not equal
    game.execute({"cmd": "gm_roll", "kind": "morale", "morale": 7})
    broken = game.execute({"cmd": "roll", "values": [4, 4]})[0]
    assert broken.target is not None and broken.target.startswith("demoralized")
    with pytest.raises(InvalidCommand) as error:
        game.execute({"cmd": "gm_roll", "kind": "morale"})
    assert error.value.field == "morale"


def test_carrying_more_than_capacity_is_a_penalty_on_agility_and_brawn_only() -> None:
    game = started()
    game.execute({"cmd": "load", "player": "Ana", "brawn": 1, "items": 10.25})
    act(game)
    assert game.state.pending is not None and game.state.pending.dice == 1
    roll(game, 4)
    game.execute({"cmd": "action", "player": "Ana", "attribute": "mind", "score": 2})
    assert game.state.pending is not None and game.state.pending.dice == 2
    roll(game, 4, 4)
    game.execute({"cmd": "load", "player": "Ana", "brawn": 1, "items": 10})
    act(game)
    assert game.state.pending is not None and game.state.pending.dice == 2
    with pytest.raises(IllegalMove, match="twice their capacity") as error:
        game.execute({"cmd": "load", "player": "Ana", "brawn": 0, "items": 14.25})
    assert error.value.rule == "carrying capacity"


@pytest.mark.parametrize(
    ("command", "field"),
    [
        ({"cmd": "action", "player": "Ana", "attribute": "luck", "score": 1}, "attribute"),
        ({"cmd": "action", "player": "Ana", "attribute": "will", "score": True}, "score"),
        ({"cmd": "action", "player": "Ana", "attribute": "will", "score": 1, "skill": 1}, "skill"),
        ({"cmd": "spend_luck", "player": "Ana", "use": "extra_life"}, "use"),
        ({"cmd": "gm_roll", "kind": "d20"}, "kind"),
        ({"cmd": "load", "player": "Ana", "brawn": 1, "items": 1.1}, "items"),
        ({"cmd": "strain", "player": "Ana", "change": 0}, "change"),
        ({"cmd": "dance"}, "cmd"),
    ],
)
def test_bad_commands_name_their_field(command: dict[str, Any], field: str) -> None:
    game = started()
    with pytest.raises(InvalidCommand) as error:
        game.execute(command)
    assert error.value.field == field


def test_a_refusal_leaves_the_state_as_it_was_and_unknown_players_are_named() -> None:
    game = started()
    before = game.state
    with pytest.raises(IllegalMove, match="there is no player named Zed at this table") as error:
        act(game, "Zed")
    assert error.value.rule == "players" and game.state is before
    with pytest.raises(IllegalMove, match="no dice are awaited"):
        roll(game, 3)


def test_pushing_your_luck_follows_a_failed_roll_only() -> None:
    """Pushing Your Luck: "There are situations when a player is out of luck points, fails a
    crucial action roll, but really needs a second chance to avoid dire consequences."
    """
    game = started(starting_luck=0)
    with pytest.raises(IllegalMove, match="did not fail") as error:
        game.execute({"cmd": "push", "player": "Ana"})  # no roll at all yet
    assert error.value.rule == "pushing your luck"
    act(game)
    roll(game, 6, 2)  # a complete success
    with pytest.raises(IllegalMove, match="Ana's latest action roll did not fail"):
        game.execute({"cmd": "push", "player": "Ana"})
    act(game)
    roll(game, 5, 2)  # a partial success: still not a failure
    with pytest.raises(IllegalMove, match="did not fail"):
        game.execute({"cmd": "push", "player": "Ana"})
    act(game)
    roll(game, 3, 2)
    game.execute({"cmd": "push", "player": "Ana"})


def test_the_game_master_may_allow_a_push_after_any_roll() -> None:
    """The option `push_needs_a_failure` (default true, the text) set false: the GM's call."""
    game = started(starting_luck=0, push_needs_a_failure=False)
    act(game)
    roll(game, 6, 2)
    game.execute({"cmd": "push", "player": "Ana"})
    assert game.state.pending is not None and game.state.pending.kind.value == "push"


def test_without_a_container_a_character_carries_four_items_at_most() -> None:
    """Carrying Capacity: "A character must have a backpack, duffel bag, sack, suitcase, or
    other portable container to carry more than four normal-sized items."
    """
    game = started()
    game.execute({"cmd": "load", "player": "Ana", "brawn": 2, "items": 4, "container": False})
    with pytest.raises(IllegalMove, match="no container") as error:
        game.execute(
            {"cmd": "load", "player": "Ana", "brawn": 2, "items": 4.25, "container": False}
        )
    assert error.value.rule == "carrying capacity"
    game.execute({"cmd": "load", "player": "Ana", "brawn": 2, "items": 12})  # with a bag


def test_a_push_or_a_luck_reroll_answers_only_a_failure_since_the_last_long_rest() -> None:
    """Pushing Your Luck: "... fails a crucial action roll, but really needs a second chance to
    avoid dire consequences. ... They immediately gain D6 Strain but also gain a Luck Point,
    which they must use immediately"; Luck Points: "Re-roll one failed roll". A long rest
    between the failure and the push (or the re-roll) has let the moment pass (issue 48)."""
    game = started(starting_luck=0)
    act(game)
    roll(game, 2, 3)  # a failure
    game.execute({"cmd": "long_rest"})
    with pytest.raises(IllegalMove, match="before the long rest") as error:
        game.execute({"cmd": "push", "player": "Ana"})
    assert error.value.rule == "pushing your luck"
    assert game.state.pending is None and char(game).pushes == 0
    game.execute({"cmd": "award_luck", "player": "Ana"})
    with pytest.raises(IllegalMove, match="before the long rest") as error:
        game.execute({"cmd": "spend_luck", "player": "Ana", "use": "reroll"})
    assert error.value.rule == "luck points" and char(game).luck == 1
    act(game)
    roll(game, 1, 2)  # a failure since the rest: its re-roll is taken
    game.execute({"cmd": "spend_luck", "player": "Ana", "use": "reroll"})
    assert game.state.pending is not None and game.state.pending.kind is PendingKind.ACTION
    # Bo's rest is not Ana's: a long rest for one character leaves the others' failures.
    game = started(starting_luck=0)
    act(game)
    roll(game, 2, 3)
    game.execute({"cmd": "long_rest", "player": "Bo"})
    game.execute({"cmd": "push", "player": "Ana"})


def test_a_table_may_let_a_failure_before_the_long_rest_be_pushed_or_re_rolled() -> None:
    # The other reading: the seed ties the push to a failure and to the long rest only for
    # its cost (2D6 "again before having a long rest"), not for when the failure was thrown.
    game = started(starting_luck=0, second_chance_after_long_rest=True)
    act(game)
    roll(game, 2, 3)
    game.execute({"cmd": "long_rest"})
    game.execute({"cmd": "push", "player": "Ana"})
    assert game.state.pending is not None and game.state.pending.dice == 1
    game = started(starting_luck=1, second_chance_after_long_rest=True)
    act(game)
    roll(game, 2, 3)
    game.execute({"cmd": "long_rest"})
    game.execute({"cmd": "spend_luck", "player": "Ana", "use": "reroll"})
    assert game.state.pending is not None and game.state.pending.kind is PendingKind.ACTION
