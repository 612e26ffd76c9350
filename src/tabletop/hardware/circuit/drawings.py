"""A schematic drawing of each board, drawn from the circuit (docs/images/circuit/).

A net-label schematic: each part of the board is a box with its pins in number order, and each
pin's net written beside it, so a net that leaves the board (over a ribbon) carries the same
name on the other board's drawing; the two-pin parts (resistors, capacitors, LEDs) are one line
each. Parts are laid in columns in the order a maker meets them (connectors, chips, modules,
then the small parts). SKiDL's own `generate_svg` was tried first: it took 90 s for the seat
LEDs and 2.5 min for a seat board here, and piled parts and labels on top of one another, so
this one is drawn directly; it is quick enough that a test keeps the drawings current.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from .mat import MatCircuit

# drawing name -> (title, which parts it shows, by their `board` field)
BOARDS: dict[str, tuple[str, Callable[[str], bool]]] = {
    "controller": ("controller board", lambda board: board == "controller"),
    "seat-board": ("seat board (seat 1; all six are alike)", lambda board: board == "seat 1"),
    "pad-board": ("pad board", lambda board: board == "pad"),
    "seat-leds": (
        "seat LEDs on the Raspberry Pi",
        lambda board: board == "pi" or board.endswith(" leds"),
    ),
}
ROW = 3.2  # mm a pin row
BOX = 34.0  # a part's box
LABEL = 44.0  # room for the net names right of a box
GAP = 6.0
COLUMNS = 5
SMALL = ("r", "c100n", "c10u", "seat_led", "jumper", "electrode")
ORDER = ("ribbon26", "ribbon14", "pi_socket", "pico", "hc154", "hc4067", "hc595", "hc125")


def board_parts(mat: MatCircuit, drawing: str) -> list[Any]:
    """The parts a drawing shows, in the order it draws them."""
    keep = BOARDS[drawing][1]
    parts = [part for part in mat.circuit.parts if keep(str(part.fields.get("board", "")))]

    def rank(part: Any) -> tuple[int, int, str]:
        kind = str(part.fields.get("bom", ""))
        first = ORDER.index(kind) if kind in ORDER else len(ORDER) + (20 if kind in SMALL else 0)
        number = int("".join(ch for ch in part.ref if ch.isdigit()) or 0)
        return first, number, part.ref

    return sorted(parts, key=rank)


def _net(pin: Any) -> str:
    if pin.net is None:
        return "(open)"
    if pin.net.name == "__NOCONNECT":
        return "n/c"
    return str(pin.net.name)


def _pin_name(pin: Any) -> str:
    name = str(pin.name).replace("~{", "/").replace("}", "")
    # A connector's "Pin_7" says no more than its number.
    return "" if name in ("~", "") or name.startswith("Pin_") else name


def _text(x: float, y: float, text: str, css: str = "", anchor: str = "start") -> str:
    klass = f' class="{css}"' if css else ""
    return f'<text{klass} x="{x:.2f}" y="{y:.2f}" text-anchor="{anchor}">{escape(text)}</text>'


def schematic_svg(mat: MatCircuit, drawing: str) -> str:
    """The drawing of one board as SVG, in millimetres."""
    title = BOARDS[drawing][0]
    parts = board_parts(mat, drawing)
    blocks: list[tuple[float, list[str], Any]] = []  # height, body drawn at (0, 0), part
    for part in parts:
        pins = sorted(part.pins, key=lambda p: int(p.num) if str(p.num).isdigit() else 0)
        value = str(part.value)
        if str(part.fields.get("bom", "")) in SMALL:
            ends = "  -  ".join(f"{_pin_name(p) or p.num}: {_net(p)}" for p in pins)
            body = [_text(0, ROW * 0.8, f"{part.ref} {value}", "ref"), _text(20, ROW * 0.8, ends)]
            blocks.append((ROW * 1.2, body, part))
            continue
        height = ROW * (len(pins) + 1.6)
        body = [
            f'<rect class="box" x="0" y="0" width="{BOX}" height="{height:.2f}"/>',
            _text(1, ROW * 0.8, f"{part.ref}  {value}", "ref"),
        ]
        for row, pin in enumerate(pins):
            y = ROW * (row + 1.8)
            body.append(_text(1, y, f"{pin.num} {_pin_name(pin)}", "pin"))
            body.append(f'<path class="stub" d="M{BOX},{y - 0.8:.2f}h4"/>')
            net = _net(pin)
            body.append(_text(BOX + 5, y, net, "nc" if net == "n/c" else "net"))
        blocks.append((height, body, part))
    # Fill columns left to right, each to about the same height.
    total = sum(h + GAP for h, _, _ in blocks)
    target = total / COLUMNS
    placed: list[tuple[float, float, list[str], Any]] = []
    column, y = 0, 18.0
    for height, body, part in blocks:
        if y > 18.0 and y + height > 18.0 + target * 1.08 and column < COLUMNS - 1:
            column, y = column + 1, 18.0
        placed.append((column * (BOX + LABEL + GAP) + 8, y, body, part))
        y += height + GAP
    width = COLUMNS * (BOX + LABEL + GAP) + 10
    height = max(y + h for (_, y, _, _), (h, _, _) in zip(placed, blocks, strict=True)) + 10
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}mm" height="{height:.0f}mm" '
        f'viewBox="0 0 {width:.0f} {height:.0f}">',
        f"<title>tabletop mat: {escape(title)}</title>",
        "<style>text{font-family:sans-serif;font-size:2.2px}.ref{font-weight:bold}"
        ".net{fill:#1a4d8f}.nc{fill:#999}.box{fill:#fffbe6;stroke:#840000;stroke-width:0.3}"
        ".stub{stroke:#840000;stroke-width:0.25}.title{font-size:5px;font-weight:bold}</style>",
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#fff"/>',
        _text(8, 10, f"tabletop mat: {title}", "title"),
        _text(
            8,
            15,
            "each pin's net beside it; a net of the same name on another board is the same wire "
            "over a ribbon; n/c: not connected on purpose (docs/circuit.md)",
        ),
    ]
    for x, y, body, part in placed:
        out.append(
            f'<g class="part" data-ref="{escape(part.ref)}" transform="translate({x:.2f} {y:.2f})">'
        )
        out.extend(body)
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_drawings(mat: MatCircuit, out: Path) -> list[Path]:
    """Writes every board's drawing into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for drawing in BOARDS:
        path = out / f"{drawing}.svg"
        path.write_text(schematic_svg(mat, drawing))
        written.append(path)
    return written
