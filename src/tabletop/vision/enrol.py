"""Adapts the value reader to one table's own dice, light and camera (`tabletop dice enrol`).

A table is enrolled from photos of its own tray, each die given by its centre and value (a CSV
`image,cx,cy,value`, pixel coordinates, image paths relative to the CSV's folder). The shipped
value network's last layer is a linear head over 96 pooled features; enrolment keeps every
layer below it and fits a new head to the table's dice:

- each die is cut as the reader cuts it (`ValueClassifier.looks`: squared up, four quarter
  turns) at three sizes around the die's own, its size taken from the reader's box nearest the
  given centre (a die the reader missed takes the photo's median die size);
- the head is a multinomial logistic regression started from the shipped head and held near
  it (an L2 pull towards the shipped weights), so a few dozen dice adjust it without
  forgetting what the shipped network knows;
- a die leaning on something is labelled `cocked` in place of a value. The head's `cocked`
  row moves only when the photos hold such dice: without them it stays the shipped one, but
  the value rows still rise over it, so a table's model reads more of the dice its camera
  shows at an angle and gives more of its cocked dice a value too (docs/vision.md: on a
  rendered wide-lens table 14 of 43 cocked dice against the shipped reader's 3). Dice leaning
  on the rim or on each other, labelled cocked, teach the table some of what they look like
  on its own camera (9 of 43 there), and the check below counts them;
- the table's model is the shipped ONNX file with the head's weights replaced in place (the
  same bytes, same length), so both runtimes read it as they read the shipped one.

Before a person relies on it, the enrolment checks itself on photos it did not learn from:
the photos are split into up to five folds, a head is fitted without each fold, and that fold's
photos are read by the whole reader, once with the table's model of that fit and once with the
shipped one, and each labelled die scored (`HeldOutCheck`: right, wrong, unsure, called
cocked, not found). On a table where the shipped reader already does well (a slanted camera
through a board's view), a head fitted to a few dozen dice can give more wrong values than it
reads right, and this says so; the folder then keeps the shipped model (`kept`), so enrolling
never makes a table read worse on the photos it was checked on (issue 49).

No clock and no randomness: the same labels give the same model. The work is in seconds on
a laptop and in minutes on a Pi (the reader's pass over each photo), with progress.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from .calibration import Calibration
from .classify import COCKED, VALUE_CLASSES, ValueClassifier, softmax, to_blob
from .errors import VisionError
from .reading import DieStatus
from .view import TableView

Image = npt.NDArray[np.uint8]
Floats = npt.NDArray[np.float32]

ENROL_FORMAT: Final = 1
MODEL_FILE: Final = "dice_values.onnx"  # the model kept for the table, in the enrolment's folder
FITTED_FILE: Final = "fitted_dice_values.onnx"  # the table's own fit, kept or not
KEPT_TABLE: Final = "table"  # enrolment.json's `kept`: the table's fit reads with --model DIR
KEPT_SHIPPED: Final = "shipped"  # ... the shipped model does: the fit was no better
ENROLMENT_FILE: Final = "enrolment.json"  # what was enrolled, and how well it fits
SCALES: Final = (0.9, 1.0, 1.1)  # the sizes each die is cut at, around its own
COCKED_ROW: Final = VALUE_CLASSES - 1  # the head's row for `cocked` (values 1-6 first)
PULL: Final = 0.01  # the L2 pull towards the shipped head, per weight
CHECK_FOLDS: Final = 5  # the held-out check's folds, by photo (fewer with fewer photos)
STEPS: Final = 1000
LEARNING_RATE: Final = 0.5


class EnrolError(VisionError):
    """Enrolment cannot go on: a label file, a photo or the model is not what it needs."""


@dataclass(frozen=True, slots=True)
class EnrolledDie:
    """One die of the table's photos, given by a person: where its centre is, and its value
    (1-6, or COCKED for a die leaning on something)."""

    image: Path
    cx: float
    cy: float
    value: int


@dataclass(frozen=True, slots=True)
class Head:
    """The value network's last, linear layer: logits = features @ weights.T + bias."""

    weights: Floats  # VALUE_CLASSES x features
    bias: Floats  # VALUE_CLASSES

    def logits(self, features: Floats) -> Floats:
        return np.asarray(features @ self.weights.T + self.bias, np.float32)


