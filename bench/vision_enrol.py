"""What enrolling a table's own dice does: the reader before and after `tabletop dice enrol`.

    .venv/bin/python bench/vision_enrol.py [--photos 200] [--share 0.1] [--seed 1]

Two tables, each enrolled with a share of its photos (10 % by default) and read on the rest:

- "novel dice": a table the reader has never seen, rendered: dice of looks that no training
  set holds (`NOVEL_DIE_STYLES`), small (26-34 px), with thin pips, seen from the side
  (as from an oblique webcam), under dim light with focus blur, noise and a cheap JPEG.
  One set of dice per table, as at a real table.
- "real photos": the 200 real photos of tests/data/dice-tray (the shipped reader was trained
  on all of them, so its figure there is an upper bound; enrolment must not make it worse).

Read right, not read and wrong are counted over the dice found, as `bench/vision_accuracy.py`
counts them. `--kinds` adds a table of each kind of picture (`tabletop.vision.training.setups`), and
`--calibrate board` enrols and reads them through each picture's board view, as
`bench/vision_kinds.py --calibrate` does. Progress on stderr.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.vision_cocked import given_over  # noqa: E402
from bench.vision_kinds import add_calibrate_option, calibrated  # noqa: E402
from tabletop.hardware.camera.render import BGR, random_scene, render  # noqa: E402
from tabletop.vision.calibration import Calibration  # noqa: E402
from tabletop.vision.classify import ValueClassifier  # noqa: E402
from tabletop.vision.enrol import FITTED_FILE, enrol  # noqa: E402
from tabletop.vision.evaluate import LabelledDie, Score, load_labels, load_photo  # noqa: E402
from tabletop.vision.progress import progress  # noqa: E402
from tabletop.vision.reader import DiceReader  # noqa: E402
from tabletop.vision.training.setups import SetupKind, cocked_centres, render_setup  # noqa: E402

PHOTOS = ROOT / "tests" / "data" / "dice-tray"
WITH_COCKED = (SetupKind.TOP_DOWN, SetupKind.TILTED, SetupKind.WIDE_LENS, SetupKind.CHEAP_JPEG)
Cocked = dict[str, list[tuple[float, float]]]  # a picture's cocked dice, by their centres
# Body and pip colours (BGR) no training set of ours holds.
NOVEL_DIE_STYLES: tuple[tuple[BGR, BGR], ...] = (
    ((180, 130, 230), (40, 30, 90)),  # pink, dark red pips
    ((170, 170, 60), (250, 250, 250)),  # teal, white pips
    ((130, 130, 130), (60, 200, 60)),  # grey, green pips
    ((60, 190, 220), (30, 30, 160)),  # gold, red pips
)


def novel_table(folder: Path, photos: int, seed: int) -> dict[str, list[LabelledDie]]:
    """Renders a table the reader never saw; writes the photos and returns their labels."""
    rng = np.random.default_rng(seed)
    labels: dict[str, list[LabelledDie]] = {}
    for index in range(photos):
        scene = random_scene(
            rng,
            int(rng.integers(3, 7)),
            die_size=float(rng.uniform(26, 34)),
            styles=NOVEL_DIE_STYLES,
        )
        dice = tuple(
            replace(
                die,
                pip_radius=0.12,
                lean=(float(rng.uniform(0.4, 0.6)), float(rng.uniform(0.2, 0.4))),
                translucent=0.0,
            )
            for die in scene.dice
        )
        scene = replace(scene, dice=dice, light=0.6, focus_blur=1.0, noise=6.0)
        name = f"novel-{index:03d}.jpg"
        # a cheap webcam's JPEG
        cv2.imwrite(str(folder / name), render(scene, seed=index), [cv2.IMWRITE_JPEG_QUALITY, 60])
        half = [d.size / 2 for d in dice]
        labels[name] = [
            LabelledDie(d.x - h, d.y - h, d.x + h, d.y + h, d.value)
            for d, h in zip(dice, half, strict=True)
        ]
    return labels


def kind_table(
    folder: Path,
    photos: int,
    seed: int,
    kind: SetupKind,
    *,
    calibrate: str = "none",
    board_pictures: int = 1,
    cocked_every: int = 0,
) -> tuple[dict[str, list[LabelledDie]], dict[str, Calibration], Cocked]:
    """Renders a table of one kind of picture (`tabletop.vision.training.setups`: a tilted camera, a
    wide lens, ...); writes the photos and returns their labels, and with `calibrate` (tray
    or board: `bench/vision_kinds.py --calibrate`) each photo's calibration (a picture of a
    kind is its own camera). With `cocked_every` N, every Nth picture holds one die leaning on
    something as well, returned by its centre (top-down, tilted, wide-lens and cheap-jpeg
    tables only)."""
    labels: dict[str, list[LabelledDie]] = {}
    calibrations: dict[str, Calibration] = {}
    cocked: Cocked = {}
    for index in range(photos):
        leaning = int(cocked_every > 0 and index % cocked_every == 0)
        picture = render_setup(
            kind, np.random.default_rng([seed, 7, index]), seed * 7919 + index, cocked=leaning
        )
        name = f"{kind.value}-{index:03d}.png"
        cv2.imwrite(str(folder / name), picture.image)
        labels[name] = [LabelledDie(b.x0, b.y0, b.x1, b.y1, b.value) for b in picture.truth]
        if leaning:
            cocked[name] = cocked_centres(picture)
        calibration = calibrated(picture, calibrate, seed * 7919 + index, board_pictures)
        if calibration is not None:
            calibrations[name] = calibration
    return labels, calibrations, cocked


def write_centres(
    path: Path, folder: Path, labels: dict[str, list[LabelledDie]], cocked: Cocked
) -> None:
    """The enrolment CSV a person would write: each die's centre and value, a leaning die's
    value `cocked`."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["image", "cx", "cy", "value"])
        for name, dice in sorted(labels.items()):
            rows = [(*die.center, str(die.value)) for die in dice]
            rows += [(cx, cy, "cocked") for cx, cy in cocked.get(name, [])]
            for cx, cy, value in rows:
                out.writerow([str(folder / name), f"{cx:.1f}", f"{cy:.1f}", value])


