"""How the dice reader does on kinds of picture other tables take, each on its own.

    .venv/bin/python bench/vision_kinds.py [--pictures 40] [--kinds tilted,felt] [--model DIR]
        [--values FILE.onnx] [--detector FILE.onnx] [--seed 1] [--json] [--save DIR]
        [--sheet docs/images/setup-kinds.jpg]

Renders `--pictures` pictures of each kind (`tabletop.vision.training.setups.SetupKind`: a tilted
camera, a wide lens, a colour cast, a dim room, a cheap webcam, felt, things in the tray beside
the dice; fixed seeds, so every run reads the same pictures), reads each with the shipped
reader, uncalibrated (or with a table's enrolled value model, `--model DIR`, as `tabletop dice
read --model` does, or another value network, `--values FILE`: one trained with
`tabletop.vision.training.train_reader --kinds N --hold-out KIND`), and scores it as
`bench/vision_accuracy.py` does (`tabletop.vision.evaluate.Score`): a labelled die is found when a
reported box centre lies inside its box; read right, not read (unreadable or cocked) and wrong
are counted over the dice found. The reader was trained on top-down pictures only, so each
other kind measures it on a setup it has not seen. "Camera doubted" counts the pictures that,
read as a throw, would make the watcher say the camera may be at a slant (two in three of the
dice look cocked: `tabletop.vision.watch.slanted_view`). `--save DIR` writes one picture of each
kind with its truth boxes; `--sheet` writes them as one labelled contact sheet. Progress on stderr.

`--calibrate tray|board` reads the kinds whose pictures are their camera's alone (top-down,
tilted, wide-lens, cheap-jpeg) as a table calibrated with that camera reads them: `tray` from
pictures of the empty tray (`tabletop.vision.calibration.calibrate`), `board` also from a picture of
a 9x6 board lying in it, 0.8 of the picture's width across (`tabletop.vision.view.find_view`), as
`tabletop dice calibrate --board 9x6` learns them. Every picture is its own table (its camera
is drawn anew), so each is calibrated on its own; `--board-pictures 3` adds two more pictures
of the board, half as large, towards the corners. The other kinds are read uncalibrated.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tabletop.errors import UserError  # noqa: E402
from tabletop.vision.annotate import annotate  # noqa: E402
from tabletop.vision.calibration import Calibration, calibrate, flat_calibration  # noqa: E402
from tabletop.vision.classify import DieClassifier, ValueClassifier  # noqa: E402
from tabletop.vision.enrol import EnrolError, table_model  # noqa: E402
from tabletop.vision.evaluate import LabelledDie, Score  # noqa: E402
from tabletop.vision.progress import progress  # noqa: E402
from tabletop.vision.reader import DiceReader  # noqa: E402
from tabletop.vision.training.setups import (  # noqa: E402
    SetupKind,
    SetupPicture,
    board_on_floor,
    render_setup,
    through_camera,
)
from tabletop.vision.view import board_image, find_view  # noqa: E402
from tabletop.vision.watch import slanted_view  # noqa: E402

Image = npt.NDArray[np.uint8]


def kinds_named(text: str) -> list[SetupKind]:
    """The kinds a comma list names (`all` for every kind), in SetupKind's order."""
    if text == "all":
        return list(SetupKind)
    names = {kind.value: kind for kind in SetupKind}
    wanted = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in wanted if name not in names]
    if unknown or not wanted:
        raise UserError(
            f"unknown kind {', '.join(unknown) or '(none)'}; the kinds: {', '.join(names)}"
        )
    return [kind for kind in SetupKind if kind.value in wanted]


def picture(kind: SetupKind, index: int, seed: int) -> SetupPicture:
    """The index-th picture of a kind: its own seeds, so a kind reads the same pictures
    whichever other kinds run beside it."""
    return render_setup(kind, np.random.default_rng([seed, index]), seed * 10_000 + index)


def labelled(pic: SetupPicture) -> list[LabelledDie]:
    return [LabelledDie(b.x0, b.y0, b.x1, b.y1, b.value) for b in pic.truth]


def with_truth(pic: SetupPicture) -> Image:
    """The picture with each die's truth box and value drawn, and the kind's name."""
    image = pic.image.copy()
    for box in pic.truth:
        corner0 = (round(box.x0), round(box.y0))
        cv2.rectangle(image, corner0, (round(box.x1), round(box.y1)), (60, 230, 60), 1)
        cv2.putText(
            image,
            str(box.value),
            (round(box.x0), round(box.y0) - 3),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.5,
            (60, 230, 60),
            1,
            cv2.LINE_AA,
        )
    for colour, thick in (((0, 0, 0), 4), ((255, 255, 255), 1)):
        cv2.putText(
            image, pic.kind.value, (12, 34), cv2.FONT_HERSHEY_SIMPLEX, 1.0, colour, thick + 1,
            cv2.LINE_AA,
        )  # fmt: skip
    return image


