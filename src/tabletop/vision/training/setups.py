"""Rendered pictures of other tables than ours, by kind, with the truth of every die in them.

The dice reader learnt from one tray photographed from straight above. Other tables tilt their
camera, use wide lenses, cheap webcams, coloured lamps, felt and leave coins and pencils in the
tray. Each `SetupKind` renders one such way a table differs from ours, so that a reader can be
trained without a kind and measured on it (`bench/vision_kinds.py`): the figure then says how
it does on a setup it has never seen.

Every picture is 640x480 BGR and carries the box and value of each die in it (`DieBox`; a
person's label, `tabletop.vision.evaluate.LabelledDie`, is one with a test for a point). Pictures
are built from `tabletop.hardware.camera.render`: a top-down scene drawn as the simulated camera
draws it, then changed as the kind's camera, light or tray would change it.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from tabletop.hardware.camera.render import (
    BGR,
    Hand,
    Image,
    RenderedDie,
    Scene,
    random_scene,
    render,
)

WIDTH, HEIGHT = 640, 480
Points = npt.NDArray[np.float64]  # (n, 2) x, y
FloatImage = npt.NDArray[np.float32]


class SetupKind(enum.Enum):
    """A kind of picture a table other than ours takes; the value is its name in commands."""

    TOP_DOWN = "top-down"
    TILTED = "tilted"
    WIDE_LENS = "wide-lens"
    COLOUR_CAST = "colour-cast"
    DIM_NOISY = "dim-noisy"
    CHEAP_JPEG = "cheap-jpeg"
    FELT = "felt"
    CLUTTER = "clutter"

    @property
    def description(self) -> str:
        """What the kind's pictures show, in a few words (for tables and contact sheets)."""
        return _DESCRIPTIONS[self]


_DESCRIPTIONS: dict[SetupKind, str] = {
    SetupKind.TOP_DOWN: "straight above, as the simulated camera renders a tray",
    SetupKind.TILTED: "camera 20-45 degrees off vertical: far dice smaller, side faces show",
    SetupKind.WIDE_LENS: "wide lens: barrel distortion and dark corners, more of the table",
    SetupKind.COLOUR_CAST: "white balance off: warm or cool cast, a coloured lamp to one side",
    SetupKind.DIM_NOISY: "low light: strong grain and colour noise, out of focus",
    SetupKind.CHEAP_JPEG: "cheap webcam: camera shake, low resolution, JPEG quality 25-50",
    SetupKind.FELT: "saturated felt of any colour, with its fibres, in a wooden tray",
    SetupKind.CLUTTER: "coins, pencils, a playing card or a hand in the tray beside the dice",
}


@dataclass(frozen=True)
class DieBox:
    """Where one die lies in a picture and the value on top (a
    `tabletop.vision.evaluate.LabelledDie` is one, as a person boxed it)."""

    x0: float
    y0: float
    x1: float
    y1: float
    value: int

    @property
    def center(self) -> tuple[float, float]:
        return ((self.x0 + self.x1) / 2.0, (self.y0 + self.y1) / 2.0)


@dataclass(frozen=True)
class SetupPicture:
    """One rendered picture of a kind: the 480x640 BGR image and the truth of its dice."""

    image: Image
    truth: tuple[DieBox, ...]
    kind: SetupKind
    # The camera that took it, for the kinds whose pictures are the camera's alone (top-down,
    # tilted, wide-lens, cheap-jpeg): `through_camera` takes other pictures of the same table
    # with it.
    camera: SetupCamera | None = None


@dataclass(frozen=True)
class SetupCamera:
    """A kind's camera over one table: the scene's tray, how the camera maps it, and what the
    camera does to every picture after (a wide lens darkens its corners)."""

    scene: Scene
    view: _View
    finish: Callable[[Image], Image]


@dataclass(frozen=True)
class _View:
    """How the camera maps the rendered top-down canvas (the source) onto the picture."""

    source_size: tuple[int, int]  # width, height of the canvas to render
    to_picture: Callable[[Points], Points]
    to_source: Callable[[Points], Points]

    def local_scale(self, points: Points) -> npt.NDArray[np.float64]:
        """How many picture pixels a source pixel spans at each point (square root of the
        area ratio), from the map itself, so every view's truth is sized the same way."""
        step = 0.5
        across, down = np.array([step, 0.0]), np.array([0.0, step])
        dx = self.to_picture(points + across) - self.to_picture(points - across)
        dy = self.to_picture(points + down) - self.to_picture(points - down)
        area = np.abs(dx[:, 0] * dy[:, 1] - dx[:, 1] * dy[:, 0]) / (2 * step) ** 2
        return np.sqrt(area)

    def warp(self, image: Image) -> Image:
        """The picture the camera takes of the rendered canvas."""
        ys, xs = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float64)
        grid = np.stack([xs.ravel(), ys.ravel()], 1)
        source = self.to_source(grid).astype(np.float32)
        map_x = source[:, 0].reshape(HEIGHT, WIDTH)
        map_y = source[:, 1].reshape(HEIGHT, WIDTH)
        warped = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(warped, np.uint8)


