"""Properties over random games: Vigor never negative, one reroll per roll, contests end at
exactly three victories, and the event log (through its JSON) rebuilds the state."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.rules.games.errors import RulesError
from tabletop.rules.games.steamfunkateers.engine import Game
from tabletop.rules.games.steamfunkateers.events import DiceRerolled, RoundCalled
from tabletop.rules.games.steamfunkateers.game import STEAMFUNKATEERS
from tabletop.rules.games.steamfunkateers.model import CONTEST_WINS


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), moves=st.integers(20, 250))
def test_random_games_keep_the_rules(seed: int, moves: int) -> None:
    rng = random.Random(seed)
    game = Game()
    for _ in range(moves):
        command = STEAMFUNKATEERS.random_command(game.state, rng)
        if command is None:
            break
        before = game.state
        try:
            game.execute(command)
        except RulesError:
            assert game.state is before, "a refused command changes nothing"
        assert all(points >= 0 for points in game.state.vigor.values())
        contest = game.state.contest
        if contest is not None:
            assert max(contest.wins.values(), default=0) <= CONTEST_WINS
            if contest.winner is not None:
                assert contest.wins[contest.winner] == CONTEST_WINS
            else:
                assert all(w < CONTEST_WINS for w in contest.wins.values())

    rerolled: set[str] = set()
    for event in game.events:
        if isinstance(event, RoundCalled):
            rerolled = set()
        elif isinstance(event, DiceRerolled):
            assert event.who not in rerolled, "one reroll per roll"
            rerolled.add(event.who)

    log = [json.dumps(STEAMFUNKATEERS.event_to_json(e)) for e in game.events]
    rebuilt = STEAMFUNKATEERS.new_engine(
        [STEAMFUNKATEERS.event_from_json(json.loads(line)) for line in log]
    )
    assert rebuilt.state == game.state
