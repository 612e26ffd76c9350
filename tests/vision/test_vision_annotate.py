"""Annotated frames: boxes where the dice are, labels and captions a person can read."""

from __future__ import annotations

import cv2
import numpy as np

from tabletop.vision.annotate import annotate
from tabletop.vision.reading import DieReading, DieStatus, FrameReading

GREY = (128, 128, 128)


def test_a_caption_and_its_outline_cover_the_same_letters() -> None:
    caption = "IMG_20191208_111228.jpg"
    marked = annotate(np.full((60, 400, 3), GREY, np.uint8), None, caption)
    (width, _), _ = cv2.getTextSize(caption, cv2.FONT_HERSHEY_SIMPLEX, 0.6, 1)
    inked = np.nonzero((marked != GREY).any(axis=2))[1]
    white = np.nonzero((marked > 200).all(axis=2))[1]
    # The outline hugs the letters: it ends within a pixel or two of where the white ends.
    assert inked.max() - white.max() <= 3
    assert 8 + width - 3 <= white.max() <= 8 + width + 2


def test_each_die_gets_a_box_in_its_status_colour() -> None:
    reading = FrameReading(
        (
            DieReading(4, 0.99, (20, 20, 60, 60), DieStatus.READ),
            DieReading(None, 0.97, (100, 20, 140, 60), DieStatus.COCKED),
        )
    )
    marked = annotate(np.full((100, 200, 3), GREY, np.uint8), reading)
    assert tuple(marked[40, 20]) == (60, 200, 60)  # left edge of the read die's box: green
    assert tuple(marked[40, 100]) == (0, 140, 255)  # the cocked die's: orange
    assert tuple(marked[40, 80]) == GREY  # between the dice: untouched


def test_a_throws_picture_is_a_small_jpeg_with_its_boxes_where_the_dice_are() -> None:
    from tabletop.vision.annotate import throw_picture

    big = np.full((960, 1280, 3), GREY, np.uint8)
    reading = FrameReading((DieReading(5, 0.99, (400, 400, 480, 480), DieStatus.READ),))
    data = throw_picture(big, reading, "rolled 5")
    assert data.startswith(b"\xff\xd8\xff")
    picture = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape == (480, 640, 3)  # halved, the aspect kept
    # the box was halved with the picture: its left edge is green at x=200, not at x=400
    assert picture[220, 200, 1] > 150 and picture[220, 200, 0] < 120
    assert abs(int(picture[220, 400, 1]) - GREY[1]) < 20
