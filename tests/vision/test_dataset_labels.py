"""The real photos' labels: the five corrected from the source are what the dice show.

tests/data/dice-tray/label-fixes.csv lists each label this copy corrects, with the source's
value beside it (its README says why); these tests keep that record and labels.csv in step,
and check that the committed reader reads each corrected die as its corrected value.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tabletop.vision.evaluate import LabelledDie, load_photo
from tabletop.vision.reader import DiceReader
from tabletop.vision.reading import DieStatus

PHOTOS = Path(__file__).resolve().parents[1] / "data" / "dice-tray"


def label_fixes() -> list[dict[str, str]]:
    with open(PHOTOS / "label-fixes.csv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def labelled_at(labels: list[LabelledDie], fix: dict[str, str]) -> LabelledDie:
    box = tuple(float(fix[key]) for key in ("xmin", "ymin", "xmax", "ymax"))
    (die,) = [d for d in labels if (d.x0, d.y0, d.x1, d.y1) == box]
    return die


def test_every_fix_is_in_the_labels_and_changes_the_value(
    photo_labels: dict[str, list[LabelledDie]],
) -> None:
    fixes = label_fixes()
    assert len(fixes) == 5
    for fix in fixes:
        assert fix["source_value"] != fix["value"], fix
        assert labelled_at(photo_labels[fix["image"]], fix).value == int(fix["value"]), fix


@pytest.mark.parametrize("fix", label_fixes(), ids=lambda fix: fix["image"])
def test_each_corrected_die_is_read_as_its_corrected_value(
    reader: DiceReader, photo_labels: dict[str, list[LabelledDie]], fix: dict[str, str]
) -> None:
    die = labelled_at(photo_labels[fix["image"]], fix)
    reading = reader.read(load_photo(PHOTOS / "images", fix["image"]))
    (there,) = [d for d in reading.dice if die.contains(*d.center)]
    assert there.status is DieStatus.READ, there
    assert there.value == int(fix["value"]), (fix, there)
