"""How a camera sees the table: its lens's bend and its slant, learnt from a printed board.

A die read from one crop cannot tell a flat die squeezed by a wide lens or a slanted camera
from a cocked die's tilted top face (docs/vision.md, "Other tables"). A `TableView` takes both
out of the picture before anything is read: it undoes the lens (OpenCV's radial model) and
maps the table's plane to a picture as a camera straight above would take it (a homography),
so the reader keeps its strict idea of a flat die.

It is learnt once per table from photos of a chessboard lying in the empty tray (`find_view`;
`tabletop dice calibrate --board COLSxROWS`; `board_image` draws one to print). The board's
size on paper does not matter: the flat picture keeps a board square as large as the camera
shows it at the board's centre, so dice keep about the size they have there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .errors import CalibrationError
from .reading import DieReading, FrameReading

Image = npt.NDArray[np.uint8]
Points = npt.NDArray[np.float64]
# The flat picture is at most this many times the camera's picture on each side: a camera
# slanted far sees a long way off, where dice are specks anyway.
MAX_FLAT_GROWTH = 2.0
# Lens fits worse than this (picture pixels, root mean square over the board's corners) are
# refused: the board was not found where it lies, or it is not flat.
MAX_FIT_ERROR = 1.5
_FIXED_FOCAL = (
    cv2.CALIB_USE_INTRINSIC_GUESS
    | cv2.CALIB_FIX_FOCAL_LENGTH
    | cv2.CALIB_FIX_PRINCIPAL_POINT
    | cv2.CALIB_ZERO_TANGENT_DIST
    | cv2.CALIB_FIX_K3
)
_FREE_FOCAL = (
    cv2.CALIB_USE_INTRINSIC_GUESS
    | cv2.CALIB_FIX_ASPECT_RATIO
    | cv2.CALIB_FIX_PRINCIPAL_POINT
    | cv2.CALIB_ZERO_TANGENT_DIST
    | cv2.CALIB_FIX_K3
)
_CORNER_FIND = cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_EXHAUSTIVE | cv2.CALIB_CB_ACCURACY


@dataclass(frozen=True)
class TableView:
    """The map from a camera's pictures to flat pictures of the table, as if from above."""

    picture_size: tuple[int, int]  # width, height of the camera's pictures
    flat_size: tuple[int, int]  # width, height of the flat pictures
    camera: tuple[float, float, float]  # focal length, principal point x, y (pixels)
    distortion: tuple[float, float]  # OpenCV's k1, k2 (no tangential, no k3)
    homography: tuple[float, ...]  # 9 numbers: undistorted picture -> flat picture

    @property
    def _camera_matrix(self) -> npt.NDArray[np.float64]:
        f, cx, cy = self.camera
        return np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])

    @property
    def _distortion(self) -> npt.NDArray[np.float64]:
        return np.array([self.distortion[0], self.distortion[1], 0.0, 0.0, 0.0])

    @property
    def _homography(self) -> npt.NDArray[np.float64]:
        return np.array(self.homography, np.float64).reshape(3, 3)

    @cached_property
    def _maps(self) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
        """For each flat pixel, where in the camera's picture it lies (made once)."""
        width, height = self.flat_size
        ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
        places = self.to_picture(np.stack([xs.ravel(), ys.ravel()], 1))
        # Flat pixels the camera does not see may map anywhere (past its horizon, even).
        places = np.clip(np.nan_to_num(places, nan=-1.0), -1.0, max(self.picture_size) + 1.0)
        map_x = places[:, 0].reshape(height, width).astype(np.float32)
        map_y = places[:, 1].reshape(height, width).astype(np.float32)
        # Fixed-point maps: remapping with them is about twice as fast (1/32 pixel apart).
        places_fixed, fractions = cv2.convertMaps(map_x, map_y, cv2.CV_16SC2)
        return np.asarray(places_fixed), np.asarray(fractions)

    @cached_property
    def standpoint(self) -> tuple[float, float, float] | None:
        """Where the camera stands, in flat-picture pixels: the point of the table straight
        below it and its height over the table; None for a camera (nearly) straight above,
        whose dice show no side faces worth the name.

        From the flat picture's map alone: the table's plane seen by a pinhole camera whose
        principal point is the picture's centre has one focal length that makes the plane's
        two directions square and equally long (Zhang's constraints, solved for f)."""
        to_picture = np.linalg.inv(self._homography)
        _, cx, cy = self.camera
        g = to_picture / np.linalg.norm(to_picture[:, 0])
        a = g[0] - cx * g[2]
        b = g[1] - cy * g[2]
        c = g[2]
        estimates = []
        if abs(c[0] * c[1]) > 1e-12:
            estimates.append(-(a[0] * a[1] + b[0] * b[1]) / (c[0] * c[1]))
        if abs(c[1] ** 2 - c[0] ** 2) > 1e-12:
            estimates.append(
                (a[0] ** 2 + b[0] ** 2 - a[1] ** 2 - b[1] ** 2) / (c[1] ** 2 - c[0] ** 2)
            )
        squares = [e for e in estimates if e > 0 and math.isfinite(e)]
        if not squares:
            return None
        focal = math.sqrt(float(np.median(squares)))
        columns = np.stack([a / focal, b / focal, c], 0)  # K^-1 G: s [r1 r2 t]
        scale = 0.5 * (np.linalg.norm(columns[:, 0]) + np.linalg.norm(columns[:, 1]))
        r1, r2, t = columns[:, 0] / scale, columns[:, 1] / scale, columns[:, 2] / scale
        if t[2] < 0:  # the table lies in front of the camera
            r1, r2, t = -r1, -r2, -t
        rotation = np.stack([r1, r2, np.cross(r1, r2)], 1)
        centre = -rotation.T @ t
        height = abs(float(centre[2]))
        # Straight above (or so far off that the map cannot tell): no side faces to speak of.
        if height <= 0 or math.hypot(*(centre[:2] - self._flat_middle)) < 0.05 * height:
            return None
        return float(centre[0]), float(centre[1]), height

    @property
    def _flat_middle(self) -> npt.NDArray[np.float64]:
        return np.array(self.flat_size, np.float64) / 2

    def flatten(self, image: Image) -> Image:
        """The camera's picture as a camera straight above the table would take it (what the
        camera does not see is black)."""
        h, w = image.shape[:2]
        if (w, h) != self.picture_size:
            raise CalibrationError(
                f"the camera's view is for {self.picture_size[0]}x{self.picture_size[1]} "
                f"pictures, this one is {w}x{h}"
            )
        map_a, map_b = self._maps
        flat = cv2.remap(image, map_a, map_b, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        return np.asarray(flat, np.uint8)

    def to_picture(self, points: Points) -> Points:
        """Flat-picture points as the camera's picture shows them."""
        to_undistorted = np.asarray(np.linalg.inv(self._homography), np.float64)
        undistorted = _apply(to_undistorted, np.asarray(points, np.float64))
        f, cx, cy = self.camera
        normal = (undistorted - (cx, cy)) / f
        r2 = (normal**2).sum(1, keepdims=True)
        k1, k2 = self.distortion
        return np.asarray(normal * (1 + k1 * r2 + k2 * r2 * r2) * f + (cx, cy), np.float64)

    def to_flat(self, points: Points) -> Points:
        """Camera-picture points as the flat picture shows them."""
        raw = np.asarray(points, np.float64).reshape(-1, 1, 2)
        undistorted = cv2.undistortPoints(
            raw, self._camera_matrix, self._distortion, P=self._camera_matrix
        )
        return _apply(self._homography, np.asarray(undistorted, np.float64).reshape(-1, 2))

    def dice_on_table(self, flat: FrameReading) -> list[tuple[DieReading, DieReading]]:
        """The dice of a reading of the flat picture, each as the flat picture shows its top
        face and as the camera's picture boxes it whole.

        A slanted camera shows a die's side faces between its top face and the point below
        the camera, as long as the die's height seen from there (a die of side s at distance
        d from that point, the camera h high: s d / h); the flat picture stretches them
        further. A die found there is those side faces, not a die: dice are taken farthest
        from the camera first, and one whose centre lies on a taken die's side faces is
        dropped. Each die is boxed whole in the camera's picture, top face and side faces,
        as a person boxes it."""
        standpoint = self.standpoint
        dice = list(flat.dice)
        if standpoint is not None:
            below = np.array(standpoint[:2])
            dice.sort(key=lambda d: -float(np.hypot(*(np.array(d.center) - below))))
        taken: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float]] = []
        found: list[tuple[DieReading, DieReading]] = []
        for die in dice:
            x0, y0, x1, y1 = die.box
            centre, side = np.array(die.center, np.float64), ((x1 - x0) + (y1 - y0)) / 2.0
            if any(_near_segment(centre, start, reach, 0.6 * size) for start, reach, size in taken):
                continue
            reach = np.zeros(2)
            if standpoint is not None:
                reach = (np.array(standpoint[:2]) - centre) * side / standpoint[2]
            taken.append((centre, reach, side))
            corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
            seen = self.to_picture(np.concatenate([corners, corners + reach]))
            px0, py0 = np.floor(seen.min(axis=0))
            px1, py1 = np.ceil(seen.max(axis=0))
            w, h = self.picture_size
            box = (max(0, int(px0)), max(0, int(py0)), min(w, int(px1)), min(h, int(py1)))
            found.append((die, DieReading(die.value, die.confidence, box, die.status)))
        return found

    def to_json(self) -> dict[str, Any]:
        return {
            "picture_size": list(self.picture_size),
            "flat_size": list(self.flat_size),
            "camera": list(self.camera),
            "distortion": list(self.distortion),
            "homography": list(self.homography),
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "view") -> TableView:
        """Reads a view dict; every problem names the key."""
        if not isinstance(data, dict):
            raise CalibrationError(f"{where}: expected a JSON object")
        lengths = {"picture_size": 2, "flat_size": 2, "camera": 3, "distortion": 2}
        lengths["homography"] = 9
        numbers: dict[str, tuple[float, ...]] = {}
        for key, length in lengths.items():
            value = data.get(key)
            if not (
                isinstance(value, list)
                and len(value) == length
                and all(isinstance(v, int | float) and math.isfinite(v) for v in value)
            ):
                raise CalibrationError(f"{where}: key {key!r} must be a list of {length} numbers")
            numbers[key] = tuple(float(v) for v in value)
        sizes = [int(v) for v in numbers["picture_size"] + numbers["flat_size"]]
        if min(sizes) < 1:
            raise CalibrationError(f"{where}: sizes must be positive, got {sizes}")
        if abs(np.linalg.det(np.reshape(numbers["homography"], (3, 3)))) < 1e-12:
            raise CalibrationError(f"{where}: key 'homography' is not invertible")
        return cls(
            (sizes[0], sizes[1]),
            (sizes[2], sizes[3]),
            (numbers["camera"][0], numbers["camera"][1], numbers["camera"][2]),
            (numbers["distortion"][0], numbers["distortion"][1]),
            numbers["homography"],
        )


