"""What each stage of the dice reader earns: the reader read with one stage turned off at a time.

    .venv/bin/python bench/vision_stages.py --photos [--fold-models out/folds] [--folds 5 | 0]
    .venv/bin/python bench/vision_stages.py --kinds all [--pictures 40] [--values FILE]
        [--detector FILE] [--seed 1]
    ... [--stages full,no-pips] [--json]

Item 2 of issue 34 asks for one pass a person can follow, keeping of today's stages only what
earns its place. This measures each stage's place: every variant reads the same pictures with
the same networks, and differs from the full reader by one setting of
`tabletop.vision.reader.ReaderSettings` (or, for `expected-count`, by the watcher's closer look
where fewer dice were found than the game expects, `DiceReader.recount`).

`--photos` reads the real photos cross-validated, as `tabletop.vision.training.cross_validate` does:
each photo by the fold models that never saw it (both training scripts' `--fold-models`).
`--photos --folds 0` reads them with the shipped networks (or `--values`, `--detector`), which
were trained on every photo: each stage then rescues fewer dice than on photos never seen.
`--kinds` reads rendered pictures of other tables' kinds (`bench/vision_kinds.py`'s pictures).
Scored as `bench/vision_accuracy.py` scores (`tabletop.vision.evaluate.Score`); the time is the mean
wall time of one `read` on this machine, to compare variants run together, not machines.
Progress on stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from vision_kinds import kinds_named, labelled, picture  # noqa: E402

from tabletop.vision.classify import DieClassifier, ValueClassifier  # noqa: E402
from tabletop.vision.evaluate import LabelledDie, Score, fold_of, load_labels, load_photo  # noqa: E402
from tabletop.vision.progress import progress  # noqa: E402
from tabletop.vision.reader import ALL_TURNS_LOOK, QUICK_LOOK, DiceReader, ReaderSettings  # noqa: E402

Image = npt.NDArray[np.uint8]
PHOTOS = ROOT / "tests" / "data" / "dice-tray"
FULL = ReaderSettings()

# name -> (what is turned off, the settings without it)
STAGES: dict[str, tuple[str, ReaderSettings]] = {
    "full": ("nothing: the reader as shipped", FULL),
    "no-pips": (
        "lone pips (a dark pip off every die found is a white die's centre)",
        dataclasses.replace(FULL, pip_contrast=0.0),
    ),
    "no-shifts": (
        "shifted looks (an unsure die cut again 0.05 and 0.1 of a side off its centre)",
        dataclasses.replace(FULL, shifts=()),
    ),
    "no-agreed": (
        "agreed looks (a die read 0.8 sure whose every look agrees is read)",
        dataclasses.replace(FULL, agreed_confidence=FULL.min_confidence),
    ),
    "no-full-look": (
        "the full look (four sizes, four turns) after the quick and all-turns looks",
        dataclasses.replace(FULL, looks=(QUICK_LOOK, ALL_TURNS_LOOK)),
    ),
    "quick-look-only": (
        "every look but the quick one (the detector's size, two half turns)",
        dataclasses.replace(FULL, looks=(QUICK_LOOK,)),
    ),
    "no-cocked-join": (
        "joining a die not read to a cocked die within a side (its side face)",
        dataclasses.replace(FULL, cocked_reach=0.0),
    ),
    "expected-count": (
        "(added, not removed) the watcher's closer look when fewer dice than expected are found",
        FULL,
    ),
}

Example = tuple[str, Image, list[LabelledDie]]


def real_photos(folds: int) -> Iterator[tuple[int, Example]]:
    """Every labelled real photo with its fold."""
    labels = load_labels(PHOTOS / "labels.csv")
    for name in sorted(labels):
        yield fold_of(name, folds), (name, load_photo(PHOTOS / "images", name), labels[name])


def kind_pictures(kinds: str, pictures: int, seed: int) -> Iterator[tuple[int, Example]]:
    """The pictures `bench/vision_kinds.py` reads, all in fold 0."""
    for kind in kinds_named(kinds):
        for index in range(pictures):
            pic = picture(kind, index, seed)
            yield 0, (f"{kind.value}-{index:03d}", pic.image, labelled(pic))


def score(
    examples: list[tuple[int, Example]],
    readers: Callable[[ReaderSettings], dict[int, DiceReader]],
    stage: str,
) -> dict[str, object]:
    settings = STAGES[stage][1]
    by_fold = readers(settings)
    total = Score()
    seconds = 0.0
    for reader in by_fold.values():  # the first read pays for warming up, not the stage
        reader.read(examples[0][1][1])
    with progress(len(examples), f"{stage}: pictures read") as step:
        for fold, (name, image, truth) in examples:
            reader = by_fold[fold]
            start = time.perf_counter()
            reading = reader.read(image)
            if stage == "expected-count":
                reading = reader.recount(image, reading, len(truth))
            seconds += time.perf_counter() - start
            total.add(name, truth, reading)
            step(name)
    found = total.found
    return {
        "stage": stage,
        "turned_off": STAGES[stage][0],
        "dice": total.labelled,
        "found": found,
        "reported": total.reported,
        "read_right": total.read_right,
        "not_read": total.not_read,
        "wrong": total.wrong_values,
        "read_right_share": round(total.read_right / found, 4) if found else None,
        "ms_per_picture": round(1000 * seconds / max(1, len(examples)), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--photos", action="store_true", help="the real photos, cross-validated")
    where.add_argument("--kinds", help="rendered kinds of picture (a comma list, or all)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--fold-models", type=Path, default=ROOT / "out" / "folds")
    parser.add_argument("--pictures", type=int, default=40, help="pictures per kind (40)")
    parser.add_argument("--values", type=Path, help="a value network (ONNX), without folds")
    parser.add_argument("--detector", type=Path, help="a die-or-not network (ONNX), without folds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--stages", default=",".join(STAGES), help="comma list of: " + ", ".join(STAGES)
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per stage")
    args = parser.parse_args()
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        parser.error(f"unknown stage {', '.join(unknown)}; the stages: {', '.join(STAGES)}")
    cv2.setNumThreads(1)
    if args.photos and args.folds > 0:
        examples = list(real_photos(args.folds))
        networks = {
            fold: (
                DieClassifier(args.fold_models / f"fold{fold}-of-{args.folds}.onnx"),
                ValueClassifier(args.fold_models / f"values-fold{fold}-of-{args.folds}.onnx"),
            )
            for fold in range(args.folds)
        }
    else:
        if args.photos:  # --folds 0: one pair of networks (they may have seen the photos)
            examples = [(0, example) for _, example in real_photos(1)]
        else:
            examples = list(kind_pictures(args.kinds, args.pictures, args.seed))
        networks = {0: (DieClassifier(args.detector), ValueClassifier(args.values))}

    def readers(settings: ReaderSettings) -> dict[int, DiceReader]:
        made = {
            fold: DiceReader(detector, values=values, settings=settings)
            for fold, (detector, values) in networks.items()
        }
        for reader in made.values():
            reader.load()
        return made

    rows = [score(examples, readers, stage) for stage in stages]
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return
    print("| turned off | found | reported | read right | not read | wrong | ms a picture |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        share = r["read_right_share"]
        shown = "-" if share is None else f"{100 * float(str(share)):.2f} %"
        print(
            f"| {r['stage']} | {r['found']} of {r['dice']} | {r['reported']} | "
            f"{r['read_right']} ({shown}) | {r['not_read']} | {r['wrong']} | "
            f"{r['ms_per_picture']} |"
        )


if __name__ == "__main__":
    main()
