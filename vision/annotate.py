"""Draws what the reader and the rest detector saw onto a copy of the frame."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from .reading import DieStatus, FrameReading

Image = npt.NDArray[np.uint8]
_COLOURS = {
    DieStatus.READ: (60, 200, 60),
    DieStatus.COCKED: (0, 140, 255),
    DieStatus.UNREADABLE: (0, 0, 230),
}


def annotate(image: Image, reading: FrameReading | None, caption: str = "") -> Image:
    """A copy of the frame with a box and a label on each die and a caption at the top."""
    out = image.copy()
    if reading is not None:
        for die in reading.dice:
            colour = _COLOURS[die.status]
            x0, y0, x1, y1 = die.box
            cv2.rectangle(out, (x0, y0), (x1, y1), colour, 2)
            label = str(die.value) if die.value is not None else die.status.value
            text = f"{label} {die.confidence:.2f}"
            _outlined_text(out, text, (x0, max(12, y0 - 4)), 0.45, colour)
    if caption:
        _outlined_text(out, caption, (8, 22), 0.6, (255, 255, 255))
    return np.asarray(out, np.uint8)


def _outlined_text(
    image: Image, text: str, origin: tuple[int, int], scale: float, colour: tuple[int, int, int]
) -> None:
    """Text in `colour` with a black outline, readable on any tray."""
    for thickness, ink in ((3, (0, 0, 0)), (1, colour)):
        cv2.putText(
            image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, ink, thickness, cv2.LINE_AA
        )
