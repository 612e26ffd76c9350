"""Where the dice might be: cheap candidate centres for the classifier to accept or reject.

A die is a compact square patch that differs from the tray around it, whatever its colours. The
tray is estimated by a median filter much wider than a die (or taken from a calibration), the
per-pixel colour difference is closed so that pips do not punch holes, and centre-minus-
surround box filters at a few die sizes peak at die centres, touching dice included. A white
die on a white tray hardly differs in colour, so sharp local contrast (pips, edges; the tray
is smooth) counts as difference too. The stage is tuned to miss almost nothing; the
classifier then throws away what is not a die.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]

# Die sides (pixels at full resolution) the search looks for when no calibration says better.
DEFAULT_SIZES: tuple[int, ...] = (16, 24, 34, 48, 68, 96)
# Sides from which the search runs at quarter resolution (measured in docs/notes/vision-history.md).
QUARTER_FROM = 96
_CLOSE = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
_CLOSE_EDGES = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
_SQUARE3 = np.ones((3, 3), np.uint8)
EDGE_WEIGHT = 0.5  # local contrast (0..255 lightness steps) to difference units
MIN_STRENGTH = 12.0  # the centre-minus-surround response a candidate needs


@dataclass(frozen=True)
class Candidate:
    """A place that may hold a die: centre and side in full-resolution pixels, and its strength."""

    x: float
    y: float
    size: float
    strength: float


def tray_lab(background: Image, width: int, height: int) -> Image:
    """The empty tray as `tray_difference` compares with it: Lab at half resolution."""
    tray = cv2.resize(background, (width // 2, height // 2), interpolation=cv2.INTER_AREA)
    return np.asarray(cv2.cvtColor(tray, cv2.COLOR_BGR2Lab), np.uint8)


def tray_difference(
    image: Image, background: Image | None = None, background_lab: Image | None = None
) -> npt.NDArray[np.float32]:
    """Half-resolution map of how much each pixel differs from the empty tray (0..60).

    The tray is `background_lab` (from `tray_lab`, cached by the caller), else `background`,
    else estimated from the picture itself.
    """
    h, w = image.shape[:2]
    half = cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(half, cv2.COLOR_BGR2Lab)
    if background_lab is not None:
        lab_tray = background_lab
    elif background is None:
        small = cv2.resize(half, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA)
        # 21 cells of 8 px: wider than two dice, so a die never becomes "tray". Turned into
        # Lab small, then enlarged: a sixteenth of the colour conversion, and the tray is
        # smooth either way.
        tray = cv2.cvtColor(cv2.medianBlur(small, 21), cv2.COLOR_BGR2Lab)
        lab_tray = np.asarray(
            cv2.resize(tray, (w // 2, h // 2), interpolation=cv2.INTER_LINEAR), np.uint8
        )
    else:
        lab_tray = tray_lab(background, w, h)
    lightness, a, b = cv2.split(cv2.absdiff(lab, lab_tray))
    # Colour (a, b) counts double: shadows change lightness only, dice rarely do.
    diff = cv2.addWeighted(lightness, 0.5, cv2.add(a, b), 1.0, 0)
    diff = cv2.threshold(diff, 60, 60, cv2.THRESH_TRUNC)[1]  # at most 60
    closed = cv2.morphologyEx(diff, cv2.MORPH_CLOSE, _CLOSE)
    edges = cv2.morphologyEx(lab[..., 0], cv2.MORPH_GRADIENT, _SQUARE3)
    if background_lab is not None or background is not None:
        # What the empty tray already has (its walls, its print) is not a die; dilated so that
        # a camera shaken by a pixel still cancels it.
        tray_edges = cv2.morphologyEx(lab_tray[..., 0], cv2.MORPH_GRADIENT, _SQUARE3)
        edges = cv2.subtract(edges, cv2.dilate(tray_edges, _SQUARE3))
    # Closed before scaling: the same (a closing commutes with a rising function), on bytes.
    edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, _CLOSE_EDGES)
    scaled = cv2.threshold(edges.astype(np.float32) * EDGE_WEIGHT, 60.0, 60.0, cv2.THRESH_TRUNC)[1]
    return np.asarray(cv2.max(closed.astype(np.float32), scaled), np.float32)


PIP_PER_SIDE = 0.2  # a pip's diameter, in die sides


def dark_pips(
    image: Image, smallest: float, largest: float, contrast: float = 50.0
) -> list[tuple[float, float]]:
    """Centres (full-resolution pixels) of dark round spots the size of a pip on something
    lighter: the pips of a white die, for a die the locator did not propose.

    A white die on a pale tray hardly differs from it except by its pips, so its candidate
    is often too weak (6 of the 9 dice missed on the real photos, docs/notes/vision-history.md). A
    pip is a sharp dark dot: a black-hat (closing minus image) of pip size on the brightness keeps
    it and leaves out what is dark and wide (a dark die, a shadow) and a light pip on a dark die.
    `smallest` and `largest` are the die sides (full-resolution pixels) to look for pips of;
    `contrast` is how much darker (grey levels, 0-255) than around it a pip must be.
    """
    h, w = image.shape[:2]
    half = cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(half, cv2.COLOR_BGR2GRAY)
    small, large = (PIP_PER_SIDE * side / 2.0 for side in (smallest, largest))  # half res.
    k = max(5, int(2 * large + 1) | 1)
    # A square closes a dot as a disc does, and is separable: a fifth of the time.
    spots = cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, np.ones((k, k), np.uint8))
    mask = cv2.threshold(spots, contrast - 1, 255, cv2.THRESH_BINARY)[1]
    # Outlines, not labelled components: the mask is sparse, and this is a third of the time.
    outlines, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    found = []
    for outline in outlines:
        x, y, width, height = cv2.boundingRect(outline)
        wide, narrow = max(width, height), min(width, height)
        if max(2.0, 0.5 * small) <= wide <= 2.0 * large + 2.0 and wide <= 2.5 * narrow + 1:
            found.append((2.0 * x + width, 2.0 * y + height))  # the box's centre, full res.
    return found


def strength_at(diff: npt.NDArray[np.float32], x: float, y: float, size: float) -> float:
    """The centre-minus-surround response `find_candidates` gives a die of `size` centred
    at (x, y) (full-resolution pixels), on a half-resolution `tray_difference` map."""
    s = max(3, int(size) // 2)
    column, row = int(x) // 2, int(y) // 2

    def mean(side: int) -> float:
        r = side // 2
        window = diff[max(0, row - r) : row + r + 1, max(0, column - r) : column + r + 1]
        return float(window.mean()) if window.size else 0.0

    return mean(s) - 0.5 * mean(2 * s)


def _structure_integrals(diff: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """Integral images of the structure tensor (gx², gy², gx·gy) of the difference map."""
    gx = cv2.Sobel(diff, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(diff, cv2.CV_32F, 0, 1, ksize=3)
    tensor = cv2.merge([gx * gx, gy * gy, gx * gy])
    return np.asarray(cv2.integral(tensor, sdepth=cv2.CV_64F), np.float64)


def _coherence(
    integral: npt.NDArray[np.float64], xs: npt.NDArray[np.intp], ys: npt.NDArray[np.intp], s: int
) -> npt.NDArray[np.float64]:
    """How much the edges in the s-wide window around each peak run one way (0: every way, as
    on a die's square outline and round pips; 1: one straight edge, as a tray's wall)."""
    h, w = integral.shape[0] - 1, integral.shape[1] - 1
    x0, x1 = np.clip(xs - s // 2, 0, w), np.clip(xs + s // 2 + 1, 0, w)
    y0, y1 = np.clip(ys - s // 2, 0, h), np.clip(ys + s // 2 + 1, 0, h)
    window = integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0]
    jxx, jyy, jxy = window[:, 0], window[:, 1], window[:, 2]
    return np.sqrt((jxx - jyy) ** 2 + 4.0 * jxy**2) / np.maximum(jxx + jyy, 1e-6)


def find_candidates(
    image: Image,
    sizes: tuple[int, ...] = DEFAULT_SIZES,
    background: Image | None = None,
    min_strength: float = MIN_STRENGTH,
    *,
    background_lab: Image | None = None,
    best_scale_only: bool = False,
    quiet_sides: int = 0,
    max_coherence: float = 0.95,
    difference: npt.NDArray[np.float32] | None = None,
) -> list[Candidate]:
    """Candidate die centres in a BGR image, strongest first.

    Options that trade recall for speed (measured in docs/notes/vision-history.md):
    `best_scale_only` keeps, where peaks at several sizes coincide, only the strongest;
    `quiet_sides` drops a peak with fewer than that many quiet neighbouring windows (a wall's edge
    has busy neighbours along it; a die in a row of dice still has two quiet sides); `max_coherence`
    drops a peak whose edges nearly all run one way (a straight wall; see `_coherence`).
    `difference`: the picture's `tray_difference`, when the caller has it already.
    """
    half = (
        difference if difference is not None else tray_difference(image, background, background_lab)
    )
    tensor = _structure_integrals(half) if max_coherence < 1.0 else None
    quarter: npt.NDArray[np.float32] | None = None
    found: list[Candidate] = []
    for size in sizes:
        # Big dice are searched at quarter resolution (a quarter of the work, and still 12
        # pixels or more a side); the others at half resolution.
        scale = 4 if size >= QUARTER_FROM else 2
        if scale == 4 and quarter is None:
            hh, ww = half.shape
            quarter = np.asarray(
                cv2.resize(half, (ww // 2, hh // 2), interpolation=cv2.INTER_AREA), np.float32
            )
        diff = quarter if scale == 4 and quarter is not None else half
        h, w = diff.shape
        s = max(3, size // scale)  # side at the search's resolution
        inner = cv2.boxFilter(diff, -1, (s, s))
        outer = cv2.boxFilter(diff, -1, (2 * s, 2 * s))
        response = cv2.addWeighted(inner, 1.0, outer, -0.5, 0.0)
        window = (s // 2) | 1
        # The strong places first (few), then which of them are local peaks: cheaper than
        # comparing every pixel with its neighbourhood's maximum.
        above = cv2.threshold(response, min_strength, 255, cv2.THRESH_BINARY)[1]
        strong = cv2.findNonZero(above.astype(np.uint8))
        if strong is None or not len(strong):
            continue
        points = np.asarray(strong).reshape(-1, 2)
        xs, ys = points[:, 0], points[:, 1]
        local_max = cv2.dilate(response, np.ones((window, window), np.uint8))
        peak = response[ys, xs] >= local_max[ys, xs]
        xs, ys = xs[peak], ys[peak]
        if len(xs) == 0:
            continue
        quiet = np.ones(len(xs), bool)
        if quiet_sides:
            centre = inner[ys, xs]
            sides = np.stack(
                [
                    inner[ys, np.clip(xs - s, 0, w - 1)],
                    inner[ys, np.clip(xs + s, 0, w - 1)],
                    inner[np.clip(ys - s, 0, h - 1), xs],
                    inner[np.clip(ys + s, 0, h - 1), xs],
                ]
            )
            quiet = (sides < 0.6 * centre).sum(axis=0) >= quiet_sides
        if tensor is not None:
            # (The structure tensor is at half resolution: the peak's place and side there.)
            k = scale // 2
            quiet &= _coherence(tensor, xs * k + k // 2, ys * k + k // 2, s * k) <= max_coherence
        half_px = scale / 2.0
        for x, y, strength in zip(
            xs[quiet].tolist(), ys[quiet].tolist(), response[ys, xs][quiet].tolist(), strict=True
        ):
            found.append(
                Candidate(scale * x + half_px, scale * y + half_px, float(size), float(strength))
            )
    found.sort(key=lambda c: -c.strength)
    if not best_scale_only:
        return found
    kept: list[Candidate] = []
    for c in found:
        if not any(
            abs(c.x - k.x) < 0.3 * max(c.size, k.size)
            and abs(c.y - k.y) < 0.3 * max(c.size, k.size)
            for k in kept
        ):
            kept.append(c)
    return kept