def _identity_view() -> _View:
    def same(points: Points) -> Points:
        return np.asarray(points, np.float64)

    return _View((WIDTH, HEIGHT), same, same)


def _homography_view(matrix: npt.NDArray[np.float64], size: tuple[int, int]) -> _View:
    inverse = np.asarray(np.linalg.inv(matrix), np.float64)

    def apply(m: npt.NDArray[np.float64], points: Points) -> Points:
        ones = np.ones((len(points), 1))
        mapped = np.hstack([np.asarray(points, np.float64), ones]) @ m.T
        return np.asarray(mapped[:, :2] / mapped[:, 2:], np.float64)

    return _View(size, lambda p: apply(matrix, p), lambda p: apply(inverse, p))


@dataclass(frozen=True)
class _TiltedCamera:
    """A pinhole camera over the table, turned `tilt` degrees off vertical towards the far
    side (the top of the picture), as a webcam on a stand at a player's elbow looks."""

    view: _View
    nadir: tuple[float, float]  # the point of the canvas straight below the camera
    height: float  # the camera's height over the table, in canvas pixels


def _tilted_camera(rng: np.random.Generator) -> _TiltedCamera:
    tilt = math.radians(float(rng.uniform(20.0, 45.0)))
    focal = float(rng.uniform(600.0, 850.0))  # picture pixels: 40-56 degrees across
    # The canvas scale at the picture's centre: the camera's height, as a ratio.
    centre_scale = float(rng.uniform(0.85, 1.15))
    roll = math.radians(float(rng.uniform(-6.0, 6.0)))
    distance = focal / centre_scale
    # World: the table plane z = 0 in canvas pixels, z pointing down into the table, so that
    # a camera straight above sees canvas x and y as picture x and y.
    camera = np.array([0.0, distance * math.sin(tilt), -distance * math.cos(tilt)])
    forward = -camera / distance
    across = np.array([1.0, 0.0, 0.0])
    down = np.cross(forward, across)
    c, s = math.cos(roll), math.sin(roll)
    across, down = c * across + s * down, -s * across + c * down
    rotation = np.stack([across, down, forward])
    intrinsic = np.array([[focal, 0.0, WIDTH / 2], [0.0, focal, HEIGHT / 2], [0.0, 0.0, 1.0]])
    translation = -rotation @ camera
    table_to_picture = intrinsic @ np.column_stack([rotation[:, 0], rotation[:, 1], translation])
    # The canvas must hold everything the camera sees: the far edge is wider than the near.
    corners = np.array([[0.0, 0.0], [WIDTH, 0.0], [WIDTH, HEIGHT], [0.0, HEIGHT]])
    seen = _homography_view(table_to_picture, (0, 0)).to_source(corners)
    # Past the near edge, room for the wall under the picture's bottom edge: the near wall
    # is behind the camera, the far wall and the side walls show in the far corners.
    below = 45.0
    x0, y0 = math.floor(seen[:, 0].min()), math.floor(seen[:, 1].min())
    x1, y1 = math.ceil(seen[:, 0].max()), math.ceil(seen[:, 1].max() + below)
    shift = np.array([[1.0, 0.0, x0], [0.0, 1.0, y0], [0.0, 0.0, 1.0]])
    view = _homography_view(table_to_picture @ shift, (x1 - x0, y1 - y0))
    return _TiltedCamera(view, (-x0, camera[1] - y0), distance * math.cos(tilt))


def _wide_lens_view(rng: np.random.Generator) -> tuple[_View, float]:
    """Barrel distortion: a picture point at radius r (in half-diagonals) shows the canvas
    at r * (1 + k r^2), so the corners see further than a plain lens; returns k too."""
    strength = float(rng.uniform(0.15, 0.35))
    half_diagonal = math.hypot(WIDTH / 2, HEIGHT / 2)
    size = (math.ceil(WIDTH * (1 + strength)) + 2, math.ceil(HEIGHT * (1 + strength)) + 2)
    picture_centre = np.array([WIDTH / 2, HEIGHT / 2])
    source_centre = np.array([size[0] / 2, size[1] / 2])

    def to_source(points: Points) -> Points:
        offset = (np.asarray(points, np.float64) - picture_centre) / half_diagonal
        r2 = (offset**2).sum(1, keepdims=True)
        return np.asarray(source_centre + offset * (1 + strength * r2) * half_diagonal)

    def to_picture(points: Points) -> Points:
        offset = (np.asarray(points, np.float64) - source_centre) / half_diagonal
        rho = np.sqrt((offset**2).sum(1, keepdims=True))
        # r (1 + k r^2) = rho has one root for k > 0; Newton's method from r = rho.
        r = rho.copy()
        for _ in range(8):
            r -= (r * (1 + strength * r * r) - rho) / (1 + 3 * strength * r * r)
        ratio = np.where(rho > 1e-9, r / np.maximum(rho, 1e-9), 1.0)
        return np.asarray(picture_centre + offset * ratio * half_diagonal)

    return _View(size, to_picture, to_source), strength


