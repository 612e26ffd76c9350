"""The seat board laid out on 0.1-inch perfboard: where each of its parts goes, and the wires.

Every part of seat 1's board in the circuit gets a place on a 60 x 30 hole board: the two ribbon
headers at the left edge, the chips beside them, then one column per slot (its reader's 8-pin
header, its face sensor's and LED's 4-pin headers, its two resistors and two capacitors, its
electrode's wire pad). `perfboard_svg` draws it at 1:1; `wiring_list` is what to solder: each
net of the board with the pins it joins (docs/circuit.md, "Drawings").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from .mat import MatCircuit

PITCH = 2.54
COLUMNS, ROWS = 60, 30
MARGIN = 5.0


@dataclass(frozen=True)
class Placed:
    """A part on the board: its reference, what it is, and the hole of each pin."""

    ref: str
    label: str
    holes: dict[str, tuple[int, int]]  # pin number -> (column, row)


def _line(
    x: int, y: int, count: int, vertical: bool = True, first: int = 1
) -> dict[str, tuple[int, int]]:
    return {str(first + i): (x, y + i) if vertical else (x + i, y) for i in range(count)}


def _dip(x: int, y: int, pins: int) -> dict[str, tuple[int, int]]:
    """A DIP lying along the board: pin 1 bottom left, counting anticlockwise; rows 0.3" apart."""
    half = pins // 2
    holes = {str(1 + i): (x + i, y + 3) for i in range(half)}
    holes.update({str(half + 1 + i): (x + half - 1 - i, y) for i in range(half)})
    return holes


def _header_2xn(x: int, y: int, rows: int) -> dict[str, tuple[int, int]]:
    """A 2 x n box header standing on the board: odd pins in the left column."""
    holes = {}
    for row in range(rows):
        holes[str(2 * row + 1)] = (x, y + row)
        holes[str(2 * row + 2)] = (x + 1, y + row)
    return holes


def seat_board_layout(mat: MatCircuit, seat: int = 1) -> list[Placed]:
    """Places every part of seat `seat`'s board (all six boards are alike)."""
    board = f"seat {seat}"
    parts = [p for p in mat.circuit.parts if p.fields.get("board") == board]
    by_kind: dict[str, list[Any]] = {}
    for part in parts:
        by_kind.setdefault(str(part.fields.get("bom")), []).append(part)
    placed: list[Placed] = []
    ribbon26, ribbon14 = by_kind["ribbon26"][0], by_kind["ribbon14"][0]
    placed.append(Placed(ribbon26.ref, "26-way to the controller", _header_2xn(1, 2, 13)))
    placed.append(Placed(ribbon14.ref, "14-way touch", _header_2xn(1, 19, 7)))
    register = by_kind["hc595"][0]
    placed.append(Placed(register.ref, "74HC595", _dip(5, 2, 16)))
    for index, buffer in enumerate(by_kind["hc125"]):
        placed.append(Placed(buffer.ref, "74HC125", _dip(5, 9 + 7 * index, 14)))
    chip_caps = [c for c in by_kind["c100n"] if _joins(c, "+3V3")]
    led_caps = [c for c in by_kind["c100n"] if _joins(c, "+5V")]
    for index, cap in enumerate(chip_caps):
        placed.append(Placed(cap.ref, "100nF", _line(14, 2 + 7 * index, 2)))
    for slot, zone in enumerate(z for z in mat.readers if z.startswith(f"s{seat}.")):
        x = 17 + slot * 7
        reader, sensor, led = mat.readers[zone], mat.sensors[zone], mat.leds[zone]
        placed.append(Placed(reader.ref, f"RC522 {zone}", _line(x, 1, 8)))
        # The face sensor's and the LED's headers: refs only (S is a TCRT5000, D a WS2812B).
        placed.append(Placed(sensor.ref, "", _line(x + 2, 1, 4)))
        placed.append(Placed(led.ref, "", _line(x + 4, 1, 4)))
        emitter = next(r for r in by_kind["r"] if _joins(r, f"IR_A_{zone}"))
        pull_up = next(r for r in by_kind["r"] if _joins(r, f"SENSE_{zone}"))
        placed.append(Placed(emitter.ref, "180", _line(x, 11, 5, vertical=False)))
        placed.append(Placed(pull_up.ref, "10k", _line(x, 13, 5, vertical=False)))
        reader_cap = next(c for c in by_kind["c10u"] if _near(c, reader))
        placed.append(Placed(reader_cap.ref, "10uF", _line(x, 16, 3, vertical=False)))
        placed.append(Placed(led_caps[slot].ref, "100nF", _line(x + 4, 6, 2)))
        placed.append(Placed(mat.electrodes[zone].ref, f"electrode {zone}", {"1": (x + 2, 27)}))
    _drop_middle_holes(placed)
    return placed