def _near_segment(
    point: npt.NDArray[np.float64],
    start: npt.NDArray[np.float64],
    reach: npt.NDArray[np.float64],
    within: float,
) -> bool:
    """Whether `point` lies within `within` of the segment from `start` to `start + reach`."""
    length2 = float(reach @ reach)
    t = 0.0 if length2 == 0 else min(1.0, max(0.0, float((point - start) @ reach) / length2))
    return float(np.hypot(*(point - start - t * reach))) < within


def _apply(matrix: npt.NDArray[np.float64], points: Points) -> Points:
    ones = np.ones((len(points), 1))
    mapped = np.hstack([points, ones]) @ matrix.T
    return np.asarray(mapped[:, :2] / mapped[:, 2:], np.float64)


def board_image(columns: int = 9, rows: int = 6, square: int = 60) -> Image:
    """A chessboard to print, with `columns` x `rows` inner corners and a white margin."""
    if columns < 3 or rows < 3:
        raise CalibrationError(f"a board needs at least 3x3 inner corners, not {columns}x{rows}")
    if square < 8:
        raise CalibrationError(f"a board's squares need at least 8 pixels a side, not {square}")
    margin = square
    image = np.full(((rows + 1) * square + 2 * margin, (columns + 1) * square + 2 * margin), 255)
    for row in range(rows + 1):
        for column in range(columns + 1):
            if (row + column) % 2 == 0:
                y, x = margin + row * square, margin + column * square
                image[y : y + square, x : x + square] = 0
    return np.asarray(cv2.cvtColor(image.astype(np.uint8), cv2.COLOR_GRAY2BGR), np.uint8)