def _place_in_view(
    rng: np.random.Generator,
    scene: Scene,
    view: _View,
    reach: Callable[[RenderedDie], float] = lambda die: 0.0,
    shown: Callable[[RenderedDie], RenderedDie] = lambda die: die,
) -> tuple[RenderedDie, ...]:
    """The scene's dice moved to places the picture shows whole: sampled evenly over the
    picture (not the canvas, much of which a warped view does not show), at least as far
    apart as `random_scene` keeps them plus what `reach` says each die shows beside it;
    `shown` gives a die as the camera shows it at a place (its side faces)."""
    width, height = view.source_size
    wall = scene.wall_width
    placed: list[RenderedDie] = []
    for die in scene.dice:
        for _ in range(300):
            at = np.array([[rng.uniform(8, WIDTH - 8), rng.uniform(8, HEIGHT - 8)]])
            x, y = (float(v) for v in view.to_source(at)[0])
            moved = shown(replace(die, x=x, y=y))
            if not (wall + die.size <= x <= width - wall - die.size):
                continue
            if not (wall + die.size <= y <= height - wall - die.size):
                continue
            box = _truth_of(moved, view)
            if box.x0 < 2 or box.y0 < 2 or box.x1 > WIDTH - 2 or box.y1 > HEIGHT - 2:
                continue
            if any(
                math.hypot(x - d.x, y - d.y)
                < 1.265 * max(die.size, d.size) + reach(moved) + reach(d)
                for d in placed
            ):
                continue
            placed.append(moved)
            break
    return tuple(placed)


def _truth_of(die: RenderedDie, view: _View) -> DieBox:
    """The die's box in the picture: its centre mapped, its side scaled as the view scales
    the canvas there (a foreshortened die is boxed by its mean size). A die whose side faces
    show is boxed whole, top face and side faces, as a person boxes it in a tilted photo
    (and as the reader places it): its top face's box joined with the same box at its foot."""
    places = np.array([[die.x, die.y], [die.x + die.side_shown[0], die.y + die.side_shown[1]]])
    centres = view.to_picture(places)
    halves = die.size / 2 * view.local_scale(places)
    if die.side_shown == (0.0, 0.0):
        centres, halves = centres[:1], halves[:1]
    x0 = float((centres[:, 0] - halves).min())
    y0 = float((centres[:, 1] - halves).min())
    x1 = float((centres[:, 0] + halves).max())
    y1 = float((centres[:, 1] + halves).max())
    return DieBox(x0, y0, x1, y1, die.value)


def _truths(scene: Scene, view: _View) -> tuple[DieBox, ...]:
    return tuple(_truth_of(die, view) for die in scene.dice if not die.cocked)


def _dice_count(rng: np.random.Generator, dice: int | None) -> int:
    return int(rng.integers(2, 9)) if dice is None else dice


def _top_down(
    rng: np.random.Generator, seed: int, dice: int | None, cocked: int = 0
) -> SetupPicture:
    scene = random_scene(rng, _dice_count(rng, dice), cocked=cocked)
    view = _identity_view()
    taken = SetupCamera(scene, view, lambda picture: picture)
    return SetupPicture(render(scene, seed), _truths(scene, view), SetupKind.TOP_DOWN, taken)


def _tilted(rng: np.random.Generator, seed: int, dice: int | None, cocked: int = 0) -> SetupPicture:
    count = _dice_count(rng, dice)
    camera = _tilted_camera(rng)
    width, height = camera.view.source_size
    # Dice a little bigger than random_scene's smallest: the far ones shrink by half.
    size = rng.uniform(30, 46)
    scene = random_scene(rng, count, width=width, height=height, die_size=size, cocked=cocked)
    nadir_x, nadir_y = camera.nadir

    def side_shown(die: RenderedDie) -> float:
        # A die's height seen at angle phi from vertical spans size * tan(phi) of the table.
        return die.size * math.hypot(die.x - nadir_x, die.y - nadir_y) / camera.height

    def as_seen(die: RenderedDie) -> RenderedDie:
        # The side faces that face the camera show between the top face and the point below
        # the camera, as far as the die's height spans on the table seen from there.
        to_nadir = (nadir_x - die.x, nadir_y - die.y)
        scale = die.size / camera.height
        return replace(die, lean=(0.0, 0.0), side_shown=(to_nadir[0] * scale, to_nadir[1] * scale))

    leaning = _place_in_view(rng, scene, camera.view, side_shown, as_seen)
    scene = replace(scene, dice=tuple(leaning))
    image = camera.view.warp(render(scene, seed))
    taken = SetupCamera(scene, camera.view, lambda picture: picture)
    return SetupPicture(image, _truths(scene, camera.view), SetupKind.TILTED, taken)


