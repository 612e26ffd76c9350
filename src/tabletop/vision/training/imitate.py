"""Training crops seen as other tables' cameras see them (issue 34, item 1).

The 200 labelled photos come from one good camera over one tray. Other tables' webcams give
JPEG blocks, small sensors scaled up, shake, dim or washed-out light and a lens's stretch;
`imitate_cameras` gives a share of the training crops one or two of these, each mild enough
that a person still counts the pips (a crop made unreadable but labelled with its value would
teach the network to guess). Pure numpy and OpenCV, so it is tested without PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np
import numpy.typing as npt

Crops = npt.NDArray[np.uint8]
Crop = npt.NDArray[np.uint8]


def imitate_cameras(
    batch: Crops, rng: np.random.Generator, share: float, faults: Sequence[str] = ()
) -> Crops:
    """A share `share` of the crops (uint8, N x side x side x 3) as other cameras give them:
    one or two of JPEG blocks (quality 20-60), a small sensor scaled up (0.45-0.8), camera
    shake (a 2-4 px streak), gamma (a dim or washed-out picture) and a lens's or a tilt's
    stretch (each axis 0.85-1.15, sheared up to 0.12), in random order. Each keeps the pips
    countable by eye: a crop made unreadable but labelled with its value would teach the
    network to guess. `faults` names the ones to choose from (`CAMERA_FAULTS`; all when
    empty)."""
    chosen = np.nonzero(rng.random(len(batch)) < share)[0]
    if not len(chosen):
        return batch
    effects = [CAMERA_FAULTS[name] for name in faults or CAMERA_FAULTS]
    out = batch.copy()
    for i in chosen:
        crop = np.ascontiguousarray(out[i])
        for effect in rng.permutation(len(effects))[: int(rng.integers(1, 3))]:
            crop = effects[int(effect)](crop, rng)
        out[i] = crop
    return out


def _jpeg(crop: Crop, rng: np.random.Generator) -> Crop:
    quality = int(rng.integers(20, 61))
    ok, data = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8) if ok else crop


def _small_sensor(crop: Crop, rng: np.random.Generator) -> Crop:
    side = crop.shape[0]
    small = max(6, round(side * float(rng.uniform(0.45, 0.8))))
    shrunk = cv2.resize(crop, (small, small), interpolation=cv2.INTER_AREA)
    return np.asarray(cv2.resize(shrunk, (side, side), interpolation=cv2.INTER_LINEAR), np.uint8)


def _shake(crop: Crop, rng: np.random.Generator) -> Crop:
    reach = int(rng.integers(1, 3))
    kernel = np.zeros((reach * 2 + 1, reach * 2 + 1), np.float32)
    angle = float(rng.uniform(0, np.pi))
    dx, dy = np.cos(angle) * reach, np.sin(angle) * reach
    start, end = (round(reach - dx), round(reach - dy)), (round(reach + dx), round(reach + dy))
    cv2.line(kernel, start, end, 1.0, 1)
    return np.asarray(cv2.filter2D(crop, -1, kernel / kernel.sum()), np.uint8)


def _gamma(crop: Crop, rng: np.random.Generator) -> Crop:
    gamma = float(np.exp(rng.uniform(np.log(0.6), np.log(1.7))))
    table = (255 * (np.arange(256) / 255) ** gamma).astype(np.uint8)
    return np.asarray(cv2.LUT(crop, table), np.uint8)


def _stretch(crop: Crop, rng: np.random.Generator) -> Crop:
    side = crop.shape[0]
    sx, sy = rng.uniform(0.85, 1.15, 2)
    shear = float(rng.uniform(-0.12, 0.12))
    matrix = np.array([[sx, shear, 0.0], [0.0, sy, 0.0]], np.float32)
    centre = np.array([side / 2, side / 2], np.float32)
    matrix[:, 2] = centre - matrix[:, :2] @ centre
    stretched = cv2.warpAffine(crop, matrix, (side, side), borderMode=cv2.BORDER_REFLECT)
    return np.asarray(stretched, np.uint8)


CAMERA_FAULTS: dict[str, Callable[[Crop, np.random.Generator], Crop]] = {
    "jpeg": _jpeg,
    "small-sensor": _small_sensor,
    "shake": _shake,
    "gamma": _gamma,
    "stretch": _stretch,
}
