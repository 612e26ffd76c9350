"""The drawings in docs/images/circuit/: each still shows its board as the circuit has it."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from hardware.circuit.drawings import BOARDS, board_parts
from hardware.circuit.mat import MatCircuit
from hardware.circuit.perfboard import perfboard_svg, seat_board_layout, wiring_list

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images" / "circuit"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("drawing", list(BOARDS))
def test_each_schematic_shows_every_part_of_its_board(mat: MatCircuit, drawing: str) -> None:
    path = IMAGES / f"{drawing}.svg"
    assert path.exists(), f"{path} is missing: python -m hardware.circuit drawings --out {IMAGES}"
    root = ET.parse(path).getroot()
    texts = {t.text.strip() for t in root.iter(f"{SVG}text") if t.text}
    missing = [p.ref for p in board_parts(mat.circuit, drawing) if p.ref not in texts]
    assert not missing, f"{path.name} lacks {missing}: render it again (docs/circuit.md)"


def test_the_perfboard_layout_places_every_part_of_the_seat_board_once(mat: MatCircuit) -> None:
    placed = seat_board_layout(mat)
    board = [p.ref for p in mat.circuit.parts if p.fields.get("board") == "seat 1"]
    assert sorted(p.ref for p in placed) == sorted(board)
    holes = [hole for part in placed for hole in part.holes.values()]
    assert len(holes) == len(set(holes)), "two pins in one hole"
    assert all(0 <= c < 60 and 0 <= r < 30 for c, r in holes)
    # Every pin of every part has its hole (resistors and capacitors: their two leads).
    for part in placed:
        real = next(p for p in mat.circuit.parts if p.ref == part.ref)
        assert set(part.holes) == {str(pin.num) for pin in real.pins}, part.ref


def test_the_committed_perfboard_drawing_is_the_circuits(mat: MatCircuit) -> None:
    path = IMAGES / "seat-board-perfboard.svg"
    assert path.read_text() == perfboard_svg(seat_board_layout(mat)), (
        f"{path} is stale: python -m hardware.circuit perfboard --out {path}"
    )


def test_the_wiring_list_joins_each_readers_pins_to_its_nets(mat: MatCircuit) -> None:
    nets = dict(wiring_list(mat))
    reader = mat.readers["s1.3"]
    assert f"{reader.ref}.1" in nets["CS_s1.3"]  # SDA, the chip select
    assert f"{reader.ref}.2" in nets["BUS_A_SCK"]
    assert all(len(pins) >= 2 for name, pins in nets.items() if not name.startswith("LED_CHAIN"))
