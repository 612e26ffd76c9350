"""Training crops seen as other cameras see them (src/tabletop/vision/training/imitate.py): changed, and
still countable, since a crop labelled with a value it no longer shows teaches guessing."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from tabletop.hardware.camera.render import DIE_STYLES, RenderedDie, Scene, render
from tabletop.vision.classify import VALUE_CROP, squared_crop
from tabletop.vision.training.imitate import imitate_cameras

Crops = npt.NDArray[np.uint8]


def die_crops(copies: int) -> tuple[Crops, list[int]]:
    """A white die with black pips showing each value, cut as the value reader cuts it."""
    crops, values = [], []
    for value in range(1, 7):
        die = RenderedDie(x=320, y=240, size=44, angle=0, value=value, body=DIE_STYLES[0][0],
                          pips=DIE_STYLES[0][1])  # fmt: skip
        image = render(Scene(dice=(die,)), seed=value)
        crop = squared_crop(image, die.x, die.y, die.size)
        crops += [crop] * copies
        values += [value] * copies
    return np.array(crops, np.uint8), values


def pips_counted(crop: npt.NDArray[np.uint8]) -> int:
    """Dark blobs on the die's face, as a person counts them: the die's outline and the tray
    beyond it touch the face's edge, pips do not."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    side = grey.shape[0]
    face = grey[side // 8 : side - side // 8, side // 8 : side - side // 8]
    # Halfway between the darkest pip and the die's body: the light of the crop, whatever it is.
    level = (float(np.percentile(face, 1)) + float(np.median(face))) / 2
    dark = np.asarray(face < level, np.uint8)
    _, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    inner = face.shape[0]
    return sum(
        1
        for x, y, w, h, area in stats[1:]
        if area >= 4 and x > 0 and y > 0 and x + w < inner and y + h < inner
    )


def test_the_crops_are_what_the_reader_cuts() -> None:
    crops, values = die_crops(1)
    assert crops.shape == (6, VALUE_CROP, VALUE_CROP, 3)
    assert [pips_counted(c) for c in crops] == values


def test_no_share_leaves_the_crops_alone_and_a_whole_share_changes_each() -> None:
    crops, _ = die_crops(4)
    rng = np.random.default_rng(5)
    assert imitate_cameras(crops, rng, 0.0) is crops
    seen = imitate_cameras(crops, rng, 1.0)
    assert seen.shape == crops.shape and seen.dtype == np.uint8
    changed = np.abs(seen.astype(int) - crops.astype(int)).max(axis=(1, 2, 3))
    assert (changed > 0).all()
    assert np.array_equal(crops, die_crops(4)[0])  # the batch given is not written to


def test_half_the_crops_change() -> None:
    crops, _ = die_crops(40)
    seen = imitate_cameras(crops, np.random.default_rng(9), 0.5)
    changed = (seen != crops).any(axis=(1, 2, 3)).mean()
    assert 0.4 < changed < 0.6


def test_the_pips_stay_countable() -> None:
    crops, values = die_crops(30)
    seen = imitate_cameras(crops, np.random.default_rng(1), 1.0)
    right = sum(pips_counted(c) == v for c, v in zip(seen, values, strict=True))
    assert right >= 0.95 * len(values), f"{right} of {len(values)} still show their pips"


def test_only_the_faults_named_are_chosen_from() -> None:
    """Gamma alone maps each pixel value to one value in a crop; any fault that moves or mixes
    pixels (blocks, a small sensor, shake, stretch) gives one value several."""
    crops, _ = die_crops(6)
    seen = imitate_cameras(crops, np.random.default_rng(4), 1.0, ("gamma",))
    for before, after in zip(crops, seen, strict=True):
        for level in np.unique(before):
            assert len(np.unique(after[before == level])) == 1
    mixed = imitate_cameras(crops, np.random.default_rng(4), 1.0, ("shake", "stretch"))
    assert any(
        len(np.unique(after[before == level])) > 1
        for before, after in zip(crops, mixed, strict=True)
        for level in np.unique(before)
    )
