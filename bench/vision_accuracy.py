"""Accuracy of the dice reader on the real photos, and a picture of what it reports.

    .venv/bin/python bench/vision_accuracy.py [--picture docs/images/vision-annotated.jpg]

Prints the score of the committed model on all 200 photos of tests/data/dice-tray (which it
was trained on: an upper bound) next to the cross-validated score written by the training run
(src/tabletop/vision/training/cv.json: every photo read by a model that never saw it), with
confusion matrices. Rows are the true value; columns the value read, "-" for found but not read
(cocked/unreadable: honest, no value) and "miss" for not found.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from tabletop.vision.annotate import annotate
from tabletop.vision.evaluate import load_labels, score_photos
from tabletop.vision.progress import progress
from tabletop.vision.reader import DiceReader
from tabletop.vision.reading import FrameReading

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = ROOT / "tests" / "data" / "dice-tray"
CV_REPORT = ROOT / "src" / "tabletop" / "vision" / "training" / "cv.json"


def show(title: str, summary: dict[str, object]) -> None:
    print(f"\n{title}")
    for key in ("labelled", "reported", "found", "recall", "precision", "read_right"):
        print(f"  {key:12} {summary[key]}")
    print(f"  {'value_acc':12} {summary['value_accuracy']}  (read right / found)")
    print(f"  {'not_read':12} {summary['not_read']}  (found, reported cocked/unreadable)")
    print(f"  {'wrong':12} {summary['wrong_values']}  (found, reported with a wrong value)")
    print("  true\\read    -     1     2     3     4     5     6  miss")
    confusion = summary["confusion"]
    assert isinstance(confusion, list)
    for value in range(1, 7):
        print(f"  {value:9} " + " ".join(f"{n:5}" for n in confusion[value]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--picture", type=Path, help="write a mosaic of annotated photos here")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    labels = load_labels(PHOTOS / "labels.csv")
    reader = DiceReader()
    with progress(len(labels), "photos read") as step:

        def read(image: npt.NDArray[np.uint8]) -> FrameReading:
            reading = reader.read(image)
            step(f"{len(reading.dice)} dice")
            return reading

        score = score_photos(PHOTOS / "images", labels, read)
    show("committed model, all 200 photos (seen in training)", score.summary())
    if CV_REPORT.exists():
        report = json.loads(CV_REPORT.read_text())
        show(f"cross-validated, {report['folds']} folds (each photo unseen by its model)", report)
        if "with_expected_count" in report:
            show(
                "cross-validated, read as the watcher reads a throw of a known size "
                "(a closer look where dice are missing)",
                report["with_expected_count"],
            )
    if args.picture:
        names = ["IMG_20191208_111228.jpg", *sorted(labels)[60:200:47]]
        tiles = []
        for name in names[:4]:
            image = cv2.imread(str(PHOTOS / "images" / name))
            tiles.append(annotate(image, reader.read(image), name))
        mosaic = np.vstack([np.hstack(tiles[:2]), np.hstack(tiles[2:4])])
        args.picture.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(args.picture), mosaic, [cv2.IMWRITE_JPEG_QUALITY, 80])
        print(f"\nwrote {args.picture}")


if __name__ == "__main__":
    main()
