"""The `tabletop mat` commands run in-process: decode, monitor --frames, sim command errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tabletop.cli import main
from tabletop.hardware.mat.cli import sim_command
from tabletop.hardware.mat.errors import MatError
from tabletop.hardware.mat.sim import SimulatedMat


def test_decode_prints_each_frame_and_the_damage(
    tmp_path: Path, vectors: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    frames = {m["name"]: bytes.fromhex(m["frame_hex"]) for m in vectors["messages"]}
    damaged = bytearray(frames["pong"])
    damaged[7] ^= 0x01
    capture = tmp_path / "capture.bin"
    capture.write_bytes(
        b"\x00junk"
        + frames["hello"]
        + bytes(damaged)
        + frames["snapshot_one_seat_two_slots_and_pad"]
    )
    assert main(["mat", "decode", str(capture)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "HELLO v1 boot=deadbeef 6x6+pad 'tabletop-mat 1.0.0'"
    assert lines[1].startswith("SNAPSHOT boot=deadbeef seq=7 reason=change zones=3 cards=[0:04a1")
    assert lines[2].startswith("2 frame(s) in ")
    assert "damaged: 1 CRC" in lines[2]


def test_decode_of_a_missing_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mat", "decode", str(tmp_path / "none.bin")]) == 2
    assert capsys.readouterr().err.strip().startswith("tabletop mat: cannot read")


def test_monitor_shows_frames_and_events_of_a_simulated_mat(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["mat", "monitor", "sim:?seats=1&slots=1", "--json", "--frames", "--count", "1"]
    assert main(args) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["event"] for r in records if "event" in r] == ["link_up"]
    frames = [r["frame"] for r in records if "frame" in r]
    assert frames[0].startswith("HELLO v1")
    # The mat's boot snapshot, or, where the host asked before it came (a loaded machine),
    # the snapshot it asked for: the link comes up on either.
    assert any(f.startswith("SNAPSHOT") and "reason=" in f for f in frames)


def test_monitor_with_a_broken_card_map_says_which_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "cards.json"
    bad.write_text("[]")
    assert main(["mat", "monitor", "sim:", "--cards", str(bad)]) == 2
    assert f"{bad}: not a card map" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("dance s1.1", "unknown command 'dance'"),
        ("place s1.1", "usage: place ZONE CARD"),
        ("place s1.1 QS sideways", "face must be up or down"),
        ("noise lots", "noise RATE must be a number"),
        ("noise 2", "between 0 and 1"),
        ("flip s1.2", "no card on s1.2 to flip"),
        ("remove s7.1", "no zone 's7.1' on this mat"),
        ("place pad #0102", "tag UID '0102' has 2 bytes"),
    ],
)
def test_sim_commands_refuse_bad_lines_with_a_reason(line: str, message: str) -> None:
    mat = SimulatedMat()  # not started: the table can be set without a pty
    with pytest.raises(MatError, match=message):
        sim_command(mat, line.split())


def test_the_sim_shows_its_lit_leds() -> None:
    mat = SimulatedMat()
    assert sim_command(mat, ["leds"]) == "ok leds all off"
    mat.leds.set(mat.layout.index("s2.1"), 0, 255, 16, 1)
    mat.leds.set(mat.layout.index("pad"), 255, 0, 0, 0)
    assert sim_command(mat, ["leds"]) == "ok leds s2.1=00ff10 blink, pad=ff0000"
