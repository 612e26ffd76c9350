"""What a Pi installs: the pins of deploy/pi-constraints.txt fit pyproject.toml, and nothing a
single table does not use (PostgreSQL's driver) is among the required dependencies."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tabletop.daemon.store import LogDatabase, StoreError

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
# What pip sees on the Pi: 64-bit Raspberry Pi OS Bookworm's Python.
PI = {"platform_machine": "aarch64", "python_version": "3.11", "sys_platform": "linux"}


def pins() -> dict[str, str]:
    found: dict[str, str] = {}
    for text in (ROOT / "deploy" / "pi-constraints.txt").read_text().splitlines():
        line = text.partition("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"deploy/pi-constraints.txt: {line!r} is not NAME==VERSION"
            found[name.strip()] = version.strip()
    return found


def test_the_pi_pins_numpy_below_2_and_an_opencv_that_takes_it() -> None:
    pinned = pins()
    assert pinned["numpy"].startswith("1."), "the OS's picamera2 is built against numpy 1.24"
    assert set(pinned) == {"numpy", "opencv-python-headless"}


def test_each_pin_satisfies_the_projects_dependency() -> None:
    requirements = {
        requirement.name: requirement
        for requirement in map(Requirement, PROJECT["dependencies"])
        if requirement.marker is None or requirement.marker.evaluate(PI)
    }
    for name, version in pins().items():
        assert name in requirements, f"{name} is pinned for the Pi but not a dependency"
        assert requirements[name].specifier.contains(version), (
            f"deploy/pi-constraints.txt pins {name}=={version}, which pyproject.toml's "
            f"{requirements[name]} refuses"
        )


def test_postgresqls_driver_is_the_venue_extra_and_in_dev() -> None:
    required = {Requirement(text).name for text in PROJECT["dependencies"]}
    assert not {"psycopg", "psycopg-binary"} & required
    extras = PROJECT["optional-dependencies"]
    assert [Requirement(text).name for text in extras["venue"]] == ["psycopg"]
    assert f"{PROJECT['name']}[venue]" in extras["dev"]


def test_a_postgresql_log_without_the_driver_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # `import psycopg` raises ImportError
    database = LogDatabase("postgresql://localhost/tabletop")
    with pytest.raises(StoreError) as raised:
        database.open()
    message = str(raised.value)
    assert "\n" not in message
    assert "`venue` extra" in message and "pip install '.[venue]'" in message
