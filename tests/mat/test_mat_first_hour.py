"""What a newcomer meets first in `tabletop mat sim` and `monitor` (issue 16, item 7).

Real processes on a real pty: the hint and `help` of the sim, removing from an empty zone, a
damaged frame reported in one line, and a second reader of one port refused.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabletop.hardware.mat import MatDriver, MatLayout
from tabletop.hardware.mat.cli import sim_command
from tabletop.hardware.mat.errors import MatError, PortBusyError
from tabletop.hardware.mat.framing import encode_frame
from tabletop.hardware.mat.protocol import MessageType
from tabletop.hardware.mat.sim import SimulatedMat
from tabletop.hardware.mat.transport import open_port

TABLETOP = [sys.executable, "-m", "tabletop"]


@pytest.fixture
def mat(tmp_path: Path) -> Iterator[SimulatedMat]:
    simulated = SimulatedMat(MatLayout(1, 2, True), link_dir=str(tmp_path), miss_rate=0.0)
    simulated.start()
    try:
        yield simulated
    finally:
        simulated.stop()


def monitor(path: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*TABLETOP, "mat", "monitor", path, *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_the_sim_gives_a_hint_and_a_readable_help(tmp_path: Path) -> None:
    with subprocess.Popen(
        [*TABLETOP, "mat", "sim", "--seats", "1", "--dir", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as sim:
        assert sim.stdin is not None and sim.stdout is not None and sim.stderr is not None
        path = sim.stdout.readline().strip()
        assert path == str(tmp_path / "ttyMAT0")
        hint = sim.stderr.readline()
        assert "type a command" in hint and "`help`" in hint and path in hint
        sim.stdin.write("help\n")
        sim.stdin.flush()
        lines = []
        while not (line := sim.stdout.readline()).startswith("ok"):
            assert line, "the sim ended before answering help"
            lines.append(line.rstrip("\n"))
        assert line == "ok help\n"
        commands = [line.split()[0] for line in lines if line.startswith("  ")]
        expected = ["place", "remove", "flip", "noise", "hang", "touch", "leds", "unplug", "replug"]
        assert commands == [*expected, "help", "quit"]
        # Each command line explains itself after the syntax.
        assert all(len(line.split("  ")) > 2 for line in lines if line.startswith("  "))
        sim.stdin.write("remove s1.1\n")
        sim.stdin.flush()
        assert sim.stdout.readline() == "error: no card on s1.1 to remove\n"
        sim.stdin.write("quit\n")
        sim.stdin.flush()
        assert sim.stdout.readline() == "ok quit\n"
        assert sim.wait(timeout=10) == 0


def test_removing_from_an_empty_zone_is_refused_and_changes_nothing() -> None:
    mat = SimulatedMat(MatLayout(1, 2, True))
    sim_command(mat, ["place", "s1.2", "QS"])
    before = (list(mat.table.cards), list(mat.history))
    with pytest.raises(MatError, match="no card on pad to remove"):
        sim_command(mat, ["remove", "pad"])
    assert (list(mat.table.cards), list(mat.history)) == before


def damaged_line(mat: SimulatedMat, frame: bytes, *extra: str) -> tuple[list[str], str]:
    """Runs a monitor, sends `frame` as if from the mat once it is up; its lines and stderr."""
    with monitor(mat.path, "--count", "2", "--seconds", "30", *extra) as watcher:
        assert watcher.stdout is not None
        first = watcher.stdout.readline()
        assert first.startswith("mat connected on"), first
        assert mat.link is not None
        os.write(mat.link.master, frame)  # on the line from the mat, between its frames
        out, err = watcher.communicate(timeout=40)
    assert watcher.returncode == 0, err
    return [first.rstrip("\n"), *out.splitlines()], err


def test_a_damaged_frame_is_one_line(mat: SimulatedMat, vectors: dict[str, Any]) -> None:
    pong = next(m for m in vectors["messages"] if m["name"] == "pong")
    damaged = bytearray.fromhex(pong["frame_hex"])
    damaged[7] ^= 0x01
    lines, err = damaged_line(mat, bytes(damaged))
    assert lines[1] == "resynchronising with the mat: 1 damaged frame (1 CRC error)"
    assert "damaged" not in err and "Traceback" not in err


def test_an_unreadable_frame_is_one_line(mat: SimulatedMat) -> None:
    lines, err = damaged_line(mat, encode_frame(MessageType.SNAPSHOT, b"\x01\x02"))
    assert lines[1] == "resynchronising with the mat: 1 damaged frame (1 unreadable)"
    assert err == ""


def test_a_second_monitor_on_a_port_is_refused(mat: SimulatedMat) -> None:
    with monitor(mat.path, "--seconds", "60") as first:
        assert first.stdout is not None
        assert first.stdout.readline().startswith("mat connected on")
        second = subprocess.run(
            [*TABLETOP, "mat", "monitor", mat.path, "--wait", "--seconds", "5"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        first.terminate()
        first.communicate(timeout=10)
    assert second.returncode == 2
    assert second.stdout == ""
    lines = second.stderr.splitlines()
    assert len(lines) == 1, second.stderr
    assert lines[0].startswith(f"tabletop mat: {mat.path} is already in use by another program")


def test_the_driver_refuses_a_port_another_reader_holds(mat: SimulatedMat) -> None:
    holder = open_port(mat.path)
    try:
        driver = MatDriver(mat.path)  # as the bridge opens it
        with pytest.raises(PortBusyError, match="only one may read the mat at a time"):
            driver.start()
        driver.close()
    finally:
        holder.close()
    with MatDriver(mat.path) as driver:  # free again: it opens
        assert driver.connected or driver.get_event(5) is not None
