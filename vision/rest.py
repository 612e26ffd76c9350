"""Is anything moving in the tray? A per-frame state machine cheap enough for every frame.

Each frame is shrunk to 160 pixels wide, its brightness normalised (so a cloud or a lamp dimming
is not motion), and compared with the previous frame and with the tray. The tray is the
calibration's background when there is one, else a median far wider than a die. A large
blob, changed or present, is a hand (or an arm, or a cup): never a throw.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]
WORK_WIDTH = 160
_SQUARE3 = np.ones((3, 3), np.uint8)


class TrayState(enum.Enum):
    """What the tray looks like in one frame."""

    EMPTY = "empty"
    MOVING = "moving"
    STILL = "still"  # something lies in the tray and nothing moves
    HAND = "hand"  # something far bigger than a die is in view


@dataclass(frozen=True)
class RestSettings:
    """Thresholds, as fractions of the frame so they hold at any resolution."""

    change_level: int = 22  # grey levels (after normalising brightness) that count as a change
    moving_fraction: float = 0.0008  # changed share of the frame that means "moving"
    hand_fraction: float = 0.04  # one blob bigger than this share of the frame is a hand
    edge_hand_fraction: float = 0.012  # ... or this big and reaching in from the frame's edge
    edge_hand_frames: int = 2  # ... for this many frames in a row (thrown dice fly in faster)
    present_level: int = 30  # colour difference from the tray that means "something is here"
    min_blob: float = 0.0012  # smallest blob that can be a die, as a share of the frame
    reference_after: int = 5  # still frames before the tray as it lies becomes the reference


@dataclass(frozen=True)
class RestObservation:
    """The state of one frame and the measures behind it."""

    state: TrayState
    moving: float  # changed share of the frame
    present: float  # share of the frame unlike the tray
    largest: float  # share of the frame taken by the largest blob (changed or present)


class RestDetector:
    """Feeds on frames, says EMPTY / MOVING / STILL / HAND for each; counts still frames."""

    def __init__(
        self, settings: RestSettings | None = None, background: Image | None = None
    ) -> None:
        self.settings = settings if settings is not None else RestSettings()
        self.background = background
        self._previous: npt.NDArray[np.uint8] | None = None
        self._reference: npt.NDArray[np.uint8] | None = None
        self._tray_ycc: npt.NDArray[np.uint8] | None = None
        self._tray_size: tuple[int, int] | None = None
        self.still_frames = 0  # consecutive frames without motion, up to now
        self._edge_frames = 0  # consecutive frames with something big at the frame's edge

    def reset(self) -> None:
        self._previous = None
        self._reference = None
        self.still_frames = 0
        self._edge_frames = 0

    def observe(self, image: Image) -> RestObservation:
        """The state of this frame (the first frame of a run counts as not moving)."""
        h, w = image.shape[:2]
        size = (WORK_WIDTH, max(1, round(h * WORK_WIDTH / w)))
        # Subsample to twice the working size first: averaging all 300k pixels costs more
        # than the rest of the frame's work, and half of them are enough against noise.
        half = cv2.resize(image, (size[0] * 2, size[1] * 2), interpolation=cv2.INTER_NEAREST)
        small = cv2.resize(half, size, interpolation=cv2.INTER_AREA)
        grey = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), np.uint8)
        mean = float(cv2.mean(grey)[0])
        grey = np.asarray(cv2.convertScaleAbs(grey, alpha=128.0 / max(mean, 1.0)), np.uint8)
        ycc = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb), np.uint8)
        settings = self.settings
        area = float(size[0] * size[1])

        if self._previous is None or self._previous.shape != grey.shape:
            changed = np.zeros_like(grey)
            self._reference = ycc
        else:
            changed = np.asarray(
                cv2.threshold(
                    cv2.absdiff(grey, self._previous), settings.change_level, 255, cv2.THRESH_BINARY
                )[1],
                np.uint8,
            )
        self._previous = grey
        arrived = self._unlike(ycc, self._reference)
        moving = cv2.countNonZero(changed) / area
        changed_blob, _ = _largest_blob(changed)
        arrived_blob, arrived_edge = _largest_blob(arrived)
        largest = max(changed_blob, arrived_blob) / area
        # A hand reaching in is attached to its arm at the frame's edge and stays there; dice
        # thrown in from the edge cross it in a frame or two, and their motion blur makes the
        # changed area big, so only what differs from the settled tray, frames in a row, counts.
        at_edge = arrived_edge / area > settings.edge_hand_fraction
        self._edge_frames = self._edge_frames + 1 if at_edge else 0
        present_share = 0.0
        if largest > settings.hand_fraction or self._edge_frames >= settings.edge_hand_frames:
            state = TrayState.HAND
        elif moving > settings.moving_fraction:
            state = TrayState.MOVING
        else:
            # Only a calm tray needs telling apart still from empty.
            present_share = self._present(ycc, size) / area
            state = TrayState.STILL if present_share > 0 else TrayState.EMPTY
        calm = state in (TrayState.STILL, TrayState.EMPTY)
        self.still_frames = self.still_frames + 1 if calm else 0
        if self.still_frames >= settings.reference_after:
            # The settled tray (dice and all) is what a hand or a new throw is measured against.
            self._reference = ycc
        return RestObservation(state, moving, present_share, largest)

    def _present(self, ycc: npt.NDArray[np.uint8], size: tuple[int, int]) -> int:
        """Area of the die-sized (or larger) blobs unlike the empty tray."""
        present = self._unlike(ycc, self._tray(ycc))
        if self.background is None:
            # Uncalibrated, the tray's walls are unknown; they hug the frame's edge, so the
            # outer band does not count as "something in the tray".
            mx, my = size[0] // 8, size[1] // 8
            present[:my] = 0
            present[-my:] = 0
            present[:, :mx] = 0
            present[:, -mx:] = 0
        return _blob_area(present, self.settings.min_blob * size[0] * size[1])

    def _tray(self, ycc: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        h, w = ycc.shape[:2]
        if self.background is not None:
            if self._tray_ycc is None or self._tray_size != (w, h):
                tray = cv2.resize(self.background, (w, h), interpolation=cv2.INTER_AREA)
                self._tray_ycc = np.asarray(cv2.cvtColor(tray, cv2.COLOR_BGR2YCrCb), np.uint8)
                self._tray_size = (w, h)
            return self._tray_ycc
        # No calibration: a median four dice wide stands in for the empty tray.
        tiny = cv2.resize(ycc, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA)
        return np.asarray(
            cv2.resize(cv2.medianBlur(tiny, 5), (w, h), interpolation=cv2.INTER_LINEAR), np.uint8
        )

    def _unlike(
        self, ycc: npt.NDArray[np.uint8], other: npt.NDArray[np.uint8] | None
    ) -> npt.NDArray[np.uint8]:
        """Where two YCrCb pictures differ in colour more than in brightness alone."""
        if other is None or other.shape != ycc.shape:
            return np.zeros(ycc.shape[:2], np.uint8)
        lightness, a, b = cv2.split(cv2.absdiff(ycc, other))
        # Brightness counts less than colour: a lamp changes it everywhere, a die changes both.
        diff = cv2.addWeighted(lightness, 0.5, cv2.add(a, b), 1.5, 0)
        mask = cv2.threshold(diff, self.settings.present_level, 255, cv2.THRESH_BINARY)[1]
        return np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, _SQUARE3), np.uint8)


def _blob_area(mask: npt.NDArray[np.uint8], min_area: float) -> int:
    """Total area of the blobs at least min_area big (specks and lines do not count)."""
    if not cv2.countNonZero(mask):
        return 0
    _, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    return int(areas[areas >= min_area].sum())


def _largest_blob(mask: npt.NDArray[np.uint8]) -> tuple[int, int]:
    """Areas of the largest blob and of the largest blob touching the frame's edge."""
    if not cv2.countNonZero(mask):
        return 0, 0
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count <= 1:
        return 0, 0
    h, w = mask.shape
    x, y = stats[1:, cv2.CC_STAT_LEFT], stats[1:, cv2.CC_STAT_TOP]
    x1 = x + stats[1:, cv2.CC_STAT_WIDTH]
    y1 = y + stats[1:, cv2.CC_STAT_HEIGHT]
    areas = stats[1:, cv2.CC_STAT_AREA]
    edge = (x <= 1) | (y <= 1) | (x1 >= w - 1) | (y1 >= h - 1)
    return int(areas.max()), int(areas[edge].max()) if edge.any() else 0
