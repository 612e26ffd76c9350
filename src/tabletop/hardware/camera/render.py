"""Procedural pictures of dice in a tray, with the ground truth known: the simulated camera's eye.

Everything is drawn with OpenCV primitives (anti-aliased polygons and circles, Gaussian and
motion blur, noise), so a frame costs a millisecond or two and needs no assets. The same
renderer makes training data for the value classifier and the throws the tests play.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]
BGR = tuple[int, int, int]

# Pip centres on a face whose half-side is 1, for each value.
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.0, 0.0),),
    2: ((-0.5, -0.5), (0.5, 0.5)),
    3: ((-0.5, -0.5), (0.0, 0.0), (0.5, 0.5)),
    4: ((-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)),
    5: ((-0.5, -0.5), (0.5, -0.5), (0.0, 0.0), (-0.5, 0.5), (0.5, 0.5)),
    6: ((-0.5, -0.5), (0.5, -0.5), (-0.5, 0.0), (0.5, 0.0), (-0.5, 0.5), (0.5, 0.5)),
}

# Body and pip colour pairs seen on real dice (BGR).
DIE_STYLES: tuple[tuple[BGR, BGR], ...] = (
    ((235, 235, 235), (20, 20, 20)),  # white, black pips
    ((30, 30, 30), (240, 240, 240)),  # black, white pips
    ((40, 40, 200), (240, 240, 240)),  # red, white pips
    ((30, 200, 230), (20, 20, 20)),  # yellow, black pips
    ((60, 160, 40), (240, 240, 240)),  # green, white pips
    ((150, 40, 30), (240, 240, 240)),  # blue, white pips
    ((120, 40, 110), (40, 220, 240)),  # purple, yellow pips
    ((30, 110, 190), (20, 20, 20)),  # orange, black pips
    ((40, 50, 110), (30, 200, 240)),  # brown/marbled, yellow pips
    ((200, 200, 200), (40, 40, 200)),  # white, red pips
    ((55, 55, 60), (50, 50, 190)),  # smoky black, red pips
    ((150, 90, 40), (60, 60, 200)),  # marbled blue, red pips
    ((40, 40, 170), (220, 220, 220)),  # translucent red, white pips
)
# More looks the real photos' hardest dice have, for training only (the simulated table keeps
# DIE_STYLES, so its seeded films stay as they were): dark bodies with red or dark pips,
# where pips hardly differ from the body in brightness, and white on a white tray.
HARD_DIE_STYLES: tuple[tuple[BGR, BGR], ...] = (
    ((45, 30, 70), (60, 60, 210)),  # dark wine marbled, red pips
    ((50, 70, 40), (50, 50, 190)),  # dark green marbled, red pips
    ((90, 50, 35), (40, 40, 180)),  # dark blue marbled, red pips
    ((40, 40, 40), (40, 40, 150)),  # black, dark red pips
    ((70, 30, 60), (220, 220, 220)),  # dark purple, white pips
    ((225, 225, 225), (150, 150, 150)),  # white, pale grey pips
)
TRAINING_DIE_STYLES = DIE_STYLES + HARD_DIE_STYLES


@dataclass(frozen=True)
class RenderedDie:
    """One die as drawn: where, how big, which face is up and how it looks."""

    x: float
    y: float
    size: float
    angle: float  # degrees
    value: int
    body: BGR
    pips: BGR
    translucent: float = 0.0  # 0 opaque .. 0.6 see-through
    marbled: bool = False
    cocked: bool = False  # leaning on something: two faces show, no value counts
    tilt: float = 0.0  # degrees off flat when cocked
    blur: tuple[float, float] = (0.0, 0.0)  # motion in pixels during the exposure
    side_value: int = 2  # the face that shows on the side when cocked
    pip_radius: float = 0.17  # pip radius as a fraction of the half-side
    # Seen a little from the side (a camera not straight above): how much of the side faces
    # along the die's own x and y shows, as a signed fraction of the half-side.
    lean: tuple[float, float] = (0.0, 0.0)
    # Seen by a camera well off vertical (tabletop.vision.training.setups, TILTED): the top face's
    # outline moved by this (x, y) in pixels bounds the side faces that face the camera,
    # drawn as the parallelograms they are, with their pips. Used when `lean` is zero.
    side_shown: tuple[float, float] = (0.0, 0.0)

    @property
    def side_face_centre(self) -> tuple[float, float]:
        """Where the centre of the side face a cocked die shows is drawn: beside its
        foreshortened top, along the die's own y."""
        half = self.size / 2.0
        off = half * math.cos(math.radians(self.tilt)) + half * math.sin(math.radians(self.tilt))
        rad = math.radians(self.angle)
        return self.x - math.sin(rad) * off, self.y + math.cos(rad) * off


