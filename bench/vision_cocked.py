"""Cocked dice: how often the reader gives a die leaning on something a value it must not have.

    .venv/bin/python bench/vision_cocked.py [--dice 60] [--values MODEL] [--sheet PATH]
    .venv/bin/python bench/vision_cocked.py --through tilted [--calibrate board] [--dice 60]

Each die is rendered alone in a tray of its own (seeds 1000 on; random colours, light, turn,
tilt 25-50 degrees, and the value on top and on the side face). A cocked die shows a tilted top
face with its pips and part of a side face with pips too, so the reader can go wrong two ways:
read the tilted top as a flat die, or take the side face for a die of its own. Either way some
die gets a value, and a game would score a throw that should have been thrown again. The count
of such dice is the figure, with how many are reported as what they are: one cocked die. The
contact sheet shows every die with what the reader said.

`--slanted` also asks what the top-face look of a slanted camera's reader would do to them
(`tabletop.vision.reader.top_face_look`: a die not read is cut again on the side away from the
camera, which a board's view knows): each die the reader does not read is looked at so from eight
directions (the camera below, beside or above it in the picture, and between), and the dice
given a value in any direction are counted. These dice are seen from above, not through a
slanted camera: a proxy.

`--through KIND` (tilted, wide-lens, top-down, cheap-jpeg) takes each cocked die through that
kind's camera instead, beside two flat dice (`tabletop.vision.training.setups.render_setup(...,
cocked=1)`: a tilted camera shows the cocked die's side faces that face it too), and reads each
picture as that table's reader would (`--calibrate board`: a board shown first, as `tabletop dice
calibrate --board` does). A cocked die is given a value when a die the reader gives a value
lies over it; the flat dice's figures say what the calibration does for the dice it must read.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.vision_kinds import add_calibrate_option, calibrated, labelled  # noqa: E402
from tabletop.hardware.camera.render import random_die, random_scene, render  # noqa: E402
from tabletop.vision.annotate import annotate  # noqa: E402
from tabletop.vision.classify import ValueClassifier  # noqa: E402
from tabletop.vision.evaluate import Score  # noqa: E402
from tabletop.vision.progress import progress  # noqa: E402
from tabletop.vision.reader import DiceReader, top_face_look  # noqa: E402
from tabletop.vision.reading import DieReading, DieStatus, FrameReading  # noqa: E402
from tabletop.vision.training.setups import (  # noqa: E402
    SetupKind,
    SetupPicture,
    cocked_centres,
    render_setup,
)

Image = npt.NDArray[np.uint8]
SIZE = 44
TILE = 132


def cocked_tray(seed: int) -> Image:
    """One cocked die in the middle of a 640x480 tray of its own."""
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, 0, die_size=SIZE)
    die = random_die(rng, 320, 240, SIZE, cocked=True)
    return render(replace(scene, dice=(die,)))


def tile(image: Image, reading: FrameReading, seed: int) -> Image:
    """The middle of an annotated tray, with the seed and the verdict."""
    marked = annotate(image, reading)
    patch = marked[240 - TILE // 2 : 240 + TILE // 2, 320 - TILE // 2 : 320 + TILE // 2].copy()
    given = bool(reading.values)
    colour = (0, 0, 230) if given else (60, 200, 60)
    cv2.rectangle(patch, (0, 0), (TILE - 1, TILE - 1), colour, 3)
    cv2.putText(patch, str(seed), (4, TILE - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1)
    return patch


def top_face_looks(reader: DiceReader, image: Image, die: DieReading) -> int:
    """How many of eight directions of the camera give `die` a value by its top-face look."""
    given = 0
    for k in range(8):
        turn = 2 * math.pi * k / 8
        below = (die.center[0] + 1000 * math.cos(turn), die.center[1] + 1000 * math.sin(turn))
        given += top_face_look(reader.values, image, die, below, reader.settings) is not None
    return given


def cocked_through(kind: SetupKind, seed: int) -> SetupPicture:
    """One cocked die and two flat ones, through a `kind` table's own camera."""
    return render_setup(kind, np.random.default_rng([seed, 7]), seed, dice=3, cocked=1)


def cocked_given(pic: SetupPicture, reading: FrameReading) -> bool:
    """Whether a die given a value lies over the picture's cocked die."""
    return given_over(cocked_centres(pic), reading) > 0


def given_over(centres: list[tuple[float, float]], reading: FrameReading) -> int:
    """How many of these cocked dice a die given a value lies over (its box holds the cocked
    die's centre, or that centre lies within a die's side of the box's)."""
    given = set()
    for die in reading.dice:
        if die.value is None:
            continue
        x0, y0, x1, y1 = die.box
        reach = max(x1 - x0, y1 - y0)
        for number, (cx, cy) in enumerate(centres):
            inside = x0 <= cx <= x1 and y0 <= cy <= y1
            if inside or math.hypot(cx - die.center[0], cy - die.center[1]) < reach:
                given.add(number)
    return len(given)


