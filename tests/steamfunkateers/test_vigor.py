"""Spending Vigor: folds, the GM's fold, narration bids, the GM's costs, awards; conditions."""

from __future__ import annotations

import pytest

from tabletop.rules.games.errors import InvalidCommand
from tabletop.rules.games.steamfunkateers.engine import Game
from tabletop.rules.games.steamfunkateers.model import NarrationError, VigorError
from tests.steamfunkateers.helpers import check, new_game, pool, roll, vigor


def test_a_fold_costs_one_vigor_and_removes_the_player_from_the_roll() -> None:
    game = new_game(vigor=1)
    check(game, pool("Ana", 2), {"npc": "Thug"})
    game.execute({"cmd": "fold", "player": "Ana"})
    assert vigor(game, "Ana") == 0
    assert game.state.round is None, "all player characters folded: the action is unresolved"
    assert game.state.last_result is not None and game.state.last_result.sixes == ()


def test_a_fold_without_vigor_or_outside_an_action_is_refused() -> None:
    game = new_game(vigor=0)
    check(game, pool("Ana", 2))
    with pytest.raises(VigorError, match="a fold costs 1"):
        game.execute({"cmd": "fold", "player": "Ana"})
    with pytest.raises(VigorError, match="no action in play"):
        new_game(vigor=1).execute({"cmd": "fold", "player": "Ana"})


def test_when_all_players_in_a_contest_fold_it_remains_unresolved() -> None:
    game = new_game(vigor=1)
    game.execute({"cmd": "contest", "participants": ["Ana", "Thug"]})
    game.execute({"cmd": "fold", "player": "Ana"})
    assert game.state.contest is not None and game.state.contest.over
    assert game.state.contest.winner is None


def test_the_gm_folds_by_giving_each_present_player_one_vigor() -> None:
    game = new_game(vigor=0, players=("Ana", "Bo", "Cy"))
    game.execute({"cmd": "contest", "participants": ["Ana", "Bo"]})
    game.execute({"cmd": "gm_fold"})
    assert [vigor(game, p) for p in ("Ana", "Bo", "Cy")] == [1, 1, 0]
    assert game.state.contest is not None and game.state.contest.over


def test_the_highest_bid_narrates_and_only_the_narrator_spends() -> None:
    game = new_game(vigor=3)
    game.execute({"cmd": "narrate", "bids": {"Ana": 1, "Bo": 2}})
    assert game.state.narrator == "Bo" and vigor(game, "Bo") == 1 and vigor(game, "Ana") == 3
    with pytest.raises(NarrationError, match="Ana and Bo tie at 1"):
        game.execute({"cmd": "narrate", "bids": {"Ana": 1, "Bo": 1}})


@pytest.mark.parametrize(
    ("on", "points", "left"),
    [
        ("take_the_initiative", None, 2),
        ("lost_possession", None, 0),
        ("innocent_in_danger", None, 1),
        ("reinforcements", 3, 0),
        ("hazard", 2, 1),
    ],
)
def test_the_gms_costs(on: str, points: int | None, left: int) -> None:
    game = new_game(gm_vigor=3)
    command = {"cmd": "gm_buy", "on": on, **({"points": points} if points else {})}
    game.execute(command)
    assert vigor(game, "GM") == left


def test_the_gm_cannot_overspend_or_price_outside_the_range() -> None:
    game = new_game(gm_vigor=2)
    with pytest.raises(VigorError, match="GM has 2 Vigor, lost possession costs 3"):
        game.execute({"cmd": "gm_buy", "on": "lost_possession"})
    with pytest.raises(InvalidCommand, match="points: expected 2 to 2, got 1"):
        game.execute({"cmd": "gm_buy", "on": "innocent_in_danger", "points": 1})


def test_a_loser_suffers_a_condition_as_severe_as_one_die_of_the_winner() -> None:
    game = new_game()
    game.execute({"cmd": "condition", "target": "Ana", "by": "Bo", "name": "bruised"})
    assert game.state.condition is not None and game.state.condition.thrower == "Bo"
    roll(game, 4)
    assert game.state.conditions["Ana"] == (("bruised", 4),)


def test_a_condition_from_an_npc_is_thrown_by_the_gm() -> None:
    game = new_game()
    game.execute({"cmd": "condition", "target": "Bo", "by": "Thug"})
    assert game.state.condition is not None and game.state.condition.thrower == "GM"


def test_the_gm_awards_vigor_and_new_game_gives_the_starting_vigor() -> None:
    game = new_game(vigor=2, gm_vigor=1)
    assert vigor(game, "Ana") == 2 and vigor(game, "GM") == 1
    game.execute({"cmd": "award", "player": "Ana", "points": 2})
    assert vigor(game, "Ana") == 4
    with pytest.raises(InvalidCommand, match="options.starting: Steamfunkateers has no such"):
        Game().execute({"cmd": "new_game", "players": ["A"], "options": {"starting": 1}})


