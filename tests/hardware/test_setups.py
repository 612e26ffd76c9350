"""The kinds of picture other tables take (src/tabletop/vision/training/setups.py): same seeds, same
picture; truth that says where the dice are; each kind changes what it says it changes."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tabletop.vision.training.setups import (
    DieBox,
    SetupKind,
    _wide_lens_view,
    cocked_centres,
    render_setup,
    setup_examples,
)


@pytest.mark.parametrize("kind", list(SetupKind))
def test_same_seeds_give_the_same_picture_and_truth(kind: SetupKind) -> None:
    one = render_setup(kind, np.random.default_rng(5), 5)
    two = render_setup(kind, np.random.default_rng(5), 5)
    other = render_setup(kind, np.random.default_rng(6), 6)
    assert one.image.shape == (480, 640, 3) and one.image.dtype == np.uint8
    assert np.array_equal(one.image, two.image) and one.truth == two.truth
    assert not np.array_equal(one.image, other.image)
    assert one.kind is kind


@pytest.mark.parametrize("kind", list(SetupKind))
def test_every_truth_box_lies_inside_the_picture_and_holds_a_value(kind: SetupKind) -> None:
    for seed in range(3):
        pic = render_setup(kind, np.random.default_rng(seed), seed, dice=8)
        assert len(pic.truth) >= 6, "dice the kind could not place"
        for box in pic.truth:
            assert 0 <= box.x0 < box.x1 <= 640 and 0 <= box.y0 < box.y1 <= 480, box
            assert 1 <= box.value <= 6


@pytest.mark.parametrize("kind", [k for k in SetupKind if k is not SetupKind.TOP_DOWN])
def test_each_kind_differs_from_top_down(kind: SetupKind) -> None:
    plain = render_setup(SetupKind.TOP_DOWN, np.random.default_rng(2), 2).image
    changed = render_setup(kind, np.random.default_rng(2), 2).image
    assert float(np.abs(plain.astype(np.float32) - changed).mean()) > 3.0


def test_tilted_dice_far_away_are_smaller_than_near_ones() -> None:
    far: list[float] = []
    near: list[float] = []
    for seed in range(3):
        pic = render_setup(SetupKind.TILTED, np.random.default_rng(seed), seed, dice=8)
        for box in pic.truth:
            # The width: the side faces lengthen a tilted die's box along the picture's height.
            (far if box.center[1] < 160 else near if box.center[1] > 320 else []).append(
                box.x1 - box.x0
            )
    assert far and near
    assert np.mean(far) < 0.8 * np.mean(near)


def test_tilted_dice_show_their_side_faces_towards_the_camera() -> None:
    # A tilted die's box is taller than wide: its side faces show below its top face.
    pic = render_setup(SetupKind.TILTED, np.random.default_rng(4), 4, dice=6)
    taller = [b for b in pic.truth if (b.y1 - b.y0) > 1.2 * (b.x1 - b.x0)]
    assert len(taller) >= len(pic.truth) // 2


def test_the_wide_lens_moves_a_point_as_it_moves_the_picture() -> None:
    view, strength = _wide_lens_view(np.random.default_rng(1))
    assert strength > 0.1
    width, height = view.source_size
    canvas = np.zeros((height, width, 3), np.uint8)
    spot = (width * 0.88, height * 0.15)  # near a corner, where the lens moves most
    cv2.circle(canvas, (round(spot[0]), round(spot[1])), 4, (255, 255, 255), -1)
    warped = view.warp(canvas)[..., 0].astype(np.float64)
    ys, xs = np.nonzero(warped > 128)
    seen = (xs.mean(), ys.mean())
    said = view.to_picture(np.array([spot]))[0]
    assert np.hypot(seen[0] - said[0], seen[1] - said[1]) < 1.5
    # ... and the lens did move it: the plain crop would put it elsewhere.
    plain = (spot[0] - (width - 640) / 2, spot[1] - (height - 480) / 2)
    assert np.hypot(seen[0] - plain[0], seen[1] - plain[1]) > 10


def test_wide_lens_dice_lie_where_the_truth_says() -> None:
    # Inside a die's truth box the picture varies (edges, pips) far more than the tray at
    # the same distance from the centre, where the lens has moved nothing that lies there.
    for seed in range(3):
        pic = render_setup(SetupKind.WIDE_LENS, np.random.default_rng(seed), seed, dice=3)
        grey = cv2.cvtColor(pic.image, cv2.COLOR_BGR2GRAY).astype(np.float64)
        for box in pic.truth:
            x0, y0, x1, y1 = (round(v) for v in (box.x0, box.y0, box.x1, box.y1))
            inside = grey[y0:y1, x0:x1].std()
            mirrored = grey[480 - y1 : 480 - y0, 640 - x1 : 640 - x0]
            if any(_overlaps(b, 640 - x1, 480 - y1, 640 - x0, 480 - y0) for b in pic.truth):
                continue
            assert inside > 2.0 * mirrored.std() + 3.0, (seed, box)


@pytest.mark.parametrize(
    "kind", [SetupKind.TOP_DOWN, SetupKind.TILTED, SetupKind.WIDE_LENS, SetupKind.CHEAP_JPEG]
)
def test_a_cocked_die_is_found_where_its_centre_is_said_to_lie(kind: SetupKind) -> None:
    # Not in the truth, but drawn there: the colour at its centre is not the tray's.
    for seed in range(4):
        pic = render_setup(kind, np.random.default_rng(seed), seed, dice=2, cocked=1)
        [(cx, cy)] = cocked_centres(pic)
        assert len(pic.truth) == 1 and 0 <= cx < 640 and 0 <= cy < 480
        x, y = round(cx), round(cy)
        colour = pic.image[max(0, y - 3) : y + 4, max(0, x - 3) : x + 4].reshape(-1, 3).mean(axis=0)
        tray = np.median(pic.image.reshape(-1, 3), axis=0)
        assert np.linalg.norm(colour - tray) > 20, (kind, seed, colour, tray)
    flat = render_setup(SetupKind.DIM_NOISY, np.random.default_rng(0), 0, dice=2)
    assert cocked_centres(flat) == []


def _overlaps(box: DieBox, x0: float, y0: float, x1: float, y1: float) -> bool:
    return box.x0 < x1 + 20 and x0 - 20 < box.x1 and box.y0 < y1 + 20 and y0 - 20 < box.y1


def test_clutter_is_not_in_the_truth_but_is_in_the_picture() -> None:
    for seed in range(3):
        plain = render_setup(SetupKind.TOP_DOWN, np.random.default_rng(seed), seed, dice=3)
        clutter = render_setup(SetupKind.CLUTTER, np.random.default_rng(seed), seed, dice=3)
        # The same dice (the same seeds lay them), no more: coins and pencils are not dice.
        assert clutter.truth == plain.truth
        changed = np.abs(clutter.image.astype(np.int16) - plain.image).max(2) > 40
        # Things lie in the tray away from the dice.
        far_from_dice = changed.copy()
        for box in clutter.truth:
            far_from_dice[int(box.y0) - 5 : int(box.y1) + 5, int(box.x0) - 5 : int(box.x1) + 5] = 0
        assert far_from_dice.sum() > 400


def test_setup_examples_draw_the_kinds_in_turn_and_repeat() -> None:
    kinds = {SetupKind.FELT, SetupKind.TILTED}
    pictures = list(setup_examples(kinds, 3, seed=3))
    assert [p.kind for p in pictures] == [SetupKind.TILTED, SetupKind.FELT, SetupKind.TILTED]
    again = list(setup_examples([SetupKind.TILTED, SetupKind.FELT], 3, seed=3))
    assert all(np.array_equal(a.image, b.image) for a, b in zip(pictures, again, strict=True))
    with pytest.raises(ValueError, match="at least one kind"):
        next(setup_examples([], 1, seed=3))
