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
            cv2.putText(
                out,
                text,
                (x0, max(12, y0 - 4)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.45,
                (0, 0, 0),
                3,
                cv2.LINE_AA,
            )
            cv2.putText(
                out,
                text,
                (x0, max(12, y0 - 4)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.45,
                colour,
                1,
                cv2.LINE_AA,
            )
    if caption:
        cv2.putText(out, caption, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(
            out, caption, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1, cv2.LINE_AA
        )
    return np.asarray(out, np.uint8)
