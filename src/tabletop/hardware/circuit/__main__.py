"""`python -m tabletop.hardware.circuit build|bom|perfboard|drawings`: the circuit's outputs.

`build --out DIR` writes the KiCad netlist, the ERC report, the bill of materials (CSV), the
power budget of the full mat and the seat board's wiring list into DIR; `bom` prints the bill
of materials as docs/mat.md carries it (`--write` puts it there, between its markers);
`perfboard --out FILE` draws the seat board on perfboard; `drawings --out DIR` draws each
board's schematic.
"""

from __future__ import annotations

import argparse
import ast
import csv
import sys
import time
from pathlib import Path
from typing import Any

from .bom import BOM_END, BOM_START

DOCS_MAT = Path(__file__).resolve().parents[4] / "docs" / "mat.md"


def firmware_led_level() -> int:
    """The firmware's LED brightness cap, `LED_LEVEL` in src/tabletop/firmware/board.py, read from
    its source: the module itself imports `machine` and runs only on the Pico."""
    tree = ast.parse((Path(__file__).resolve().parents[2] / "firmware" / "board.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "LED_LEVEL" for t in node.targets
        ):
            return int(ast.literal_eval(node.value))
    raise SystemExit("build: src/tabletop/firmware/board.py has no LED_LEVEL")


def write_bom(markdown: str, path: Path = DOCS_MAT) -> None:
    """Replaces the table between docs/mat.md's BOM markers."""
    text = path.read_text()
    if BOM_START not in text or BOM_END not in text:
        raise SystemExit(f"bom: {path} has no BOM markers ({BOM_START} ... {BOM_END})")
    head, rest = text.split(BOM_START, 1)
    _, tail = rest.split(BOM_END, 1)
    path.write_text(f"{head}{BOM_START}\n\n{markdown}\n{BOM_END}{tail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tabletop.hardware.circuit", description=__doc__
    )
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="netlist, ERC, BOM and power budget into a folder")
    build.add_argument("--out", type=Path, required=True, help="the folder to write into")
    build.add_argument(
        "--split-seats",
        default="0",
        help="seats with split touch pads, a bit per seat as board.SPLIT_SEATS (default 0)",
    )
    drawings = commands.add_parser("drawings", help="a schematic SVG of each board")
    drawings.add_argument("--out", type=Path, required=True, help="the folder to write into")
    perfboard = commands.add_parser("perfboard", help="the seat board on perfboard (SVG)")
    perfboard.add_argument("--out", type=Path, required=True, help="the SVG file to write")
    bom = commands.add_parser("bom", help="the bill of materials as Markdown")
    bom.add_argument("--write", action="store_true", help="put it into docs/mat.md")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    from .bom import bom_markdown, bom_rows
    from .mat import build_mat

    if args.command == "perfboard":
        from .perfboard import perfboard_svg, seat_board_layout

        try:
            args.out.write_text(perfboard_svg(seat_board_layout(build_mat())))
        except OSError as error:
            raise SystemExit(f"perfboard: cannot write {args.out}: {error.strerror}") from None
        print(f"wrote {args.out}")
        return 0
    if args.command == "drawings":
        from .drawings import write_drawings

        try:
            written = write_drawings(build_mat(), args.out)
        except OSError as error:
            raise SystemExit(f"drawings: cannot write into {args.out}: {error.strerror}") from None
        for path in written:
            print(f"wrote {path}")
        return 0
    try:
        split = int(getattr(args, "split_seats", "0"), 0)
        mat = build_mat(split_seats=split)
    except ValueError as error:
        raise SystemExit(f"{args.command}: --split-seats: {error}") from None
    rows = bom_rows(mat)
    if args.command == "bom":
        markdown = bom_markdown(rows)
        if args.write:
            write_bom(markdown)
            print(f"wrote the bill of materials into {DOCS_MAT}")
        else:
            sys.stdout.write(markdown)
        return 0
    out: Path = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
        return _build(mat, rows, out, started)
    except OSError as error:
        raise SystemExit(f"build: cannot write into {out}: {error.strerror}") from None


def _build(mat: Any, rows: list[Any], out: Path, started: float) -> int:
    from ._skidl import skidl
    from .bom import power_budget
    from .erc import run_erc

    result = run_erc(mat)
    netlist = mat.circuit.generate_netlist(tool=skidl.KICAD6, do_backup=False)
    (out / "mat.net").write_text(str(netlist))
    (out / "erc.txt").write_text(
        f"{len(result.errors)} errors, {len(result.warnings)} warnings\n"
        + "".join(f"error: {line}\n" for line in result.errors)
        + "".join(f"warning: {line}\n" for line in result.warnings)
        + "".join(f"waived: {what}: {why}\n" for what, why in sorted(mat.waivers.items()))
    )
    with (out / "bom.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["part", "part number", "qty", "each", "total"])
        for row in rows:
            writer.writerow([row.name, row.number, row.qty, row.each or "", f"{row.total:.2f}"])
    from .perfboard import wiring_list

    (out / "seat-board-wiring.txt").write_text(
        "".join(f"{net}: {' '.join(pins)}\n" for net, pins in wiring_list(mat))
    )
    budget = power_budget(mat, firmware_led_level())
    (out / "power.txt").write_text(
        "".join(
            f"{r.rail}: idle {r.idle_ma:.0f} mA, peak {r.peak_ma:.0f} mA of {r.limit_ma:.0f} mA "
            f"({r.supply}){'' if r.ok else '  OVER'}\n"
            for r in budget
        )
    )
    pins = sum(len(part.pins) for part in mat.circuit.parts)
    print(
        f"{len(mat.circuit.parts)} parts, {len(mat.circuit.get_nets())} nets, {pins} pins; "
        f"ERC {len(result.errors)} errors, {len(result.warnings)} warnings "
        f"({len(mat.waivers)} waived); {time.perf_counter() - started:.1f} s; wrote {out}"
    )
    return 1 if result.errors or not all(r.ok for r in budget) else 0


if __name__ == "__main__":
    raise SystemExit(main())
