"""Is anything moving in the tray? A per-frame state machine cheap enough for every frame.

Each frame is shrunk to 160 pixels wide, its brightness normalised (so a cloud or a lamp dimming
is not motion), and compared with the previous frame and with the tray. The tray is the
calibration's background when there is one, else a median far wider than a die.

A hand (or an arm, or a cup) is told from dice by its thickness: what differs from the settled
tray is a hand where it is thicker than any die, reaching in from the frame's edge (or far
thicker anywhere). Dice flying in, however many and however blurred, are never thicker than a
die across, so a throw of ten dice is not a hand. Motion counts only outside the hand (and
where the hand was a frame ago), so dice rolling away from a hand that stays a moment are a
throw, while dice set down under a hand are not.
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
_SQUARE7 = np.ones((7, 7), np.uint8)


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
    # Half the thickness (largest inscribed radius), as a share of the frame's width, of a blob
    # reaching in from the frame's edge that makes it a hand: 11 px of 160, a solid blob 14 %
    # of the frame wide (a palm is 4 dice wide). Dice flying in, blurred and with their
    # shadows, two or three overlapping, are half that; a rendered hand's palm is 25 %.
    hand_radius: float = 0.07
    loose_hand_radius: float = 0.11  # ... or of a blob anywhere (a heap is not this solid)
    present_level: int = 30  # colour difference from the tray that means "something is here"
    min_blob: float = 0.0012  # smallest blob that can be a die, as a share of the frame
    reference_after: int = 5  # still frames before the tray as it lies becomes the reference


@dataclass(frozen=True)
class RestObservation:
    """The state of one frame and the measures behind it."""

    state: TrayState
    moving: float  # changed share of the frame outside a hand: dice (or something) moving
    present: float  # share of the frame unlike the tray
    largest: float  # share of the frame taken by the largest blob (changed or present)
    hand: bool = False  # a hand is in view (the state is HAND)
    # Share of the frame changed by blobs clear of anything reaching in from the frame's edge
    # (and of any hand): dice rolling in the tray.
    rolling: float = 0.0


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
        self._hand_masks: list[npt.NDArray[np.uint8]] = []  # the last frames' hands, if any
        self._reaching: npt.NDArray[np.uint8] | None = None  # last frame's blobs at the edge

    def reset(self) -> None:
        self._previous = None
        self._reference = None
        self.still_frames = 0
        self._hand_masks = []
        self._reaching = None

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
            # Lone pixels are noise (a hand coming in rescales the brightness of the whole
            # frame and lifts dozens over the threshold), never a die.
            changed = _without_specks(changed)
        self._previous = grey
        arrived = self._unlike(ycc, self._reference)
        hand_mask, arrived_blob = self._hands(arrived)
        near = hand_mask
        for earlier in self._hand_masks:
            near = earlier if near is None else np.asarray(cv2.bitwise_or(near, earlier), np.uint8)
        self._hand_masks = [*self._hand_masks, hand_mask][-2:] if hand_mask is not None else []
        if near is not None:
            # What changed at a hand, or where one just was, is the hand moving, not dice:
            # a changed blob touching it is the hand's.
            changed = _apart_from(changed, np.asarray(cv2.dilate(near, _SQUARE7), np.uint8))
        moving = cv2.countNonZero(changed) / area
        rolling = 0.0
        if moving:
            # What moves within something that reaches in from the frame's edge (fingertips
            # of a hand not yet thick enough to be one; a die still flying in) is not yet
            # dice rolling in the tray.
            reaching = _touching_edge(arrived)
            if self._reaching is not None and self._reaching.shape == reaching.shape:
                # ... nor what changes where such a thing was a frame ago (it withdrew).
                reaching = np.asarray(cv2.bitwise_or(reaching, self._reaching), np.uint8)
            inside = _apart_from(changed, np.asarray(cv2.dilate(reaching, _SQUARE3), np.uint8))
            rolling = cv2.countNonZero(inside) / area
        self._reaching = _touching_edge(arrived)
        changed_blob, _ = _largest_blob(changed)
        largest = max(changed_blob, arrived_blob) / area
        present_share = 0.0
        if hand_mask is not None:
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
        return RestObservation(
            state, moving, present_share, largest, hand_mask is not None, rolling
        )

    def _hands(self, arrived: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.uint8] | None, int]:
        """The mask of the hand-thick blobs of `arrived` (None when there is none) and the
        area of its largest blob."""
        if not cv2.countNonZero(arrived):
            return None, 0
        count, labels, stats, _ = cv2.connectedComponentsWithStats(arrived, connectivity=8)
        if count <= 1:
            return None, 0
        largest = int(stats[1:, cv2.CC_STAT_AREA].max())
        h, w = arrived.shape
        # A hand half in view goes on beyond the frame's edge: the mask is carried on past
        # it, so the hand's thickness is measured whole (a die there is as thick as ever).
        pad = w // 10
        padded = cv2.copyMakeBorder(arrived, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
        thickness = cv2.distanceTransform(padded, cv2.DIST_L2, 3)[pad:-pad, pad:-pad]
        edge_radius = self.settings.hand_radius * w
        loose_radius = self.settings.loose_hand_radius * w
        thick = thickness >= edge_radius
        if not thick.any():
            return None, largest
        hands: list[int] = []
        for label in np.unique(labels[thick]).tolist():
            x, y, bw, bh = (int(v) for v in stats[label, :4])
            at_edge = x <= 1 or y <= 1 or x + bw >= w - 1 or y + bh >= h - 1
            radius = float(thickness[labels == label].max())
            if at_edge or radius >= loose_radius:
                hands.append(label)
        if not hands:
            return None, largest
        return np.where(np.isin(labels, hands), 255, 0).astype(np.uint8), largest

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


def _without_specks(mask: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The mask without blobs of one or two pixels."""
    if not cv2.countNonZero(mask):
        return mask
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    specks = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] <= 2)
    if count <= 1 or not len(specks):
        return mask
    return np.where(np.isin(labels, specks), 0, mask).astype(np.uint8)


def _touching_edge(mask: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The blobs of `mask` that touch the frame's edge."""
    border = np.zeros_like(mask)
    border[0, :] = border[-1, :] = 255
    border[:, 0] = border[:, -1] = 255
    return np.asarray(cv2.subtract(mask, _apart_from(mask, border)), np.uint8)


def _apart_from(mask: npt.NDArray[np.uint8], other: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The blobs of `mask` that do not touch `other`."""
    count, labels = cv2.connectedComponents(mask, connectivity=8)
    if count <= 1:
        return mask
    touching = np.unique(labels[(other > 0) & (mask > 0)])
    return np.where(np.isin(labels, touching), 0, mask).astype(np.uint8)


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
