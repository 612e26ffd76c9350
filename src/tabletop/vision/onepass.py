"""Reads a picture's dice in one pass of one network: where each die is, its value, how sure.

Issue 34, item 2: the alternative to the staged reader (`tabletop.vision.reader`: locate, detect,
square up, look again). One fully convolutional network looks at the whole picture and gives, on a
grid of 4x4-pixel cells, how likely a die's centre lies in each cell, the die's value there (1-6, or
cocked) and its box's width and height. A die is a cell likelier than its eight neighbours and
at least `min_presence`; its value is the best class, read only when that class is
`min_confidence` sure, so an unsure die is `unreadable`, never a guess. How it is trained is
`src/tabletop/vision/training/train_onepass.py`; how it does beside the staged reader,
docs/vision.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from .errors import ModelError, SettingsError
from .reading import DieReading, DieStatus, FrameReading, reading_order
from .runtime import open_network

Image = npt.NDArray[np.uint8]
Maps = npt.NDArray[np.float32]

STRIDE = 4  # picture pixels per output cell
MULTIPLE = 16  # the network halves the picture four times: sides must divide by this
VALUE_CLASSES = 7  # 1-6, then cocked
COCKED_CLASS = 6
# Output channels: presence logit, 7 class logits, log(box side / SIZE_UNIT).
CHANNELS = 1 + VALUE_CLASSES + 1
SIZE_UNIT = 32.0
MODEL_FILE = "dice_onepass.onnx"


@dataclass(frozen=True)
class OnePassSettings:
    """The thresholds that turn the network's maps into dice."""

    min_presence: float = 0.4  # a cell this likely to hold a die's centre is a die
    min_confidence: float = 0.9  # below this the die is unreadable
    apart: float = 0.5  # two peaks closer than this many die sides are one die

    def __post_init__(self) -> None:
        for name in ("min_presence", "min_confidence"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise SettingsError(f"OnePassSettings.{name}: between 0 and 1, not {value}")
        if self.apart <= 0:
            raise SettingsError(f"OnePassSettings.apart: above 0, not {self.apart}")


def to_input(image: Image) -> npt.NDArray[np.float32]:
    """The network's input for a BGR picture: 1 x 3 x H x W in -0.5..0.5, the picture padded
    on the right and bottom (with its edge) to sides that divide by 16."""
    h, w = image.shape[:2]
    pad_h, pad_w = -h % MULTIPLE, -w % MULTIPLE
    if pad_h or pad_w:
        image = np.asarray(
            cv2.copyMakeBorder(image, 0, pad_h, 0, pad_w, cv2.BORDER_REPLICATE), np.uint8
        )
    blob = image.astype(np.float32).transpose(2, 0, 1)[None] / 255.0 - 0.5
    return np.ascontiguousarray(blob, np.float32)


def _sigmoid(x: Maps) -> Maps:
    return np.asarray(1.0 / (1.0 + np.exp(-x)), np.float32)


def decode(
    maps: Maps, size: tuple[int, int], settings: OnePassSettings | None = None
) -> FrameReading:
    """The dice in the network's output `maps` (CHANNELS x H/4 x W/4) for a picture of `size`
    (width, height): each local peak of presence over `min_presence`, strongest first, a die
    unless it lies within `apart` sides of a stronger one."""
    settings = settings or OnePassSettings()
    if maps.ndim != 3 or maps.shape[0] != CHANNELS:
        raise ModelError(
            f"the one-pass model gave maps of shape {maps.shape}, not {CHANNELS} x H x W"
        )
    presence = _sigmoid(maps[0])
    peaks = presence >= np.asarray(cv2.dilate(presence, np.ones((3, 3), np.uint8)), np.float32)
    ys, xs = np.nonzero(peaks & (presence >= settings.min_presence))
    order = np.argsort(-presence[ys, xs], kind="stable")
    width, height = size
    kept: list[tuple[float, float, float]] = []
    dice: list[DieReading] = []
    for i in order:
        y, x = int(ys[i]), int(xs[i])
        cx, cy = _refined_centre(presence, x, y)
        side = SIZE_UNIT * math.exp(float(np.clip(maps[CHANNELS - 1, y, x], -3, 3)))
        if any(
            math.dist((cx, cy), (kx, ky)) < settings.apart * max(side, ks) for kx, ky, ks in kept
        ):
            continue
        if not (0 <= cx < width and 0 <= cy < height):
            continue  # a peak in the padding
        kept.append((cx, cy, side))
        logits = maps[1 : 1 + VALUE_CLASSES, y, x]
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        best = int(np.argmax(probs))
        confidence = float(probs[best])
        box = (
            max(0, round(cx - side / 2)),
            max(0, round(cy - side / 2)),
            min(width, round(cx + side / 2)),
            min(height, round(cy + side / 2)),
        )
        if best == COCKED_CLASS:
            dice.append(DieReading(None, confidence, box, DieStatus.COCKED))
        elif confidence >= settings.min_confidence:
            dice.append(DieReading(best + 1, confidence, box, DieStatus.READ))
        else:
            dice.append(DieReading(None, confidence, box, DieStatus.UNREADABLE))
    return FrameReading(tuple(sorted(dice, key=reading_order)))


def _refined_centre(presence: Maps, x: int, y: int) -> tuple[float, float]:
    """A peak's centre in picture pixels: the presence-weighted mean of its 3x3 cells."""
    h, w = presence.shape
    y0, y1, x0, x1 = max(0, y - 1), min(h, y + 2), max(0, x - 1), min(w, x + 2)
    patch = presence[y0:y1, x0:x1]
    total = float(patch.sum())
    gy, gx = np.mgrid[y0:y1, x0:x1]
    my = float((patch * gy).sum()) / total
    mx = float((patch * gx).sum()) / total
    return (mx + 0.5) * STRIDE - 0.5, (my + 0.5) * STRIDE - 0.5


class OnePassReader:
    """Finds and reads the dice of a picture with the one-pass network (`read`, as
    `tabletop.vision.reader.DiceReader.read` does)."""

    def __init__(
        self,
        model_path: str | Path,
        settings: OnePassSettings | None = None,
        runtime: str | None = None,
    ) -> None:
        self.model_path = Path(model_path)
        self.settings = settings or OnePassSettings()
        self.runtime = runtime
        self._run: Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]] | None = None

    def load(self) -> None:
        """Reads the model now (otherwise on the first picture); raises ModelError."""
        if self._run is None:
            try:
                data = self.model_path.read_bytes()
            except OSError as error:
                raise ModelError(
                    f"cannot read the one-pass model {self.model_path}: {error}"
                ) from error
            self._run = open_network(data, str(self.model_path), self.runtime)

    def maps(self, image: Image) -> Maps:
        """The network's output for a picture (CHANNELS x H/4 x W/4, padding included)."""
        self.load()
        assert self._run is not None
        return np.asarray(self._run(to_input(image))[0], np.float32)

    def read(self, image: Image) -> FrameReading:
        """Every die in a BGR picture, in reading order."""
        h, w = image.shape[:2]
        return decode(self.maps(image), (w, h), self.settings)