@dataclass(frozen=True)
class Hand:
    """A hand reaching into the tray from one edge."""

    x: float
    y: float
    size: float
    angle: float
    skin: BGR = (120, 150, 200)


@dataclass(frozen=True)
class Scene:
    """Everything in one frame: the tray, its light, the dice and perhaps a hand."""

    width: int = 640
    height: int = 480
    tray: BGR = (170, 175, 178)
    wall: BGR = (50, 45, 45)
    wall_width: int = 24
    light: float = 1.0  # overall brightness factor
    gradient: float = 0.15  # how much darker the far side is
    gradient_angle: float = 30.0
    shadow: tuple[float, float] = (3.0, 4.0)  # shadow offset per unit die size/30
    noise: float = 3.0
    focus_blur: float = 0.0
    dice: tuple[RenderedDie, ...] = ()
    hand: Hand | None = None
    texture_seed: int = 0
    extra: dict[str, float] = field(default_factory=dict)


def _rounded_square(
    cx: float, cy: float, half_w: float, half_h: float, *, angle: float, corner: float
) -> npt.NDArray[np.float64]:
    """Outline points of a rotated rectangle with rounded corners."""
    points: list[tuple[float, float]] = []
    corner = min(corner, half_w, half_h)
    for qx, qy, start in ((1, 1, 0), (-1, 1, 90), (-1, -1, 180), (1, -1, 270)):
        ccx = qx * (half_w - corner)
        ccy = qy * (half_h - corner)
        for step in range(5):
            a = math.radians(start + step * 22.5)
            points.append((ccx + corner * math.cos(a), ccy + corner * math.sin(a)))
    rad = math.radians(angle)
    c, s = math.cos(rad), math.sin(rad)
    pts = np.array(points)
    rot = np.stack([pts[:, 0] * c - pts[:, 1] * s + cx, pts[:, 0] * s + pts[:, 1] * c + cy], 1)
    return rot


def _bgr(channels: Iterable[int]) -> BGR:
    """A colour from exactly three channel values (a generator of them, say)."""
    b, g, r = channels
    return b, g, r


def _fill(layer: Image, pts: npt.NDArray[np.float64], color: BGR | int) -> None:
    cv2.fillPoly(layer, [np.round(pts * 16).astype(np.int32)], color, cv2.LINE_AA, 4)


def _background(scene: Scene) -> npt.NDArray[np.float32]:
    """The empty tray, to draw on (a fresh copy): made once for each tray (issue 49, item 5)."""
    size = (scene.height, scene.width)
    return _empty_tray(size, scene.tray, scene.wall, scene.wall_width, scene.texture_seed).copy()


@functools.lru_cache(maxsize=4)
def _empty_tray(
    size: tuple[int, int], tray: BGR, wall: BGR, ww: int, texture_seed: int
) -> npt.NDArray[np.float32]:
    h, w = size
    rng = np.random.default_rng(texture_seed)
    image = np.empty((h, w, 3), np.float32)
    image[:] = tray
    # Cardboard or felt grain: low-amplitude, slightly blurred noise.
    grain = rng.normal(0.0, 4.0, (h, w)).astype(np.float32)
    grain = np.asarray(cv2.GaussianBlur(grain, (0, 0), 1.2), np.float32)
    image += grain[..., None]
    if ww > 0:
        image[:ww] = wall
        image[-ww:] = wall
        image[:, :ww] = wall
        image[:, -ww:] = wall
    image.flags.writeable = False  # shared: `_background` hands out copies
    return image


def _light(scene: Scene) -> npt.NDArray[np.float32]:
    """The light's share at each pixel (read-only, shared): made once for each light."""
    return _light_for(scene.height, scene.width, scene.gradient_angle, scene.light, scene.gradient)