def conflict(game: Game) -> None:
    """A physical conflict of Ana, Bo and a Thug, in that turn order (Spot 3, 2, 1)."""
    entrants = [
        {"who": "Ana", "ranks": [3, 1, 1]},
        {"who": "Bo", "ranks": [2, 1, 1]},
        {"who": "Thug", "ranks": [1, 1, 1]},
    ]
    game.execute({"cmd": "turn_order", "kind": "physical", "entrants": entrants})


def fold_ana_in_a_conflict() -> Game:
    game = new_game(vigor=1)
    conflict(game)
    check(game, pool("Ana", 2), {"npc": "Thug"})
    game.execute({"cmd": "fold", "player": "Ana"})
    roll(game, 6, 1, 2, 3, 4, 5)  # the Thug's pool; the GM has no Vigor, so it stands
    return game


def test_a_player_who_folded_gets_no_vigor_from_the_gm_after_the_conflict() -> None:
    """ "Characters who fold receive no Vigor from the GM after a given conflict.\""""
    game = fold_ana_in_a_conflict()
    with pytest.raises(VigorError, match="receive no Vigor from the GM"):
        game.execute({"cmd": "award", "player": "Ana"})  # while the conflict goes on
    game.execute({"cmd": "end_conflict"})
    with pytest.raises(VigorError, match="Ana folded out of the last action"):
        game.execute({"cmd": "award", "player": "Ana"})
    game.execute({"cmd": "award", "player": "Bo"})  # who did not fold is rewarded
    assert vigor(game, "Ana") == 0 and vigor(game, "Bo") == 2
    check(game, pool("Ana", 1))  # the next action: Ana is in it and may be rewarded for it
    roll(game, 6)
    game.execute({"cmd": "award", "player": "Ana"})
    assert vigor(game, "Ana") == 1


def test_a_fold_takes_the_player_out_of_the_conflicts_turns_and_rolls() -> None:
    """A fold removes the character "from the risks and the rewards of a given action": her
    turns are skipped, and no new roll or condition of that conflict takes her in."""
    game = fold_ana_in_a_conflict()
    with pytest.raises(VigorError, match="Ana folded out of the action in play"):
        check(game, pool("Ana", 2), {"npc": "Thug"})
    with pytest.raises(VigorError, match="Ana folded out of the action in play"):
        game.execute({"cmd": "condition", "target": "Ana", "by": "Thug"})
    order = game.state.order
    assert order is not None and order.current == "Ana"  # her turn, when she folded
    turns = []
    for _ in range(4):
        game.execute({"cmd": "end_turn"})
        assert game.state.order is not None
        turns.append(game.state.order.current)
    assert turns == ["Bo", "Thug", "Bo", "Thug"]
    assert game.state.order.exchange == 2
    game.execute({"cmd": "end_conflict"})
    conflict(game)  # a new conflict: she is in it again
    check(game, pool("Ana", 1))


# -- a fold after the player's own failed throw (issue 48: read differently by careful readers) --


def _ana_failed_her_throw(**options: object) -> Game:
    game = Game()
    game.execute(
        {
            "cmd": "new_game",
            "players": ["Ana", "Bo"],
            "options": {"starting_vigor": 2, **options},
        }
    )
    check(game, pool("Ana", 2), {"npc": "Thug"})
    roll(game, 1, 3)  # no six: Ana's throw failed; she may still reroll or keep
    assert game.state.round is not None and game.state.round.current is not None
    assert game.state.round.current.who == "Ana"
    return game


def test_by_default_a_player_cannot_fold_after_her_own_throw_failed() -> None:
    # "Fold—The player may spend one point of Vigor to Fold, thereby removing his or her
    # character from the risks and the rewards of a given action": once her own dice have
    # failed the risk has come; a fold is a step back from it, not out of its result.
    game = _ana_failed_her_throw()
    assert game.state.options["fold_after_failed_throw"] is False
    with pytest.raises(VigorError, match="Ana's throw failed: too late to fold") as refused:
        game.execute({"cmd": "fold", "player": "Ana"})
    assert "reroll" in str(refused.value)
    assert vigor(game, "Ana") == 2
    # Another player still folds before his own throw; and Ana before hers.
    game = Game()
    game.execute({"cmd": "new_game", "players": ["Ana", "Bo"], "options": {"starting_vigor": 1}})
    check(game, pool("Ana", 2), pool("Bo", 2))
    roll(game, 1, 3)
    game.execute({"cmd": "keep"})
    game.execute({"cmd": "fold", "player": "Bo"})
    assert vigor(game, "Bo") == 0 and "Bo" in game.state.unrewarded


def test_a_table_may_let_a_player_fold_after_her_own_failed_throw() -> None:
    # The other reading: a fold may come at any time before the dice are kept, as a way out
    # of a failure's consequences ("removing ... from the risks and the rewards").
    game = _ana_failed_her_throw(fold_after_failed_throw=True)
    game.execute({"cmd": "fold", "player": "Ana"})
    assert vigor(game, "Ana") == 1 and "Ana" in game.state.unrewarded