@dataclass(frozen=True, slots=True)
class DiceRead:
    """How a reader read some labelled dice: right, wrong, and not read (the game would have
    asked for the die again), of which `unsure` were found but not read for sure and
    `called_cocked` found and called cocked (the rest were not found); and of the dice
    labelled cocked, how many it gave a value (each as bad as a wrong value: the game would
    count it)."""

    right: int
    wrong: int
    not_read: int
    cocked: int = 0
    cocked_given: int = 0
    unsure: int = 0
    called_cocked: int = 0

    @property
    def not_found(self) -> int:
        return self.not_read - self.unsure - self.called_cocked

    @property
    def wrong_or_cocked(self) -> int:
        """The dice the game would have been given a value it must not have."""
        return self.wrong + self.cocked_given

    def to_json(self) -> dict[str, int]:
        return {
            "right": self.right,
            "wrong": self.wrong,
            "unsure": self.unsure,
            "called_cocked": self.called_cocked,
            "not_found": self.not_found,
            "cocked": self.cocked,
            "cocked_given_a_value": self.cocked_given,
        }


@dataclass(frozen=True, slots=True)
class HeldOutCheck:
    """The dice of each fold's photos read with a table model fitted without them, and with
    the shipped one: whether enrolling helps this table on photos it has not seen."""

    folds: int
    shipped: DiceRead
    enrolled: DiceRead

    @property
    def verdict(self) -> str:
        """`better` (more read right or fewer wrong, and neither worse), `no better` (neither
        better), or `trade` (one better, the other worse); a cocked die given a value counts
        as a wrong value."""
        gained = self.enrolled.right - self.shipped.right
        spared = self.shipped.wrong_or_cocked - self.enrolled.wrong_or_cocked
        if gained >= 0 and spared >= 0:
            return "better" if gained or spared else "no better"
        if gained <= 0 and spared <= 0:
            return "no better"
        return "trade"

    def to_json(self) -> dict[str, Any]:
        return {
            "folds": self.folds,
            "shipped": self.shipped.to_json(),
            "enrolled": self.enrolled.to_json(),
            "verdict": self.verdict,
        }


@dataclass(frozen=True, slots=True)
class EnrolReport:
    """What an enrolment did: dice and photos used, and how the heads read them."""

    photos: int
    dice: int
    dice_sized_by_the_reader: int
    shipped_right: int  # of the enrolled dice, read right by the shipped head (every look)
    enrolled_right: int  # ... by the table's head
    looks: int
    held_out: HeldOutCheck | None = None  # None with one photo: nothing to leave out
    cocked: int = 0  # of `dice`, those labelled cocked
    kept: str = KEPT_TABLE  # which model the folder reads with (KEPT_TABLE or KEPT_SHIPPED)

    def to_json(self) -> dict[str, Any]:
        return {
            "photos": self.photos,
            "dice": self.dice,
            "cocked_dice": self.cocked,
            "dice_sized_by_the_reader": self.dice_sized_by_the_reader,
            "looks": self.looks,
            "looks_read_right": {"shipped": self.shipped_right, "enrolled": self.enrolled_right},
            "held_out": self.held_out.to_json() if self.held_out is not None else None,
            "kept": self.kept,
        }


def read_labels(csv_path: Path) -> list[EnrolledDie]:
    """The dice of an enrolment CSV (`image,cx,cy,value`); errors name the line and column."""
    try:
        text = csv_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise EnrolError(f"cannot read the labels {csv_path}: {error}") from error
    dice: list[EnrolledDie] = []
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = {"image", "cx", "cy", "value"} - set(reader.fieldnames or ())
    if missing:
        raise EnrolError(
            f"{csv_path}: the header must name image,cx,cy,value; missing "
            + ", ".join(sorted(missing))
        )
    for line, row in enumerate(reader, start=2):
        where = f"{csv_path}, line {line}"
        try:
            cx, cy = float(row["cx"]), float(row["cy"])
        except (TypeError, ValueError):
            raise EnrolError(f"{where}: cx and cy must be pixel numbers") from None
        value = (row["value"] or "").strip()
        if value.lower() == "cocked":
            value = str(COCKED)
        elif value not in {"1", "2", "3", "4", "5", "6"}:
            raise EnrolError(
                f"{where}, value: expected a die value 1 to 6 or cocked, got {value!r}"
            )
        name = (row["image"] or "").strip()
        if not name:
            raise EnrolError(f"{where}, image: empty")
        dice.append(EnrolledDie(csv_path.parent / name, cx, cy, int(value)))
    if not dice:
        raise EnrolError(f"{csv_path}: no dice to enrol")
    return dice


