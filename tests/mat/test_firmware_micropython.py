"""Runs the firmware logic tests (tests/mat/fw/test_fw_*.py) under the real MicroPython 1.27.

The WebAssembly build from npm (@micropython/micropython-webassembly-pyscript, installed by
scripts/test.sh into tests/mat/micropython/node_modules) runs them in Node.js. Each MicroPython
test is one pytest test here, so they count in the suite like the CPython runs of the same files.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "tests" / "mat" / "micropython" / "run.mjs"
PACKAGE = RUNNER.parent / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
FW_TESTS = ROOT / "tests" / "mat" / "fw"


def _expected_tests() -> list[str]:
    names = []
    for path in sorted(FW_TESTS.glob("test_fw_*.py")):
        for name in re.findall(r"^def (test_\w+)\(", path.read_text(), flags=re.MULTILINE):
            names.append(f"{path.stem}.{name}")
    return names


@pytest.fixture(scope="module")
def micropython_results() -> dict[str, dict[str, Any]]:
    node = shutil.which("node")
    assert node is not None, "node is not on PATH; scripts/test.sh needs Node.js 20 or newer"
    assert PACKAGE.is_dir(), (
        f"{PACKAGE} is missing; scripts/test.sh installs it (npm ci in {RUNNER.parent})"
    )
    done = subprocess.run(
        [node, str(RUNNER), str(ROOT)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, f"MicroPython runner failed:\n{done.stdout}\n{done.stderr}"
    results: dict[str, dict[str, Any]] = {}
    finished = None
    for line in done.stdout.splitlines():
        record = json.loads(line)
        if record.get("done"):
            finished = record
        else:
            results[f"{record['module']}.{record['test']}"] = record
    assert finished is not None, f"the runner stopped early:\n{done.stdout}\n{done.stderr}"
    assert finished["implementation"] == "micropython"
    assert finished["version"][:2] == [1, 27]
    return results


@pytest.mark.parametrize("name", _expected_tests())
def test_under_micropython(name: str, micropython_results: dict[str, dict[str, Any]]) -> None:
    record = micropython_results.get(name)
    assert record is not None, f"{name} did not run under MicroPython"
    assert record["ok"], record.get("error")


def test_every_firmware_module_imports_under_micropython(
    micropython_results: dict[str, dict[str, Any]],
) -> None:
    assert not [n for n in micropython_results if n.endswith("<import>")]
    assert len(micropython_results) == len(_expected_tests())
