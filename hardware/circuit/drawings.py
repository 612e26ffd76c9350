"""A schematic drawing of each board, rendered by SKiDL from the circuit (docs/images/circuit/).

SKiDL places and routes each board's symbols itself and labels every pin with its net, so a
wire that crosses to another board shows the same net name at both ends. Rendering takes
minutes a board, so the drawings are made by hand (`python -m hardware.circuit drawings
--out docs/images/circuit`) and a test checks that each still shows every part of its board.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .mat import build_mat

# drawing name -> which parts (by their `board` field) it shows
BOARDS: dict[str, Callable[[str], bool]] = {
    "controller": lambda board: board == "controller",
    "seat-board": lambda board: board == "seat 1",
    "pad-board": lambda board: board == "pad",
    "seat-leds": lambda board: board == "pi" or board.endswith(" leds"),
}


def board_parts(mat_circuit: Any, drawing: str) -> list[Any]:
    """The parts a drawing shows."""
    keep = BOARDS[drawing]
    return [part for part in mat_circuit.parts if keep(str(part.fields.get("board", "")))]


def write_drawings(out: Path, only: list[str] | None = None) -> Iterator[tuple[Path, float]]:
    """Renders each board (or those in `only`) into `out`/<drawing>.svg; yields each file
    and its seconds."""
    out.mkdir(parents=True, exist_ok=True)
    for drawing in only or list(BOARDS):
        started = time.perf_counter()
        mat = build_mat()
        keep = {id(part) for part in board_parts(mat.circuit, drawing)}
        for part in list(mat.circuit.parts):
            if id(part) not in keep:
                mat.circuit -= part
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SKiDL's own resource and deprecation warnings
            mat.circuit.generate_svg(top_name=drawing, filepath=str(out))
        yield out / f"{drawing}.svg", time.perf_counter() - started