def shipped_model() -> bytes:
    """The value network that ships with the package."""
    model = resources.files("tabletop.vision.model")
    return model.joinpath(ValueClassifier.default_file).read_bytes()


class FeatureNetwork:
    """The value network cut below its head: crops in, pooled features out (OpenCV's dnn)."""

    def __init__(self, model: bytes) -> None:
        self.model = model
        self._net: Any = None
        self._feature_layer = ""
        self.head: Head | None = None

    def load(self) -> None:
        """Reads the network and finds its linear head; EnrolError if it has none."""
        try:
            # The classic engine gives a layer's output by name (the pooled features); it is
            # chosen only when reading from a file (OpenCV 5 reads a buffer with the new one).
            # OpenCV 4 (4.11 on a Pi, to match the OS's numpy) has only the classic engine and
            # no ENGINE_CLASSIC to name it by.
            engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
            with tempfile.TemporaryDirectory(prefix="tabletop-enrol-") as folder:
                path = Path(folder) / MODEL_FILE
                path.write_bytes(self.model)
                if engine is None:
                    net = cv2.dnn.readNetFromONNX(str(path))
                else:
                    net = cv2.dnn.readNetFromONNX(str(path), engine=engine)
        except cv2.error as error:
            raise EnrolError(f"the value model cannot be read: {error}") from error
        names = list(net.getLayerNames())
        for index in range(len(names) - 1, 0, -1):
            blobs = net.getLayer(net.getLayerId(names[index])).blobs
            if len(blobs) == 2 and blobs[0].shape[0] == VALUE_CLASSES and blobs[0].ndim == 2:
                weights = np.asarray(blobs[0], np.float32)
                bias = np.asarray(blobs[1], np.float32).reshape(-1)
                self.head = Head(weights, bias)
                self._feature_layer = names[index - 1]
                break
        else:
            raise EnrolError("the value model has no linear last layer to enrol a table with")
        self._net = net
        # The cut must be exact: the head over the features gives the network's own answer.
        probe = np.full((1, 3, 40, 40), 0.1, np.float32)
        features, logits = self._forward(probe, with_logits=True)
        if not np.allclose(self.head.logits(features), logits, atol=1e-3):
            raise EnrolError("the value model's last layer is not a plain linear head")

    def _forward(self, blob: Floats, *, with_logits: bool = False) -> tuple[Floats, Floats]:
        self._net.setInput(blob)
        names = [self._feature_layer] + (
            [self._net.getUnconnectedOutLayersNames()[0]] if with_logits else []
        )
        outputs = self._net.forward(names)
        features = np.asarray(outputs[0], np.float32).reshape(blob.shape[0], -1)
        logits = np.asarray(outputs[-1], np.float32).reshape(blob.shape[0], -1)
        return features, logits

    def features(self, crops: Sequence[Image]) -> Floats:
        """The pooled features of each crop (one row per crop)."""
        if self._net is None:
            self.load()
        rows = [self._forward(to_blob(crops[i : i + 64]))[0] for i in range(0, len(crops), 64)]
        return np.concatenate(rows) if rows else np.zeros((0, 0), np.float32)


