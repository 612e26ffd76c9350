"""How the dice reader does on kinds of picture other tables take, each on its own.

    .venv/bin/python bench/vision_kinds.py [--pictures 40] [--kinds tilted,felt] [--model DIR]
        [--values FILE.onnx] [--detector FILE.onnx] [--seed 1] [--json] [--save DIR]
        [--sheet docs/images/setup-kinds.jpg]

Renders `--pictures` pictures of each kind (`hardware.camera.setups.SetupKind`: a tilted
camera, a wide lens, a colour cast, a dim room, a cheap webcam, felt, things in the tray beside
the dice; fixed seeds, so every run reads the same pictures), reads each with the shipped
reader, uncalibrated (or with a table's enrolled value model, `--model DIR`, as `tabletop dice
read --model` does, or another value network, `--values FILE`: one trained with
`vision.training.train_reader --kinds N --hold-out KIND`), and scores it as
`bench/vision_accuracy.py` does (`vision.evaluate.Score`): a labelled die is found when a
reported box centre lies inside its box; read right, not read (unreadable or cocked) and wrong
are counted over the dice found. The reader was trained on top-down pictures only, so each
other kind measures it on a setup it has not seen. "Camera doubted" counts the pictures that,
read as a throw, would make the watcher say the camera may be at a slant (two in three of the
dice look cocked: `vision.watch.slanted_view`). `--save DIR` writes one picture of each kind
with its truth boxes; `--sheet` writes them as one labelled contact sheet. Progress on stderr.
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

from errors import UserError  # noqa: E402
from hardware.camera.setups import SetupKind, SetupPicture, render_setup  # noqa: E402
from vision.classify import DieClassifier, ValueClassifier  # noqa: E402
from vision.enrol import EnrolError, table_model  # noqa: E402
from vision.evaluate import LabelledDie, Score  # noqa: E402
from vision.progress import progress  # noqa: E402
from vision.reader import DiceReader  # noqa: E402
from vision.watch import slanted_view  # noqa: E402

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


def score_kind(kind: SetupKind, pictures: int, seed: int, reader: DiceReader) -> tuple[Score, int]:
    """The kind's pictures scored, and in how many of them the watcher would doubt the camera
    (`vision.watch.slanted_view`: most of a throw's dice look cocked)."""
    total = Score()
    doubted = 0
    with progress(pictures, f"{kind.value}: pictures read") as step:
        for index in range(pictures):
            pic = picture(kind, index, seed)
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
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object per kind")
    parser.add_argument("--save", type=Path, metavar="DIR", help="one picture per kind here")
    parser.add_argument("--sheet", type=Path, help="a contact sheet of the kinds (JPEG)")
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
    if args.pictures <= 0:
        return
    reader = DiceReader(DieClassifier(args.detector), values=values)
    reader.load()
    rows = [row(kind, args.pictures, score_kind(kind, args.pictures, args.seed, reader))
            for kind in kinds]  # fmt: skip
    if args.json:
        for r in rows:
            print(json.dumps(r))
    else:
        show(rows)


def contact_sheet(tiles: list[Image], across: int = 4) -> Image:
    """The tiles at half size in rows of `across`, the last row filled out in grey."""
    small = [cv2.resize(tile, (320, 240), interpolation=cv2.INTER_AREA) for tile in tiles]
    blank = np.full_like(small[0], 90)
    small += [blank] * (-len(small) % across)
    rows = [np.hstack(small[i : i + across]) for i in range(0, len(small), across)]
    return np.asarray(np.vstack(rows), np.uint8)


if __name__ == "__main__":
    main()