def parse_board(text: str) -> tuple[int, int]:
    """`9x6` -> (9, 6): a board's inner corners, across and down."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise CalibrationError(f"a board is COLUMNSxROWS of inner corners, like 9x6, not {text!r}")
    columns, rows = int(parts[0]), int(parts[1])
    if columns < 3 or rows < 3:
        raise CalibrationError(f"a board needs at least 3x3 inner corners, not {text!r}")
    return columns, rows


def find_board(image: Image, board: tuple[int, int]) -> Points | None:
    """The board's inner corners in a picture, row by row (None when it is not seen whole)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    found, corners = cv2.findChessboardCornersSB(grey, board, flags=_CORNER_FIND)
    if not found:
        return None
    return np.asarray(corners, np.float64).reshape(-1, 2)


def find_view(frames: Sequence[Image], board: tuple[int, int]) -> TableView:
    """The table's view, from pictures of the board lying flat on it (the first picture in
    which it is found places the flat picture; more pictures of the board elsewhere in the
    tray measure the lens better)."""
    if not frames:
        raise CalibrationError("no pictures of the board")
    h, w = frames[0].shape[:2]
    if any(f.shape[:2] != (h, w) for f in frames):
        raise CalibrationError("the board's pictures differ in size")
    found = [
        (i, corners) for i, f in enumerate(frames) if (corners := find_board(f, board)) is not None
    ]
    if not found:
        raise CalibrationError(
            f"no {board[0]}x{board[1]} board in any of the {len(frames)} pictures: lay it flat "
            "in the tray, whole in view, and give its inner corners (a 10x7-square board has 9x6)"
        )
    columns, rows = board
    grid = np.zeros((rows * columns, 3), np.float32)
    grid[:, :2] = np.mgrid[0:columns, 0:rows].T.reshape(-1, 2)
    # A slanted board tells the focal length (its perspective); a board seen from straight
    # above does not, and then a guess does as well: it scales the lens's numbers, not its
    # bend. The lens's bend is fitted with the focal length free first.
    guess_focal = float(max(w, h))
    images = [c.astype(np.float32).reshape(-1, 1, 2) for _, c in found]
    fitted = None
    for flags in (_FREE_FOCAL, _FIXED_FOCAL):
        guess = np.array([[guess_focal, 0.0, w / 2], [0.0, guess_focal, h / 2], [0.0, 0.0, 1.0]])
        error, matrix, distortion, _, _ = cv2.calibrateCamera(
            [grid] * len(found), images, (w, h), guess, np.zeros(5), flags=flags
        )
        if 0.3 * guess_focal <= matrix[0, 0] <= 5.0 * guess_focal:
            fitted = error, matrix, distortion
            break
    assert fitted is not None  # the fixed focal length always passes
    error, matrix, distortion = fitted
    focal = float(matrix[0, 0])
    if error > MAX_FIT_ERROR:
        raise CalibrationError(
            f"the board's corners fit no lens ({error:.1f} px off): is the board flat, and "
            f"are its inner corners {columns}x{rows}?"
        )
    k1, k2 = float(distortion.ravel()[0]), float(distortion.ravel()[1])
    corners = found[0][1]
    undistorted = cv2.undistortPoints(
        corners.reshape(-1, 1, 2), matrix, distortion, P=matrix
    ).reshape(-1, 2)
    # A board square as long in the flat picture as the camera shows it at the board.
    steps = np.linalg.norm(np.diff(undistorted.reshape(rows, columns, 2), axis=1), axis=2)
    square = float(np.median(steps))
    to_board, _ = cv2.findHomography(undistorted, grid[:, :2].astype(np.float64) * square)
    upright = _upright(np.asarray(to_board, np.float64), (w / 2, h / 2)) @ to_board
    view = TableView(
        (w, h), (w, h), (focal, w / 2, h / 2), (k1, k2), tuple(upright.ravel().tolist())
    )
    return _framed(view)


