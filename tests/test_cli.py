"""The `tabletop` command itself: its version."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tabletop.cli import main


def test_version_prints_the_installed_projects_version(capsys: pytest.CaptureFixture[str]) -> None:
    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"tabletop {project['version']}"
