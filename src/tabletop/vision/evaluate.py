"""Scores the reader against labelled photos: dice found, values read right, a confusion matrix.

A labelled die counts as found when a reported die's box centre lies inside its labelled box
(each report matches at most one label; where boxes overlap, nearest centres pair first).
Used by the accuracy gate in the tests, by the cross-validation of the training script and by
`bench/vision_accuracy.py`.
"""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from tabletop.vision.training.setups import DieBox

from .reading import DieStatus, FrameReading

Image = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class LabelledDie(DieBox):
    """One die as labelled by a person: its box and the value on top (a rendered picture's
    `DieBox`, as a person would have boxed it)."""

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1


def load_labels(csv_path: str | Path) -> dict[str, list[LabelledDie]]:
    """Reads `image,xmin,ymin,xmax,ymax,value` rows into dice per image name."""
    labels: dict[str, list[LabelledDie]] = defaultdict(list)
    with open(csv_path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            labels[row["image"]].append(
                LabelledDie(
                    float(row["xmin"]),
                    float(row["ymin"]),
                    float(row["xmax"]),
                    float(row["ymax"]),
                    int(row["value"]),
                )
            )
    return dict(labels)


@dataclass
class Score:
    """Running totals over a set of photos."""

    labelled: int = 0
    reported: int = 0
    found: int = 0
    read_right: int = 0
    not_read: int = 0  # found, but reported UNREADABLE or COCKED: honest, never a wrong value
    unsure: int = 0  # of those, reported UNREADABLE: the table asks for the die
    # confusion[true][reported]: reported 0 = found but not read, 7 = missed entirely
    confusion: list[list[int]] = field(default_factory=lambda: [[0] * 8 for _ in range(7)])
    misses: list[tuple[str, LabelledDie]] = field(default_factory=list)
    wrong: list[tuple[str, LabelledDie, int]] = field(default_factory=list)

    def add(self, name: str, truth: list[LabelledDie], reading: FrameReading) -> None:
        self.labelled += len(truth)
        self.reported += len(reading.dice)
        # Stacked dice have overlapping boxes: pair each label with the nearest report inside
        # it (closest pairs first), so two reports are not matched to each other's labels.
        pairs = sorted(
            (math.dist(label.center, die.center), li, ri)
            for li, label in enumerate(truth)
            for ri, die in enumerate(reading.dice)
            if label.contains(*die.center)
        )
        match_of: dict[int, int] = {}
        taken: set[int] = set()
        for _, li, ri in pairs:
            if li not in match_of and ri not in taken:
                match_of[li] = ri
                taken.add(ri)
        for li, label in enumerate(truth):
            if li not in match_of:
                self.confusion[label.value][7] += 1
                self.misses.append((name, label))
                continue
            match = reading.dice[match_of[li]]
            self.found += 1
            if match.status is not DieStatus.READ or match.value is None:
                self.not_read += 1
                self.unsure += match.status is DieStatus.UNREADABLE
                self.confusion[label.value][0] += 1
            else:
                self.confusion[label.value][match.value] += 1
                if match.value == label.value:
                    self.read_right += 1
                else:
                    self.wrong.append((name, label, match.value))

    def merge(self, other: Score) -> None:
        """Adds another set of photos' totals to these (the folds of a cross-validation)."""
        for part in ("labelled", "reported", "found", "read_right", "not_read", "unsure"):
            setattr(self, part, getattr(self, part) + getattr(other, part))
        for mine, theirs in zip(self.confusion, other.confusion, strict=True):
            for j, count in enumerate(theirs):
                mine[j] += count
        self.misses += other.misses
        self.wrong += other.wrong

    @property
    def recall(self) -> float:
        return self.found / self.labelled if self.labelled else 1.0

    @property
    def precision(self) -> float:
        return self.found / self.reported if self.reported else 1.0

    @property
    def value_accuracy(self) -> float:
        """Of the dice found, the share read with the right value."""
        return self.read_right / self.found if self.found else 1.0

    @property
    def wrong_values(self) -> int:
        return self.found - self.read_right - self.not_read

    def summary(self) -> dict[str, Any]:
        return {
            "labelled": self.labelled,
            "reported": self.reported,
            "found": self.found,
            "recall": round(self.recall, 4),
            "precision": round(self.precision, 4),
            "read_right": self.read_right,
            "value_accuracy": round(self.value_accuracy, 4),
            "not_read": self.not_read,
            "unsure": self.unsure,
            "wrong_values": self.wrong_values,
            "confusion": self.confusion,
        }


def score_photos(
    folder: str | Path,
    labels: dict[str, list[LabelledDie]],
    read: Callable[[Image], FrameReading],
    names: Iterable[str] | None = None,
) -> Score:
    """Reads each labelled photo with `read` and totals the score."""
    score = Score()
    for name in sorted(names if names is not None else labels):
        score.add(name, labels[name], read(load_photo(folder, name)))
    return score


def load_photo(folder: str | Path, name: str) -> Image:
    """A labelled photo as the reader takes it (BGR); FileNotFoundError naming it if unreadable."""
    image = cv2.imread(str(Path(folder) / name), cv2.IMREAD_COLOR)
    if image is None:
        raise FileNotFoundError(f"cannot read photo {Path(folder) / name}")
    return np.asarray(image, np.uint8)


def fold_of(name: str, folds: int) -> int:
    """The cross-validation fold of a photo: stable, from its name alone."""
    return sum(name.encode()) % folds
