"""Golden replay and the referee: a recorded showdown replays to its reviewed state, its event
log rebuilds it, and the daemon's referee plays the game and rebuilds it from its log.

Regenerate the golden state, after checking the change is right, with
`tabletop replay tests/showdown/golden/NAME.jsonl --json > tests/showdown/golden/NAME.json`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabletop.daemon.referee import Referee
from tabletop.rules import games
from tabletop.rules.games.replay import replay_lines
from tabletop.rules.games.showdown.game import SHOWDOWN
from tests.games.helpers import referee_at, reopened, send, through_json

from .helpers import BLANKS, new_game

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.stem for p in GOLDEN.glob("*.jsonl"))


@pytest.mark.parametrize("name", CASES)
def test_replay_matches_its_golden_state(name: str) -> None:
    lines = (GOLDEN / f"{name}.jsonl").read_text().splitlines()
    expected = json.loads((GOLDEN / f"{name}.json").read_text())
    replay = replay_lines(lines)
    assert replay.rules is SHOWDOWN
    assert replay.to_json() == expected


@pytest.mark.parametrize("name", CASES)
def test_the_event_log_rebuilds_the_same_game(name: str) -> None:
    replay = replay_lines((GOLDEN / f"{name}.jsonl").read_text().splitlines())
    rebuilt = through_json(SHOWDOWN, replay.game.events)
    assert rebuilt.state == replay.game.state


def test_the_evening_has_a_shot_back_a_re_roll_a_tie_break_and_a_reach() -> None:
    state = json.loads((GOLDEN / "showdown-evening.json").read_text())
    ana, bo = state["players"]
    assert (ana["points"], bo["points"]) == (2, 3) and state["winner"] == "Bo"
    assert state["round"] == 4  # 2-2 after three rounds: "play an additional round"
    assert state["rejected"][0]["line"] == 6
    assert "draw-1" in ana["spent"] and "reach-1" in bo["spent"]  # full decks spend reveals


def test_showdown_is_registered() -> None:
    assert games.get("showdown") is SHOWDOWN and "showdown" in games.names()
    names = [o.name for o in SHOWDOWN.info.options]
    assert names == [
        "hit_face",
        "tie_window_ms",
        "race_settle_ms",
        "single_shot_discard",
        "reach_scores",
        "bonus_after_reach",
    ]


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    with referee_at(tmp_path) as found:
        yield found


def test_the_referee_plays_a_showdown_hides_the_bullets_and_rebuilds_it_from_its_log(
    referee: Referee,
) -> None:
    assert send(referee, {**new_game(), "game": "showdown"})["game"] == "showdown"
    for player in ("Ana", "Bo"):
        assert send(referee, {"cmd": "load", "player": player, "bullets": BLANKS})["ok"]
    public = referee.public_state_json()
    assert all("card" not in b for p in public["players"] for b in p["bullets"])
    mine = referee.seat_state_json("Ana")
    assert mine["players"][0]["bullets"][0]["card"] == "cowboy/blank-1"
    assert "card" not in mine["players"][1]["bullets"][0]
    refused = send(referee, {"cmd": "roll", "value": 6})
    assert refused["kind"] == "illegal" and refused["rule"] == "shoot"
    assert send(referee, {"cmd": "reveal", "player": "Bo", "slot": 2})["ok"]
    assert referee.prompt_json()["prompt"].startswith("Ana: touch one of your face-down bullets")
    state = referee.state_json()
    assert reopened(referee) == (SHOWDOWN, state)
