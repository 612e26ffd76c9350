"""The `tabletop` command itself: its version, which pyproject.toml and CHANGELOG.md agree on."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tabletop.cli import main

ROOT = Path(__file__).parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_version_prints_the_version_in_pyproject(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"tabletop {VERSION}"


def test_the_tabletop_command_prints_it_too() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tabletop", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"tabletop {VERSION}"


def test_the_changelog_has_a_dated_section_for_the_version_below_unreleased() -> None:
    """Keep a Changelog: `## [Unreleased]` first, then `## [X.Y.Z] - YYYY-MM-DD`, newest first."""
    headings = re.findall(
        r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", (ROOT / "CHANGELOG.md").read_text(), re.M
    )
    assert headings[0] == ("Unreleased", "")
    released = headings[1:]
    assert released, "no released version in CHANGELOG.md"
    assert released[0][0] == VERSION, (
        f"the newest section is {released[0][0]}, pyproject says {VERSION}"
    )
    assert all(date for _, date in released), "every released version has its date"
    as_numbers = [tuple(int(part) for part in name.split(".")) for name, _ in released]
    assert as_numbers == sorted(as_numbers, reverse=True), "versions newest first"
    assert [date for _, date in released] == sorted((date for _, date in released), reverse=True)


@pytest.mark.parametrize(
    "words",
    [["games"], ["replay", "examples/games/first-adventure.jsonl"], ["games", "--json"]],
)
def test_a_reader_that_stops_early_ends_the_output_without_a_traceback(words: list[str]) -> None:
    """`tabletop games | head -1`: the reader has gone when the output comes (issue 46). The
    pipe's reading end is closed before the command starts, so that every write fails, as the
    writes after `head`'s first line do."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tabletop", *words],
            cwd=ROOT,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == 141, done.stderr
