"""The one-pass reader's decoding and its training pictures (issue 34, item 2), without a
trained network: maps are written by hand, pieces cut from rendered trays."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tabletop.hardware.camera.render import random_scene, render
from tabletop.vision.errors import ModelError, SettingsError
from tabletop.vision.locate import Candidate
from tabletop.vision.onepass import (
    CHANNELS,
    COCKED_CLASS,
    SIZE_UNIT,
    STRIDE,
    OnePassReader,
    OnePassSettings,
    decode,
    to_input,
)
from tabletop.vision.reader import BOX_PER_SIZE, DiceReader
from tabletop.vision.reading import DieStatus
from tabletop.vision.training.onepass_data import GRID, SIDE, Truth, piece, targets


def maps_with(dice: list[tuple[int, int, int, float, float]], grid: tuple[int, int]) -> np.ndarray:
    """Network output with a presence peak at each (column, row) cell, the class logits
    favouring `cls` by `margin`, and a box side `side` pixels."""
    h, w = grid
    maps = np.full((CHANNELS, h, w), -8.0, np.float32)
    maps[1:] = 0.0
    for x, y, cls, margin, side in dice:
        maps[0, y, x] = 4.0
        maps[0, y, x + 1] = 1.0  # a shoulder: not a peak of its own
        maps[1 + cls, y, x] = margin
        maps[CHANNELS - 1, y, x] = math.log(side / SIZE_UNIT)
    return maps


def test_a_sure_peak_is_a_die_read_and_an_unsure_one_is_unreadable() -> None:
    maps = maps_with([(10, 10, 3, 9.0, 40.0), (60, 40, 1, 1.0, 36.0)], (60, 80))
    reading = decode(maps, (320, 240))
    assert [d.status for d in reading.dice] == [DieStatus.READ, DieStatus.UNREADABLE]
    first, second = reading.dice
    assert first.value == 4 and first.confidence > 0.99
    # The centre is the presence-weighted mean of the peak's cells, in picture pixels.
    assert STRIDE * 10 < first.center[0] < STRIDE * 11 + 1
    assert abs(first.center[1] - (STRIDE * 10.5 - 0.5)) < 1.0
    assert first.box[2] - first.box[0] == pytest.approx(40, abs=1)
    assert second.value is None and second.confidence < 0.9


def test_the_cocked_class_makes_a_cocked_die_and_close_peaks_are_one_die() -> None:
    maps = maps_with([(20, 20, COCKED_CLASS, 6.0, 40.0), (24, 20, 2, 6.0, 40.0)], (60, 80))
    maps[0, 20, 24] = 3.0  # weaker, 16 px away from a 40-px die: the same die
    reading = decode(maps, (320, 240))
    assert [d.status for d in reading.dice] == [DieStatus.COCKED]
    assert reading.dice[0].value is None


def test_a_peak_in_the_padding_is_no_die() -> None:
    maps = maps_with([(5, 5, 0, 8.0, 30.0), (5, 61, 0, 8.0, 30.0)], (64, 80))
    assert len(decode(maps, (320, 240)).dice) == 1  # row 61 lies below a 240-px picture


def test_maps_of_the_wrong_shape_are_refused_with_their_shape() -> None:
    with pytest.raises(ModelError, match="shape"):
        decode(np.zeros((7, 10, 10), np.float32), (40, 40))


def test_settings_out_of_range_name_the_field() -> None:
    with pytest.raises(SettingsError, match="min_presence"):
        OnePassSettings(min_presence=1.5)


def test_a_picture_is_padded_to_sides_that_divide_by_16() -> None:
    blob = to_input(np.zeros((250, 330, 3), np.uint8))
    assert blob.shape == (1, 3, 256, 336)
    assert blob.dtype == np.float32 and float(blob.min()) == pytest.approx(-0.5)


def test_a_missing_model_is_named() -> None:
    with pytest.raises(ModelError, match="no-such.onnx"):
        OnePassReader("no-such.onnx").load()


def test_a_piece_carries_its_dice_where_they_are_drawn() -> None:
    rng = np.random.default_rng(3)
    scene = random_scene(rng, 6, die_size=40)
    image = render(scene, 1)
    truths = [Truth(d.x, d.y, d.size, d.angle, d.value - 1) for d in scene.dice]
    checked = 0
    for _ in range(6):
        cut, moved = piece(image, truths, rng)
        assert cut.shape == (SIDE, SIDE, 3)
        fill = np.median(cut.reshape(-1, 3), axis=0)
        for die, was in zip(moved, truths, strict=True):
            assert die.cls == was.cls
            x, y = round(die.x), round(die.y)
            if 4 <= x < SIDE - 4 and 4 <= y < SIDE - 4:
                # A die is drawn where its truth went: its pixels differ from the tray.
                patch = cut[y - 3 : y + 4, x - 3 : x + 4].reshape(-1, 3).astype(float)
                assert np.abs(patch - fill).sum(axis=1).max() > 40
                checked += 1
    assert checked >= 6


def test_targets_peak_at_each_centre_and_teach_its_value_and_size() -> None:
    dice = [Truth(100.0, 60.0, 40.0, None, 2), Truth(-30.0, 50.0, 40.0, None, 5)]
    heat, cls, size = targets(dice)
    assert heat.shape == cls.shape == size.shape == (GRID, GRID)
    row, col = np.unravel_index(int(np.argmax(heat)), heat.shape)
    assert (int(row), int(col)) == (round(60.5 / STRIDE - 0.5), round(100.5 / STRIDE - 0.5))
    assert float(heat.max()) == 1.0 and int((heat == 1.0).sum()) == 1  # the other lies outside
    assert cls[row, col] == 2 and set(np.unique(cls)) == {-1, 2}
    assert size[row, col] == pytest.approx(math.log(40.0 / SIZE_UNIT))
    assert np.isnan(size[0, 0])


def test_dice_another_finder_found_are_read_by_the_value_looks() -> None:
    rng = np.random.default_rng(8)
    scene = random_scene(rng, 4, die_size=40)
    image = render(scene, 2)
    found = [
        Candidate(d.x, d.y, d.size * (abs(math.cos(math.radians(d.angle)))
                                      + abs(math.sin(math.radians(d.angle)))) / BOX_PER_SIZE, 1.0)
        for d in scene.dice
    ]  # fmt: skip
    reading = DiceReader().read_dice(image, found)
    assert sorted(reading.values) == sorted(d.value for d in scene.dice)
    assert reading.all_read and len(reading.dice) == 4
