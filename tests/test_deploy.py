"""The Pi deployment files: unit files systemd accepts, command lines the program takes, the
udev rule for the mat's stable name."""

from __future__ import annotations

import configparser
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.cli import build_parser

DEPLOY = Path(__file__).parents[1] / "deploy"
UNITS = sorted(DEPLOY.glob("*.service"))


def environment_file() -> dict[str, str]:
    """The settings deploy/tabletop.env gives (what install.sh puts in /etc/tabletop)."""
    settings: dict[str, str] = {}
    for line in (DEPLOY / "tabletop.env").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            settings[key.strip()] = value.strip()
    return settings


def exec_start(unit: Path) -> list[str]:
    """The unit's command line, its ${VARIABLES} filled in from the environment file."""
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(unit)
    line = parser["Service"]["ExecStart"]
    settings = environment_file()
    for name in re.findall(r"\$\{(\w+)\}", line):
        assert name in settings, f"{unit.name}: ${{{name}}} is not set in deploy/tabletop.env"
        line = line.replace(f"${{{name}}}", settings[name])
    return shlex.split(line)


def test_there_are_units_for_the_rules_daemon_the_bridge_and_the_console() -> None:
    assert [unit.name for unit in UNITS] == [
        "tabletop-bridge.service",
        "tabletop-console.service",
        "tabletop-rules.service",
    ]


@pytest.mark.parametrize("unit", UNITS, ids=lambda unit: unit.name)
def test_each_unit_runs_a_command_line_tabletop_accepts(unit: Path) -> None:
    argv = exec_start(unit)
    assert argv[0] == "/opt/tabletop/.venv/bin/tabletop"
    args = build_parser().parse_args(argv[1:])
    assert args.command == unit.stem.removeprefix("tabletop-")
    assert args.config == "/etc/tabletop/table.toml"


@pytest.mark.parametrize("unit", UNITS, ids=lambda unit: unit.name)
def test_systemd_accepts_each_unit(unit: Path, tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed on this machine")
    # Point ExecStart at this checkout's program, which is what verify checks exists.
    program = Path(sys.executable).parent / "tabletop"
    text = unit.read_text().replace("/opt/tabletop/.venv/bin/tabletop", str(program))
    copy = tmp_path / unit.name
    copy.write_text(text)
    result = subprocess.run(
        [analyze, "verify", str(copy)], capture_output=True, text=True, check=False
    )
    problems = [line for line in result.stderr.splitlines() if unit.name in line]
    assert problems == [], "\n".join(problems)


def test_the_udev_rule_names_the_mat_by_its_usb_ids() -> None:
    rule = (DEPLOY / "99-tabletop-mat.rules").read_text()
    lines = [line for line in rule.splitlines() if line and not line.startswith("#")]
    assert len(lines) == 1
    keys = {
        key: value
        for key, _, value in re.findall(r'([A-Z]+(?:\{\w+\})?)(==|\+=|=)"([^"]*)"', lines[0])
    }
    assert keys["ATTRS{idVendor}"] == "2e8a" and keys["ATTRS{idProduct}"] == "0005"
    assert keys["SYMLINK"] == "tabletop-mat" and keys["SUBSYSTEM"] == "tty"
