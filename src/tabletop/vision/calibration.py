"""What the camera sees of the empty tray: its region, its look, and the usual die size.

Learned from a few frames of the empty tray (`tabletop dice calibrate`) and stored as one JSON
file with the background picture embedded as PNG, so a table's configuration folder holds
everything. Reading works without one; with one it is faster and surer, because the tray need
not be guessed and nothing outside it is looked at. Version 2 adds the camera's view of the
table (`tabletop.vision.view.TableView`, learnt from a board lying in the tray), for a camera that
is not straight above the tray or has a wide lens; version 1 files, which have none, still load.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .errors import CalibrationError
from .view import TableView

Image = npt.NDArray[np.uint8]
VERSION = 2
_READABLE_VERSIONS = (1, 2)
_SQUARE3 = np.ones((3, 3), np.uint8)
_STORED_WIDTH = 320  # the background is kept at this width: enough for half-resolution work


@dataclass(frozen=True)
class Calibration:
    """The empty tray as the camera sees it."""

    width: int
    height: int
    tray: tuple[int, int, int, int]  # x0, y0, x1, y1: the floor of the tray, in frame pixels
    background: Image  # the empty tray, BGR, stored small
    die_size: float | None = None  # side of a die in pixels, when known
    # How the camera sees the table, when a board showed it: the reader then reads flat
    # pictures of the table, as from straight above (tabletop.vision.view).
    view: TableView | None = None

    def background_for(self, image: Image) -> Image:
        """The background scaled to the size of a frame."""
        h, w = image.shape[:2]
        if (w, h) != (self.width, self.height):
            raise CalibrationError(
                f"calibration is for {self.width}x{self.height} frames, this frame is {w}x{h}"
            )
        return np.asarray(cv2.resize(self.background, (w, h)), np.uint8)

    def inside(self, x: float, y: float) -> bool:
        """Whether a point lies on the tray floor (with a little slack for dice at the wall)."""
        x0, y0, x1, y1 = self.tray
        slack = (self.die_size or 0.0) * 0.25
        return x0 - slack <= x <= x1 + slack and y0 - slack <= y <= y1 + slack

    def to_json(self) -> dict[str, Any]:
        ok, png = cv2.imencode(".png", self.background)
        if not ok:
            raise CalibrationError("cannot encode the background picture")
        return {
            "version": VERSION,
            "width": self.width,
            "height": self.height,
            "tray": list(self.tray),
            "die_size": self.die_size,
            "background_png": base64.b64encode(png.tobytes()).decode("ascii"),
            "view": None if self.view is None else self.view.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "calibration") -> Calibration:
        """Reads a calibration dict; every problem names the key."""
        if not isinstance(data, dict):
            raise CalibrationError(f"{where}: expected a JSON object")
        if data.get("version") not in _READABLE_VERSIONS:
            raise CalibrationError(
                f"{where}: version must be one of {list(_READABLE_VERSIONS)}, "
                f"not {data.get('version')!r}"
            )
        try:
            width, height = int(data["width"]), int(data["height"])
            tray_raw = data["tray"]
            if not (isinstance(tray_raw, list) and len(tray_raw) == 4):
                raise CalibrationError(f"{where}: key 'tray' must be [x0, y0, x1, y1]")
            tray = (int(tray_raw[0]), int(tray_raw[1]), int(tray_raw[2]), int(tray_raw[3]))
            die_size = None if data.get("die_size") is None else float(data["die_size"])
            png = base64.b64decode(data["background_png"], validate=True)
        except KeyError as error:
            raise CalibrationError(f"{where}: missing key {error.args[0]!r}") from error
        except (TypeError, ValueError) as error:
            raise CalibrationError(f"{where}: bad value: {error}") from error
        background = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
        if background is None:
            raise CalibrationError(f"{where}: key 'background_png' is not a PNG picture")
        view = None
        if data.get("view") is not None:
            view = TableView.from_json(data["view"], f"{where}: key 'view'")
            if view.picture_size != (width, height):
                raise CalibrationError(
                    f"{where}: key 'view' is for {view.picture_size[0]}x{view.picture_size[1]} "
                    f"pictures, the calibration for {width}x{height}"
                )
        return cls(width, height, tray, np.asarray(background, np.uint8), die_size, view)

    def save(self, path: str | Path) -> None:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise CalibrationError(f"cannot read {path}: {error.strerror}") from error
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CalibrationError(
                f"{path}: not JSON ({error.msg}, line {error.lineno})"
            ) from error
        return cls.from_json(data, str(path))


def calibrate(
    frames: Sequence[Image], die_size: float | None = None, view: TableView | None = None
) -> Calibration:
    """Learns the tray from frames of it standing empty (the median hides passing noise);
    `view`, learnt from a board in the tray (`tabletop.vision.view.find_view`), goes with it."""
    if not frames:
        raise CalibrationError("no frames to calibrate from")
    h, w = frames[0].shape[:2]
    if any(f.shape[:2] != (h, w) for f in frames):
        raise CalibrationError("calibration frames differ in size")
    median = np.median(np.stack(frames), axis=0).astype(np.uint8)
    small_h = max(1, round(h * _STORED_WIDTH / w))
    background = np.asarray(
        cv2.resize(median, (_STORED_WIDTH, small_h), interpolation=cv2.INTER_AREA), np.uint8
    )
    if view is not None and view.picture_size != (w, h):
        raise CalibrationError(
            f"the board's pictures are {view.picture_size[0]}x{view.picture_size[1]}, "
            f"the empty tray's {w}x{h}: take both with the same camera setting"
        )
    return Calibration(w, h, find_tray(median), background, die_size, view)


def flat_calibration(calibration: Calibration) -> Calibration:
    """The calibration as the flat pictures of its view show the tray: what the reader uses
    to read them (its background and floor flattened; no view of its own)."""
    view = calibration.view
    if view is None:
        raise CalibrationError("this calibration has no view of the table to flatten by")
    w, h = calibration.width, calibration.height
    picture = np.zeros((h, w, 3), np.uint8)
    flat_background = view.flatten(calibration.background_for(picture))
    # The whole flat picture is searched: what is not the tray shows no difference from the
    # empty tray's picture, and a wide lens darkens the tray's corners past what the floor's
    # colour test takes for floor (dice there were not found: docs/vision.md).
    fw, fh = view.flat_size
    tray = (0, 0, fw, fh)
    small_h = max(1, round(fh * _STORED_WIDTH / fw))
    background = np.asarray(
        cv2.resize(flat_background, (_STORED_WIDTH, small_h), interpolation=cv2.INTER_AREA),
        np.uint8,
    )
    return Calibration(fw, fh, tray, background, calibration.die_size)


def find_tray(image: Image) -> tuple[int, int, int, int]:
    """The floor of the tray: the large even region around the middle of the picture."""
    h, w = image.shape[:2]
    lab = cv2.cvtColor(cv2.GaussianBlur(image, (0, 0), 2.0), cv2.COLOR_BGR2Lab).astype(np.int16)
    middle = lab[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4].reshape(-1, 3)
    floor = np.median(middle, axis=0)
    distance = np.abs(lab - floor).sum(axis=2)
    mask = (distance < 30).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    if count <= 1:
        return (0, 0, w, h)
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, bw, bh = (int(v) for v in stats[best, :4])
    if bw * bh < 0.1 * w * h:
        return (0, 0, w, h)
    return (x, y, x + bw, y + bh)


def floor_of(image: Image, width: int = 160) -> tuple[int, int, int, int]:
    """A quick estimate of the tray's floor in a picture with dice, for a reader that has no
    calibration: as `find_tray` (the large even region around the middle), on the picture
    shrunk to `width` pixels and in YCrCb, which OpenCV converts to far faster than Lab."""
    h, w = image.shape[:2]
    scale = w / width
    small = cv2.resize(image, (width, max(1, round(h / scale))), interpolation=cv2.INTER_AREA)
    ycc = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb).astype(np.int16)
    sh, sw = ycc.shape[:2]
    floor = np.median(ycc[sh // 4 : 3 * sh // 4, sw // 4 : 3 * sw // 4].reshape(-1, 3), axis=0)
    # Lightness counts half: the far side of a tray is darker than the near one.
    distance = np.abs(ycc - floor.astype(np.int16)) @ np.array([1, 2, 2], np.int16)
    mask = cv2.morphologyEx((distance < 40).astype(np.uint8), cv2.MORPH_OPEN, _SQUARE3)
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    if count <= 1:
        return (0, 0, w, h)
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, bw, bh = (int(v) for v in stats[best, :4])
    if bw * bh < 0.1 * sw * sh:
        return (0, 0, w, h)
    return (
        round(x * scale),
        round(y * scale),
        min(w, round((x + bw) * scale)),
        min(h, round((y + bh) * scale)),
    )
