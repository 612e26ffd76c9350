"""`tabletop dice enrol`: a table's own dice adapt the value reader (issue 34, item 3)."""

from __future__ import annotations

import csv
import json
import logging
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tabletop.bridge.dice import table_values
from tabletop.vision.classify import COCKED, ValueClassifier, softmax
from tabletop.vision.enrol import (
    COCKED_ROW,
    ENROLMENT_FILE,
    MODEL_FILE,
    DiceRead,
    EnrolError,
    FeatureNetwork,
    Head,
    HeldOutCheck,
    cocked_enrolled,
    enrol,
    fit_head,
    read_labels,
    shipped_model,
    table_model,
    with_head,
)
from tabletop.vision.evaluate import load_labels
from tabletop.vision.runtime import open_network
from tabletop.vision.training.setups import SetupKind, cocked_centres, render_setup

ROOT = Path(__file__).resolve().parents[2]
PHOTOS = ROOT / "tests" / "data" / "dice-tray"


def centres_csv(folder: Path, photos: int) -> Path:
    """An enrolment CSV (image,cx,cy,value) of the first photos of the real set, paths
    relative to the CSV's folder as a person would write them."""
    labels = load_labels(PHOTOS / "labels.csv")
    images = folder / "photos"
    images.mkdir()
    path = folder / "labels.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["image", "cx", "cy", "value"])
        for name in sorted(labels)[:photos]:
            (images / name).write_bytes((PHOTOS / "images" / name).read_bytes())
            for die in labels[name]:
                out.writerow([f"photos/{name}", *die.center, die.value])
    return path


