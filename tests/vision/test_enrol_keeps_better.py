"""Enrolment never makes the table worse: the folder keeps the table's model only where the
held-out check finds it better on both counts, the shipped model otherwise, and says so."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from tabletop.vision.enrol import (
    ENROLMENT_FILE,
    FITTED_FILE,
    MODEL_FILE,
    DiceRead,
    cocked_enrolled,
    enrol,
    shipped_model,
    table_model,
)
from tabletop.vision.training.setups import SetupKind, render_setup
from tests.vision.test_dice_enrol import centres_csv


def test_a_fit_no_better_than_the_shipped_reader_is_set_aside(tmp_path: Path) -> None:
    """Three real photos the shipped reader already reads: the fit cannot read more of them
    right, so the folder reads with the shipped model and keeps the fit beside it."""
    report = enrol(centres_csv(tmp_path, 3), tmp_path / "table")
    check = report.held_out
    assert check is not None and check.verdict != "better"
    assert report.kept == "shipped"
    folder = tmp_path / "table"
    assert table_model(folder).read_bytes() == shipped_model()
    assert (folder / FITTED_FILE).read_bytes() != shipped_model()
    record = json.loads((folder / ENROLMENT_FILE).read_text())
    assert record["kept"] == "shipped"
    # The shipped model's cocked dice are as they were: no warning about them is due.
    assert cocked_enrolled(folder) == -1


def test_a_better_fit_is_kept_and_the_check_counts_unsure_dice_apart(tmp_path: Path) -> None:
    """Twelve photos of a rendered wide-lens table, on which the shipped reader leaves many
    dice unread (tests/vision/test_dice_enrol.py): the fit reads more, and is kept."""
    rows = ["image,cx,cy,value"]
    dice = 0
    for index in range(12):
        pic = render_setup(SetupKind.WIDE_LENS, np.random.default_rng([5, index]), 500 + index)
        cv2.imwrite(str(tmp_path / f"w{index}.png"), pic.image)
        rows += [
            f"w{index}.png,{(b.x0 + b.x1) / 2},{(b.y0 + b.y1) / 2},{b.value}" for b in pic.truth
        ]
        dice += len(pic.truth)
    (tmp_path / "labels.csv").write_text("\n".join(rows) + "\n")
    report = enrol(tmp_path / "labels.csv", tmp_path / "table")
    check = report.held_out
    assert check is not None and check.verdict == "better" and report.kept == "table"
    folder = tmp_path / "table"
    assert (folder / MODEL_FILE).read_bytes() == (folder / FITTED_FILE).read_bytes()
    record = json.loads((folder / ENROLMENT_FILE).read_text())["held_out"]
    for name, read in (("shipped", check.shipped), ("enrolled", check.enrolled)):
        counts = record[name]
        parts = ("right", "wrong", "unsure", "called_cocked", "not_found")
        assert sum(counts[part] for part in parts) == dice
        assert counts["unsure"] == read.unsure and read.unsure + read.called_cocked <= read.not_read
    # The shipped reader is unsure of some of these dice (it asks for them, never guesses).
    assert check.shipped.unsure > 0


def test_dice_not_read_are_told_apart_as_unsure_called_cocked_or_not_found() -> None:
    read = DiceRead(right=80, wrong=1, not_read=19, unsure=12, called_cocked=4)
    assert read.not_found == 3
    assert read.to_json()["unsure"] == 12 and read.to_json()["not_found"] == 3
