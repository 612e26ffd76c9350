"""The simulated camera: a tray seen from above where dice are thrown, roll, settle and are taken.

Each throw follows a plan (how many dice, which values, cocked or not, whether a hand reaches in
first, how many of the last throw's dice it leaves in the tray for a reroll, from which edge the
dice fly in, whether the throwing hand stays a moment, whether they land in a heap, whether the
light drifts while they lie still). Frames come from tabletop.hardware.camera.render
with the truth attached (`Frame.truth` is a SimTruth), so tests and the simulated table know
what the camera "saw". Everything follows from the seed: the same seed, the same film.

A frame is drawn only when something in the tray changed (dice, a hand, the light): a still
tray is the same picture frame after frame, so the watcher reads it once (`ThrowWatcher.
read_frame`), and the sensor's noise is one of a few fields drawn once per film.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from .base import Frame, FrameSource
from .render import Hand, Image, RenderedDie, Scene, random_die, random_scene, render


@dataclass(frozen=True)
class ThrowPlan:
    """What happens in one throw. `values` fixes the faces (random when None)."""

    dice: int = 1
    values: tuple[int, ...] | None = None
    cocked: int = 0  # how many of the dice end up cocked
    hand_first: bool = True  # a hand reaches in (and takes the last throw's dice) before it
    light_drift: float = 0.0  # change of brightness over the still frames (0.3: 30 % darker)
    still_frames: int = 12
    rolling_frames: int = 10
    placed: bool = False  # set down by a hand instead of thrown: not a throw at all
    keep: int = 0  # dice of the last throw left lying (a reroll): the hand takes the others
    # Which of the last throw's dice are left lying, by their place in its SimTruth (the dice
    # showing sixes, say); when given it says what `keep` says by a count, and overrides it.
    keep_at: tuple[int, ...] = ()
    nudged: int = 0  # of the kept dice, how many the thrown ones push aside (and turn)
    edge: str = "left"  # where the dice fly in from: left, right, top, bottom
    hand_stays: int = 0  # frames the throwing hand stays at that edge as the dice roll
    heap: bool = False  # the dice land in a heap (a cup emptied), touching

    def __post_init__(self) -> None:
        if self.edge not in EDGES:
            raise ValueError(f"ThrowPlan.edge: one of {', '.join(EDGES)}, not {self.edge!r}")
        kept = len(self.keep_at) if self.keep_at else self.keep
        if not 0 <= self.nudged <= kept:
            raise ValueError(f"ThrowPlan.nudged: 0 to the kept dice ({kept}), not {self.nudged}")
        if len(set(self.keep_at)) != len(self.keep_at) or any(i < 0 for i in self.keep_at):
            raise ValueError(f"ThrowPlan.keep_at: distinct places from 0, not {self.keep_at}")


EDGES = ("left", "right", "top", "bottom")
NOISE_FIELDS = 5  # a film's sensor noise fields, taken in turn frame by frame


@dataclass(frozen=True)
class SimTruth:
    """What a simulated frame shows: the phase, the throw number, and the dice at rest."""

    phase: str  # "empty", "hand", "rolling" or "rest"
    throw: int
    values: tuple[int | None, ...]  # final faces (None for a cocked die): kept dice first
    dice: tuple[RenderedDie, ...]
    # Per die at rest: "kept" (lay there before), "moved" (kept but pushed aside), "thrown".
    origins: tuple[str, ...] = ()


class SimulatedCamera(FrameSource):
    """Plays throws into a rendered tray; a first-class source, used by tests and the sim table.

    `read` returns None once every planned throw has been played; `extend` plans more, and the
    film goes on in the same tray (the last throw's dice still lying there, taken by a hand
    when the next plan says so), as a live table's camera would see it.
    """

    def __init__(
        self,
        plans: Sequence[ThrowPlan] = (ThrowPlan(),),
        *,
        seed: int = 0,
        width: int = 640,
        height: int = 480,
        fps: float = 30.0,
        empty_frames: int = 6,
        url: str = "sim:",
        die_size: float | None = None,
    ) -> None:
        self.plans = list(plans)
        self.seed = seed
        self.width = width
        self.height = height
        self.fps = fps
        self.empty_frames = empty_frames
        self.url = url
        self.die_size = die_size
        self.rendered: list[SimTruth] = []  # every frame's truth, for tests to look back on
        self.renders = 0  # frames drawn: a frame whose scene did not change is not drawn again
        self._frames: Iterator[tuple[Scene, SimTruth] | None] | None = None
        self._index = 0
        self._drawn: tuple[Scene, Image] | None = None  # the last scene drawn, and its picture
        self._noise: tuple[float, tuple[npt.NDArray[np.int16], ...]] | None = None

    def open(self) -> None:
        self._frames = self._film()
        self._index = 0
        self.rendered = []
        self._drawn = None

    def read(self) -> Frame | None:
        if self._frames is None:
            self.open()
        assert self._frames is not None
        step = next(self._frames)
        if step is None:  # every plan played; `extend` may add more
            return None
        scene, truth = step
        if self._drawn is None or self._drawn[0] != scene:
            # Drawn only when something in the tray changed (dice, hand, light): a still tray
            # is the same picture frame after frame, as from a camera without sensor noise,
            # so neither drawing it nor reading it again costs anything (issue 49, item 5).
            image = render(replace(scene, noise=0.0))
            self._drawn = (scene, self._with_noise(image, scene.noise))
            self.renders += 1
        image = self._drawn[1].copy()  # the reader's caller may draw on its frame
        frame = Frame(image, self._index, self._index / self.fps, truth)
        self.rendered.append(truth)
        self._index += 1
        return frame

    def _with_noise(self, image: Image, noise: float) -> Image:
        """The picture with a sensor's noise: one of a few fields drawn once per film, taken
        in turn (drawing a field for every frame cost about as much as the rest of the
        picture; a film's noise need not differ every frame, only be there)."""
        if noise <= 0:
            return image
        if self._noise is None or self._noise[0] != noise or self._noise[1][0].shape != image.shape:
            rng = np.random.default_rng([self.seed, 7919])
            fields = tuple(
                np.round(rng.normal(0.0, noise, image.shape)).astype(np.int16)
                for _ in range(NOISE_FIELDS)
            )
            self._noise = (noise, fields)
        field = self._noise[1][self._index % NOISE_FIELDS]
        return np.asarray(np.clip(image.astype(np.int16) + field, 0, 255), np.uint8)

    def extend(self, plans: Sequence[ThrowPlan]) -> None:
        """Plans more throws, played after those already planned, in the same tray."""
        self.plans.extend(plans)

    def close(self) -> None:
        self._frames = None

    def _film(self) -> Iterator[tuple[Scene, SimTruth] | None]:
        """The frames' scenes, then None for as long as no more throws are planned."""
        rng = np.random.default_rng(self.seed)
        look = random_scene(rng, 0, width=self.width, height=self.height)
        # The simulated tray is calm: noise and blur as a fair webcam gives them.
        look = replace(look, noise=min(look.noise, 3.0), focus_blur=0.0)
        size = self.die_size if self.die_size is not None else float(rng.uniform(30, 44))
        lying: tuple[RenderedDie, ...] = ()
        for _ in range(self.empty_frames):
            yield look, SimTruth("empty", -1, (), ())
        number = 0
        while True:
            if number == len(self.plans):
                yield None
                continue
            plan = self.plans[number]
            if plan.keep_at:
                kept = tuple(lying[i] for i in plan.keep_at if i < len(lying))
                taken = tuple(d for i, d in enumerate(lying) if i not in plan.keep_at)
            else:
                kept, taken = lying[: plan.keep], lying[plan.keep :]
            if plan.hand_first:
                yield from self._hand(rng, look, lying, number, keep=kept, target=taken)
                lying = kept
                for _ in range(3):
                    yield replace(look, dice=kept), SimTruth("empty", number, (), kept)
            thrown = self._place(rng, look, plan, size, kept)
            nudged = tuple(self._nudge(rng, d, size) for d in kept[: plan.nudged])
            final_kept = nudged + kept[plan.nudged :]
            final = final_kept + thrown
            values = tuple(None if d.cocked else d.value for d in final)
            origins = (
                ("moved",) * len(nudged)
                + ("kept",) * (len(kept) - len(nudged))
                + ("thrown",) * len(thrown)
            )
            if plan.placed:
                yield from self._hand(rng, look, thrown, number, appear=True, keep=kept)
            else:
                yield from self._roll(
                    rng, look, (kept, final_kept, thrown), plan, number=number, values=values
                )
            for k in range(plan.still_frames):
                light = look.light * (1.0 - plan.light_drift * k / max(1, plan.still_frames - 1))
                scene = replace(look, dice=final, light=light)
                if plan.hand_stays > plan.rolling_frames + k:
                    scene = replace(scene, hand=_thrower(look, plan.edge, size))
                yield scene, SimTruth("rest", number, values, final, origins)
            lying = final
            number += 1

    @staticmethod
    def _nudge(rng: np.random.Generator, die: RenderedDie, size: float) -> RenderedDie:
        """A kept die pushed aside by a thrown one: moved most of a side, turned a little."""
        angle = float(rng.uniform(0, 2 * math.pi))
        reach = size * float(rng.uniform(0.7, 1.0))
        return replace(
            die,
            x=die.x + reach * math.cos(angle),
            y=die.y + reach * math.sin(angle),
            angle=die.angle + float(rng.uniform(10, 30)),
        )

    def _place(
        self,
        rng: np.random.Generator,
        look: Scene,
        plan: ThrowPlan,
        size: float,
        lying: tuple[RenderedDie, ...] = (),
    ) -> tuple[RenderedDie, ...]:
        """Where the thrown dice come to rest: apart (centres 1.6 sides or more, closer when
        the tray is crowded), or touching in a heap; never on a die already lying there."""
        margin = look.wall_width + size
        placed: list[RenderedDie] = []
        spacing = 1.15 if plan.heap else 1.6
        if plan.heap:
            spread = size * (1.0 + 0.6 * math.sqrt(plan.dice))
            # A heap wider than the tray's floor lies in its middle (big dice, a small tray:
            # until 2026-11-25 NumPy refused the empty range and the film crashed).
            hx = _between(rng, margin + spread, look.width - margin - spread)
            hy = _between(rng, margin + spread, look.height - margin - spread)
        failures = 0
        while len(placed) < plan.dice:
            if plan.heap:
                x = float(np.clip(hx + rng.normal(0, spread / 2), margin, look.width - margin))
                y = float(np.clip(hy + rng.normal(0, spread / 2), margin, look.height - margin))
            else:
                x = float(rng.uniform(margin, look.width - margin))
                y = float(rng.uniform(margin, look.height - margin))
            others = [*lying, *placed]
            if any(math.hypot(x - d.x, y - d.y) < spacing * size for d in others):
                failures += 1
                if failures % 200 == 0:  # a crowded tray: dice come to rest closer
                    spacing = max(1.15, spacing * 0.95)
                    if plan.heap:
                        spread *= 1.1
                continue
            index = len(placed)
            value = plan.values[index] if plan.values and index < len(plan.values) else None
            die = random_die(rng, x, y, size * float(rng.uniform(0.95, 1.05)), value=value)
            die = replace(die, cocked=index < plan.cocked, tilt=35.0 if index < plan.cocked else 0)
            if any(_overlap(die, d) for d in others):
                # Close enough to touch, and turned so that a corner would lie on the other
                # die: two flat dice cannot do that (until 2026-11-25 they did, in heaps).
                failures += 1
                continue
            placed.append(die)
        return tuple(placed)

    def _roll(
        self,
        rng: np.random.Generator,
        look: Scene,
        dice: tuple[tuple[RenderedDie, ...], tuple[RenderedDie, ...], tuple[RenderedDie, ...]],
        plan: ThrowPlan,
        *,
        number: int,
        values: tuple[int | None, ...],
    ) -> Iterator[tuple[Scene, SimTruth]]:
        """Dice come in from the plan's edge, tumbling and slowing, and stop at their places;
        kept dice lie still (the nudged ones are pushed when the throw is half over)."""
        kept, final_kept, final = dice
        n = plan.rolling_frames
        starts = [_start(look, plan.edge, d, i, rng) for i, d in enumerate(final)]
        for k in range(n):
            # Eased: fast at first, slow at the end.
            t = 1.0 - (1.0 - (k + 1) / (n + 1)) ** 2
            t_prev = 1.0 - (1.0 - k / (n + 1)) ** 2
            moving = []
            for die, (sx, sy) in zip(final, starts, strict=True):
                x = sx + (die.x - sx) * t
                y = sy + (die.y - sy) * t
                px = sx + (die.x - sx) * t_prev
                py = sy + (die.y - sy) * t_prev
                moving.append(
                    replace(
                        die,
                        x=x,
                        y=y,
                        angle=die.angle + 200.0 * (1 - t),
                        value=int(rng.integers(1, 7)),
                        cocked=False,
                        blur=(0.6 * (x - px), 0.6 * (y - py)),
                    )
                )
            lying = final_kept if k >= n // 2 else kept
            scene = replace(look, dice=(*lying, *moving))
            if k < plan.hand_stays:
                scene = replace(scene, hand=_thrower(look, plan.edge, look.height * 0.3))
            yield scene, SimTruth("rolling", number, values, final_kept + final)

    def _hand(
        self,
        rng: np.random.Generator,
        look: Scene,
        lying: tuple[RenderedDie, ...],
        number: int,
        *,
        appear: bool = False,
        keep: tuple[RenderedDie, ...] = (),
        target: tuple[RenderedDie, ...] | None = None,
    ) -> Iterator[tuple[Scene, SimTruth]]:
        """A hand reaches in from the bottom edge, takes the dice (or sets them down), withdraws.
        `keep` lie there all along; the hand reaches for `target` (default: `lying`)."""
        aim = lying if target is None else target
        target_x = float(np.mean([d.x for d in aim])) if aim else look.width / 2
        target_y = float(np.mean([d.y for d in aim])) if aim else look.height / 2
        size = look.height * 0.3
        path = (1.25, 0.9, 0.6, 0.35, 0.35, 0.6, 0.9, 1.25)
        moved = tuple(d for d in lying if d not in keep)
        for step, reach in enumerate(path):
            y = target_y + reach * (look.height - target_y + size)
            dice = keep + (moved if (step < 4) != appear else ())
            hand = Hand(target_x, y, size, -90.0)
            yield replace(look, dice=dice, hand=hand), SimTruth("hand", number, (), dice)


def _start(
    look: Scene, edge: str, die: RenderedDie, index: int, rng: np.random.Generator
) -> tuple[float, float]:
    """Where a thrown die enters: beyond the edge, the later ones further out."""
    behind = die.size * (1 + index)
    if edge == "left":
        return -behind, die.y + float(rng.uniform(-60, 60))
    if edge == "right":
        return look.width + behind, die.y + float(rng.uniform(-60, 60))
    if edge == "top":
        return die.x + float(rng.uniform(-60, 60)), -behind
    return die.x + float(rng.uniform(-60, 60)), look.height + behind


def _thrower(look: Scene, edge: str, size: float) -> Hand:
    """The hand that threw, resting at the edge the dice came from, palm half in view."""
    reach = size * 0.25
    if edge == "left":
        return Hand(reach, look.height / 2, size, 0.0)
    if edge == "right":
        return Hand(look.width - reach, look.height / 2, size, 180.0)
    if edge == "top":
        return Hand(look.width / 2, reach, size, 90.0)
    return Hand(look.width / 2, look.height - reach, size, -90.0)


def _overlap(a: RenderedDie, b: RenderedDie) -> bool:
    """Whether two dice's top faces, squares turned by their angles, overlap (touching is not
    overlapping: each is taken 2 % smaller)."""
    if math.hypot(a.x - b.x, a.y - b.y) >= (a.size + b.size) / math.sqrt(2):
        return False  # farther apart than their half-diagonals reach
    found, _ = cv2.rotatedRectangleIntersection(
        ((a.x, a.y), (a.size * 0.98, a.size * 0.98), a.angle),
        ((b.x, b.y), (b.size * 0.98, b.size * 0.98), b.angle),
    )
    return bool(found != cv2.INTERSECT_NONE)


def _between(rng: np.random.Generator, low: float, high: float) -> float:
    """A place drawn between low and high; their middle when they are the wrong way round."""
    return float(rng.uniform(low, high)) if low <= high else (low + high) / 2.0