def _upright(
    homography: npt.NDArray[np.float64], at: tuple[float, float]
) -> npt.NDArray[np.float64]:
    """A turn (and a mirror, if needed) of the flat picture that keeps the camera's picture's
    right to the right and its up up at `at`: the board's corners may be found from any
    corner, and a person looks at the flat picture too."""
    step = 1.0
    here = np.array([at, (at[0] + step, at[1]), (at[0], at[1] + step)])
    mapped = _apply(homography, here)
    right, down = mapped[1] - mapped[0], mapped[2] - mapped[0]
    mirror = np.eye(3)
    if right[0] * down[1] - right[1] * down[0] < 0:
        mirror[1, 1] = -1.0
        right = right * (1.0, -1.0)
    angle = -math.atan2(right[1], right[0])
    c, s = math.cos(angle), math.sin(angle)
    turn = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return np.asarray(turn @ mirror, np.float64)


def _framed(view: TableView) -> TableView:
    """The view moved and scaled so that its flat picture holds what the camera sees, no
    bigger than MAX_FLAT_GROWTH times the camera's picture on a side."""
    w, h = view.picture_size
    # The picture's outline, a few points a side (a lens bends its edges).
    t = np.linspace(0.0, 1.0, 17)
    outline = np.concatenate(
        [
            np.stack([t * (w - 1), np.zeros_like(t)], 1),
            np.stack([np.full_like(t, w - 1), t * (h - 1)], 1),
            np.stack([t * (w - 1), np.full_like(t, h - 1)], 1),
            np.stack([np.zeros_like(t), t * (h - 1)], 1),
        ]
    )
    flat = view.to_flat(outline)
    x0, y0 = flat.min(axis=0)
    x1, y1 = flat.max(axis=0)
    scale = min(1.0, MAX_FLAT_GROWTH * w / (x1 - x0), MAX_FLAT_GROWTH * h / (y1 - y0))
    move = np.array([[scale, 0.0, -x0 * scale], [0.0, scale, -y0 * scale], [0.0, 0.0, 1.0]])
    homography = move @ np.array(view.homography).reshape(3, 3)
    size = (math.ceil((x1 - x0) * scale), math.ceil((y1 - y0) * scale))
    return TableView(
        view.picture_size,
        size,
        view.camera,
        view.distortion,
        tuple((homography / homography[2, 2]).ravel().tolist()),
    )
