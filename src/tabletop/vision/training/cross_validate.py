"""Scores the whole reader on every real photo with models that never saw it; writes cv.json.

    .venv/bin/python -m tabletop.vision.training.cross_validate [--folds 5]
    .venv/bin/python -m tabletop.vision.training.cross_validate --min-confidence 0.8 --report
    out/cv-0.8.json

Needs the fold models that the two training scripts keep in out/folds/ (detector
`foldK-of-N.onnx`, value reader `values-foldK-of-N.onnx`; the detector's may lie elsewhere,
`--detector-models`). Runs with OpenCV only, so the
reader's rules (thresholds, looks) can be tuned and re-scored without training again.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

from tabletop.vision.classify import DieClassifier, ValueClassifier
from tabletop.vision.evaluate import Score, fold_of, load_labels, load_photo
from tabletop.vision.progress import progress
from tabletop.vision.reader import DiceReader, ReaderSettings

ROOT = Path(__file__).resolve().parents[4]
PHOTOS = ROOT / "tests" / "data" / "dice-tray"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--fold-models", type=Path, default=ROOT / "out" / "folds")
    parser.add_argument(
        "--detector-models",
        type=Path,
        help="where the detector's fold models are, if not beside the value reader's"
        " (tabletop.vision.training.parallel shares one detector between recipes)",
    )
    parser.add_argument(
        "--report", type=Path, default=ROOT / "src" / "tabletop" / "vision" / "training" / "cv.json"
    )
    parser.add_argument(
        "--labels",
        type=Path,
        default=PHOTOS / "labels.csv",
        help="the labels to score against (the source's, without the five fixes, say)",
    )
    defaults = ReaderSettings()
    parser.add_argument(
        "--min-confidence",
        type=float,
        default=defaults.min_confidence,
        help="ReaderSettings.min_confidence: below this a die is unreadable",
    )
    parser.add_argument(
        "--agreed-confidence",
        type=float,
        default=defaults.agreed_confidence,
        help="ReaderSettings.agreed_confidence: a die read this sure whose looks agree is read",
    )
    args = parser.parse_args()
    settings = ReaderSettings(
        min_confidence=args.min_confidence, agreed_confidence=args.agreed_confidence
    )
    cv2.setNumThreads(1)
    labels = load_labels(args.labels)
    total, counted = Score(), Score()
    with progress(args.folds, "cross-validation") as step:
        for fold in range(args.folds):
            detector = (
                args.detector_models or args.fold_models
            ) / f"fold{fold}-of-{args.folds}.onnx"
            values = args.fold_models / f"values-fold{fold}-of-{args.folds}.onnx"
            reader = DiceReader(
                DieClassifier(detector), values=ValueClassifier(values), settings=settings
            )
            names = [n for n in labels if fold_of(n, args.folds) == fold]
            score = Score()
            for name in sorted(names):
                image = load_photo(PHOTOS / "images", name)
                reading = reader.read(image)
                score.add(name, labels[name], reading)
                # The same photo read as the watcher reads a throw whose size the game's
                # prompt gives (tabletop.vision.watch): a closer look where fewer dice were found.
                counted.add(name, labels[name], reader.recount(image, reading, len(labels[name])))
            summary = score.summary()
            total.merge(score)
            step(
                f"fold {fold} ({len(names)} photos): found {summary['found']}, "
                f"read right {summary['read_right']}, wrong {summary['wrong_values']}"
            )
    report = {
        "folds": args.folds,
        "min_confidence": settings.min_confidence,
        "agreed_confidence": settings.agreed_confidence,
        **total.summary(),
        "misses": [[name, die.value] for name, die in total.misses],
        "wrong": [[name, die.value, read] for name, die, read in total.wrong],
        "with_expected_count": {
            **counted.summary(),
            "misses": [[name, die.value] for name, die in counted.misses],
            "wrong": [[name, die.value, read] for name, die, read in counted.wrong],
        },
    }
    args.report.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({"alone": total.summary(), "with_expected_count": counted.summary()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
