"""The die classifier: a small CNN that looks at a candidate and says "no die", 1-6, or "cocked".

It runs on the CPU from a committed ONNX file (src/tabletop/vision/runtime.py: ONNX Runtime, or
OpenCV's dnn module); nothing is downloaded. `src/tabletop/vision/training/train_classifier.py`
makes the file (PyTorch, training only).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from .errors import ModelError
from .locate import Candidate
from .runtime import open_network

Image = npt.NDArray[np.uint8]

CROP = 32  # side of the square the classifier sees
CROP_SCALE = 1.4  # the crop spans this many die sides, so the die's edges are in view
NO_DIE = 0
COCKED = 7
CLASS_COUNT = 8  # 0 no die, 1-6 the value on top, 7 cocked
MODEL_FILE = "dice_cnn.onnx"

# The value reader: a second, larger look at each die the detector kept.
VALUE_CROP = 40
VALUE_SCALE = 1.25
VALUE_CLASSES = 7  # 1-6, then cocked
VALUE_MODEL_FILE = "dice_values.onnx"


def crop(
    image: Image,
    x: float,
    y: float,
    size: float,
    *,
    angle: float = 0.0,
    scale: float = CROP_SCALE,
    side: int = CROP,
) -> Image:
    """The side x side patch centred on (x, y) spanning scale * size pixels, optionally turned."""
    zoom = side / (scale * size)
    matrix = cv2.getRotationMatrix2D((float(x), float(y)), angle, zoom)
    matrix[0, 2] += side / 2 - x
    matrix[1, 2] += side / 2 - y
    # Shrinking by more than 2x aliases pips away; pre-blur instead of INTER_AREA (no rotation).
    source = image
    if zoom < 0.5:
        sigma = 0.5 / zoom
        x0 = max(0, math.floor(x - size * scale))
        y0 = max(0, math.floor(y - size * scale))
        x1 = min(image.shape[1], math.ceil(x + size * scale) + 1)
        y1 = min(image.shape[0], math.ceil(y + size * scale) + 1)
        patch = np.asarray(cv2.GaussianBlur(image[y0:y1, x0:x1], (0, 0), sigma * 0.6), np.uint8)
        matrix[0, 2] += matrix[0, 0] * x0 + matrix[0, 1] * y0
        matrix[1, 2] += matrix[1, 0] * x0 + matrix[1, 1] * y0
        source = patch
    out = cv2.warpAffine(
        source, matrix, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(out, np.uint8)


def shrinks_over_half(size: float, scale: float = CROP_SCALE, side: int = CROP) -> bool:
    """Whether `crop` shrinks a die of this size by more than 2x (and so blurs it first)."""
    return side / (scale * size) < 0.5


def die_angle(patch: Image) -> float:
    """The turn (degrees, -45..45) that squares up the die at the centre of a patch.

    A die's outline is a square, so the edge directions near the centre cluster every 90
    degrees; pips are round and pull in no direction. The angle is read from the fourth
    harmonic of the gradient directions (each pixel's strongest colour channel, weighted by
    gradient strength and by nearness to the centre, so a neighbouring die counts less).
    """
    g = patch.astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    energy = gx * gx + gy * gy
    if g.ndim == 3:
        strongest = energy.argmax(axis=2)[..., None]
        gx = np.take_along_axis(gx, strongest, 2)[..., 0]
        gy = np.take_along_axis(gy, strongest, 2)[..., 0]
        energy = gx * gx + gy * gy
    h, w = energy.shape
    weight = np.sqrt(energy) * _centre_window(h, w)
    theta = np.arctan2(gy, gx)
    s = float((weight * np.sin(4 * theta)).sum())
    c = float((weight * np.cos(4 * theta)).sum())
    return math.degrees(math.atan2(s, c) / 4)


_WINDOWS: dict[tuple[int, int], npt.NDArray[np.float32]] = {}


def _centre_window(h: int, w: int) -> npt.NDArray[np.float32]:
    window = _WINDOWS.get((h, w))
    if window is None:
        yy, xx = np.mgrid[0:h, 0:w]
        r2 = ((xx - (w - 1) / 2) ** 2 + (yy - (h - 1) / 2) ** 2) / (0.6 * w) ** 2
        window = np.exp(-r2).astype(np.float32)
        _WINDOWS[(h, w)] = window
    return window


def squared_crop(image: Image, x: float, y: float, size: float, *, jitter: float = 0.0) -> Image:
    """The value reader's view of a die: turned square to the crop, edges along its sides.

    `size` is the die's axis-aligned extent (a box, or the locator's size); a die turned by
    an angle a spans side * (|cos a| + |sin a|) of it, so the side is worked out from the
    angle. `jitter` (degrees) is for training only.
    """
    first = crop(image, x, y, size, scale=VALUE_SCALE, side=VALUE_CROP)
    angle = die_angle(first)
    turn = math.radians(angle)
    side = size / (abs(math.cos(turn)) + abs(math.sin(turn)))
    return crop(image, x, y, side, angle=angle + jitter, scale=VALUE_SCALE, side=VALUE_CROP)


def to_blob(crops: Sequence[Image] | npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    """Stacks crops into the network's input: N x 3 x CROP x CROP, values in -0.5..0.5."""
    batch = np.asarray(crops, np.float32).transpose(0, 3, 1, 2)
    return np.ascontiguousarray(batch / 255.0 - 0.5)