def score(
    folder: Path,
    labels: dict[str, list[LabelledDie]],
    names: list[str],
    reader: DiceReader,
    *,
    calibrations: dict[str, Calibration] | None = None,
    cocked: Cocked | None = None,
) -> tuple[Score, int]:
    """The photos `names` read with `reader`'s networks, each with its calibration if any,
    and how many of their cocked dice were given a value."""
    total = Score()
    given = 0
    with progress(len(names), "photos read") as step:
        for name in names:
            calibration = (calibrations or {}).get(name)
            if calibration is not None:
                reader = DiceReader(reader.classifier, calibration, values=reader.values)
            reading = reader.read(load_photo(folder, name))
            total.add(name, labels[name], reading)
            given += given_over((cocked or {}).get(name, []), reading)
            step(f"{len(reading.dice)} dice")
    return total, given


def words(scored: tuple[Score, int], cocked: int) -> dict[str, object]:
    result, given = scored
    found = result.found
    return {
        "found": found,
        "read_right": result.read_right,
        "read_right_share": round(result.read_right / found, 4) if found else None,
        "not_read": result.not_read,
        "wrong": result.wrong_values,
        "wrong_share": round(result.wrong_values / found, 4) if found else None,
        **({"cocked": cocked, "cocked_given_a_value": given} if cocked else {}),
    }


