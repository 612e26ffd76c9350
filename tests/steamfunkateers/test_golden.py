"""Golden replays and the referee: a recorded evening replays to its reviewed state, its event
log rebuilds it, and the daemon's referee plays the game and rebuilds it from its log.

The golden files live here, not in tests/golden: tests/rules/test_replay.py rebuilds every
file there with Six Shooter's events. Regenerate one, after checking the change is right, with
`tabletop replay tests/steamfunkateers/golden/NAME.jsonl --json | python -m json.tool > ....json`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabletop.daemon.referee import Referee
from tabletop.rules.games.replay import replay_lines
from tabletop.rules.games.steamfunkateers.game import STEAMFUNKATEERS
from tests.games.helpers import referee_at, reopened, send, through_json

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.stem for p in GOLDEN.glob("*.jsonl"))


@pytest.mark.parametrize("name", CASES)
def test_replay_matches_its_golden_state(name: str) -> None:
    lines = (GOLDEN / f"{name}.jsonl").read_text().splitlines()
    first = next(json.loads(line) for line in lines if line.startswith("{"))
    assert first["cmd"] == "new_game" and first["game"] == "steamfunkateers"
    expected = json.loads((GOLDEN / f"{name}.json").read_text())
    replay = replay_lines(lines)
    assert replay.rules is STEAMFUNKATEERS
    assert replay.to_json() == expected


@pytest.mark.parametrize("name", CASES)
def test_the_event_log_rebuilds_the_same_game(name: str) -> None:
    replay = replay_lines((GOLDEN / f"{name}.jsonl").read_text().splitlines())
    rebuilt = through_json(STEAMFUNKATEERS, replay.game.events)
    view = STEAMFUNKATEERS.referee_view
    assert view(rebuilt.state) == view(replay.game.state)
    assert rebuilt.state == replay.game.state


def test_the_evening_holds_a_reroll_a_contest_won_at_three_and_a_tie_die() -> None:
    state = json.loads((GOLDEN / "steamfunkateers-evening.json").read_text())
    ana, bo = state["players"]
    assert ana["contest_wins"] == 3 and state["contest"]["winner"] == "Ana"
    assert ana["conditions"] == [{"name": "bruised", "severity": 3}]
    assert state["order"]["order"] == ["Thug", "Bo", "Ana"]
    assert (ana["vigor"], bo["vigor"], state["gm_vigor"]) == (1, 0, 1)
    assert state["rejected"][0]["error"] == "values[0]: expected a die face 1 to 6, got 7"


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    with referee_at(tmp_path) as found:
        yield found


def test_the_referee_plays_steamfunkateers_and_rebuilds_it_from_its_log(
    referee: Referee,
) -> None:
    start = {"cmd": "new_game", "game": "steamfunkateers", "players": ["Ana", "Bo"]}
    assert send(referee, {**start, "options": {"starting_vigor": 1}})["game"] == "steamfunkateers"
    assert send(referee, {"cmd": "contest", "participants": ["Ana", "Bo"]})["ok"]
    exchange = {
        "cmd": "exchange",
        "pools": [{"player": "Ana", "rank": 2}, {"player": "Bo", "rank": 2}],
    }
    assert send(referee, exchange)["ok"]
    assert referee.prompt_json()["dice"] == {
        "who": "Ana",
        "count": 2,
        "scoring": "count_sixes",
        "rerollable": True,
        "rethrow": 2,  # a fresh throw: both dice thrown
    }
    assert send(referee, {"cmd": "roll", "values": [1, 2]})["ok"]
    # The Vigor reroll: "reroll all dice not showing sixes", both of them here.
    assert referee.prompt_json()["dice"]["rethrow"] == 2
    taken = send(referee, {"cmd": "reroll", "values": [1, 2, 3]})
    assert taken["kind"] == "illegal" and taken["rule"] == "reroll"
    assert send(referee, {"cmd": "reroll", "values": [6, 2]})["ok"]
    assert send(referee, {"cmd": "roll", "values": [1, 1]})["ok"]
    assert send(referee, {"cmd": "keep"})["ok"]
    bad = send(referee, {"cmd": "fly"})
    assert bad["kind"] == "invalid" and bad["field"] == "cmd"
    state = referee.state_json()
    assert state["contest"]["wins"] == {"Ana": 1, "Bo": 0} and state["gm_vigor"] == 1
    assert reopened(referee) == (STEAMFUNKATEERS, state)
