"""The die classifier: a small CNN that looks at a candidate and says "no die", 1-6, or "cocked".

It runs through OpenCV's dnn module on the CPU from a committed ONNX file (about 40 KB); nothing
is downloaded. `vision/training/train_classifier.py` makes the file (PyTorch, training only).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from .errors import ModelError
from .locate import Candidate

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
        patch = cv2.GaussianBlur(image[y0:y1, x0:x1], (0, 0), sigma * 0.6)
        matrix[0, 2] += matrix[0, 0] * x0 + matrix[0, 1] * y0
        matrix[1, 2] += matrix[1, 0] * x0 + matrix[1, 1] * y0
        source = patch
    out = cv2.warpAffine(
        source, matrix, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(out, np.uint8)


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

    def __init__(self, model_path: str | Path | None = None) -> None:
        self.model_path = model_path
        self._net: cv2.dnn.Net | None = None

    def load(self) -> None:
        """Reads the model now (it is otherwise read on first use); raises ModelError."""
        self._load()

    def _load(self) -> cv2.dnn.Net:
        if self._net is None:
            try:
                if self.model_path is None:
                    model = resources.files("vision.model").joinpath(self.default_file)
                    data = model.read_bytes()
                    net = cv2.dnn.readNetFromONNX(np.frombuffer(data, np.uint8))
                else:
                    net = cv2.dnn.readNetFromONNX(str(self.model_path))
            except (OSError, cv2.error) as error:
                raise ModelError(
                    f"cannot load the dice model {self.model_path}: {error}"
                ) from error
            self._net = net
        return self._net

    def probabilities(self, crops: Sequence[Image]) -> npt.NDArray[np.float32]:
        """Class probabilities, one row per crop (classes: 0 no die, 1-6, 7 cocked)."""
        if len(crops) == 0:
            return np.zeros((0, self.classes), np.float32)
        net = self._load()
        net.setInput(to_blob(crops))
        logits = np.asarray(net.forward(), np.float32).reshape(len(crops), self.classes)
        return softmax(logits)

    def score(self, image: Image, candidates: Sequence[Candidate]) -> npt.NDArray[np.float32]:
        """Class probabilities for each candidate in an image."""
        return self.probabilities([crop(image, c.x, c.y, c.size) for c in candidates])


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
        turns: tuple[float, ...] = (0.0, 90.0, 180.0, 270.0),
    ) -> list[Image]:
        """The crops the value reader takes of one die, one per turn."""
        return [crop(image, x, y, size, angle=a, scale=VALUE_SCALE, side=VALUE_CROP) for a in turns]