@functools.lru_cache(maxsize=8)
def _light_for(
    h: int, w: int, angle: float, light: float, gradient: float
) -> npt.NDArray[np.float32]:
    a = math.radians(angle)
    ys: npt.NDArray[np.float32]
    xs: npt.NDArray[np.float32]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    ramp = ((xs / w - 0.5) * math.cos(a) + (ys / h - 0.5) * math.sin(a)) * 2.0
    shares = (light * (1.0 - gradient * 0.5 * (ramp + 1.0))).astype(np.float32)
    shares.flags.writeable = False
    return shares


def _draw_die(canvas: npt.NDArray[np.float32], die: RenderedDie, scene: Scene) -> None:
    """Composites one die (shadow, body, bevel, pips) onto a float canvas, in a patch around it."""
    reach = die.size * 1.6 + abs(die.blur[0]) + abs(die.blur[1]) + 8
    reach += abs(die.side_shown[0]) + abs(die.side_shown[1])
    x0, y0 = max(0, int(die.x - reach)), max(0, int(die.y - reach))
    x1 = min(canvas.shape[1], int(die.x + reach) + 1)
    y1 = min(canvas.shape[0], int(die.y + reach) + 1)
    if x1 <= x0 or y1 <= y0:
        return
    local = replace(die, x=die.x - x0, y=die.y - y0)
    _draw_die_patch(canvas[y0:y1, x0:x1], local, scene)


