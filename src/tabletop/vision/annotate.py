"""Draws what the reader and the rest detector saw onto a copy of the frame."""

from __future__ import annotations

import dataclasses

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
_AROUND = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]


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


def throw_picture(
    image: Image, reading: FrameReading | None, caption: str, width: int = 640, quality: int = 75
) -> bytes:
    """The annotated frame of a throw as a JPEG small enough for MQTT and a phone (`width` px
    wide at most): what the room's screen shows beside the values read."""
    out = image
    if out.shape[1] > width:  # annotate after shrinking, so the labels stay legible
        scale = width / out.shape[1]
        size = (width, round(out.shape[0] * scale))
        out = np.asarray(cv2.resize(out, size, interpolation=cv2.INTER_AREA), np.uint8)
        if reading is not None:
            reading = _scaled(reading, scale)
    marked = annotate(out, reading, caption)
    ok, data = cv2.imencode(".jpg", marked, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("OpenCV could not encode the throw's picture as JPEG")
    return bytes(data.tobytes())


# bytes: a photo for MQTT and the console (tabletop.console.feed takes up to 2 MB)
PHOTO_LIMIT = 1_500_000


def throw_photo(image: Image, quality: int = 90) -> bytes:
    """The frame of a throw as the camera took it (no box, no caption), a JPEG at the camera's
    own size, so pixel coordinates in its `dice/event` hold on it: what a person corrects and
    what `tabletop dice enrol` learns from. The quality steps down until it fits PHOTO_LIMIT."""
    for step in (quality, 80, 70, 60, 50):
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, step])
        if not ok:
            raise ValueError("OpenCV could not encode the throw's photo as JPEG")
        if len(data) <= PHOTO_LIMIT:
            break
    return bytes(data.tobytes())


def _scaled(reading: FrameReading, scale: float) -> FrameReading:
    """The same reading with its boxes in the pixels of a picture `scale` times the size."""
    return FrameReading(
        tuple(
            dataclasses.replace(die, box=tuple(round(c * scale) for c in die.box))  # type: ignore[arg-type]
            for die in reading.dice
        )
    )


def _outlined_text(
    image: Image, text: str, origin: tuple[int, int], scale: float, colour: tuple[int, int, int]
) -> None:
    """Text in `colour` with a black outline, readable on any tray.

    The outline is the text drawn thin a pixel off each way, not drawn thick: OpenCV spaces
    thick letters wider, so a thick outline drifts off the letters along a long caption."""
    x, y = origin
    font = cv2.FONT_HERSHEY_SIMPLEX
    for dx, dy in _AROUND:
        cv2.putText(image, text, (x + dx, y + dy), font, scale, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.putText(image, text, origin, font, scale, colour, 1, cv2.LINE_AA)