def test_the_labels_say_what_is_wrong_and_where(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("image,cx,cy\na.jpg,1,2\n")
    with pytest.raises(EnrolError, match="must name image,cx,cy,value; missing value"):
        read_labels(path)
    path.write_text("image,cx,cy,value\na.jpg,1,2,5\na.jpg,x,2,5\n")
    with pytest.raises(EnrolError, match="line 3: cx and cy must be pixel numbers"):
        read_labels(path)
    path.write_text("image,cx,cy,value\na.jpg,1,2,7\n")
    with pytest.raises(EnrolError, match="line 2, value: expected a die value 1 to 6 or cocked"):
        read_labels(path)
    path.write_text("image,cx,cy,value\nsub/a.jpg,10.5,20,3\nb.jpg,1,2, Cocked\n")
    die, leaning = read_labels(path)
    assert die.image == tmp_path / "sub" / "a.jpg" and (die.cx, die.cy, die.value) == (10.5, 20, 3)
    assert leaning.value == COCKED


def test_the_head_learns_the_tables_dice_and_moves_cocked_only_with_cocked_dice() -> None:
    network = FeatureNetwork(shipped_model())
    network.load()
    shipped = network.head
    assert shipped is not None and shipped.weights.shape[0] == 7
    rng = np.random.default_rng(1)
    # Features the shipped head reads wrong: each value's dice lie where another's would.
    centres = rng.normal(0, 1, (6, shipped.weights.shape[1])).astype(np.float32)
    values = np.repeat(np.arange(1, 7), 30)
    features = centres[values % 6] + rng.normal(0, 0.05, (len(values), centres.shape[1]))
    features = features.astype(np.float32)
    fitted = fit_head(features, values, shipped)
    assert (fitted.logits(features).argmax(axis=1) == values - 1).mean() > 0.95
    assert np.array_equal(fitted.weights[COCKED_ROW], shipped.weights[COCKED_ROW])
    assert fitted.bias[COCKED_ROW] == shipped.bias[COCKED_ROW]
    # Ten dice labelled cocked, in a place of their own that the shipped head reads as a
    # value: the cocked row learns them, the few weighed as much as one value's many.
    away = -shipped.weights[COCKED_ROW]
    place = 0.1 * np.linalg.norm(centres[0]) * away / np.linalg.norm(away)
    leaning = (place + rng.normal(0, 0.05, (10, centres.shape[1]))).astype(np.float32)
    fitted = fit_head(
        np.concatenate([features, leaning]), np.concatenate([values, np.full(10, COCKED)]), shipped
    )
    assert not np.array_equal(fitted.weights[COCKED_ROW], shipped.weights[COCKED_ROW])
    before = softmax(shipped.logits(leaning))[:, COCKED_ROW].mean()
    after = softmax(fitted.logits(leaning))[:, COCKED_ROW].mean()
    assert before < 0.01 and after > 0.1
    assert (fitted.logits(features).argmax(axis=1) == values - 1).mean() > 0.9


@pytest.mark.parametrize(
    ("shipped", "enrolled", "verdict"),
    [
        ((66, 0, 32), (87, 0, 11), "better"),
        ((141, 6, 30), (141, 3, 33), "better"),  # fewer wrong values, as many right
        ((200, 0, 9), (200, 0, 9), "no better"),
        ((141, 6, 30), (138, 7, 32), "no better"),
        ((200, 0, 9), (201, 2, 6), "trade"),  # a slanted table through its board's view
        ((141, 6, 30), (138, 3, 36), "trade"),
        # A cocked die given a value weighs as a wrong value.
        ((66, 0, 32, 10, 2), (90, 0, 8, 10, 6), "trade"),
        ((66, 0, 32, 10, 6), (90, 0, 8, 10, 2), "better"),
        ((66, 1, 32, 10, 2), (66, 0, 33, 10, 4), "no better"),
    ],
)
def test_the_held_out_check_weighs_dice_read_against_wrong_values(
    shipped: tuple[int, ...], enrolled: tuple[int, ...], verdict: str
) -> None:
    check = HeldOutCheck(5, DiceRead(*shipped), DiceRead(*enrolled))
    assert check.verdict == verdict
    assert check.to_json()["verdict"] == verdict


def test_the_held_out_check_sees_a_wide_lens_table_gain_from_its_own_dice(tmp_path: Path) -> None:
    """Twelve photos of a rendered wide-lens table (its dice squeezed at the edges): the
    shipped reader leaves about a third unread there, and a model fitted to the other photos'
    dice reads more of each photo it never saw (bench/vision_enrol.py: 66 -> 87 of 98)."""
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
    checked: list[str] = []
    report = enrol(tmp_path / "labels.csv", tmp_path / "table", checking=checked.append)
    check = report.held_out
    assert check is not None and check.folds == 5 and len(checked) == 12
    for read in (check.shipped, check.enrolled):
        assert read.right + read.wrong + read.not_read == dice
    assert check.enrolled.right > check.shipped.right + dice // 10
    assert check.enrolled.wrong <= 1


def test_dice_labelled_cocked_are_learnt_and_counted_by_the_check(tmp_path: Path) -> None:
    """A wide-lens table whose photos hold a few dice leaning on something, labelled cocked:
    the cocked row learns them, and the check counts those the reader gave a value."""
    rows = ["image,cx,cy,value"]
    flat = leaning = 0
    for index in range(12):
        pic = render_setup(
            SetupKind.WIDE_LENS, np.random.default_rng([6, index]), 600 + index, cocked=1
        )
        cv2.imwrite(str(tmp_path / f"w{index}.png"), pic.image)
        rows += [
            f"w{index}.png,{(b.x0 + b.x1) / 2},{(b.y0 + b.y1) / 2},{b.value}" for b in pic.truth
        ]
        rows += [f"w{index}.png,{cx},{cy},cocked" for cx, cy in cocked_centres(pic)]
        flat += len(pic.truth)
        leaning += len(cocked_centres(pic))
    assert leaning == 12
    (tmp_path / "labels.csv").write_text("\n".join(rows) + "\n")
    report = enrol(tmp_path / "labels.csv", tmp_path / "table")
    record = json.loads((tmp_path / "table" / ENROLMENT_FILE).read_text())
    assert report.cocked == record["cocked_dice"] == leaning and report.dice == flat + leaning
    check = report.held_out
    assert check is not None
    for read in (check.shipped, check.enrolled):
        assert read.right + read.wrong + read.not_read == flat
        assert read.cocked == leaning and 0 <= read.cocked_given <= leaning
    assert record["held_out"]["enrolled"]["cocked_given_a_value"] == check.enrolled.cocked_given
    assert cocked_enrolled(tmp_path / "table") == leaning
    # The table's head calls more of its own leaning dice cocked than the shipped one does.
    assert report.enrolled_right > report.shipped_right


def test_a_new_head_is_written_into_the_model_that_both_runtimes_read() -> None:
    model = shipped_model()
    network = FeatureNetwork(model)
    network.load()
    assert network.head is not None
    head = Head(network.head.weights * 0.5, network.head.bias + 0.25)
    table = with_head(model, network.head, head)
    assert len(table) == len(model) and table != model
    crops = [np.full((40, 40, 3), v, np.uint8) for v in (30, 128, 220)]
    features = network.features(crops)
    from tabletop.vision.classify import to_blob

    for runtime in ("onnxruntime", "opencv"):
        logits = open_network(table, "table", runtime)(to_blob(crops)).reshape(3, 7)
        assert np.allclose(logits, head.logits(features), atol=1e-3), runtime
    with pytest.raises(EnrolError, match="plain bytes"):
        with_head(model[:100], network.head, head)


def test_enrolling_real_photos_writes_a_table_model_the_reader_and_bridge_use(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    labels = centres_csv(tmp_path, 3)
    steps: list[str] = []
    # Kept whatever its check says (the shipped reader reads these photos already: the
    # folder would keep it; tests/vision/test_enrol_keeps_better.py).
    report = enrol(labels, tmp_path / "table", step=steps.append, keep_fit=True)
    assert len(steps) == 3 and report.photos == 3 and report.dice >= 10
    assert report.dice_sized_by_the_reader == report.dice  # the reader found each die
    assert report.looks == report.dice * 3 * 4  # three sizes, four turns
    record = json.loads((tmp_path / "table" / ENROLMENT_FILE).read_text())
    assert record["dice"] == report.dice
    assert record["looks_read_right"]["enrolled"] >= record["looks_read_right"]["shipped"] - 2
    check = record["held_out"]  # three photos: each left out once
    assert check["folds"] == 3
    assert sum(check["enrolled"].values()) == sum(check["shipped"].values()) == report.dice
    assert check["shipped"]["right"] >= report.dice - 1  # the shipped reader knows these
    model = table_model(tmp_path / "table")
    assert model == tmp_path / "table" / MODEL_FILE
    with caplog.at_level(logging.WARNING, logger="tabletop.bridge.dice"):
        assert isinstance(table_values(str(tmp_path / "table")), ValueClassifier)
    assert "was enrolled with no die labelled cocked" in caplog.text
    caplog.clear()
    # A table whose enrolment folder is gone still reads dice, and the log says why.
    with caplog.at_level(logging.WARNING, logger="tabletop.bridge.dice"):
        fallback = table_values(str(tmp_path / "nowhere"))
    assert fallback.model_path is None
    assert "holds no enrolled table" in caplog.text


def test_an_enrolment_of_another_shipped_model_is_refused_in_words(tmp_path: Path) -> None:
    folder = tmp_path / "table"
    folder.mkdir()
    (folder / MODEL_FILE).write_bytes(shipped_model())
    (folder / ENROLMENT_FILE).write_text(json.dumps({"shipped_model_sha256": "0" * 64}))
    with pytest.raises(EnrolError, match="another version of the shipped dice model"):
        table_model(folder)


def tabletop(*words: str) -> subprocess.CompletedProcess[str]:
    """Runs `tabletop WORDS` as a person would, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "tabletop", *words],
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


@pytest.mark.slow
def test_dice_enrol_and_read_on_the_command_line(tmp_path: Path) -> None:
    labels = centres_csv(tmp_path, 2)
    enrolled = tabletop("dice", "enrol", "--labels", str(labels), "--out", str(tmp_path / "t"))
    assert enrolled.returncode == 0, enrolled.stderr
    # progress, a line per photo enrolled, then per photo the check read again
    assert "photos enrolled, then checked: 4/4" in enrolled.stderr
    assert enrolled.stdout.startswith("enrolled ")
    assert "On photos it did not learn from (2 fits" in enrolled.stdout
    assert "No die in these photos is labelled cocked" in enrolled.stdout
    # The shipped reader already reads these photos: the folder keeps it, and says so.
    assert f"so {tmp_path / 't'} keeps the shipped reader" in enrolled.stdout
    assert "unsure of" in enrolled.stdout
    photo = next((tmp_path / "photos").iterdir())
    read = tabletop("dice", "read", "--json", "--model", str(tmp_path / "t"), str(photo))
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout)["dice"]
    missing = tabletop("dice", "read", "--model", str(tmp_path / "none"), str(photo))
    assert missing.returncode != 0 and "holds no enrolled table" in missing.stderr