def _draw_die_patch(canvas: npt.NDArray[np.float32], die: RenderedDie, scene: Scene) -> None:
    h, w = canvas.shape[:2]
    half = die.size / 2.0
    corner = half * 0.35
    squash = math.cos(math.radians(die.tilt)) if die.cocked else 1.0
    # Shadow first, so the die covers its own.
    sx = scene.shadow[0] * die.size / 30.0
    sy = scene.shadow[1] * die.size / 30.0
    shadow = np.zeros((h, w), np.uint8)
    _fill(
        shadow,
        _rounded_square(die.x + sx, die.y + sy, half, half, angle=die.angle, corner=corner),
        255,
    )
    shadow_f = cv2.GaussianBlur(shadow, (0, 0), max(1.0, die.size / 12.0)).astype(np.float32)
    canvas *= (1.0 - 0.45 * shadow_f / 255.0)[..., None]

    layer = np.zeros((h, w, 3), np.uint8)
    alpha = np.zeros((h, w), np.uint8)
    body = np.array(die.body, np.float32)
    edge = _bgr(int(c) for c in body * 0.6)
    face = _bgr(int(min(255, c * 1.05 + 6)) for c in body)
    top_half_h = half * squash
    rad = math.radians(die.angle)
    if die.side_shown != (0.0, 0.0) and die.lean == (0.0, 0.0):
        # A camera well off vertical sees the side faces that face it, a cocked die's too
        # (its own side face and top are drawn over them).
        _draw_side_faces(layer, alpha, die, corner)
    # The visible part of the side face when cocked sits beside the foreshortened top.
    if die.cocked:
        side_h = half * math.sin(math.radians(die.tilt))
        scx, scy = die.side_face_centre
        side_pts = _rounded_square(scx, scy, half, side_h, angle=die.angle, corner=corner * 0.5)
        _fill(layer, side_pts, _bgr(int(c * 0.75) for c in body))
        _fill(alpha, side_pts, 255)
        _draw_pips(layer, scx, scy, half, side_h, angle=die.angle, value=die.side_value, die=die)
    elif die.lean != (0.0, 0.0):
        c, s = math.cos(rad), math.sin(rad)
        for k, (lean, ux, uy) in enumerate(((die.lean[0], c, s), (die.lean[1], -s, c))):
            thick = abs(lean) * half
            if thick < 1.0:
                continue
            sign = 1.0 if lean > 0 else -1.0
            off = (half + thick / 2.0) * sign
            scx, scy = die.x + ux * off, die.y + uy * off
            half_x, half_y = (thick / 2.0, half) if k == 0 else (half, thick / 2.0)
            side_pts = _rounded_square(
                scx, scy, half_x, half_y, angle=die.angle, corner=min(half_x, half_y) * 0.5
            )
            _fill(layer, side_pts, _bgr(int(v * (0.7 + 0.1 * k)) for v in body))
            _fill(alpha, side_pts, 255)
            side_value = (die.side_value + k) % 6 + 1
            _draw_pips(layer, scx, scy, half_x, half_y, angle=die.angle, value=side_value, die=die)
    outline = _rounded_square(die.x, die.y, half, top_half_h, angle=die.angle, corner=corner)
    _fill(layer, outline, edge)
    _fill(alpha, outline, 255)
    inner = _rounded_square(
        die.x, die.y, half * 0.9, top_half_h * 0.9, angle=die.angle, corner=corner * 0.8
    )
    _fill(layer, inner, face)
    if die.marbled:
        # The swirl follows the die's place; a die still flying in from the left or top edge
        # has a negative coordinate, and NumPy takes no negative seed.
        rng = np.random.default_rng(abs(int(die.x * 7 + die.y * 13)))
        swirl = rng.normal(0, 1, (max(2, h // 8), max(2, w // 8))).astype(np.float32)
        swirl = np.asarray(cv2.resize(cv2.GaussianBlur(swirl, (0, 0), 1.0), (w, h)), np.float32)
        marbled = layer.astype(np.float32) * (1.0 + 0.25 * swirl[..., None])
        layer = np.clip(marbled, 0, 255).astype(np.uint8)
    _draw_pips(layer, die.x, die.y, half, top_half_h, angle=die.angle, value=die.value, die=die)
    layer_f = layer.astype(np.float32)
    alpha_f = alpha.astype(np.float32) / 255.0 * (1.0 - die.translucent)
    if die.blur != (0.0, 0.0):
        layer_f, alpha_f = _motion_blur(layer_f, alpha_f, die.blur)
    canvas *= (1.0 - alpha_f)[..., None]
    canvas += layer_f * alpha_f[..., None]


def _draw_side_faces(layer: Image, alpha: Image, die: RenderedDie, corner: float) -> None:
    """The side faces a tilted camera sees below the top face (drawn over them after): the
    body swept along `side_shown`, each face shaded as light from above leaves it, with its
    pips foreshortened as the face is."""
    half = die.size / 2.0
    shown = np.array(die.side_shown)
    body = np.array(die.body, np.float32)
    top = _rounded_square(die.x, die.y, half, half, angle=die.angle, corner=corner)
    swept = cv2.convexHull(np.vstack([top, top + shown]).astype(np.float32))[:, 0, :]
    swept_pts = swept.astype(np.float64)
    _fill(layer, swept_pts, _bgr(int(c * 0.55) for c in body))
    _fill(alpha, swept_pts, 255)
    rad = math.radians(die.angle)
    centre = np.array([die.x, die.y])
    axes = (np.array([math.cos(rad), math.sin(rad)]), np.array([-math.sin(rad), math.cos(rad)]))
    for k, axis in enumerate(axes):
        depth = float(shown @ axis)
        if abs(depth) < 1.0:
            continue
        # The face on the side the camera looks from: its top edge is the top face's edge
        # there, its bottom edge that edge moved by `shown`.
        middle = centre + axis * half * math.copysign(1.0, depth)
        along = np.array([-axis[1], axis[0]]) * half
        inset = 0.8  # the rounded corners: the face's flat part is a little narrower
        face = np.array(
            [
                middle - along * inset + shown * 0.05,
                middle + along * inset + shown * 0.05,
                middle + along * inset + shown * 0.95,
                middle - along * inset + shown * 0.95,
            ]
        )
        _fill(layer, face, _bgr(int(c * (0.68 + 0.1 * k)) for c in body))
        value = (die.side_value + k) % 6 + 1
        radius = die.pip_radius * half
        turn = np.linspace(0.0, 2 * math.pi, 16, endpoint=False)
        circle = np.stack([np.cos(turn), np.sin(turn)], 1) * radius
        for px, py in PIP_LAYOUT[value]:
            at = middle + shown * 0.5 + along * px * 1.1 + shown * py * 0.55
            pip = at + circle[:, :1] * along / half + circle[:, 1:] * shown / (2 * half)
            _fill(layer, pip, die.pips)


def _draw_pips(
    layer: Image,
    cx: float,
    cy: float,
    half_w: float,
    half_h: float,
    *,
    angle: float,
    value: int,
    die: RenderedDie,
) -> None:
    rad = math.radians(angle)
    c, s = math.cos(rad), math.sin(rad)
    radius = min(half_w, half_h) * die.pip_radius
    for px, py in PIP_LAYOUT[value]:
        ux, uy = px * half_w * 1.1, py * half_h * 1.1
        x = cx + ux * c - uy * s
        y = cy + ux * s + uy * c
        scale_x, scale_y = half_w / min(half_w, half_h), half_h / min(half_w, half_h)
        axes = (round(radius * 16 * scale_x), max(1, round(radius * 16 * scale_y)))
        center = (round(x * 16), round(y * 16))
        cv2.ellipse(layer, center, axes, angle, 0, 360, die.pips, -1, cv2.LINE_AA, 4)


def _motion_blur(
    layer: npt.NDArray[np.float32], alpha: npt.NDArray[np.float32], motion: tuple[float, float]
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    length = max(1, round(math.hypot(*motion)))
    size = 2 * length + 1
    kernel = np.zeros((size, size), np.float32)
    cv2.line(
        kernel,
        (length - round(motion[0] / 2), length - round(motion[1] / 2)),
        (length + round(motion[0] / 2), length + round(motion[1] / 2)),
        1.0,
        1,
        cv2.LINE_AA,
    )
    kernel /= max(float(kernel.sum()), 1e-6)
    premultiplied = np.asarray(cv2.filter2D(layer * alpha[..., None], -1, kernel), np.float32)
    blurred_alpha = np.asarray(cv2.filter2D(alpha, -1, kernel), np.float32)
    # float32 already (a Python float does not widen an array); the stubs say float64.
    colour = np.asarray(premultiplied / np.maximum(blurred_alpha, 1e-4)[..., None], np.float32)
    return colour, blurred_alpha


def _draw_hand(canvas: npt.NDArray[np.float32], hand: Hand) -> None:
    h, w = canvas.shape[:2]
    layer = np.zeros((h, w, 3), np.uint8)
    mask = np.zeros((h, w), np.uint8)
    rad = math.radians(hand.angle)
    dx, dy = math.cos(rad), math.sin(rad)
    # Palm and forearm run back from (x, y) towards the edge; fingers reach forward.
    for t, rx, ry in ((-1.6, 0.5, 1.4), (-0.3, 0.55, 0.6)):
        cx, cy = hand.x + dx * t * hand.size, hand.y + dy * t * hand.size
        axes = (round(hand.size * ry), round(hand.size * rx))
        cv2.ellipse(layer, (round(cx), round(cy)), axes, hand.angle, 0, 360, hand.skin, -1)
        cv2.ellipse(mask, (round(cx), round(cy)), axes, hand.angle, 0, 360, 255, -1)
    for k in range(4):
        off = (k - 1.5) * hand.size * 0.25
        fx = hand.x + dx * hand.size * 0.5 - dy * off
        fy = hand.y + dy * hand.size * 0.5 + dx * off
        axes = (round(hand.size * 0.45), round(hand.size * 0.1))
        cv2.ellipse(layer, (round(fx), round(fy)), axes, hand.angle, 0, 360, hand.skin, -1)
        cv2.ellipse(mask, (round(fx), round(fy)), axes, hand.angle, 0, 360, 255, -1)
    alpha = cv2.GaussianBlur(mask, (0, 0), 2.0).astype(np.float32) / 255.0
    canvas *= (1.0 - alpha)[..., None]
    canvas += layer.astype(np.float32) * alpha[..., None]


def render(
    scene: Scene,
    seed: int = 0,
    *,
    ground: Callable[[npt.NDArray[np.float32]], None] | None = None,
) -> Image:
    """Draws a scene; the same scene and seed always give the same picture.

    `ground`, when given, draws on the empty tray (a float BGR canvas, before the light falls
    on it) before the dice: cloth texture, or things lying in the tray that are not dice
    (`tabletop.vision.training.setups`), so that the dice lie on them and the light and noise fall
    on both alike."""
    canvas = _background(scene)
    if ground is not None:
        ground(canvas)
    for die in scene.dice:
        _draw_die(canvas, die, scene)
    if scene.hand is not None:
        _draw_hand(canvas, scene.hand)
    canvas *= _light(scene)[..., None]
    if scene.focus_blur > 0:
        canvas = np.asarray(cv2.GaussianBlur(canvas, (0, 0), scene.focus_blur), np.float32)
    if scene.noise > 0:
        rng = np.random.default_rng(seed)
        canvas += rng.normal(0.0, scene.noise, canvas.shape).astype(np.float32)
    return np.clip(canvas, 0, 255).astype(np.uint8)


def random_die(
    rng: np.random.Generator,
    x: float,
    y: float,
    size: float,
    *,
    value: int | None = None,
    cocked: bool = False,
    styles: tuple[tuple[BGR, BGR], ...] = DIE_STYLES,
) -> RenderedDie:
    """A die with a random look (colours, translucency, marbling) at a given place."""
    body, pips = styles[int(rng.integers(len(styles)))]
    jitter = rng.integers(-25, 26, 3)
    body = _bgr(int(np.clip(c + j, 0, 255)) for c, j in zip(body, jitter, strict=True))
    return RenderedDie(
        x=x,
        y=y,
        size=size,
        angle=float(rng.uniform(0, 90)),
        value=int(value if value is not None else rng.integers(1, 7)),
        body=body,
        pips=pips,
        translucent=float(rng.choice([0.0, 0.0, 0.0, rng.uniform(0.15, 0.45)])),
        marbled=bool(rng.random() < 0.2),
        cocked=cocked,
        tilt=float(rng.uniform(25, 50)) if cocked else 0.0,
        side_value=int(rng.integers(1, 7)),
        pip_radius=float(rng.uniform(0.14, 0.24)),
        lean=(float(rng.uniform(-0.4, 0.4)), float(rng.uniform(-0.4, 0.4)))
        if rng.random() < 0.6
        else (0.0, 0.0),
    )


def random_scene(
    rng: np.random.Generator,
    n_dice: int,
    *,
    width: int = 640,
    height: int = 480,
    die_size: float | None = None,
    cocked: int = 0,
    styles: tuple[tuple[BGR, BGR], ...] = DIE_STYLES,
    spacing: float = 1.265,
    clustered: bool = False,
) -> Scene:
    """A tray with random colours and light holding n_dice dice, centres at least `spacing`
    sides apart (the default: they do not overlap). `clustered` lays each die beside one
    already lying, about `spacing` from it: with about 1.1 they touch, as in a heap."""
    size = die_size if die_size is not None else float(rng.uniform(24, 48))
    wall = int(rng.integers(0, 40))
    tray_grey = int(rng.integers(110, 215))
    tint = rng.integers(-15, 16, 3)
    tray = _bgr(int(np.clip(tray_grey + t, 0, 255)) for t in tint)
    if rng.random() < 0.2:  # felt: green or blue cloth
        tray = ((60, 110, 40), (110, 60, 30), (40, 40, 110))[int(rng.integers(3))]
    dice: list[RenderedDie] = []
    margin = wall + size
    attempts = 0
    while len(dice) < n_dice and attempts < 500:
        attempts += 1
        s = size * float(rng.uniform(0.9, 1.1))
        x = float(rng.uniform(margin, width - margin))
        y = float(rng.uniform(margin, height - margin))
        if clustered and dice:
            near = dice[int(rng.integers(len(dice)))]
            turn = float(rng.uniform(0, 2 * math.pi))
            reach = spacing * max(s, near.size) * float(rng.uniform(1.0, 1.15))
            x, y = near.x + reach * math.cos(turn), near.y + reach * math.sin(turn)
            if not (margin <= x <= width - margin and margin <= y <= height - margin):
                continue
        if any(math.hypot(x - d.x, y - d.y) < spacing * max(s, d.size) for d in dice):
            continue
        dice.append(random_die(rng, x, y, s, cocked=len(dice) < cocked, styles=styles))
    return Scene(
        width=width,
        height=height,
        tray=tray,
        wall=_bgr(int(c) for c in rng.integers(20, 90, 3)),
        wall_width=wall,
        light=float(rng.uniform(0.7, 1.2)),
        gradient=float(rng.uniform(0.0, 0.35)),
        gradient_angle=float(rng.uniform(0, 360)),
        shadow=(float(rng.uniform(-5, 5)), float(rng.uniform(-5, 5))),
        noise=float(rng.uniform(1.0, 6.0)),
        focus_blur=float(rng.choice([0.0, rng.uniform(0.3, 1.0)])),
        dice=tuple(dice),
        texture_seed=int(rng.integers(1 << 30)),
    )


def moved(die: RenderedDie, **changes: object) -> RenderedDie:
    """A copy of a die with some fields changed (for animation)."""
    return replace(die, **changes)  # type: ignore[arg-type]
