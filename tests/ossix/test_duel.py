"""The quick-draw duel of "Additional Rules" on OS-SIX's action rolls."""

from __future__ import annotations

import pytest

from tabletop.rules.games.errors import IllegalMove
from tabletop.rules.games.ossix.duel import DuelStep, resolved
from tabletop.rules.games.ossix.engine import Game


def dueling(two_pistols: bool = False) -> Game:
    game = Game()
    game.execute({"cmd": "new_game", "players": ["Ana", "Bo"]})
    game.execute(
        {"cmd": "duel", "player": "Ana", "opponent": "Black Bart", "two_pistols": two_pistols}
    )
    return game


def step(game: Game, name: str, *values: int, attribute: str = "agility", score: int = 2) -> int:
    """Calls the duel step with a pool of `score`, returns the dice it waits for, throws."""
    game.execute(
        {
            "cmd": "action",
            "player": "Ana",
            "attribute": attribute,
            "score": score,
            "duel_step": name,
        }
    )
    pending = game.state.pending
    assert pending is not None
    dice = pending.dice
    if values:
        game.execute({"cmd": "roll", "values": list(values)})
    return dice


def allowed(game: Game) -> list[str]:
    """The steps the duel allows next, once the last one's final result is taken."""
    duel = game.state.duel
    assert duel is not None
    if duel.called is not None and duel.result is not None:
        duel = resolved(duel, duel.result)
    return [s.value for s in duel.allowed]


def test_a_complete_success_in_the_standoff_is_a_bonus_on_the_draw() -> None:
    game = dueling()
    assert step(game, "standoff", 6, 2, attribute="will") == 2
    assert step(game, "draw", 1, 2, 5) == 3  # Agility 2 + the standoff's Bonus


def test_a_failed_standoff_is_a_penalty_on_the_draw_and_a_partial_nothing() -> None:
    game = dueling()
    step(game, "standoff", 2, 3, attribute="will")
    assert step(game, "draw", 4) == 1
    game = dueling()
    step(game, "standoff", 5, 3, attribute="will")
    assert step(game, "draw", 4, 4) == 2


def test_the_standoff_is_optional_but_comes_before_the_draw() -> None:
    game = dueling()
    assert step(game, "draw", 4, 5) == 2
    with pytest.raises(IllegalMove, match="next roll is the defense, not the standoff") as error:
        step(game, "standoff", attribute="will")
    assert error.value.rule == "quick-draw duels"


def test_a_complete_draw_is_a_bonus_on_defense_and_two_pistols_a_second_shot_at_a_penalty() -> None:
    game = dueling(two_pistols=True)
    step(game, "draw", 6, 1)
    assert allowed(game) == ["second_shot", "defense"]
    assert step(game, "second_shot", 3) == 1  # Agility 2 with a Penalty
    assert step(game, "defense", 4, 4, 4, score=2) == 3  # the draw's Bonus


def test_one_pistol_goes_straight_to_the_defense_roll() -> None:
    game = dueling()
    step(game, "draw", 6, 1)
    with pytest.raises(IllegalMove, match="not the second shot"):
        step(game, "second_shot")


def test_a_partial_draw_gives_no_second_shot_even_with_two_pistols() -> None:
    game = dueling(two_pistols=True)
    step(game, "draw", 5, 1)
    assert allowed(game) == ["defense"]
    assert step(game, "defense", 4, 4) == 2


def test_a_failed_draw_is_a_penalty_on_defense_then_the_next_round_has_guns_drawn() -> None:
    game = dueling()
    step(game, "draw", 2, 1)
    assert step(game, "defense", 5) == 1
    assert allowed(game) == ["attack"]
    assert step(game, "attack", 6, 2) == 2  # no draw modifiers any more
    assert allowed(game) == ["defense"]
    duel = game.state.duel
    assert duel is not None and duel.round == 2


def test_a_luck_point_on_the_draw_changes_what_it_carries() -> None:
    game = dueling(two_pistols=True)
    step(game, "draw", 5, 3)
    game.execute({"cmd": "spend_luck", "player": "Ana", "use": "upgrade"})
    assert allowed(game) == ["second_shot", "defense"]
    step(game, "second_shot", 2)
    assert step(game, "defense") == 3  # Bonus from the (upgraded) complete draw


def test_a_morale_check_fits_between_steps_and_the_gm_ends_the_duel() -> None:
    game = dueling()
    step(game, "draw", 6, 3)
    game.execute({"cmd": "gm_roll", "kind": "morale", "morale": 6})
    events = game.execute({"cmd": "roll", "values": [5, 6]})
    assert events[0].target is not None and events[0].target.startswith("demoralized")
    game.execute({"cmd": "duel_end", "outcome": "Black Bart throws down his gun"})
    assert game.state.duel is None
    with pytest.raises(IllegalMove, match="no duel"):
        game.execute({"cmd": "duel_end"})
    with pytest.raises(IllegalMove, match="in no duel"):
        step(game, "draw")


def test_one_duel_at_a_time() -> None:
    game = dueling()
    with pytest.raises(IllegalMove, match="already in a duel"):
        game.execute({"cmd": "duel", "player": "Bo", "opponent": "Kid"})


def test_the_duel_steps_are_the_closed_list_the_scene_names() -> None:
    assert [s.value for s in DuelStep] == ["standoff", "draw", "second_shot", "defense", "attack"]


def side_roll(game: Game, *values: int) -> None:
    """An action roll of Ana's outside the duel (the engine allows them meanwhile)."""
    game.execute({"cmd": "action", "player": "Ana", "attribute": "mind", "score": len(values)})
    game.execute({"cmd": "roll", "values": list(values)})


def test_a_failed_draw_stays_failed_when_a_side_roll_of_six_comes_between() -> None:
    """The draw: "On a failure, they draw too slow and miss. They gain a penalty on their Defense roll
    against the opponent's first shot." The draw's result is the draw's own roll (issue 31)."""
    game = dueling()
    step(game, "draw", 2, 3)
    side_roll(game, 6)
    assert step(game, "defense") == 1  # Agility 2 with the draw's Penalty


def test_a_failed_standoff_stays_failed_when_a_side_roll_of_six_comes_between() -> None:
    """The standoff: "However, on a failure, they gain a penalty on their first attack roll." """
    game = dueling()
    step(game, "standoff", 2, 3, attribute="will")
    side_roll(game, 6, 4)  # one six: no critical success, so no Bonus of its own
    assert step(game, "draw", 4) == 1  # Agility 2 with the standoff's Penalty, not 3 dice


def test_a_luck_point_spent_on_the_side_roll_does_not_upgrade_the_draw() -> None:
    """Luck Points: "Turn one partial success into a complete success": the roll upgraded is
    the side roll, not the draw."""
    game = dueling()
    step(game, "draw", 4, 5)  # partial: no modifier on the Defense roll
    side_roll(game, 5)
    game.execute({"cmd": "spend_luck", "player": "Ana", "use": "upgrade"})
    assert step(game, "defense") == 2  # no Bonus: the draw itself stayed partial


def test_a_luck_point_spent_on_the_draw_itself_still_counts() -> None:
    """Luck Points: "Turn one partial success into a complete success": on the draw, it earns
    the draw's
    "bonus on their next defense roll"."""
    game = dueling()
    step(game, "draw", 4, 5)
    game.execute({"cmd": "spend_luck", "player": "Ana", "use": "upgrade"})
    assert step(game, "defense") == 3