BOARD = (9, 6)
BOARD_ACROSS = 0.8  # of the picture's width, at its middle
# Where a person moves the board for more pictures of it (`--board-pictures`): half as large,
# towards the picture's corners, where a wide lens bends most.
BOARD_MOVED = (((0.3, 0.3), 0.5), ((0.7, 0.7), 0.5), ((0.7, 0.3), 0.5), ((0.3, 0.7), 0.5))


def add_calibrate_option(parser: argparse.ArgumentParser, what: str) -> None:
    """`--calibrate none|tray|board`, for the benches that calibrate their tables so."""
    parser.add_argument(
        "--calibrate",
        choices=("none", "tray", "board"),
        default="none",
        help=f"{what}: from the empty tray, or from a board lying in it too (default none)",
    )


def calibrated(
    pic: SetupPicture, how: str, seed: int, board_pictures: int = 1
) -> Calibration | None:
    """The calibration a person would make at `pic`'s table (`how`: none, tray or board,
    from `board_pictures` pictures of the board); None for none, or for a kind whose pictures
    are more than its camera's (a colour cast, noise, clutter: not rendered for the board)."""
    if how == "none" or pic.camera is None:
        return None
    empty = [through_camera(pic, seed * 7 + k) for k in range(3)]
    view = None
    if how == "board":
        places = (((0.5, 0.5), BOARD_ACROSS), *BOARD_MOVED)[:board_pictures]
        shots = [
            through_camera(
                pic, seed * 7 + 3 + k, board_on_floor(pic, board_image(*BOARD), across, 8.0, at)
            )
            for k, (at, across) in enumerate(places)
        ]
        view = find_view(shots, BOARD)
    return calibrate(empty, view=view)


def score_kind(
    kind: SetupKind,
    pictures: int,
    seed: int,
    reader: DiceReader,
    *,
    how: str = "none",
    board_pictures: int = 1,
) -> tuple[Score, int]:
    """The kind's pictures scored, and in how many of them the watcher would doubt the camera
    (`tabletop.vision.watch.slanted_view`: most of a throw's dice look cocked)."""
    total = Score()
    doubted = 0
    with progress(pictures, f"{kind.value}: pictures read") as step:
        for index in range(pictures):
            pic = picture(kind, index, seed)
            calibration = calibrated(pic, how, seed * 10_000 + index, board_pictures)
            if calibration is not None:
                table = DiceReader(reader.classifier, calibration, reader.settings, reader.values)
                reading = table.read(pic.image)
            else:
                reading = reader.read(pic.image)
            total.add(f"{kind.value}-{index:03d}", labelled(pic), reading)
            doubted += bool(slanted_view(reading, 1))
            step(f"{len(pic.truth)} dice, {len(reading.dice)} reported")
    return total, doubted


def row(kind: SetupKind, pictures: int, scored: tuple[Score, int]) -> dict[str, object]:
    result, doubted = scored
    found = result.found
    return {
        "kind": kind.value,
        "pictures": pictures,
        "camera_doubted": doubted,
        "dice": result.labelled,
        "found": found,
        "found_share": round(result.recall, 4),
        "reported": result.reported,
        "read_right": result.read_right,
        "read_right_share": round(result.read_right / found, 4) if found else None,
        "not_read": result.not_read,
        "wrong": result.wrong_values,
        "wrong_share": round(result.wrong_values / found, 4) if found else None,
    }


def percent(share: object) -> str:
    return "-" if share is None else f"{100 * float(str(share)):.1f} %"


