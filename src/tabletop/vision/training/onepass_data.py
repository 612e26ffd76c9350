"""The one-pass reader's training pictures: dice as truths, pieces cut from pictures and the
maps each piece should give (`tabletop.vision.training.train_onepass`). Pure numpy and OpenCV, so it
is tested without PyTorch."""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from tabletop.hardware.camera.render import TRAINING_DIE_STYLES, random_scene, render
from tabletop.vision.evaluate import load_labels, load_photo
from tabletop.vision.onepass import COCKED_CLASS, SIZE_UNIT, STRIDE

PHOTOS = Path(__file__).resolve().parents[4] / "tests" / "data" / "dice-tray"

Image = npt.NDArray[np.uint8]
SIDE = 320  # training pieces' side
GRID = SIDE // STRIDE


@dataclass(frozen=True)
class Truth:
    """One die in a training picture: its centre, its box's extent (pixels) and its class
    (0-5 for values 1-6, 6 cocked)."""

    x: float
    y: float
    extent: float
    turn: float | None  # the die's own turn in degrees, where known (rendered dice)
    cls: int


def photo_truths(names: Sequence[str]) -> list[tuple[Image, list[Truth]]]:
    """The labelled photos `names` with their dice."""
    labels = load_labels(PHOTOS / "labels.csv")
    return [
        (
            load_photo(PHOTOS / "images", name),
            [
                Truth(
                    (d.x0 + d.x1) / 2,
                    (d.y0 + d.y1) / 2,
                    (d.x1 - d.x0 + d.y1 - d.y0) / 2,
                    None,
                    d.value - 1,
                )
                for d in labels[name]
            ],
        )
        for name in names
    ]


def _rendered(seed: int) -> tuple[Image, list[Truth]]:
    rng = np.random.default_rng(seed)
    heaped = rng.random() < 0.4
    scene = random_scene(
        rng,
        int(rng.integers(1, 13)),
        styles=TRAINING_DIE_STYLES,
        cocked=int(rng.integers(1, 3)) if rng.random() < 0.33 else 0,
        clustered=heaped,
        spacing=1.1 if heaped else 1.265,
    )
    truths = [
        Truth(d.x, d.y, d.size, d.angle, COCKED_CLASS if d.cocked else d.value - 1)
        for d in scene.dice
    ]
    return render(scene, seed), truths


def rendered_pool(count: int, seed: int, jobs: int) -> list[tuple[Image, list[Truth]]]:
    """`count` rendered trays with their dice, made in `jobs` processes; the same arguments
    always give the same trays."""
    seeds = [seed * 1_000_003 + i for i in range(count)]
    if jobs <= 1:
        return [_rendered(s) for s in seeds]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return pool.map(_rendered, seeds, chunksize=16)


def piece_plan(
    size: tuple[int, int], truths: Sequence[Truth], rng: np.random.Generator
) -> tuple[npt.NDArray[np.float64], list[Truth]]:
    """Where a SIDE x SIDE piece of a picture of `size` (width, height) comes from: the
    2x3 matrix from the picture to the piece, turned any way and scaled 0.55-1.6, about a die
    (three times in four) or anywhere, and the dice where the piece shows them."""
    w, h = size
    scale = float(math.exp(rng.uniform(math.log(0.55), math.log(1.6))))
    turn = float(rng.uniform(0, 360))
    if truths and rng.random() < 0.75:
        die = truths[int(rng.integers(len(truths)))]
        reach = SIDE * 0.4 / scale
        centre = (die.x + rng.uniform(-reach, reach), die.y + rng.uniform(-reach, reach))
    else:
        centre = (rng.uniform(0, w), rng.uniform(0, h))
    matrix = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), turn, scale)
    matrix[:, 2] += np.array([SIDE / 2 - centre[0], SIDE / 2 - centre[1]])
    moved: list[Truth] = []
    for t in truths:
        x, y = matrix @ np.array([t.x, t.y, 1.0])
        if t.turn is None:
            extent = t.extent * scale
        else:
            angle = math.radians(t.turn - turn)
            extent = t.extent * scale * (abs(math.cos(angle)) + abs(math.sin(angle)))
        moved.append(Truth(float(x), float(y), extent, None, t.cls))
    return np.asarray(matrix, np.float64), moved


def fill_of(image: Image) -> list[int]:
    """The colour a piece shows beyond its picture: the picture's median."""
    return [int(c) for c in np.median(image[::8, ::8].reshape(-1, 3), axis=0)]


