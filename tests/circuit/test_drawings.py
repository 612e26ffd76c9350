"""The drawings in docs/images/circuit/: each still shows its board as the circuit has it."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tabletop.hardware.circuit.drawings import BOARDS, board_parts, schematic_svg
from tabletop.hardware.circuit.mat import MatCircuit
from tabletop.hardware.circuit.perfboard import perfboard_svg, seat_board_layout, wiring_list

from .wiring import pin

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images" / "circuit"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("drawing", list(BOARDS))
def test_each_schematic_is_the_circuits_and_shows_every_part_and_pin(
    mat: MatCircuit, drawing: str
) -> None:
    path = IMAGES / f"{drawing}.svg"
    drawn = schematic_svg(mat, drawing)
    assert path.exists() and path.read_text() == drawn, (
        f"{path} is stale: python -m tabletop.hardware.circuit drawings --out {IMAGES}"
    )
    root = ET.fromstring(drawn.encode())
    shown = {g.get("data-ref"): g for g in root.iter(f"{SVG}g") if g.get("class") == "part"}
    parts = board_parts(mat, drawing)
    assert set(shown) == {p.ref for p in parts}
    for part in parts:
        texts = " ".join(t.text or "" for t in shown[part.ref].iter(f"{SVG}text"))
        for each in part.pins:
            net = each.net.name if each.net.name != "__NOCONNECT" else "n/c"
            assert net in texts, f"{drawing}: {part.ref} pin {each.num} ({net}) not drawn"


def test_a_rewired_pin_shows_in_the_drawing(mat: MatCircuit) -> None:
    reader = mat.readers["s1.2"]
    before = schematic_svg(mat, "seat-board")
    sda = pin(reader, "SDA")
    was = sda.net
    sda.disconnect()
    try:
        after = schematic_svg(mat, "seat-board")
    finally:
        was += sda
    assert before != after and "(open)" in after


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
        f"{path} is stale: python -m tabletop.hardware.circuit perfboard --out {path}"
    )


def test_the_wiring_list_joins_each_readers_pins_to_its_nets(mat: MatCircuit) -> None:
    nets = dict(wiring_list(mat))
    reader = mat.readers["s1.3"]
    assert f"{reader.ref}.1" in nets["CS_s1.3"]  # SDA, the chip select
    assert f"{reader.ref}.2" in nets["BUS_A_SCK"]
    assert all(len(pins) >= 2 for name, pins in nets.items() if not name.startswith("LED_CHAIN"))