def show(rows: list[dict[str, object]]) -> None:
    print(
        "| kind | pictures | dice | found | reported (not a die) | read right | not read | wrong |"
        " camera doubted |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['kind']} | {r['pictures']} | {r['dice']} | {percent(r['found_share'])} | "
            f"{r['reported']} ({int(str(r['reported'])) - int(str(r['found']))}) | "
            f"{percent(r['read_right_share'])} | {r['not_read']} | "
            f"{r['wrong']} ({percent(r['wrong_share'])}) | {r['camera_doubted']} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pictures", type=int, default=40, help="pictures per kind (40)")
    parser.add_argument(
        "--kinds", default="all", help="comma list of kinds (default all): "
        + ", ".join(kind.value for kind in SetupKind),
    )  # fmt: skip
    parser.add_argument("--model", type=Path, metavar="DIR", help="a table's enrolled dice")
    parser.add_argument(
        "--values",
        type=Path,
        metavar="FILE",
        help="another value network (ONNX) to read with, e.g. one trained with --hold-out",
    )
    parser.add_argument(
        "--detector",
        type=Path,
        metavar="FILE",
        help="another die-or-not network (ONNX), e.g. one trained with --kinds",
    )
    add_calibrate_option(parser, "top-down, tilted and wide-lens pictures read calibrated")
    parser.add_argument(
        "--board-pictures",
        type=int,
        choices=range(1, 6),
        default=1,
        help="pictures of the board per table (1: in the middle; up to 4 more, half as large, "
        "towards the corners)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object per kind")
    parser.add_argument("--save", type=Path, metavar="DIR", help="one picture per kind here")
    parser.add_argument("--sheet", type=Path, help="a contact sheet of the kinds (JPEG)")
    parser.add_argument(
        "--view-sheet",
        type=Path,
        metavar="FILE",
        help="a picture of one tilted table calibrated with a board (JPEG): the board, the "
        "throw read uncalibrated, and read through the board's view",
    )
    args = parser.parse_args()
    try:
        kinds = kinds_named(args.kinds)
        if args.model and args.values:
            raise UserError("--model and --values: give one value network, not two")
        values = ValueClassifier(table_model(args.model) if args.model else args.values)
    except (UserError, EnrolError) as error:
        parser.error(str(error))
    cv2.setNumThreads(1)
    if args.save or args.sheet:
        examples = [with_truth(picture(kind, 0, args.seed)) for kind in kinds]
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            for kind, image in zip(kinds, examples, strict=True):
                cv2.imwrite(str(args.save / f"{kind.value}.png"), image)
        if args.sheet:
            args.sheet.parent.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(args.sheet), contact_sheet(examples), [cv2.IMWRITE_JPEG_QUALITY, 80])
    if args.view_sheet:
        args.view_sheet.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(args.view_sheet), view_sheet(args.seed), [cv2.IMWRITE_JPEG_QUALITY, 85])
    if args.pictures <= 0:
        return
    reader = DiceReader(DieClassifier(args.detector), values=values)
    reader.load()
    rows = [
        row(
            kind,
            args.pictures,
            score_kind(
                kind,
                args.pictures,
                args.seed,
                reader,
                how=args.calibrate,
                board_pictures=args.board_pictures,
            ),
        )
        for kind in kinds
    ]
    if args.json:
        for r in rows:
            print(json.dumps(r))
    else:
        show(rows)


def view_sheet(seed: int, index: int = 3) -> Image:
    """One tilted table: the board lying in its tray, a throw read uncalibrated, the same throw
    read with the calibration the board gave, and the flat picture the reader read."""
    pic = picture(SetupKind.TILTED, index, seed)
    calibration = calibrated(pic, "board", seed * 10_000 + index)
    assert calibration is not None and calibration.view is not None
    board = through_camera(pic, 1, board_on_floor(pic, board_image(*BOARD), BOARD_ACROSS, 8.0))
    plain = DiceReader()
    reader = DiceReader(plain.classifier, calibration, values=plain.values)
    flat_picture = calibration.view.flatten(pic.image)
    flat_reader = DiceReader(plain.classifier, flat_calibration(calibration), values=plain.values)
    flat_seen = annotate(
        flat_picture, flat_reader.read(flat_picture), "4. the flat picture, as the reader reads it"
    )
    tiles = [
        annotate(board, None, "1. a 9x6 board in the empty tray"),
        annotate(pic.image, plain.read(pic.image), "2. a throw, uncalibrated"),
        annotate(pic.image, reader.read(pic.image), "3. the throw, calibrated with the board"),
        cv2.resize(flat_seen, (640, 480), interpolation=cv2.INTER_AREA),
    ]
    return contact_sheet(tiles, across=2, size=(480, 360))


def contact_sheet(tiles: list[Image], across: int = 4, size: tuple[int, int] = (320, 240)) -> Image:
    """The tiles at `size` in rows of `across`, the last row filled out in grey."""
    small = [cv2.resize(tile, size, interpolation=cv2.INTER_AREA) for tile in tiles]
    blank = np.full_like(small[0], 90)
    small += [blank] * (-len(small) % across)
    rows = [np.hstack(small[i : i + across]) for i in range(0, len(small), across)]
    return np.asarray(np.vstack(rows), np.uint8)


if __name__ == "__main__":
    main()