def fit_head(
    features: Floats, values: npt.NDArray[np.int64], start: Head, *, pull: float = PULL
) -> Head:
    """A head fitted to these features and values (1-6, or COCKED), started from and held
    near `start`; the `cocked` row stays as it was unless some of the values are COCKED, and
    then the cocked looks weigh together as much as one value's looks do."""
    if len(features) == 0:
        raise EnrolError("no dice to fit")
    targets = np.zeros((len(values), VALUE_CLASSES), np.float32)
    targets[np.arange(len(values)), values - 1] = 1.0
    weights, bias = start.weights.copy(), start.bias.copy()
    movable = np.ones(VALUE_CLASSES, np.float32)
    weight = np.ones(len(values), np.float32)
    leaning = values == COCKED
    if leaning.any():
        # A table leans a few dice for every hundred it throws flat: weighed look for look,
        # the few freed the cocked row more than they taught it (7 leaning dice among 200: a
        # wide-lens table then gave 17 of 43 cocked dice a value, 14 with none labelled;
        # weighed as one value, 9: docs/notes/vision-history.md).
        weight[leaning] = max(1.0, (~leaning).sum() / (VALUE_CLASSES - 1) / leaning.sum())
        weight /= weight.mean()
    else:
        movable[COCKED_ROW] = 0.0
    # Features on one scale, so one learning rate suits every weight.
    scale = float(np.sqrt((features**2).sum(axis=1).mean())) or 1.0
    for _ in range(STEPS):
        probabilities = softmax(features @ weights.T + bias)
        error = (probabilities - targets) * weight[:, None] / len(values)
        grad_w = error.T @ features / scale**2 + pull * (weights - start.weights)
        grad_b = error.sum(axis=0)
        weights -= LEARNING_RATE * grad_w * movable[:, None]
        bias -= LEARNING_RATE * grad_b * movable
    return Head(weights.astype(np.float32), bias.astype(np.float32))


def with_head(model: bytes, shipped: Head, head: Head) -> bytes:
    """The ONNX model with its head's weights replaced in place (the same bytes' length)."""
    old_w, old_b = shipped.weights.astype("<f4").tobytes(), shipped.bias.astype("<f4").tobytes()
    if model.count(old_w) != 1 or model.count(old_b) != 1:
        raise EnrolError("the value model does not hold its head's weights as plain bytes")
    new_w, new_b = head.weights.astype("<f4").tobytes(), head.bias.astype("<f4").tobytes()
    return model.replace(old_w, new_w).replace(old_b, new_b)


def die_size(
    reader_boxes: Sequence[tuple[int, int, int, int]], cx: float, cy: float
) -> float | None:
    """The side of the reader's die whose box holds (cx, cy), or None."""
    for x0, y0, x1, y1 in reader_boxes:
        if x0 <= cx <= x1 and y0 <= cy <= y1:
            return float((x1 - x0) + (y1 - y0)) / 2.0
    return None


