"""The one-pass reader (issue 34, item 2) beside the staged reader, on the same pictures.

    .venv/bin/python bench/vision_onepass.py --models out/onepass [--value-folds out/folds]
        [--folds 5] [--pictures 40] [--kinds all] [--min-presence 0.4] [--min-confidence 0.9]
        [--json FILE]

`--models DIR` holds what `tabletop.vision.training.train_onepass` writes: a network per fold
(`onepass-foldK-of-N.onnx`) and one trained on every photo (`onepass.onnx`). Three readers:
the one-pass network alone; **found in one pass, read in looks** (the one-pass network's dice,
read by the staged reader's value looks: `DiceReader.read_dice`); and the staged reader as
shipped. Three measures:

1. **Real photos, cross-validated**: each photo read by fold networks that never saw it
   (`tabletop.vision.evaluate.fold_of`, as `tabletop.vision.training.cross_validate` holds them out;
   for the readers that read in looks the value network's folds too, `values-foldK-of-N.onnx` in
   `--value-folds`, which `tabletop.vision.training.train_reader --no-final` writes, and the
   detector's, `foldK-of-N.onnx` from `train_classifier --no-final`, for the third reader and
   the staged one), scored as `src/tabletop/vision/training/cv.json` is. Without the detector's
   folds the staged reader's figures are `cv.json`'s.
2. **Other tables' kinds** (`bench/vision_kinds.py`'s pictures, the same seeds), read with
   `onepass.onnx` and the shipped networks, uncalibrated; no network saw these kinds.
3. **Speed**: one CPU thread, ONNX Runtime, a rendered 640x480 frame of 5 dice (as
   `bench/vision_speed.py` renders them), the median of 40 runs of each reader taken in turn.

Progress on stderr; tables on stdout, and the figures as JSON with `--json`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.vision_kinds import kinds_named, labelled, percent, picture, row  # noqa: E402
from bench.vision_speed import timed_side_by_side  # noqa: E402
from tabletop.hardware.camera.render import random_scene, render  # noqa: E402
from tabletop.vision.classify import NO_DIE, DieClassifier, ValueClassifier  # noqa: E402
from tabletop.vision.evaluate import Score, fold_of, load_labels, load_photo  # noqa: E402
from tabletop.vision.locate import Candidate  # noqa: E402
from tabletop.vision.onepass import OnePassReader, OnePassSettings  # noqa: E402
from tabletop.vision.progress import progress  # noqa: E402
from tabletop.vision.reader import BOX_PER_SIZE, DiceReader  # noqa: E402
from tabletop.vision.reading import FrameReading  # noqa: E402

PHOTOS = ROOT / "tests" / "data" / "dice-tray"
Image = np.ndarray
READERS = (
    "one pass",
    "found in one pass, read in looks",
    "... kept by the detector",
    "staged",
)


def found_then_read(
    finder: OnePassReader, reader: DiceReader, image: Image, *, detector: bool = False
) -> FrameReading:
    """The one-pass network's dice, whatever it made of them, read by the staged reader's
    value looks (its side: the one-pass box over the staged reader's box per side); with
    `detector`, only those the staged reader's detector takes for dice (`min_die`)."""
    found = finder.read(image).dice
    dice = [
        Candidate(d.center[0], d.center[1], (d.box[2] - d.box[0]) / BOX_PER_SIZE, 1.0)
        for d in found
    ]
    if detector and dice:
        die = 1.0 - reader.classifier.score(image, dice)[:, NO_DIE]
        dice = [c for c, p in zip(dice, die, strict=True) if p >= reader.settings.min_die]
    return reader.read_dice(image, dice)


def cross_validated(
    models: Path, value_folds: Path | None, folds: int, settings: OnePassSettings
) -> dict[str, Score]:
    """The real photos, each read by fold networks that never saw it: the one pass alone,
    and (with `value_folds`) found in one pass and read in looks; where the detector's folds
    (`foldK-of-N.onnx`) lie beside the value network's, kept by the detector too, and the
    staged reader itself with the same folds."""
    labels = load_labels(PHOTOS / "labels.csv")
    totals = {READERS[0]: Score()}
    if value_folds is not None:
        totals[READERS[1]] = Score()
    detector_folds = value_folds is not None and (value_folds / f"fold0-of-{folds}.onnx").exists()
    if detector_folds:
        totals[READERS[2]] = Score()
        totals[READERS[3]] = Score()
    with progress(folds, "cross-validated") as step:
        for fold in range(folds):
            finder = OnePassReader(models / f"onepass-fold{fold}-of-{folds}.onnx", settings)
            looks = None
            if value_folds is not None:
                values = ValueClassifier(value_folds / f"values-fold{fold}-of-{folds}.onnx")
                detector = DieClassifier(value_folds / f"fold{fold}-of-{folds}.onnx")
                looks = DiceReader(detector if detector_folds else None, values=values)
            for name in sorted(n for n in labels if fold_of(n, folds) == fold):
                image = load_photo(PHOTOS / "images", name)
                totals[READERS[0]].add(name, labels[name], finder.read(image))
                if looks is not None:
                    totals[READERS[1]].add(
                        name, labels[name], found_then_read(finder, looks, image)
                    )
                if looks is not None and detector_folds:
                    totals[READERS[2]].add(
                        name, labels[name], found_then_read(finder, looks, image, detector=True)
                    )
                    totals[READERS[3]].add(name, labels[name], looks.read(image))
            one = totals[READERS[0]]
            step(f"fold {fold}: one pass so far found {one.found}, right {one.read_right}")
    return totals


def summary(score: Score) -> dict[str, object]:
    found = score.found
    return {
        "dice": score.labelled,
        "found": found,
        "reported": score.reported,
        "read_right": score.read_right,
        "read_right_share": round(score.read_right / found, 4) if found else None,
        "not_read": score.not_read,
        "wrong": score.wrong_values,
    }


def speed(finder: OnePassReader, staged: DiceReader) -> dict[str, float]:
    """Median milliseconds to read a 5-dice 640x480 frame, each reader in turn."""
    rng = np.random.default_rng(2026)
    frames = [render(random_scene(rng, 5, die_size=36), seed=k) for k in range(8)]
    cycle = iter(range(10**9))
    runs: list[Callable[[], object]] = [
        lambda: finder.read(frames[next(cycle) % 8]),
        lambda: found_then_read(finder, staged, frames[next(cycle) % 8]),
        lambda: found_then_read(finder, staged, frames[next(cycle) % 8], detector=True),
        lambda: staged.read(frames[next(cycle) % 8]),
    ]
    for run in runs:
        run()
    timed = timed_side_by_side(runs, 40)
    return {name: round(median, 1) for name, (median, _) in zip(READERS, timed, strict=True)}


def three(rows: dict[str, dict[str, object]], key: str) -> str:
    """One figure of the three readers, as percentages in READERS' order."""
    return " / ".join(f"{percent(rows[name][key]):>6}" for name in READERS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, required=True)
    parser.add_argument(
        "--value-folds",
        type=Path,
        default=ROOT / "out" / "folds",
        help="the value network's fold models (values-foldK-of-N.onnx); skipped when absent",
    )
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--pictures", type=int, default=40, help="pictures of each kind")
    parser.add_argument("--kinds", default="all", help="comma list of kinds, or all, or none")
    parser.add_argument("--seed", type=int, default=1, help="the kinds' seed (vision_kinds's)")
    defaults = OnePassSettings()
    parser.add_argument("--min-presence", type=float, default=defaults.min_presence)
    parser.add_argument("--min-confidence", type=float, default=defaults.min_confidence)
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    settings = OnePassSettings(min_presence=args.min_presence, min_confidence=args.min_confidence)
    report: dict[str, object] = {"settings": {k: str(v) for k, v in vars(args).items()}}

    value_folds = args.value_folds
    if not (value_folds / f"values-fold0-of-{args.folds}.onnx").exists():
        print(f"no value network folds in {value_folds}: the second reader is not cross-validated")
        value_folds = None
    scores = {
        name: summary(score)
        for name, score in cross_validated(args.models, value_folds, args.folds, settings).items()
    }
    staged_cv = json.loads(
        (ROOT / "src" / "tabletop" / "vision" / "training" / "cv.json").read_text()
    )
    scores.setdefault(
        READERS[3],
        {
            "dice": staged_cv["labelled"],
            "found": staged_cv["found"],
            "reported": staged_cv["reported"],
            "read_right": staged_cv["read_right"],
            "not_read": staged_cv["not_read"],
            "wrong": staged_cv["wrong_values"],
        },
    )
    report["real_photos"] = scores
    print(f"{'real photos, cross-validated':34} {'found':>6} {'reported':>9} {'read right':>11}"
          f" {'not read':>9} {'wrong':>6}")  # fmt: skip
    for name, figures in scores.items():
        print(
            f"  {name:32} {figures['found']:>6} {figures['reported']:>9}"
            f" {figures['read_right']:>11} {figures['not_read']:>9} {figures['wrong']:>6}"
        )

    finder = OnePassReader(args.models / "onepass.onnx", settings)
    staged = DiceReader()
    if args.kinds != "none":
        kinds = []
        print(
            f"{'kind':14} {'found':>26} {'read right':>26} {'wrong':>23}   ({' / '.join(READERS)})"
        )
        for kind in kinds_named(args.kinds):
            scored = {name: Score() for name in READERS}
            with progress(args.pictures, f"{kind.value}: pictures read") as step:
                for index in range(args.pictures):
                    pic = picture(kind, index, args.seed)
                    name, truth = f"{kind.value}-{index:03d}", labelled(pic)
                    scored[READERS[0]].add(name, truth, finder.read(pic.image))
                    scored[READERS[1]].add(name, truth, found_then_read(finder, staged, pic.image))
                    scored[READERS[2]].add(
                        name, truth, found_then_read(finder, staged, pic.image, detector=True)
                    )
                    scored[READERS[3]].add(name, truth, staged.read(pic.image))
                    step(f"{len(pic.truth)} dice")
            rows = {name: row(kind, args.pictures, (score, 0)) for name, score in scored.items()}
            kinds.append({"kind": kind.value, **rows})

            print(f"{kind.value:14} {three(rows, 'found_share')}"
                  f" {three(rows, 'read_right_share')} {three(rows, 'wrong_share')}")  # fmt: skip
        report["kinds"] = kinds
    report["speed_ms"] = speed(finder, staged)
    print(f"5-dice 640x480 frame, one thread, median ms: {report['speed_ms']}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
