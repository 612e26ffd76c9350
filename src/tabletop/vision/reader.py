"""Finds and reads every die in a picture: candidates, then the classifier, then suppression."""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .calibration import Calibration, flat_calibration, floor_of
from .classify import COCKED, NO_DIE, VALUE_CLASSES, DieClassifier, ValueClassifier
from .errors import SettingsError
from .locate import (
    DEFAULT_SIZES,
    MIN_STRENGTH,
    Candidate,
    dark_pips,
    find_candidates,
    strength_at,
    tray_difference,
    tray_lab,
)
from .reading import DieReading, DieStatus, FrameReading, reading_order
from .view import TableView

Image = npt.NDArray[np.uint8]


# The size the locator gives a die is the part its centre-surround filter rewards most: about
# 0.8 of the die's axis-aligned extent (median over rendered dice of known size; 0.85 of the
# real photos' labelled boxes). A reported box spans the whole die.
BOX_PER_SIZE = 1.2
# How much a place must differ from the tray (0..60, as `tray_difference` gives) to be looked
# at closely: the locator's weakest useful peak.
CLOSE_BUSY = 12.0
# How sure the detector must be of a die at a place the locator did not propose: a place of
# the grid, or a lone pip (`DiceReader.pip_candidates`).
CLOSE_MIN_DIE = 0.9


@dataclass(frozen=True)
class SearchedArea:
    """The part of a picture the locator searched (full-resolution pixels) and its tray
    difference (`tabletop.vision.locate.tray_difference`, half resolution, of that part)."""

    x0: int
    y0: int
    x1: int
    y1: int
    difference: npt.NDArray[np.float32]


@dataclass(frozen=True)
class Look:
    """One round of the value reader's looks at a die: each size (times the detector's) at
    each quarter turn. A value does not change when a die is turned, so the turns at one size
    are pooled and one unlucky crop cannot decide alone; the detector's sizes are coarse
    steps, so the reader believes the size at which it is surest."""

    scales: tuple[float, ...]
    turns: tuple[int, ...]


QUICK_LOOK = Look((1.0,), (0, 2))  # the detector's size, two half turns
ALL_TURNS_LOOK = Look((1.0,), (0, 1, 2, 3))  # ... the other two quarter turns too
FULL_LOOK = Look((0.85, 1.0, 1.2, 1.4), (0, 1, 2, 3))


@dataclass(frozen=True)
class ReaderSettings:
    """Thresholds of the reader; the defaults are the ones measured in
    docs/notes/vision-history.md."""

    min_die: float = 0.3  # probability that a candidate is a die at all
    # Below this a die is UNREADABLE (unsure: the table asks for it) rather than guessed.
    # Fitted on the real photos and rendered tables for at most 0.5 % wrong values on each
    # (issue 49): 0.9 gave 5 and 7 wrong of 434 and 431 dice of a rendered table of novel
    # dice, 3 of them read between 0.9 and 0.92; 0.92 makes 1 more of 1,481 real dice unsure
    # (docs/vision.md, "Unsure dice").
    min_confidence: float = 0.92
    # ... unless it is read at least this sure, every look at it (each quarter turn of its
    # crop) gives the same value, and so does each size it was read at (its looks there
    # averaged). Turns alone err together (the network learnt every turn), so the sizes must
    # agree too. At 0.8 (until issue 49) the dice read so were wrong 4 times in 22 on rendered
    # tables (1 read, right, of 1,481 real dice): now no die under `min_confidence` is read on
    # agreement (docs/vision.md, "Unsure dice").
    agreed_confidence: float = 0.92
    overlap: float = 0.6  # two dice are never closer than this many sides (geometric mean)
    # ... and a candidate the detector is less sure of than this is never closer than that
    # many of the larger side to a die kept before it.
    sure_apart: float = 0.6
    # A cocked die's top face and the side face it shows are often found as two dice: a die
    # not read that lies within this many sides of a cocked one is part of it.
    cocked_reach: float = 1.0
    # Rounds of looks: a die read at least `sure` (and not cocked) after a round needs no
    # more, so the later, dearer rounds are paid for the few dice the first leaves unsure.
    # The last round decides for every die still unsure. A crop already read in an earlier
    # round is not read again.
    looks: tuple[Look, ...] = (QUICK_LOOK, ALL_TURNS_LOOK, FULL_LOOK)
    sure: float = 0.95
    # A die still under `min_confidence` after every round is looked at again this many sides
    # off its centre, each way along both axes (the detector's centre can lie a pip's width
    # off); () looks no more.
    shifts: tuple[float, ...] = (0.05, 0.1)
    # Uncalibrated, a dark pip this much darker than around it (grey levels, 0-255) and off
    # every die found is looked at as the centre of a die (a white die on a pale tray; see
    # `DiceReader.pip_candidates`); 0 looks for no pips.
    pip_contrast: float = 50.0

    def __post_init__(self) -> None:
        if not self.looks or not all(look.scales and look.turns for look in self.looks):
            raise SettingsError(
                f"ReaderSettings.looks: every round needs a size and a turn, got {self.looks}"
            )


