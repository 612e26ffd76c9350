"""The value reader's training recipe: which dice it cuts more often (src/tabletop/vision/training)."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.hardware.camera.render import (
    BGR,
    DIE_STYLES,
    HARD_DIE_STYLES,
    RenderedDie,
    Scene,
    render,
)
from tabletop.vision.training.harvest import TruthDie, other_tables, pip_contrast
from tabletop.vision.training.setups import SetupKind, setup_examples


def contrast_of(style: tuple[BGR, BGR], value: int) -> float:
    body, pips = style
    die = RenderedDie(x=320, y=240, size=40, angle=20, value=value, body=body, pips=pips)
    image = render(Scene(dice=(die,)), seed=3)
    return pip_contrast(image, TruthDie(die.x, die.y, die.size, value, die.angle))


@pytest.mark.parametrize("value", [3, 5, 6])
def test_black_pips_on_a_white_die_stand_out(value: int) -> None:
    assert contrast_of(DIE_STYLES[0], value) > 100


@pytest.mark.parametrize("style", HARD_DIE_STYLES[1:4], ids=["green", "blue", "black"])
def test_red_pips_on_a_dark_die_are_faint(style: tuple[BGR, BGR]) -> None:
    # Under the 50 grey levels below which train_reader cuts a real die three times as often.
    assert contrast_of(style, 5) < 50


def test_a_single_pip_is_faint_on_any_die() -> None:
    # One pip covers less than a tenth of the middle, so a 1 counts among the faint dice.
    assert all(contrast_of(style, 1) < 50 for style in DIE_STYLES)


def test_other_tables_leave_out_the_kinds_held_out() -> None:
    """Training without a kind (--hold-out) must never see one of its pictures: with every kind
    but felt held out, the pictures are felt's, in the order felt alone gives them."""
    others = [kind.value for kind in SetupKind if kind is not SetupKind.FELT]
    taken = list(other_tables(3, 11, hold_out=others))
    alone = list(setup_examples([SetupKind.FELT], 3, 11))
    assert len(taken) == 3
    for (image, truth), picture in zip(taken, alone, strict=True):
        assert np.array_equal(image, picture.image)
        assert [(round(t.x), round(t.y), t.label) for t in truth] == [
            (round((b.x0 + b.x1) / 2), round((b.y0 + b.y1) / 2), b.value) for b in picture.truth
        ]
    # and the felt pictures are not what the kinds in turn give
    mixed = [image for image, _ in other_tables(3, 11)]
    assert not np.array_equal(mixed[1], taken[1])