def _wide_lens(
    rng: np.random.Generator, seed: int, dice: int | None, cocked: int = 0
) -> SetupPicture:
    count = _dice_count(rng, dice)
    view, strength = _wide_lens_view(rng)
    width, height = view.source_size
    scene = random_scene(rng, count, width=width, height=height, cocked=cocked)
    scene = replace(scene, dice=_place_in_view(rng, scene, view))

    def vignetted(picture: Image) -> Image:
        # A wide lens darkens its corners (vignetting), the more the wider it is.
        ys, xs = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float32)
        r2 = ((xs - WIDTH / 2) ** 2 + (ys - HEIGHT / 2) ** 2) / (WIDTH**2 / 4 + HEIGHT**2 / 4)
        return _to_image(picture.astype(np.float32) * (1.0 - (0.25 + strength) * r2)[..., None])

    image = vignetted(view.warp(render(scene, seed)))
    taken = SetupCamera(scene, view, vignetted)
    return SetupPicture(image, _truths(scene, view), SetupKind.WIDE_LENS, taken)


def _colour_cast(rng: np.random.Generator, seed: int, dice: int | None) -> SetupPicture:
    scene = random_scene(rng, _dice_count(rng, dice))
    image = render(scene, seed).astype(np.float32)
    # White balance set for another light: warm (tungsten), cool (shade) or green
    # (fluorescent); per-channel gains, B G R.
    cast = int(rng.integers(3))
    if cast == 0:
        gains = (rng.uniform(0.55, 0.75), rng.uniform(0.85, 0.95), rng.uniform(1.1, 1.25))
    elif cast == 1:
        gains = (rng.uniform(1.15, 1.3), rng.uniform(1.0, 1.08), rng.uniform(0.65, 0.8))
    else:
        gains = (rng.uniform(0.8, 0.9), rng.uniform(1.1, 1.2), rng.uniform(0.75, 0.9))
    image *= np.array(gains, np.float32)
    # A coloured lamp to one side: its colour strongest on its side of the tray.
    lamp = rng.uniform(0.6, 1.4, 3).astype(np.float32)
    turn = rng.uniform(0, 2 * math.pi)
    ys, xs = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float32)
    ramp = np.clip(
        0.5 + ((xs / WIDTH - 0.5) * math.cos(turn) + (ys / HEIGHT - 0.5) * math.sin(turn)), 0, 1
    )
    image *= 1.0 + ramp[..., None] * (lamp - 1.0) * float(rng.uniform(0.3, 0.6))
    return SetupPicture(_to_image(image), _truths(scene, _identity_view()), SetupKind.COLOUR_CAST)


