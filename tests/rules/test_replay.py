"""`tabletop replay`: golden files, the readable account, and rebuilding from the event log."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.cli import main
from tabletop.rules.games.replay import replay_lines

GOLDEN = Path(__file__).parent.parent / "golden"
CASES = sorted(p.stem for p in GOLDEN.glob("*.jsonl"))


@pytest.mark.parametrize("name", CASES)
def test_replay_matches_its_golden_state(name: str) -> None:
    """The golden .json beside each .jsonl is reviewed by hand; regenerate with
    `tabletop replay tests/golden/NAME.jsonl --json | python -m json.tool > tests/golden/NAME.json`
    only after checking the change is right."""
    lines = (GOLDEN / f"{name}.jsonl").read_text().splitlines()
    expected = json.loads((GOLDEN / f"{name}.json").read_text())
    assert replay_lines(lines).to_json() == expected


@pytest.mark.parametrize("name", CASES)
def test_the_event_log_rebuilds_the_same_game(name: str) -> None:
    replay = replay_lines((GOLDEN / f"{name}.jsonl").read_text().splitlines())
    rules = replay.rules  # the game the file plays (a golden file may be another game's)
    log = [json.dumps(rules.event_to_json(e)) for e in replay.game.events]
    rebuilt = rules.new_engine([rules.event_from_json(json.loads(line)) for line in log])
    assert rules.referee_view(rebuilt.state) == rules.referee_view(replay.game.state)


def test_the_example_game_is_golden() -> None:
    example = Path(__file__).parents[2] / "examples" / "games" / "first-adventure.jsonl"
    assert example.read_text() == (GOLDEN / "first-adventure.jsonl").read_text()


def test_refused_lines_are_reported_with_their_line_numbers() -> None:
    replay = replay_lines(['{"cmd":"roll","value":3}', "", "# comment", "{oops"])
    assert [r["line"] for r in replay.rejected] == [1, 4]
    assert replay.rejected[0]["error"] == "there is no game yet: the game master starts one first"
    assert replay.rejected[1]["error"].startswith("not valid JSON")


def test_replay_json_prints_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(GOLDEN / "refusals.jsonl"), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(printed) >= {
        "phase",
        "players",
        "deck_count",
        "discard",
        "turn_order",
        "pending",
        "rejected",
    }
    slot = printed["players"][0]["slots"][0]
    assert set(slot) == {"card", "state"} and slot["state"] in {"face_down", "face_up", "discarded"}


def test_replay_without_json_reads_like_a_game(capsys: pytest.CaptureFixture[str]) -> None:
    main(["replay", str(GOLDEN / "first-adventure.jsonl")])
    out = capsys.readouterr().out
    assert "Cy draws 8S face-up into slot 3" in out
    assert "line 26: challenge: REFUSED: Ana cannot attempt an Impossible" in out
    assert "Adventure 2, setup" in out


def test_a_missing_file_is_one_line_not_a_traceback() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tabletop", "replay", "no/such/file.jsonl"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == "tabletop replay: cannot read no/such/file.jsonl: No such file or directory"
    )