def softmax(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


class DieClassifier:
    """Scores candidates with the committed CNN: one probability per class per candidate."""

    default_file = MODEL_FILE
    classes = CLASS_COUNT

    def __init__(self, model_path: str | Path | None = None, runtime: str | None = None) -> None:
        self.model_path = model_path
        self.runtime = runtime  # None: tabletop.vision.runtime.chosen_runtime()
        self._run: Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]] | None = None

    def load(self) -> None:
        """Reads the model now (it is otherwise read on first use); raises ModelError."""
        self._load()

    def _load(self) -> Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]]:
        if self._run is None:
            try:
                if self.model_path is None:
                    model = resources.files("tabletop.vision.model").joinpath(self.default_file)
                    data = model.read_bytes()
                else:
                    data = Path(self.model_path).read_bytes()
            except OSError as error:
                raise ModelError(
                    f"cannot read the dice model {self.model_path or self.default_file}: {error}"
                ) from error
            self._run = open_network(data, str(self.model_path or self.default_file), self.runtime)
        return self._run

    def probabilities(self, crops: Sequence[Image]) -> npt.NDArray[np.float32]:
        """Class probabilities, one row per crop (classes: 0 no die, 1-6, 7 cocked)."""
        if len(crops) == 0:
            return np.zeros((0, self.classes), np.float32)
        run = self._load()
        logits = run(to_blob(crops)).reshape(len(crops), self.classes)
        return softmax(logits)

    def score(self, image: Image, candidates: Sequence[Candidate]) -> npt.NDArray[np.float32]:
        """Class probabilities for each candidate in an image."""
        half: Image | None = None
        crops = []
        for c in candidates:
            if shrinks_over_half(c.size):
                # A crop that shrinks a die by over 2x is cut from the picture at half size
                # (shrunk once, by area): cheaper than blurring a patch for each, or the whole
                # picture for each size.
                if half is None:
                    h, w = image.shape[:2]
                    small = cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
                    half = np.asarray(small, np.uint8)
                crops.append(crop(half, (c.x - 0.5) / 2, (c.y - 0.5) / 2, c.size / 2))
            else:
                crops.append(crop(image, c.x, c.y, c.size))
        return self.probabilities(crops)


class ValueClassifier(DieClassifier):
    """Reads the value of a die already found: 1-6, or cocked (class index 6)."""

    default_file = VALUE_MODEL_FILE
    classes = VALUE_CLASSES

    def looks(
        self,
        image: Image,
        x: float,
        y: float,
        size: float,
        turns: tuple[int, ...] = (0, 1, 2, 3),
    ) -> list[Image]:
        """The crops the value reader takes of one die: squared up, then turned by each number
        of quarter turns (exact, no resampling)."""
        squared = squared_crop(image, x, y, size)
        return [np.ascontiguousarray(np.rot90(squared, k)) for k in turns]