def _dim_noisy(rng: np.random.Generator, seed: int, dice: int | None) -> SetupPicture:
    scene = random_scene(rng, _dice_count(rng, dice))
    dim = replace(
        scene,
        # The camera's gain brings a dim room up to about half its usual brightness, and
        # the grain with it.
        light=float(rng.uniform(0.45, 0.7)),
        noise=float(rng.uniform(9.0, 15.0)),
        focus_blur=float(rng.uniform(1.0, 2.2)),
    )
    image = render(dim, seed).astype(np.float32)
    # A small sensor turned up in the dark also shows blotches of colour, not only grain.
    blotches = rng.normal(0.0, 1.0, (HEIGHT // 8, WIDTH // 8, 3)).astype(np.float32)
    blotches = np.asarray(
        cv2.resize(blotches, (WIDTH, HEIGHT), interpolation=cv2.INTER_CUBIC), np.float32
    )
    image += blotches * float(rng.uniform(3.0, 6.0))
    return SetupPicture(_to_image(image), _truths(dim, _identity_view()), SetupKind.DIM_NOISY)


def _cheap_jpeg(
    rng: np.random.Generator, seed: int, dice: int | None, cocked: int = 0
) -> SetupPicture:
    scene = random_scene(rng, _dice_count(rng, dice), cocked=cocked)
    # The camera shook during the exposure: the whole picture smeared along one line.
    length = int(rng.integers(3, 10))
    turn = float(rng.uniform(0, math.pi))
    kernel = np.zeros((2 * length + 1, 2 * length + 1), np.float32)
    dx, dy = math.cos(turn) * length / 2, math.sin(turn) * length / 2
    start = (round(length - dx), round(length - dy))
    end = (round(length + dx), round(length + dy))
    cv2.line(kernel, start, end, 1.0, 1, cv2.LINE_AA)
    kernel /= float(kernel.sum())
    small_sensor = rng.random() < 0.5  # a 320x240 sensor, scaled up by the driver
    quality = int(rng.integers(25, 51))

    def taken(picture: Image) -> Image:
        image = np.asarray(cv2.filter2D(picture, -1, kernel), np.uint8)
        if small_sensor:
            small = cv2.resize(image, (WIDTH // 2, HEIGHT // 2), interpolation=cv2.INTER_AREA)
            image = np.asarray(cv2.resize(small, (WIDTH, HEIGHT)), np.uint8)
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok, "OpenCV could not encode a JPEG"
        return np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR), np.uint8)

    view = _identity_view()
    camera = SetupCamera(scene, view, taken)
    return SetupPicture(
        taken(render(scene, seed)), _truths(scene, view), SetupKind.CHEAP_JPEG, camera
    )


def _felt(rng: np.random.Generator, seed: int, dice: int | None) -> SetupPicture:
    scene = random_scene(rng, _dice_count(rng, dice))
    hue, saturation, value = rng.integers(0, 180), rng.integers(150, 240), rng.integers(90, 190)
    hsv = np.array([[[hue, saturation, value]]], np.uint8)
    cloth = _bgr(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    wood = _bgr(np.clip(np.array([40, 80, 130]) + rng.integers(-20, 21, 3), 0, 255))
    scene = replace(scene, tray=cloth, wall=wood, wall_width=max(scene.wall_width, 12))
    fibres = np.random.default_rng(int(rng.integers(1 << 30)))

    def felt(canvas: FloatImage) -> None:
        # Felt: short fibres (fine noise, a little stretched along the weave) and a
        # mottle where the nap lies one way or another; the wooden rim keeps its colour.
        h, w = canvas.shape[:2]
        fine = fibres.normal(0.0, 1.0, (h, w)).astype(np.float32)
        fine = np.asarray(cv2.GaussianBlur(fine, (0, 0), sigmaX=1.6, sigmaY=0.6), np.float32)
        mottle = fibres.normal(0.0, 1.0, (h // 40 + 2, w // 40 + 2)).astype(np.float32)
        mottle = np.asarray(cv2.resize(mottle, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)
        shade = 1.0 + 0.12 * fine + 0.06 * mottle
        ww = scene.wall_width
        canvas[ww:-ww, ww:-ww] *= shade[ww:-ww, ww:-ww, None]

    image = render(scene, seed, ground=felt)
    return SetupPicture(image, _truths(scene, _identity_view()), SetupKind.FELT)


def _clutter(rng: np.random.Generator, seed: int, dice: int | None) -> SetupPicture:
    scene = random_scene(rng, _dice_count(rng, dice))
    layer = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    alpha = np.zeros((HEIGHT, WIDTH), np.uint8)
    die_size = float(np.mean([d.size for d in scene.dice])) if scene.dice else 36.0
    # Things that are not dice, each kept off the dice (a die half under a card is another
    # question): the truth holds the dice alone.
    makers: list[_Maker] = [_coin] * int(rng.integers(1, 4))
    makers += [_pencil] * int(rng.integers(0, 3))
    if rng.random() < 0.6:
        makers.append(_card)
    for maker in makers:
        for _ in range(40):  # somewhere else while it would lie on a die; else left out
            trial_layer, trial_alpha = layer.copy(), alpha.copy()
            maker(rng, scene, die_size)(trial_layer, trial_alpha)
            if not _covers_dice(trial_alpha > alpha, scene):
                layer, alpha = trial_layer, trial_alpha
                break
    hand = _resting_hand(rng, scene) if rng.random() < 0.35 else None

    def things(canvas: FloatImage) -> None:
        # Their shadow first (the light is overhead, a little to one side), then them.
        shade = cv2.GaussianBlur(alpha, (0, 0), 3.0).astype(np.float32) / 255.0
        shade = np.roll(shade, (3, 2), (0, 1))
        canvas *= (1.0 - 0.4 * shade)[..., None]
        cover = alpha.astype(np.float32)[..., None] / 255.0
        canvas *= 1.0 - cover
        canvas += layer.astype(np.float32) * cover

    image = render(replace(scene, hand=hand), seed, ground=things)
    return SetupPicture(image, _truths(scene, _identity_view()), SetupKind.CLUTTER)


def _covers_dice(drawn: npt.NDArray[np.bool_], scene: Scene) -> bool:
    """Whether a drawn thing comes within about half a die of any die's edge."""
    for die in scene.dice:
        reach = die.size
        x0, y0 = max(0, int(die.x - reach)), max(0, int(die.y - reach))
        x1, y1 = int(die.x + reach) + 1, int(die.y + reach) + 1
        if drawn[y0:y1, x0:x1].any():
            return True
    return False


# A thing in the tray: given where it may lie and the dice's size, a function that draws it
# at one random place onto a colour layer and its coverage.
_Maker = Callable[[np.random.Generator, Scene, float], Callable[[Image, Image], None]]


def _somewhere(rng: np.random.Generator, scene: Scene) -> tuple[float, float]:
    ww = scene.wall_width
    return float(rng.uniform(ww, WIDTH - ww)), float(rng.uniform(ww, HEIGHT - ww))


def _coin(rng: np.random.Generator, scene: Scene, size: float) -> Callable[[Image, Image], None]:
    """A coin: a metal disc with a raised rim and a worn relief."""
    x, y = _somewhere(rng, scene)
    radius = size * float(rng.uniform(0.5, 0.85))
    metal = ((70, 110, 175), (175, 175, 170), (60, 150, 190))[int(rng.integers(3))]
    relief = np.random.default_rng(int(rng.integers(1 << 30)))

    def draw(layer: Image, alpha: Image) -> None:
        centre = (round(x * 16), round(y * 16))
        rim = _bgr(int(c * 0.7) for c in metal)
        cv2.circle(layer, centre, round(radius * 16), rim, -1, cv2.LINE_AA, 4)
        cv2.circle(layer, centre, round(radius * 0.86 * 16), metal, -1, cv2.LINE_AA, 4)
        for _ in range(5):  # the worn head or number: a few darker strokes
            a = relief.uniform(0, 2 * math.pi)
            r = relief.uniform(0, radius * 0.5)
            at = (round((x + r * math.cos(a)) * 16), round((y + r * math.sin(a)) * 16))
            axes = (round(radius * 0.3 * 16), round(radius * 0.08 * 16))
            tone = _bgr(int(c * 0.82) for c in metal)
            cv2.ellipse(layer, at, axes, float(relief.uniform(0, 180)), 0, 360, tone, -1,
                        cv2.LINE_AA, 4)  # fmt: skip
        cv2.circle(alpha, centre, round(radius * 16), 255, -1, cv2.LINE_AA, 4)

    return draw


def _pencil(rng: np.random.Generator, scene: Scene, size: float) -> Callable[[Image, Image], None]:
    """A pencil: a painted hexagonal shaft, a sharpened wooden tip, a metal band and eraser."""
    x, y = _somewhere(rng, scene)
    length = size * float(rng.uniform(4.5, 7.0))
    half_width = size * float(rng.uniform(0.13, 0.18))
    turn = float(rng.uniform(0, math.pi))
    paint = ((30, 200, 240), (40, 40, 190), (50, 130, 40), (140, 60, 30))[int(rng.integers(4))]
    ux, uy = math.cos(turn), math.sin(turn)

    def at(along: float, across: float) -> tuple[float, float]:
        return x + ux * along - uy * across, y + uy * along + ux * across

    def quad(a0: float, a1: float, w0: float, w1: float) -> npt.NDArray[np.int32]:
        corners = [at(a0, -w0), at(a1, -w1), at(a1, w1), at(a0, w0)]
        return np.round(np.array(corners) * 16).astype(np.int32)

    def draw(layer: Image, alpha: Image) -> None:
        half = length / 2
        tip = half_width * 3.5
        parts = (
            (quad(-half, half - tip, half_width, half_width), paint),
            (quad(-half, half - tip, half_width * 0.35, half_width * 0.35),
             _bgr(min(255, int(c * 1.2) + 15) for c in paint)),  # the lit facet
            (quad(half - tip, half, half_width, half_width * 0.25), (140, 185, 225)),  # wood
            (quad(half - tip * 0.3, half, half_width * 0.4, half_width * 0.1), (50, 50, 50)),
            (quad(-half - half_width * 1.2, -half, half_width, half_width), (160, 165, 170)),
            (quad(-half - half_width * 2.4, -half - half_width * 1.2, half_width, half_width),
             (150, 150, 230)),  # the eraser
        )  # fmt: skip
        for points, colour in parts:
            cv2.fillPoly(layer, [points], colour, cv2.LINE_AA, 4)
        outline = quad(-half - half_width * 2.4, half, half_width, half_width * 0.1)
        cv2.fillPoly(alpha, [outline], 255, cv2.LINE_AA, 4)

    return draw


def _card(rng: np.random.Generator, scene: Scene, size: float) -> Callable[[Image, Image], None]:
    """A playing card face up: white with a border, a corner index and a few suit marks."""
    x, y = _somewhere(rng, scene)
    half_w, half_h = size * 1.6, size * 2.25
    turn = float(rng.uniform(0, 180))
    red = bool(rng.random() < 0.5)
    marks = int(rng.integers(1, 6))
    ink = (40, 40, 190) if red else (30, 30, 30)
    rad = math.radians(turn)
    c, s = math.cos(rad), math.sin(rad)

    def at(u: float, v: float) -> tuple[int, int]:
        return round((x + u * c - v * s) * 16), round((y + u * s + v * c) * 16)

    def draw(layer: Image, alpha: Image) -> None:
        outline = np.array([at(u, v) for u, v in _card_outline(half_w, half_h)], np.int32)
        cv2.fillPoly(layer, [outline], (232, 236, 238), cv2.LINE_AA, 4)
        cv2.fillPoly(alpha, [outline], 255, cv2.LINE_AA, 4)
        inner = np.array(
            [at(u, v) for u, v in _card_outline(half_w * 0.8, half_h * 0.85)], np.int32
        )
        cv2.polylines(layer, [inner], True, (200, 205, 210), 2, cv2.LINE_AA, 4)
        radius = round(half_w * 0.16 * 16)
        for k in range(marks):
            v = (k - (marks - 1) / 2) * half_h * 0.35
            cv2.circle(layer, at(0.0, v), radius, ink, -1, cv2.LINE_AA, 4)
        for corner in (-1, 1):  # the index: a short bar and a small mark in each corner
            cv2.line(
                layer,
                at(corner * half_w * 0.85, corner * half_h * 0.88),
                at(corner * half_w * 0.85, corner * half_h * 0.7),
                ink,
                3,
                cv2.LINE_AA,
                4,
            )
            cv2.circle(layer, at(corner * half_w * 0.85, corner * half_h * 0.6),
                       round(half_w * 0.07 * 16), ink, -1, cv2.LINE_AA, 4)  # fmt: skip

    return draw


def _card_outline(half_w: float, half_h: float) -> list[tuple[float, float]]:
    corner = min(half_w, half_h) * 0.12
    points: list[tuple[float, float]] = []
    for qx, qy, start in ((1, 1, 0), (-1, 1, 90), (-1, -1, 180), (1, -1, 270)):
        for step in range(5):
            a = math.radians(start + step * 22.5)
            points.append(
                (qx * (half_w - corner) + corner * math.cos(a),
                 qy * (half_h - corner) + corner * math.sin(a))
            )  # fmt: skip
    return points


def _resting_hand(rng: np.random.Generator, scene: Scene) -> Hand | None:
    """A hand resting at one edge of the picture, clear of every die, or None when the dice
    leave no room for one."""
    for _ in range(20):
        edge = int(rng.integers(4))
        size = float(rng.uniform(45, 65))
        along = float(rng.uniform(0.25, 0.75))
        x, y, angle = (
            (along * WIDTH, size * 0.6, 90.0),
            (WIDTH - size * 0.6, along * HEIGHT, 180.0),
            (along * WIDTH, HEIGHT - size * 0.6, 270.0),
            (size * 0.6, along * HEIGHT, 0.0),
        )[edge]
        # The palm and forearm lie within about two hand sizes of (x, y), behind it.
        if all(math.hypot(d.x - x, d.y - y) > 2.4 * size + d.size for d in scene.dice):
            return Hand(x=x, y=y, size=size, angle=angle)
    return None


def _bgr(channels: Iterable[int | np.integer[Any]]) -> BGR:
    """A colour from exactly three channel values (an array's, say)."""
    b, g, r = (int(v) for v in channels)
    return b, g, r


def _to_image(image: FloatImage) -> Image:
    return np.clip(image, 0, 255).astype(np.uint8)


_RENDERERS: dict[SetupKind, Callable[[np.random.Generator, int, int | None], SetupPicture]] = {
    SetupKind.TOP_DOWN: _top_down,
    SetupKind.TILTED: _tilted,
    SetupKind.WIDE_LENS: _wide_lens,
    SetupKind.COLOUR_CAST: _colour_cast,
    SetupKind.DIM_NOISY: _dim_noisy,
    SetupKind.CHEAP_JPEG: _cheap_jpeg,
    SetupKind.FELT: _felt,
    SetupKind.CLUTTER: _clutter,
}
# The kinds whose pictures are their camera's alone can hold cocked dice as that camera sees
# them (a cocked die is never in the truth: no value counts).
_WITH_COCKED: dict[
    SetupKind, Callable[[np.random.Generator, int, int | None, int], SetupPicture]
] = {
    SetupKind.TOP_DOWN: _top_down,
    SetupKind.TILTED: _tilted,
    SetupKind.WIDE_LENS: _wide_lens,
    SetupKind.CHEAP_JPEG: _cheap_jpeg,
}


def render_setup(
    kind: SetupKind,
    rng: np.random.Generator,
    seed: int,
    *,
    dice: int | None = None,
    cocked: int = 0,
) -> SetupPicture:
    """Renders one picture of a kind with `dice` dice (2-8 when None), the first `cocked` of
    them cocked (leaning on something; not in the truth; top-down, tilted, wide-lens and
    cheap-jpeg only); the same kind, `rng` state and `seed` (the sensor noise's) always give
    the same picture."""
    if dice is not None and dice < 0:
        raise ValueError(f"a picture holds no fewer than 0 dice, not {dice}")
    if cocked:
        with_cocked = _WITH_COCKED.get(kind)
        if with_cocked is None:
            kinds = ", ".join(k.value for k in _WITH_COCKED)
            raise ValueError(f"a {kind.value} picture holds no cocked dice (only {kinds})")
        return with_cocked(rng, seed, dice, cocked)
    return _RENDERERS[kind](rng, seed, dice)


def cocked_centres(picture: SetupPicture) -> list[tuple[float, float]]:
    """Where the picture's cocked dice lie, in its pixels (each top face's centre); they are
    not in its truth, since no value of theirs counts."""
    if picture.camera is None:
        return []
    leaning = [die for die in picture.camera.scene.dice if die.cocked]
    if not leaning:
        return []
    centres = picture.camera.view.to_picture(np.array([[d.x, d.y] for d in leaning]))
    return [(float(x), float(y)) for x, y in centres]


def through_camera(
    picture: SetupPicture,
    seed: int,
    ground: Callable[[FloatImage], None] | None = None,
) -> Image:
    """Another picture of `picture`'s table taken by its camera, with no dice in the tray and
    `ground` drawn on its floor (a float BGR canvas, before the light falls on it): the
    empty tray and a board lying in it, as a person calibrating that table would show them."""
    if picture.camera is None:
        raise ValueError(f"a {picture.kind.value} picture has no camera of its own to take more")
    camera = picture.camera
    empty = replace(camera.scene, dice=(), hand=None)
    return camera.finish(camera.view.warp(render(empty, seed, ground=ground)))


def board_on_floor(
    picture: SetupPicture,
    board: Image,
    across: float = 0.6,
    turn: float = 0.0,
    at: tuple[float, float] = (0.5, 0.5),
) -> Callable[[FloatImage], None]:
    """A `ground` for `through_camera`: the printed `board` (BGR) lying on the floor under
    the point `at` of the picture (fractions of its width and height; the middle by default),
    `across` of the picture's width wide there, turned `turn` degrees."""
    if picture.camera is None:
        raise ValueError(f"a {picture.kind.value} picture has no camera of its own")
    view = picture.camera.view
    middle = np.array([[WIDTH * at[0], HEIGHT * at[1]]])
    centre = view.to_source(middle)[0]
    scale = float(view.local_scale(centre[None, :])[0])
    width = across * WIDTH / scale  # in canvas pixels: the picture shrinks it by `scale`
    zoom = width / board.shape[1]
    rotation = cv2.getRotationMatrix2D((board.shape[1] / 2, board.shape[0] / 2), turn, zoom)
    rotation[:, 2] += centre - np.array([board.shape[1] / 2, board.shape[0] / 2])

    def draw(canvas: FloatImage) -> None:
        size = (canvas.shape[1], canvas.shape[0])
        paper = cv2.warpAffine(board.astype(np.float32), rotation, size, flags=cv2.INTER_AREA)
        cover = cv2.warpAffine(np.ones(board.shape[:2], np.float32), rotation, size)
        # Paper is not quite white nor ink quite black under a room's light.
        paper = 20.0 + paper * (215.0 / 255.0)
        canvas *= (1.0 - cover)[..., None]
        canvas += paper * cover[..., None]

    return draw


def setup_examples(kinds: Collection[SetupKind], count: int, seed: int) -> Iterator[SetupPicture]:
    """`count` pictures for training, the kinds drawn in turn (in `SetupKind`'s order, so a
    set of kinds gives the same pictures as a list of them); the same arguments always give
    the same pictures."""
    ordered = [kind for kind in SetupKind if kind in kinds]
    if not ordered:
        raise ValueError("setup_examples needs at least one kind of picture")
    rng = np.random.default_rng(seed)
    for index in range(count):
        yield render_setup(ordered[index % len(ordered)], rng, seed * 100_003 + index)
