"""Accuracy gate on the 200 real photos in tests/data/dice-tray (a regression floor).

The committed model saw these photos in training, so this is a floor against breaking the
reader, not a measure of how it does on new photos: the held-out (cross-validated) figures are
in docs/vision.md and come from `src/tabletop/vision/training/cross_validate.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tabletop.vision.classify import DieClassifier, ValueClassifier
from tabletop.vision.evaluate import LabelledDie, Score, score_photos
from tabletop.vision.reader import DiceReader

PHOTOS = Path(__file__).resolve().parents[1] / "data" / "dice-tray"
pytestmark = pytest.mark.slow  # reads 200 photos

# Measured with the committed models (docs/vision.md): found 99.60 %, precision 99.46 %,
# read right 99.59 % of found, no wrong value (the 5 wrong values counted until 2026-11-26
# were the 5 dice whose labels were wrong: tests/data/dice-tray/label-fixes.csv). The floors
# sit a little below (without the lone pips the reader finds 99.13 %: under the floor).
MIN_RECALL = 0.994
MIN_PRECISION = 0.99
MIN_VALUE_ACCURACY = 0.995
MAX_WRONG_VALUES = 2


@pytest.fixture(scope="module")
def score(
    _networks: tuple[DieClassifier, ValueClassifier], photo_labels: dict[str, list[LabelledDie]]
) -> Score:
    detector, values = _networks
    return score_photos(PHOTOS / "images", photo_labels, DiceReader(detector, values=values).read)


def test_the_dataset_is_whole(photo_labels: dict[str, list[LabelledDie]]) -> None:
    assert len(photo_labels) == 200
    assert sum(len(d) for d in photo_labels.values()) == 1487


def test_dice_found(score: Score) -> None:
    assert score.recall >= MIN_RECALL, score.summary()
    assert score.precision >= MIN_PRECISION, score.summary()


def test_dice_read_right(score: Score) -> None:
    assert score.value_accuracy >= MIN_VALUE_ACCURACY, score.summary()
    assert score.wrong_values <= MAX_WRONG_VALUES, score.wrong


def test_scores_of_folds_add_up_to_the_whole(
    reader: DiceReader, photo_labels: dict[str, list[LabelledDie]]
) -> None:
    names = sorted(photo_labels)[:6]
    whole = score_photos(PHOTOS / "images", photo_labels, reader.read, names)
    total = score_photos(PHOTOS / "images", photo_labels, reader.read, names[:2])
    total.merge(score_photos(PHOTOS / "images", photo_labels, reader.read, names[2:]))
    assert total.summary() == whole.summary()
    assert total.misses == whole.misses and total.wrong == whole.wrong