def enrol(
    labels: Path,
    out: Path,
    *,
    step: Callable[[str], None] = lambda note: None,
    reader: Any = None,
    calibration_of: Callable[[Path], Calibration | None] = lambda photo: None,
    checking: Callable[[str], None] = lambda note: None,
    keep_fit: bool = False,
) -> EnrolReport:
    """Enrols a table from its labelled photos: writes `out/dice_values.onnx` and
    `out/enrolment.json`. `step` is called once per photo (progress), then `checking` once
    per photo read by the held-out check (twice each: with the shipped and the table's model).

    The folder's model is the one that reads the table better: the table's fit only where
    the held-out check finds it better (more dice read right or fewer wrong values, neither
    worse), the shipped model otherwise (also with one photo: nothing to check on), unless
    `keep_fit` (a person who accepts a trade). The fit is kept beside it (`FITTED_FILE`) and
    the record says which was kept (`kept`).

    `calibration_of` gives a photo's calibration: the check reads the photo with it, and
    with a camera view (`tabletop.vision.view`, a table calibrated with a board) its dice are cut
    from the flat picture the reader reads, each at its top face, as the reader cuts them
    there; a label's centre is matched to the die whose box in the photo holds it."""
    from .reader import DiceReader  # the reader imports the classifiers; keep import light

    dice = read_labels(labels)
    by_photo: dict[Path, list[EnrolledDie]] = {}
    for die in dice:
        by_photo.setdefault(die.image, []).append(die)
    model = shipped_model()
    network = FeatureNetwork(model)
    network.load()
    assert network.head is not None
    reader = reader if reader is not None else DiceReader()
    cutter = ValueClassifier()
    crops: list[Image] = []
    values: list[int] = []
    photo_of: list[int] = []  # each look's photo, for the held-out check
    sized = 0
    images: dict[Path, Image] = {}
    for number, (photo, photo_dice) in enumerate(by_photo.items()):
        loaded = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        if loaded is None:
            raise EnrolError(f"{labels}: cannot read the photo {photo}")
        image = images[photo] = np.asarray(loaded, np.uint8)
        calibration = calibration_of(photo)
        view = calibration.view if calibration is not None else None
        centres = [(d.cx, d.cy) for d in photo_dice]
        if view is not None:
            if (image.shape[1], image.shape[0]) != view.picture_size:
                w, h = view.picture_size
                raise EnrolError(
                    f"{labels}: {photo.name} is {image.shape[1]}x{image.shape[0]}, the camera's "
                    f"view is for {w}x{h} pictures: enrol photos of this camera, or without "
                    "its calibration"
                )
            image, centres, boxes = _on_the_table(view, image, centres, reader)
        else:
            boxes = [d.box for d in reader.read(image).dice]
        sides = [die_size(boxes, cx, cy) for cx, cy in centres]
        known = [s for s in sides if s is not None]
        fallback = (
            float(np.median([(b[2] - b[0] + b[3] - b[1]) / 2.0 for b in boxes])) if boxes else None
        )
        for die, side, (cx, cy) in zip(photo_dice, sides, centres, strict=True):
            if side is not None:
                sized += 1
            size = side if side is not None else (float(np.median(known)) if known else fallback)
            if size is None:
                raise EnrolError(
                    f"{labels}: {photo.name}: the reader finds no die to take the size of "
                    f"the die at ({die.cx:.0f}, {die.cy:.0f}) from"
                )
            for scale in SCALES:
                cuts = cutter.looks(image, cx, cy, size * scale)
                crops.extend(cuts)
                values.extend([die.value] * len(cuts))
                photo_of.extend([number] * len(cuts))
        step(f"{len(photo_dice)} dice")
    features = network.features(crops)
    targets = np.asarray(values, np.int64)
    head = fit_head(features, targets, network.head)
    shipped_right = int((network.head.logits(features).argmax(axis=1) == targets - 1).sum())
    enrolled_right = int((head.logits(features).argmax(axis=1) == targets - 1).sum())
    out.mkdir(parents=True, exist_ok=True)
    fitted = with_head(model, network.head, head)
    (out / FITTED_FILE).write_bytes(fitted)
    held_out = _check_held_out(
        by_photo,
        images,
        HeldOutLooks(features, targets, np.asarray(photo_of, np.int64)),
        model=model,
        shipped=network.head,
        reader=reader,
        calibration_of=calibration_of,
        checking=checking,
    )
    report = EnrolReport(
        len(by_photo),
        len(dice),
        sized,
        shipped_right,
        enrolled_right,
        len(crops),
        held_out,
        cocked=sum(die.value == COCKED for die in dice),
        kept=KEPT_TABLE
        if keep_fit or (held_out is not None and held_out.verdict == "better")
        else KEPT_SHIPPED,
    )
    (out / MODEL_FILE).write_bytes(fitted if report.kept == KEPT_TABLE else model)
    (out / ENROLMENT_FILE).write_text(
        json.dumps(
            {
                "v": ENROL_FORMAT,
                "labels": str(labels),
                "shipped_model_sha256": hashlib.sha256(model).hexdigest(),
                **report.to_json(),
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    return report


@dataclass(frozen=True, slots=True)
class HeldOutLooks:
    """The enrolled looks, their dice's values (1-6), and the number of each look's photo."""

    features: Floats
    values: npt.NDArray[np.int64]
    photo_of: npt.NDArray[np.int64]


def _check_held_out(
    by_photo: dict[Path, list[EnrolledDie]],
    images: dict[Path, Image],
    looks: HeldOutLooks,
    *,
    model: bytes,
    shipped: Head,
    reader: Any,
    calibration_of: Callable[[Path], Calibration | None],
    checking: Callable[[str], None],
) -> HeldOutCheck | None:
    """Each fold of photos (photo k in fold k % folds) read by the whole reader with a table
    model fitted to the other folds' looks, and with the shipped model; None with one photo."""
    from .reader import DiceReader

    photos = list(by_photo)
    folds = min(CHECK_FOLDS, len(photos))
    if folds < 2:
        return None
    tallies: dict[str, list[int]] = {"shipped": [0] * 7, "enrolled": [0] * 7}
    with tempfile.TemporaryDirectory(prefix="tabletop-enrol-check-") as scratch:
        for fold in range(folds):
            out = looks.photo_of % folds == fold
            head = fit_head(looks.features[~out], looks.values[~out], shipped)
            path = Path(scratch) / f"fold-{fold}.onnx"
            path.write_bytes(with_head(model, shipped, head))
            fitted = ValueClassifier(path)
            fitted.load()
            for photo in photos[fold::folds]:
                calibration = calibration_of(photo)
                for name, values in (("shipped", reader.values), ("enrolled", fitted)):
                    table = DiceReader(reader.classifier, calibration, reader.settings, values)
                    scored = _score(by_photo[photo], table.read(images[photo]))
                    tallies[name] = [a + b for a, b in zip(tallies[name], scored, strict=True)]
                checking(photo.name)
    return HeldOutCheck(folds, DiceRead(*tallies["shipped"]), DiceRead(*tallies["enrolled"]))


def _score(dice: list[EnrolledDie], reading: Any) -> tuple[int, int, int, int, int, int, int]:
    """Right, wrong and not read of these labelled dice in a reading, then the dice labelled
    cocked and how many of them were given a value, then of the dice not read those found
    unsure and those called cocked (as `DiceRead` takes them): each labelled centre goes to
    the nearest reported die whose box holds it (not read when none does)."""
    right = wrong = not_read = cocked = cocked_given = unsure = called_cocked = 0
    for die in dice:
        holders = [
            seen
            for seen in reading.dice
            if seen.box[0] <= die.cx <= seen.box[2] and seen.box[1] <= die.cy <= seen.box[3]
        ]
        seen = min(
            holders,
            key=lambda d: (d.center[0] - die.cx) ** 2 + (d.center[1] - die.cy) ** 2,
            default=None,
        )
        if die.value == COCKED:
            cocked += 1
            cocked_given += seen is not None and seen.value is not None
        elif seen is None or seen.value is None:
            not_read += 1
            if seen is not None:
                unsure += seen.status is DieStatus.UNREADABLE
                called_cocked += seen.status is DieStatus.COCKED
        elif seen.value == die.value:
            right += 1
        else:
            wrong += 1
    return right, wrong, not_read, cocked, cocked_given, unsure, called_cocked


def _on_the_table(
    view: TableView, image: Image, centres: list[tuple[float, float]], reader: Any
) -> tuple[Image, list[tuple[float, float]], list[tuple[int, int, int, int]]]:
    """A photo through its view: the flat picture, each labelled centre moved to the top face
    of the die whose box in the photo holds it (or mapped as it is, for a die the reader
    missed), and the boxes of the dice the reader found there, in the flat picture."""
    flat = view.flatten(image)
    dice = view.dice_on_table(reader.read(flat))
    moved = []
    for cx, cy in centres:
        holder = next(
            (
                top
                for top, seen in dice
                if seen.box[0] <= cx <= seen.box[2] and seen.box[1] <= cy <= seen.box[3]
            ),
            None,
        )
        if holder is not None:
            moved.append(holder.center)
        else:
            x, y = view.to_flat(np.array([[cx, cy]], np.float64))[0]
            moved.append((float(x), float(y)))
    return flat, moved, [top.box for top, _ in dice]


def table_model(folder: Path) -> Path:
    """The table's value model in an enrolment folder; EnrolError, saying what to do, if the
    folder holds none or it was enrolled from another shipped model."""
    model = folder / MODEL_FILE
    meta = folder / ENROLMENT_FILE
    if not model.is_file() or not meta.is_file():
        raise EnrolError(
            f"{folder} holds no enrolled table ({MODEL_FILE} and {ENROLMENT_FILE}); "
            "make one with tabletop dice enrol --labels FILE.csv --out DIR"
        )
    try:
        shipped = json.loads(meta.read_text(encoding="utf-8")).get("shipped_model_sha256")
    except (OSError, ValueError, AttributeError) as error:
        raise EnrolError(f"{meta}: not an enrolment record ({error})") from error
    if shipped != hashlib.sha256(shipped_model()).hexdigest():
        raise EnrolError(
            f"{folder} was enrolled with another version of the shipped dice model; "
            "enrol the table again (tabletop dice enrol) to use it"
        )
    return model


def cocked_enrolled(folder: Path) -> int:
    """How many dice labelled cocked a table's enrolment learnt from (0 for a record from
    before cocked dice could be labelled; -1 when the folder kept the shipped model, whose
    cocked dice nothing changed); EnrolError as `table_model` gives it."""
    table_model(folder)
    record = json.loads((folder / ENROLMENT_FILE).read_text(encoding="utf-8"))
    if record.get("kept") == KEPT_SHIPPED:
        return -1
    cocked = record.get("cocked_dice", 0)
    return cocked if isinstance(cocked, int) else 0