def piece(
    image: Image, truths: Sequence[Truth], rng: np.random.Generator
) -> tuple[Image, list[Truth]]:
    """A SIDE x SIDE piece of a picture (`piece_plan`); the rest of the piece is the
    picture's median colour."""
    h, w = image.shape[:2]
    matrix, moved = piece_plan((w, h), truths, rng)
    out = cv2.warpAffine(
        image, matrix, (SIDE, SIDE), flags=cv2.INTER_LINEAR, borderValue=fill_of(image)
    )
    return np.asarray(out, np.uint8), moved


def seen_by_another_camera(image: Image, rng: np.random.Generator) -> Image:
    """The piece as another camera and light give it: each effect now and then, mild enough
    that a person still counts the pips."""
    out = image
    if rng.random() < 0.5:  # another white balance and exposure
        gains = rng.uniform(0.8, 1.2, 3) * rng.uniform(0.6, 1.3)
        out = np.asarray(cv2.multiply(out, np.append(gains, 1.0)), np.uint8)
    if rng.random() < 0.3:  # dice and trays of other colours
        hsv = cv2.cvtColor(out, cv2.COLOR_BGR2HSV)
        turn = np.asarray((np.arange(256) + int(rng.integers(0, 180))) % 180, np.uint8)
        hsv[..., 0] = cv2.LUT(hsv[..., 0], turn)
        out = np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR), np.uint8)
    if rng.random() < 0.3:
        gamma = float(rng.uniform(0.6, 1.6))
        curve = np.clip(255.0 * (np.arange(256) / 255.0) ** gamma, 0, 255).astype(np.uint8)
        out = np.asarray(cv2.LUT(out, curve), np.uint8)
    if rng.random() < 0.25:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.4, 1.3))), np.uint8)
    if rng.random() < 0.15:  # shake: a short streak
        length = int(rng.integers(2, 5))
        kernel = np.zeros((length * 2 + 1, length * 2 + 1), np.float32)
        angle = rng.uniform(0, math.pi)
        for step in range(-length, length + 1):
            kernel[
                length + round(step * math.sin(angle)), length + round(step * math.cos(angle))
            ] = 1
        out = np.asarray(cv2.filter2D(out, -1, kernel / kernel.sum()), np.uint8)
    if rng.random() < 0.15:  # a small sensor scaled up
        factor = float(rng.uniform(0.45, 0.8))
        small = cv2.resize(out, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
        out = np.asarray(cv2.resize(small, (SIDE, SIDE), interpolation=cv2.INTER_LINEAR), np.uint8)
    if rng.random() < 0.5:
        noise = np.empty((*out.shape[:2], 3), np.int16)
        cv2.randn(noise, np.zeros(3), np.full(3, rng.uniform(1, 8)))
        out = np.asarray(cv2.add(out, noise, dtype=cv2.CV_8U), np.uint8)
    result = out
    if rng.random() < 0.25:
        ok, jpeg = cv2.imencode(
            ".jpg", result, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 86))]
        )
        if ok:
            result = np.asarray(cv2.imdecode(jpeg, cv2.IMREAD_COLOR), np.uint8)
    return result


def targets(truths: Sequence[Truth]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The maps a piece should give: presence (GRID x GRID, a Gaussian of sigma a sixth of
    the die's side around each centre, 1 at the centre's cell), class (-1 where not taught)
    and log extent (nan where not taught), both taught within a fifth of a side of a centre."""
    heat = np.zeros((GRID, GRID), np.float32)
    cls = np.full((GRID, GRID), -1, np.int64)
    size = np.full((GRID, GRID), np.nan, np.float32)
    ys, xs = np.mgrid[0:GRID, 0:GRID].astype(np.float32)
    for t in truths:
        gx, gy = (t.x + 0.5) / STRIDE - 0.5, (t.y + 0.5) / STRIDE - 0.5
        if not (-0.5 <= gx < GRID - 0.5 and -0.5 <= gy < GRID - 0.5):
            continue
        cells = t.extent / STRIDE
        sigma = max(0.7, cells / 6)
        ix, iy = round(gx), round(gy)
        near = (xs - ix) ** 2 + (ys - iy) ** 2
        heat = np.maximum(heat, np.exp(-near / (2 * sigma * sigma)))
        heat[iy, ix] = 1.0
        taught = near <= max(1.0, cells * 0.2) ** 2
        cls[taught] = t.cls
        size[taught] = math.log(max(t.extent, 4.0) / SIZE_UNIT)
    return heat, cls, size
