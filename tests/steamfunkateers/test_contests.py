"""Opposed rolls by sixes, the player who beats the GM, and contests to THREE victories."""

from __future__ import annotations

import pytest

from tabletop.rules.games.steamfunkateers.engine import Game
from tabletop.rules.games.steamfunkateers.model import ContestRuleError
from tests.steamfunkateers.helpers import check, new_game, pool, roll


def exchange(game: Game, ana: tuple[int, ...], bo: tuple[int, ...]) -> None:
    game.execute({"cmd": "exchange", "pools": [pool("Ana", len(ana)), pool("Bo", len(bo))]})
    roll(game, *ana)
    roll(game, *bo)


def test_in_an_opposed_roll_the_most_sixes_win_and_a_tie_wins_nothing() -> None:
    game = new_game(vigor=0)
    check(game, pool("Ana", 3), pool("Bo", 3))
    roll(game, 6, 6, 1)
    roll(game, 6, 2, 2)
    assert game.state.last_result is not None and game.state.last_result.winners == ("Ana",)
    check(game, pool("Ana", 2), pool("Bo", 2))
    roll(game, 6, 1)
    roll(game, 6, 1)
    assert game.state.last_result is not None and game.state.last_result.winners == ()


def test_each_player_who_beats_the_gms_sixes_wins() -> None:
    game = new_game(vigor=0)
    check(game, pool("Ana", 3), pool("Bo", 3), {"npc": "Stagecoach"})
    roll(game, 6, 6, 1)
    roll(game, 6, 1, 1)
    roll(game, 6, 1, 1, 1, 1, 1)
    result = game.state.last_result
    assert result is not None and result.winners == ("Ana",), "Bo only equals the GM"


def test_the_first_to_three_victories_wins_the_contest_and_it_ends_there() -> None:
    game = new_game(vigor=0)
    game.execute({"cmd": "contest", "participants": ["Ana", "Bo"], "goal": "the race"})
    exchange(game, (6, 1), (1, 1))
    exchange(game, (6, 6), (6, 1))
    exchange(game, (6, 1), (6, 1))  # a tie: no victory
    exchange(game, (1, 1), (6, 1))
    contest = game.state.contest
    assert contest is not None and dict(contest.wins) == {"Ana": 2, "Bo": 1}
    assert not contest.over
    exchange(game, (6, 1), (1, 1))
    contest = game.state.contest
    assert contest is not None and contest.over and contest.winner == "Ana"
    assert dict(contest.wins) == {"Ana": 3, "Bo": 1}
    with pytest.raises(ContestRuleError, match="no contest in play"):
        exchange(game, (6, 1), (1, 1))


def test_every_participant_makes_one_check_in_an_exchange() -> None:
    game = new_game()
    game.execute({"cmd": "contest", "participants": ["Ana", "Thug"]})
    with pytest.raises(ContestRuleError, match="pools for Ana, Thug"):
        game.execute({"cmd": "exchange", "pools": [pool("Ana", 3)]})
    game.execute({"cmd": "exchange", "pools": [pool("Ana", 2), {"npc": "Thug", "base": 2}]})
    roll(game, 1, 1)
    game.execute({"cmd": "keep"})
    roll(game, 6, 1)
    assert game.state.contest is not None and game.state.contest.wins["Thug"] == 1


def test_a_contest_called_off_ends_unresolved() -> None:
    game = new_game()
    game.execute({"cmd": "contest", "participants": ["Ana", "Bo"]})
    game.execute({"cmd": "end_contest"})
    assert game.state.contest is not None and game.state.contest.winner is None
    assert game.state.contest.over