def through(args: argparse.Namespace, reader: DiceReader) -> int:
    """`--through KIND`: cocked dice as a table's own camera sees them, read as it reads."""
    kind = SetupKind(args.through)
    given = 0
    flat = Score()
    tiles: list[Image] = []
    with progress(args.dice, f"cocked dice through a {kind.value} camera") as step:
        for seed in range(args.first_seed, args.first_seed + args.dice):
            pic = cocked_through(kind, seed)
            calibration = calibrated(pic, args.calibrate, seed)
            table = DiceReader(reader.classifier, calibration, reader.settings, reader.values)
            reading = table.read(pic.image)
            given += cocked_given(pic, reading)
            flat.add(str(seed), labelled(pic), reading)
            if args.sheet:
                small = cv2.resize(annotate(pic.image, reading), (320, 240))
                tiles.append(np.asarray(small, np.uint8))
            step(f"seed {seed}: {given} given a value so far")
    how = {"none": "uncalibrated", "tray": "tray-calibrated", "board": "board-calibrated"}
    print(
        f"{args.dice} cocked dice through a {kind.value} camera, {how[args.calibrate]}: "
        f"{given} given a value ({100.0 * given / args.dice:.1f} %)"
    )
    print(
        f"  the {flat.labelled} flat dice beside them: {flat.recall:.1%} found, "
        f"{flat.value_accuracy:.1%} of those read right, {flat.wrong_values} wrong"
    )
    if args.sheet and tiles:
        write_sheet(args.sheet, tiles, per_row=5)
    return 0


def write_sheet(path: Path, tiles: list[Image], per_row: int) -> None:
    blank = np.zeros_like(tiles[0])
    tiles = tiles + [blank] * (-len(tiles) % per_row)
    rows = [np.hstack(tiles[i : i + per_row]) for i in range(0, len(tiles), per_row)]
    path.parent.mkdir(parents=True, exist_ok=True)
    jpeg = path.suffix.lower() in (".jpg", ".jpeg")
    quality = [cv2.IMWRITE_JPEG_QUALITY, 85] if jpeg else []  # PNG takes no quality
    cv2.imwrite(str(path), np.vstack(rows), quality)
    print(f"  contact sheet: {path}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dice", type=int, default=60, help="cocked dice (default 60)")
    parser.add_argument(
        "--first-seed", type=int, default=1000, help="seed of the first die (default 1000)"
    )
    parser.add_argument("--values", type=Path, help="a value reader other than the committed one")
    parser.add_argument("--sheet", type=Path, help="write a contact sheet of every die here")
    parser.add_argument(
        "--slanted",
        action="store_true",
        help="also the top-face look of a slanted camera's reader, from eight directions",
    )
    parser.add_argument(
        "--through",
        choices=[
            k.value
            for k in (
                SetupKind.TILTED,
                SetupKind.WIDE_LENS,
                SetupKind.TOP_DOWN,
                SetupKind.CHEAP_JPEG,
            )
        ],
        help="each cocked die through this kind's camera, beside two flat dice (default: "
        "alone, seen from straight above)",
    )
    add_calibrate_option(parser, "with --through, calibrate each table")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    values = ValueClassifier(args.values) if args.values else None
    reader = DiceReader(values=values)
    reader.load()
    if args.through:
        return through(args, reader)
    given = once = none_cocked = looked_given = looks = looks_given = 0
    statuses: Counter[str] = Counter()
    tiles: list[Image] = []
    with progress(args.dice, "cocked dice") as step:
        for seed in range(args.first_seed, args.first_seed + args.dice):
            image = cocked_tray(seed)
            reading = reader.read(image)
            given += bool(reading.values)
            once += [d.status for d in reading.dice] == [DieStatus.COCKED]
            statuses.update(d.status.value for d in reading.dice)
            none_cocked += all(d.status is not DieStatus.COCKED for d in reading.dice)
            if args.slanted and not reading.values:
                valued = [top_face_looks(reader, image, die) for die in reading.dice]
                looks += 8 * len(reading.dice)
                looks_given += sum(valued)
                looked_given += any(valued)
            if args.sheet:
                tiles.append(tile(image, reading, seed))
            step(f"seed {seed}: {given} given a value so far")
    print(f"{args.dice} cocked dice: {given} given a value ({100.0 * given / args.dice:.1f} %)")
    print(f"  reported as exactly one cocked die: {once}")
    print(f"  no die reported cocked: {none_cocked}")
    print(f"  dice reported, by status: {dict(sorted(statuses.items()))}")
    if args.slanted:
        print(
            f"  of the {args.dice - given} not given a value, given one by a slanted camera's "
            f"top-face look from some direction: {looked_given} "
            f"({looks_given} of {looks} looks, a die found and a direction each)"
        )
    if args.sheet and tiles:
        write_sheet(args.sheet, tiles, per_row=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