class DiceReader:
    """Turns one BGR picture into a FrameReading; works with or without a calibration."""

    def __init__(
        self,
        classifier: DieClassifier | None = None,
        calibration: Calibration | None = None,
        settings: ReaderSettings | None = None,
        values: ValueClassifier | None = None,
    ) -> None:
        self.classifier = classifier if classifier is not None else DieClassifier()
        self.values = values if values is not None else ValueClassifier()
        self.calibration = calibration
        self.settings = settings if settings is not None else ReaderSettings()
        self._tray_lab: Image | None = None
        # A die's side learnt from dice read before (a watcher sets it, see tabletop.vision.watch):
        # uncalibrated, only sizes around it are searched, as a calibration's die size does.
        self.die_size: float | None = None
        # With a calibration that knows the camera's view, the reader of its flat pictures,
        # and the side of the dice it read last.
        self._flat_reader: DiceReader | None = None
        self._flat_side: float | None = None

    def load(self) -> None:
        """Reads both models now, so the first picture's time is the reading alone."""
        self.classifier.load()
        self.values.load()

    def _sizes(self) -> tuple[int, ...]:
        side = self.die_size
        if self.calibration is not None and self.calibration.die_size is not None:
            side = self.calibration.die_size
        if side is not None:
            return tuple(sorted({round(side * f) for f in (0.8, 1.0, 1.25)}))
        return DEFAULT_SIZES

    def candidates(self, image: Image) -> list[Candidate]:
        """Where dice may lie: the whole picture, or only the tray when calibrated."""
        return self._search(image)[0]

    def _search(self, image: Image) -> tuple[list[Candidate], SearchedArea]:
        """The candidates, and the part of the picture searched with its tray difference."""
        if self.calibration is None:
            # The tray's floor, as the picture shows it: what lies on the rim (a hole in it, a
            # screw, its corners) is not a die. Only the floor is searched, so that the dark
            # walls do not darken the tray estimated around a die pressed into a corner (that
            # die was not found: docs/notes/vision-history.md); even offsets keep the halvings
            # aligned.
            x0, y0, x1, y1 = floor_of(image)
            x0, y0 = x0 - x0 % 2, y0 - y0 % 2
            floor = image[y0:y1, x0:x1]
            diff = tray_difference(floor)
            found = find_candidates(floor, self._sizes(), difference=diff)
            shifted = [Candidate(c.x + x0, c.y + y0, c.size, c.strength) for c in found]
            return shifted, SearchedArea(x0, y0, x1, y1, diff)
        h, w = image.shape[:2]
        if self._tray_lab is None or self._tray_lab.shape[:2] != (h // 2, w // 2):
            background = self.calibration.background_for(image)
            self._tray_lab = tray_lab(background, w, h)
        diff = tray_difference(image, background_lab=self._tray_lab)
        found = find_candidates(image, self._sizes(), difference=diff)
        inside = [c for c in found if self.calibration.inside(c.x, c.y)]
        return inside, SearchedArea(0, 0, w, h, diff)

    def close_candidates(self, image: Image, side: float) -> list[Candidate]:
        """Places on a grid a third of `side` apart wherever something lies on the tray: a die
        pressed against others may have no peak of its own for the locator (its neighbours
        outshine it), but the detector still knows a die when it is centred on one."""
        h, w = image.shape[:2]
        diff = tray_difference(image, background_lab=self._tray_lab if self.calibration else None)
        busy = diff >= CLOSE_BUSY
        if self.calibration is None:
            x0, y0, x1, y1 = floor_of(image)
        else:
            x0, y0, x1, y1 = 0, 0, w, h
        step = max(2.0, side / 3.0)
        found = []
        rows, cols = busy.shape
        for y in np.arange(y0 + step / 2, y1, step):
            for x in np.arange(x0 + step / 2, x1, step):
                here = busy[min(int(y) // 2, rows - 1), min(int(x) // 2, cols - 1)]
                if here and (self.calibration is None or self.calibration.inside(x, y)):
                    found.append(Candidate(float(x), float(y), float(side), 0.0))
        return found

    def pip_candidates(
        self, image: Image, dice: list[Candidate], searched: SearchedArea
    ) -> tuple[list[Candidate], npt.NDArray[np.float32]]:
        """Candidates centred on the dark pips outside every die's box in `dice`, at the
        dice's median size (or every searched size), with the detector's probabilities; only
        those it is sure are a die. A white die showing 1 on a pale tray is little more than
        its pip to the locator's peaks; the pip lies at the die's centre, and the middle pip
        of a 3 or a 5 does too (docs/notes/vision-history.md, *Lone pips*). A pip inside a die's box
        is that die's own, or a side face's."""
        sides = sorted(c.size for c in dice)
        sizes = (sides[len(sides) // 2],) if sides else self._sizes()
        x0, y0 = searched.x0, searched.y0
        area = image[y0 : searched.y1, x0 : searched.x1]
        places = [
            (x, y)
            for x, y in dark_pips(area, sizes[0], sizes[-1], self.settings.pip_contrast)
            # A speck on the tray is a dark dot too; a die also has an outline, faint as it
            # is, so the locator's own measure there must be a candidate's.
            if strength_at(searched.difference, x, y, sizes[0]) >= MIN_STRENGTH
            and all(
                max(abs(x + x0 - c.x), abs(y + y0 - c.y)) > BOX_PER_SIZE * c.size / 2 for c in dice
            )
            and (self.calibration is None or self.calibration.inside(x + x0, y + y0))
        ]
        lone = [Candidate(x + x0, y + y0, float(size), 0.0) for x, y in places for size in sizes]
        if not lone:
            return [], np.zeros((0, 0), np.float32)
        probs = self.classifier.score(image, lone)
        sure = 1.0 - probs[:, NO_DIE] >= CLOSE_MIN_DIE
        return [c for c, keep in zip(lone, sure, strict=True) if keep], probs[sure]

    def read(self, image: Image, *, closely: float | None = None) -> FrameReading:
        """Every die in the picture with its value, or COCKED / UNREADABLE when not sure.

        `closely` (a die's side, in the search's units): also look on a grid wherever
        something lies (`close_candidates`); dearer, for a watcher that found fewer dice than
        the game expects. With a calibration that knows the camera's view (a slanted camera,
        a wide lens), the flat picture of the table is read, and the dice are boxed as the
        camera's picture shows them (`tabletop.vision.view`)."""
        if self.calibration is not None and self.calibration.view is not None:
            return self._read_flat(image, self.calibration.view, closely)
        candidates, searched = self._search(image)
        probs = self.classifier.score(image, candidates)
        if closely is not None:
            # The grid's places count only where the detector is sure of a die: between two
            # dice it half sees both.
            close = self.close_candidates(image, closely)
            close_probs = self.classifier.score(image, close)
            likely = 1.0 - close_probs[:, NO_DIE] >= CLOSE_MIN_DIE
            candidates += [c for c, keep in zip(close, likely, strict=True) if keep]
            probs = np.concatenate([probs, close_probs[likely]])
        kept = self.keep(candidates, probs)
        # Only uncalibrated: the closer look's grid looks there anyway, and a calibrated frame
        # has no time to spare (its 8 ms: docs/benchmarks.md) for about 1 ms more.
        if self.settings.pip_contrast > 0 and closely is None and self.calibration is None:
            lone, lone_probs = self.pip_candidates(image, [c for c, _ in kept], searched)
            if lone:
                kept = self.keep(candidates + lone, np.concatenate([probs, lone_probs]))
        return self.read_dice(image, [c for c, _ in kept])

    def read_dice(self, image: Image, dice: list[Candidate]) -> FrameReading:
        """The values of dice already found (a centre and side each, as the locator gives
        them; the reported box is BOX_PER_SIZE times the side): the value network's looks,
        then `decide`. `read` finds the dice with the locator and the detector; another
        finder's dice can be read here alike (`bench/vision_onepass.py`)."""
        seen: dict[tuple[int, float, int], npt.NDArray[np.float32]] = {}
        views: list[npt.NDArray[np.float32]] = [np.zeros((0, VALUE_CLASSES), np.float32)] * len(
            dice
        )
        unsure = list(range(len(dice)))
        for number, look in enumerate(self.settings.looks):
            self._look(image, dice, unsure, look, seen)
            last = number == len(self.settings.looks) - 1
            still_unsure = []
            for i in unsure:
                views[i] = self._surest_view(i, look, seen)
                p = views[i].mean(axis=0)
                sure = p.max() >= self.settings.sure and int(p.argmax()) + 1 != COCKED
                if not (sure or last):
                    still_unsure.append(i)
            unsure = still_unsure
        if self.settings.shifts:
            self._look_shifted(image, dice, views, seen)
        # Only a die under the threshold may need its sizes (the agreed looks): every frame is
        # read while the tray is still, so the sure ones are not worked out.
        threshold = self.settings.min_confidence
        doubtful = {i for i, view in enumerate(views) if view.mean(axis=0).max() < threshold}
        return self.decide(
            image.shape[1],
            image.shape[0],
            list(zip(dice, views, strict=True)),
            size_means(seen, doubtful),
        )

    def _read_flat(self, image: Image, view: TableView, closely: float | None) -> FrameReading:
        """`read` through a calibration's view: the flat picture of the table is read."""
        if self._flat_reader is None:
            flat = flat_calibration(self.calibration) if self.calibration else None
            self._flat_reader = DiceReader(self.classifier, flat, self.settings, self.values)
        flat_reader = self._flat_reader
        # A die's side learnt from the camera's picture is not its side in the flat one (its
        # box there holds the side faces a slanted camera shows), but every die in the flat
        # picture is as large: while a watcher searches around a side it learnt (`die_size`
        # set), the flat reader searches around the side of the dice it read last.
        flat_reader.die_size = self._flat_side if self.die_size is not None else None
        flat_image = view.flatten(image)
        flat_reading = flat_reader.read(flat_image, closely=closely)
        self._flat_side = die_side(flat_reading) or self._flat_side
        standpoint = view.standpoint
        shown = []
        for top, seen in view.dice_on_table(flat_reading):
            looked = None
            if standpoint is not None and top.status is not DieStatus.READ:
                looked = top_face_look(self.values, flat_image, top, standpoint[:2], self.settings)
            if looked is None:
                shown.append(seen)
            else:
                shown.append(DieReading(looked[0], looked[1], seen.box, DieStatus.READ))
        shown.sort(key=reading_order)
        return FrameReading(tuple(shown))

    def recount(
        self, image: Image, reading: FrameReading, expected: int, side: float | None = None
    ) -> FrameReading:
        """`reading`, or a closer look's reading (`read(image, closely=side)`, the side by
        default the reading's own dice's) when `reading` has fewer dice than the `expected`
        count and the closer look finds exactly that many: a die pressed against others may
        have no locator peak of its own. The grid can also take a pip or a neighbour's corner
        for a die, so its reading is believed only when the count says it is right."""
        if not 0 < len(reading.dice) < expected:
            return reading
        side = side if side is not None else die_side(reading)
        if side is None:
            return reading
        closer = self.read(image, closely=side)
        return closer if len(closer.dice) == expected else reading

    def _look_shifted(
        self,
        image: Image,
        dice: list[Candidate],
        views: list[npt.NDArray[np.float32]],
        seen: dict[tuple[int, float, int], npt.NDArray[np.float32]],
    ) -> None:
        """Dice still under `min_confidence` after every round are looked at again a little to
        each side of their centre (`shifts`), at the size of the last round the reader was
        surest at; as with sizes, the place it is surest at is believed. (Cross-validated on
        the real photos: 11 more dice read right, no more wrong values;
        docs/notes/vision-history.md.)"""
        settings = self.settings
        last = settings.looks[-1]
        owners: list[int] = []
        cuts: list[Image] = []
        for i, view in enumerate(views):
            p = view.mean(axis=0)
            if p.max() >= settings.min_confidence or int(p.argmax()) + 1 == COCKED:
                continue
            c = dice[i]
            scale = max(
                last.scales,
                key=lambda s: float(np.stack([seen[(i, s, t)] for t in last.turns]).mean(0).max()),
            )
            for shift in settings.shifts:
                d = shift * c.size
                for dx, dy in ((d, 0.0), (-d, 0.0), (0.0, d), (0.0, -d)):
                    cuts += self.values.looks(image, c.x + dx, c.y + dy, c.size * scale, last.turns)
                    owners.append(i)
        if not cuts:
            return
        rows = self.values.probabilities(cuts)
        n = len(last.turns)
        for k, i in enumerate(owners):
            shifted = rows[k * n : (k + 1) * n]
            if float(shifted.mean(axis=0).max()) > float(views[i].mean(axis=0).max()):
                views[i] = shifted

    def _look(
        self,
        image: Image,
        dice: list[Candidate],
        indices: list[int],
        look: Look,
        seen: dict[tuple[int, float, int], npt.NDArray[np.float32]],
    ) -> None:
        """Reads the crops of one round that are not in `seen` yet (all dice in one call of
        the network) and adds their probabilities to it, by (die, scale, turn)."""
        cuts: list[Image] = []
        keys: list[tuple[int, float, int]] = []
        for i in indices:
            c = dice[i]
            for scale in look.scales:
                missing = tuple(t for t in look.turns if (i, scale, t) not in seen)
                if missing:
                    cuts.extend(self.values.looks(image, c.x, c.y, c.size * scale, missing))
                    keys.extend((i, scale, t) for t in missing)
        if cuts:
            for key, row in zip(keys, self.values.probabilities(cuts), strict=True):
                seen[key] = row

    @staticmethod
    def _surest_view(
        i: int, look: Look, seen: dict[tuple[int, float, int], npt.NDArray[np.float32]]
    ) -> npt.NDArray[np.float32]:
        """Die i's probabilities at the round's size it is surest of: one row per turn."""
        views = [np.stack([seen[(i, scale, t)] for t in look.turns]) for scale in look.scales]
        return max(views, key=lambda view: float(view.mean(axis=0).max()))

    def keep(
        self, candidates: list[Candidate], probs: npt.NDArray[np.float32]
    ) -> list[tuple[Candidate, npt.NDArray[np.float32]]]:
        """Each die once, placed and sized by every candidate that saw it at about the same
        size (its supporters; see `pooled_place`), with their class probabilities."""
        settings = self.settings
        if not candidates:
            return []
        die_prob = 1.0 - probs[:, NO_DIE]
        order = np.argsort(-die_prob)
        kept: list[tuple[Candidate, list[int]]] = []
        for index in order.tolist():
            if die_prob[index] < settings.min_die:
                break
            c = candidates[index]
            owner = None
            for k, support in kept:
                # Sides compared by their geometric mean: with the larger one, a candidate
                # spanning two touching dice swallowed the second die (4 of the 14 dice missed
                # on the real photos, cross-validated; docs/notes/vision-history.md). Between the
                # two, only a candidate the detector is sure of is a die of its own: a pip or a
                # corner of a die is seen there too (a single rendered 5 was announced as 1 and 5).
                apart = math.hypot(c.x - k.x, c.y - k.y)
                reach = settings.overlap * math.sqrt(c.size * k.size)
                if die_prob[index] < settings.sure_apart:
                    reach = settings.overlap * max(c.size, k.size)
                if apart < reach:
                    owner = (k, support)
                    break
            if owner is None:
                kept.append((c, [index]))
            elif 0.7 <= c.size / owner[0].size <= 1.45:
                owner[1].append(index)
        return [
            (pooled_place([candidates[i] for i in support], die_prob[support]), probs[support])
            for _, support in kept
        ]

    def decide(
        self,
        width: int,
        height: int,
        pooled: list[tuple[Candidate, npt.NDArray[np.float32]]],
        sizes: dict[int, npt.NDArray[np.float32]] | None = None,
    ) -> FrameReading:
        """Turns each die's pooled class probabilities into a reading.

        `sizes`: by die (its place in `pooled`), its looks averaged at each size it was read at,
        one row a size (`size_means`); an unsure die is read on agreement only where these
        agree as well."""
        settings = self.settings
        dice: list[DieReading] = []
        for index, (c, looks) in enumerate(pooled):
            # Columns: values 1-6, then cocked.
            p = looks.mean(axis=0)
            best = int(np.argmax(p)) + 1
            confidence = float(p[best - 1])
            half = BOX_PER_SIZE * c.size / 2.0
            box = (
                max(0, round(c.x - half)),
                max(0, round(c.y - half)),
                min(width, round(c.x + half)),
                min(height, round(c.y + half)),
            )
            if best == COCKED:  # the value reader's class 7 is "cocked", as the detector's
                dice.append(DieReading(None, confidence, box, DieStatus.COCKED))
            elif confidence < settings.min_confidence and not (
                confidence >= settings.agreed_confidence
                and len(looks) > 1
                and bool(np.all(looks.argmax(axis=1) == best - 1))
                and (
                    sizes is None
                    or index not in sizes
                    or bool(np.all(sizes[index].argmax(axis=1) == best - 1))
                )
            ):
                dice.append(DieReading(None, confidence, box, DieStatus.UNREADABLE))
            else:
                dice.append(DieReading(best, confidence, box, DieStatus.READ))
        dice = one_report_per_cocked_die(dice, settings.cocked_reach)
        dice = without_fragments(dice)
        dice.sort(key=reading_order)
        return FrameReading(tuple(dice))


def size_means(
    seen: dict[tuple[int, float, int], npt.NDArray[np.float32]], dice: Collection[int]
) -> dict[int, npt.NDArray[np.float32]]:
    """By die of `dice`, its looks (keyed by die, size, turn) averaged at each size: one row a
    size."""
    grouped: dict[int, dict[float, list[npt.NDArray[np.float32]]]] = {}
    for (die, scale, _), row in seen.items():
        if die in dice:
            grouped.setdefault(die, {}).setdefault(scale, []).append(row)
    return {
        die: np.stack([np.mean(rows, axis=0) for rows in by_scale.values()]).astype(np.float32)
        for die, by_scale in grouped.items()
    }


# Where a slanted camera's die is looked at again (`top_face_look`): this many sides away from
# the camera from the centre found, at these shares of the side.
TOP_FACE_SHIFTS = (0.0, 0.15, 0.3)
TOP_FACE_SIZES = (0.8, 0.9, 1.0)


def top_face_look(
    values: ValueClassifier,
    flat: Image,
    die: DieReading,
    below_camera: tuple[float, float],
    settings: ReaderSettings,
) -> tuple[int, float] | None:
    """A die of a slanted camera's flat picture that was not read, looked at again on its top
    face alone: its value and confidence, or None when no look is sure of a value.

    Flattened, a die far from the camera shows side faces as long as itself between its top
    face and the point below the camera, and the crop around the centre found holds them: the
    network, which learnt cocked dice from above, calls many such dice cocked. The top face
    lies on the side away from the camera; it is cut there, a little smaller, every quarter
    turn averaged, and believed only at `min_confidence` and not cocked (docs/vision.md)."""
    x0, y0, x1, y1 = die.box
    side = ((x1 - x0) + (y1 - y0)) / 2.0
    cx, cy = die.center
    away = np.array([cx - below_camera[0], cy - below_camera[1]])
    length = float(np.hypot(*away))
    if length == 0:
        return None
    away /= length
    best: tuple[float, int] | None = None
    for shift in TOP_FACE_SHIFTS:
        x, y = cx + away[0] * shift * side, cy + away[1] * shift * side
        for size in TOP_FACE_SIZES:
            cuts = values.looks(flat, x, y, side * size, (0, 1, 2, 3))
            p = values.probabilities(cuts).mean(axis=0)
            if best is None or float(p.max()) > best[0]:
                best = (float(p.max()), int(p.argmax()) + 1)
    if best is None or best[0] < settings.min_confidence or best[1] == COCKED:
        return None
    return best[1], best[0]


def die_side(reading: FrameReading) -> float | None:
    """The median side of the dice in a reading, in the search's units (None: no die)."""
    sides = [(d.box[2] - d.box[0] + d.box[3] - d.box[1]) / 2.0 for d in reading.dice]
    return float(np.median(sides)) / BOX_PER_SIZE if sides else None


def pooled_place(seen: list[Candidate], die_prob: npt.NDArray[np.float32]) -> Candidate:
    """Where a die lies and how big it is, from the candidates that saw it (the likeliest
    first), each weighted by how likely the detector thinks it is a die. The search's sizes are
    steps of about 1.4x, too coarse for the value reader's crops and the reported box, so they
    are averaged on a log scale. (Cross-validated: 5 more dice read right, 1 fewer wrong.)"""
    if len(seen) == 1:
        return seen[0]
    places = np.array([(c.x, c.y, math.log(c.size)) for c in seen])
    x, y, log_size = (die_prob / die_prob.sum()) @ places
    return Candidate(float(x), float(y), float(np.exp(log_size)), seen[0].strength)


def one_report_per_cocked_die(dice: list[DieReading], reach: float) -> list[DieReading]:
    """Merges each cocked die with the dice not read within `reach` sides of it (its side
    face, found as a die of its own), so a cocked die is counted once. A die read with a value
    is never merged: it may be a flat neighbour the cocked die leans on."""
    merged = list(dice)
    while (pair := _cocked_pair(merged, reach)) is not None:
        merged = [d for d in merged if d not in pair]
        box = (
            min(d.box[0] for d in pair),
            min(d.box[1] for d in pair),
            max(d.box[2] for d in pair),
            max(d.box[3] for d in pair),
        )
        confidence = max(d.confidence for d in pair if d.status is DieStatus.COCKED)
        merged.append(DieReading(None, confidence, box, DieStatus.COCKED))
    return merged


def without_fragments(dice: list[DieReading]) -> list[DieReading]:
    """Drops the dice not read that are a piece of a die read, or a die read and what lies
    around it: one centred inside the other's box, under 0.7 times its size (a side face or a
    corner of a die seen a little from the side, found as a small die of its own), or over
    1.6 times (a die in the corner of the tray, found with the corner as one big die). A
    cocked die leaning on a flat one is about as big as it."""

    def side(d: DieReading) -> float:
        return float(max(d.box[2] - d.box[0], d.box[3] - d.box[1]))

    def inside(point: tuple[float, float], d: DieReading) -> bool:
        return d.box[0] <= point[0] <= d.box[2] and d.box[1] <= point[1] <= d.box[3]

    def piece(d: DieReading, r: DieReading) -> bool:
        if inside(d.center, r) and side(d) < 0.7 * side(r):
            return True
        return inside(r.center, d) and side(d) > 1.6 * side(r)

    read = [d for d in dice if d.status is DieStatus.READ]
    return [d for d in dice if d.status is DieStatus.READ or not any(piece(d, r) for r in read)]


def _cocked_pair(dice: list[DieReading], reach: float) -> tuple[DieReading, DieReading] | None:
    """A cocked die and a die not read within `reach` sides of it, if there are such."""
    for a in dice:
        if a.status is not DieStatus.COCKED:
            continue
        for b in dice:
            if b is a or b.status is DieStatus.READ:
                continue
            side = max(a.box[2] - a.box[0], b.box[2] - b.box[0])
            if math.dist(a.center, b.center) < reach * side:
                return a, b
    return None
