"""The long benchmarks show progress: plain lines on stderr when it is not a terminal.

Run as a person runs them into a log (stderr a pipe), with tiny counts; the figures on stdout
stay apart from the progress on stderr.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bench(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_the_rules_benchmark_prints_a_line_per_game_and_per_timed_run() -> None:
    done = bench("rules_engine.py", "--games", "3", "--commands", "20", "--repeat", "2")
    lines = done.stderr.splitlines()
    assert [re.sub(r" \(\d+ s\).*", "", line) for line in lines] == [
        "random legal games generated: 1/3",
        "random legal games generated: 2/3",
        "random legal games generated: 3/3",
        "timed replays: 1/2",
        "timed replays: 2/2",
    ]
    assert lines[0].endswith(" commands") and lines[-1].endswith(" commands/s")
    assert "\x1b" not in done.stderr  # no bar's escape codes in a log
    assert json.loads(done.stdout)["games"] == 3


def test_the_cocked_dice_benchmark_prints_a_line_per_die() -> None:
    done = bench("vision_cocked.py", "--dice", "2")
    lines = done.stderr.splitlines()
    assert [line.split(" (")[0] for line in lines] == ["cocked dice: 1/2", "cocked dice: 2/2"]
    assert lines[1].endswith("given a value so far")
    assert done.stdout.startswith("2 cocked dice: ")


def test_the_kinds_benchmark_says_where_the_camera_would_be_doubted() -> None:
    done = bench("vision_kinds.py", "--kinds", "tilted,top-down", "--pictures", "4", "--json")
    rows = {row["kind"]: row for row in map(json.loads, done.stdout.splitlines())}
    assert rows["top-down"]["camera_doubted"] == 0  # a camera straight above: never
    assert rows["tilted"]["camera_doubted"] >= 2  # most dice of a tilted picture look cocked
    assert [line.split(" (")[0] for line in done.stderr.splitlines()][-1] == (
        "tilted: pictures read: 4/4"
    )


def test_the_stages_benchmark_reads_the_same_pictures_with_each_stage_off() -> None:
    done = bench(
        "vision_stages.py", "--kinds", "top-down", "--pictures", "2",
        "--stages", "full,no-full-look", "--json",
    )  # fmt: skip
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [row["stage"] for row in rows] == ["full", "no-full-look"]
    assert rows[0]["dice"] == rows[1]["dice"] > 0
    assert rows[0]["turned_off"].startswith("nothing")
    progress = [line.split(" (")[0] for line in done.stderr.splitlines()]
    assert progress[-2:] == ["no-full-look: pictures read: 1/2", "no-full-look: pictures read: 2/2"]
    unknown = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "vision_stages.py"), "--kinds", "all",
         "--stages", "full,no-such-stage"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert unknown.returncode == 2 and "unknown stage no-such-stage" in unknown.stderr