def measure(
    what: str,
    folder: Path,
    labels: dict[str, list[LabelledDie]],
    share: float,
    seed: int,
    *,
    calibrations: dict[str, Calibration] | None = None,
    cocked: Cocked | None = None,
    label_cocked: bool = True,
) -> dict[str, object]:
    cocked = cocked or {}
    names = sorted(labels)
    random.Random(seed).shuffle(names)
    count = max(1, round(share * len(names)))
    enrolled, held = sorted(names[:count]), sorted(names[count:])
    with tempfile.TemporaryDirectory(prefix="tabletop-enrol-bench-") as scratch:
        csv_path = Path(scratch) / "labels.csv"
        write_centres(
            csv_path, folder, {n: labels[n] for n in enrolled}, cocked if label_cocked else {}
        )
        started = time.monotonic()
        with progress(len(enrolled), f"{what}: photos enrolled") as step:
            known = calibrations or {}
            report = enrol(
                csv_path,
                Path(scratch) / "table",
                step=step,
                calibration_of=lambda p: known.get(p.name),
            )
        seconds = time.monotonic() - started
        # The table's fit, kept in the folder or not (`kept` says which the folder reads with).
        table = Path(scratch) / "table" / FITTED_FILE
        before = score(folder, labels, held, DiceReader(), calibrations=calibrations, cocked=cocked)
        enrolled_reader = DiceReader(values=ValueClassifier(table))
        after = score(
            folder, labels, held, enrolled_reader, calibrations=calibrations, cocked=cocked
        )
        held_cocked = sum(len(cocked.get(name, [])) for name in held)
    return {
        "table": what,
        "photos_enrolled": len(enrolled),
        "dice_enrolled": report.dice,
        "cocked_enrolled": report.cocked,
        "enrol_seconds": round(seconds, 1),
        "photos_read": len(held),
        "shipped": words(before, held_cocked),
        "enrolled": words(after, held_cocked),
        # What `tabletop dice enrol` itself tells the person, from the enrolled photos alone.
        "held_out_check": report.held_out.to_json() if report.held_out is not None else None,
        "kept": report.kept,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=200, help="novel-table renders (200)")
    parser.add_argument("--share", type=float, default=0.1, help="share enrolled (0.1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--novel-only", action="store_true", help="leave out the real photos")
    parser.add_argument(
        "--kinds",
        default="",
        help="also a table of each of these kinds of picture (comma list: "
        + ", ".join(kind.value for kind in SetupKind)
        + "), --photos pictures each",
    )
    add_calibrate_option(
        parser, "the top-down, tilted and wide-lens tables enrolled and read calibrated"
    )
    parser.add_argument(
        "--board-pictures",
        type=int,
        default=1,
        help="with --calibrate board, the pictures of the board each table is shown, moved "
        "towards the corners after the first (1)",
    )
    parser.add_argument(
        "--cocked-every",
        type=int,
        default=0,
        metavar="N",
        help="every Nth picture of a top-down, tilted, wide-lens or cheap-jpeg table also holds "
        "a die leaning on something, labelled cocked when enrolled; the dice read count those "
        "given a value (default 0: none)",
    )
    parser.add_argument(
        "--cocked-unlabelled",
        action="store_true",
        help="with --cocked-every, leave the leaning dice out of the enrolment's labels, as a "
        "person who labels values only would",
    )
    args = parser.parse_args()
    try:
        kinds = [SetupKind(name.strip()) for name in args.kinds.split(",") if name.strip()]
    except ValueError as error:
        parser.error(f"--kinds: {error}")
    cv2.setNumThreads(1)
    results = []
    with tempfile.TemporaryDirectory(prefix="tabletop-novel-") as folder:
        labels = novel_table(Path(folder), args.photos, args.seed)
        results.append(measure("novel dice", Path(folder), labels, args.share, args.seed))
    for kind in kinds:
        with tempfile.TemporaryDirectory(prefix=f"tabletop-{kind.value}-") as folder:
            labels, calibrations, cocked = kind_table(
                Path(folder),
                args.photos,
                args.seed,
                kind,
                calibrate=args.calibrate,
                board_pictures=args.board_pictures,
                cocked_every=args.cocked_every if kind in WITH_COCKED else 0,
            )
            what = kind.value + ("" if args.calibrate == "none" else f", {args.calibrate}")
            results.append(
                measure(
                    what,
                    Path(folder),
                    labels,
                    args.share,
                    args.seed,
                    calibrations=calibrations,
                    cocked=cocked,
                    label_cocked=not args.cocked_unlabelled,
                )
            )
    if not args.novel_only:
        real = load_labels(PHOTOS / "labels.csv")
        results.append(measure("real photos", PHOTOS / "images", real, args.share, args.seed))
    for result in results:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
