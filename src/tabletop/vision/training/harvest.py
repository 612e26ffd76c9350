"""Training crops for the die classifier, cut exactly as the reader cuts them at run time.

Every candidate the locator proposes becomes an example: "no die" when it is not centred on a
die at about the right size, the die's class when it is, and nothing at all when it is in
between (an off-centre or mis-sized view of a die is neither a clean yes nor a clean no).
Known dice are added again with jitter in place, size and turn, so each real die teaches more.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from tabletop.hardware.camera.render import BGR, DIE_STYLES, random_scene, render
from tabletop.vision.classify import COCKED, NO_DIE, VALUE_CROP, crop, squared_crop
from tabletop.vision.locate import DEFAULT_SIZES, find_candidates
from tabletop.vision.training.setups import DieBox, SetupKind, setup_examples

Image = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class TruthDie:
    """A die whose centre, size and class (1-6, or 7 for cocked) are known.

    `side` is a labelled box's longer side for real photos, and the die's own side for
    rendered ones, whose turn `angle` (degrees) is known too.
    """

    x: float
    y: float
    side: float
    label: int
    angle: float | None = None

    @property
    def extent(self) -> float:
        """The die's axis-aligned extent, as a labelled box or the locator measures it."""
        if self.angle is None:
            return self.side
        turn = math.radians(self.angle)
        return self.side * (abs(math.cos(turn)) + abs(math.sin(turn)))


def from_labels(labels: Sequence[DieBox]) -> list[TruthDie]:
    return [
        TruthDie((d.x0 + d.x1) / 2, (d.y0 + d.y1) / 2, max(d.x1 - d.x0, d.y1 - d.y0), d.value)
        for d in labels
    ]


def add_other_tables_options(parser: argparse.ArgumentParser) -> None:
    """The training scripts' `--kinds N` and `--hold-out KIND ...` (for `other_tables`)."""
    parser.add_argument(
        "--kinds",
        type=int,
        default=0,
        help="pictures of other tables' kinds (tabletop.vision.training.setups), the kinds in turn",
    )
    parser.add_argument(
        "--hold-out",
        nargs="*",
        default=[],
        metavar="KIND",
        choices=[kind.value for kind in SetupKind],
        help="kinds of picture left out of training, to measure the reader on a setup unseen",
    )


def other_tables(
    count: int, seed: int, hold_out: Collection[str] = ()
) -> Iterator[tuple[Image, list[TruthDie]]]:
    """`count` pictures of other tables' kinds (`tabletop.vision.training.setups`) and their truth,
    the kinds named in `hold_out` left out, so a reader can be measured on a kind unseen.
    Each die is boxed whole (on a tilted camera's picture, top and side faces), as a person
    boxes a photo, so it is cut as the labelled real photos are."""
    kinds = [kind for kind in SetupKind if kind.value not in hold_out]
    for picture in setup_examples(kinds, count, seed):
        yield picture.image, from_labels(picture.truth)


def pip_contrast(image: Image, die: TruthDie) -> float:
    """How far a die's pips stand out from its body in brightness, to find the dice the value
    reader finds hardest: the spread (10th to 90th percentile) of grey levels over the middle
    of its squared-up cut. A white die with black pips spreads over 100 levels; a dark marbled
    die with red pips under 50, and so does a 1 of any colour, whose single pip covers less
    than a tenth of the middle."""
    cut = cv2.cvtColor(squared_crop(image, die.x, die.y, die.extent), cv2.COLOR_BGR2GRAY)
    margin = VALUE_CROP // 5
    middle = cut[margin:-margin, margin:-margin]
    low, high = np.percentile(middle, [10, 90])
    return float(high - low)


def harvest(
    image: Image,
    truth: list[TruthDie],
    rng: np.random.Generator,
    copies: int = 3,
    max_background: int = 40,
) -> tuple[list[Image], list[int]]:
    """Crops and classes from one picture.

    "No die" crops are capped per picture: the strongest (the hard ones) and a random rest.
    """
    crops: list[Image] = []
    classes: list[int] = []
    candidates = find_candidates(image, DEFAULT_SIZES)
    background = [
        c
        for c in candidates
        if not any(abs(c.x - t.x) <= t.side / 2 and abs(c.y - t.y) <= t.side / 2 for t in truth)
    ]
    hard = max_background * 2 // 3
    if len(background) > max_background:
        rest = background[hard:]
        picks = rng.choice(len(rest), max_background - hard, replace=False)
        dropped = {id(c) for c in rest} - {id(rest[int(i)]) for i in picks}
        candidates = [c for c in candidates if id(c) not in dropped]
    for c in candidates:
        owner = None
        for t in truth:
            if abs(c.x - t.x) <= t.side / 2 and abs(c.y - t.y) <= t.side / 2:
                owner = t
                break
        if owner is None:
            crops.append(crop(image, c.x, c.y, c.size))
            classes.append(NO_DIE)
            continue
        ratio = c.size / owner.side
        offset = math.hypot(c.x - owner.x, c.y - owner.y) / owner.side
        if 0.7 <= ratio <= 1.45 and offset < 0.22:
            crops.append(crop(image, c.x, c.y, c.size))
            classes.append(owner.label)
        elif ratio < 0.5 or ratio > 1.6 or offset > 0.4:
            # Too big by more than a size step: a view of this die with a neighbour in it.
            crops.append(crop(image, c.x, c.y, c.size))
            classes.append(NO_DIE)
    for t in truth:
        for _ in range(copies):
            dx, dy = rng.uniform(-0.15, 0.15, 2) * t.side
            size = t.side * float(rng.uniform(0.75, 1.35))
            angle = float(rng.uniform(0, 360))
            crops.append(crop(image, t.x + dx, t.y + dy, size, angle=angle))
            classes.append(t.label)
    return crops, classes


def rendered_examples(
    count: int,
    seed: int,
    *,
    styles: tuple[tuple[BGR, BGR], ...] = DIE_STYLES,
    packed: float = 0.0,
) -> Iterator[tuple[Image, list[TruthDie]]]:
    """Rendered trays with 1-12 dice (some cocked) and their truth; a share `packed` of them
    with the dice touching, as in a heap (a neighbour's pips in view of a die's crop)."""
    rng = np.random.default_rng(seed)
    for index in range(count):
        dense = packed > 0 and rng.random() < packed
        scene = random_scene(
            rng,
            int(rng.integers(1, 13)),
            width=int(rng.choice([640, 800])),
            height=480,
            die_size=float(rng.uniform(18, 64)),
            cocked=int(rng.choice([0, 0, 1, 2])),
            styles=styles,
            spacing=float(rng.uniform(1.05, 1.2)) if dense else 1.265,
            clustered=dense,
        )
        truth = [
            TruthDie(d.x, d.y, d.size, COCKED if d.cocked else d.value, d.angle) for d in scene.dice
        ]
        yield render(scene, seed * 100003 + index), truth