def _drop_middle_holes(placed: list[Placed]) -> None:
    """A resistor's and a 10 uF's leads span holes; their two pins sit at the ends."""
    for index, part in enumerate(placed):
        if part.label in ("180", "10k", "10uF"):
            holes = sorted(part.holes.values())
            placed[index] = Placed(part.ref, part.label, {"1": holes[0], "2": holes[-1]})


def _joins(part: Any, net_name: str) -> bool:
    return any(pin.net is not None and pin.net.name == net_name for pin in part.pins)


def _near(cap: Any, reader: Any) -> bool:
    """A reader's 10 uF: the part made right after it (tags count a board's parts in order)."""
    return int(str(cap.tag).rsplit("/", 1)[-1]) == int(str(reader.tag).rsplit("/", 1)[-1]) + 1


def wiring_list(mat: MatCircuit, seat: int = 1) -> list[tuple[str, list[str]]]:
    """Each net on the board with the pins it joins there (ref.pin), for soldering."""
    board = f"seat {seat}"
    nets: dict[str, list[str]] = {}
    for part in mat.circuit.parts:
        if part.fields.get("board") != board:
            continue
        for pin in part.pins:
            if pin.net is None or pin.net.name == "__NOCONNECT":
                continue
            nets.setdefault(str(pin.net.name), []).append(f"{part.ref}.{pin.num}")
    return sorted((name, sorted(pins)) for name, pins in nets.items())


def perfboard_svg(placed: list[Placed]) -> str:
    """The board at 1:1 in mm: the hole grid, each part's holes and outline, its reference."""
    width = COLUMNS * PITCH + 2 * MARGIN
    height = ROWS * PITCH + 2 * MARGIN

    def at(hole: tuple[int, int]) -> tuple[float, float]:
        return MARGIN + (hole[0] + 0.5) * PITCH, MARGIN + (hole[1] + 0.5) * PITCH

    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}mm" height="{height:g}mm" '
        f'viewBox="0 0 {width:g} {height:g}">',
        "<title>seat board on 0.1-inch perfboard, 1:1 in mm</title>",
        "<style>.grid{fill:#ccc}.pin{fill:#b87333}.body{fill:none;stroke:#000;stroke-width:0.3}"
        "text{font-family:sans-serif;font-size:1.6px}</style>",
        f'<rect x="0" y="0" width="{width:g}" height="{height:g}" fill="#f4f0e0" stroke="#000" '
        'stroke-width="0.3"/>',
    ]
    for column in range(COLUMNS):
        for row in range(ROWS):
            x, y = at((column, row))
            out.append(f'<circle class="grid" cx="{x:.2f}" cy="{y:.2f}" r="0.4"/>')
    for part in placed:
        xs = [at(h)[0] for h in part.holes.values()]
        ys = [at(h)[1] for h in part.holes.values()]
        out.append(f'<g class="part" data-ref="{escape(part.ref)}">')
        out.append(
            f'<rect class="body" x="{min(xs) - 1.1:.2f}" y="{min(ys) - 1.1:.2f}" '
            f'width="{max(xs) - min(xs) + 2.2:.2f}" height="{max(ys) - min(ys) + 2.2:.2f}"/>'
        )
        for number, hole in part.holes.items():
            x, y = at(hole)
            out.append(
                f'<circle class="pin" data-pin="{number}" data-hole="{hole[0]},{hole[1]}" '
                f'cx="{x:.2f}" cy="{y:.2f}" r="0.6"/>'
            )
        out.append(
            f'<text x="{min(xs) - 1:.2f}" y="{max(ys) + 3.2:.2f}">{escape(part.ref)} '
            f"{escape(part.label)}</text>"
        )
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
