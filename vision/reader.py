"""Finds and reads every die in a picture: candidates, then the classifier, then suppression."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .calibration import Calibration
from .classify import COCKED, NO_DIE, DieClassifier, ValueClassifier
from .locate import DEFAULT_SIZES, Candidate, find_candidates, tray_lab
from .reading import DieReading, DieStatus, FrameReading

Image = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class ReaderSettings:
    """Thresholds of the reader; the defaults are the ones measured in docs/vision.md."""

    min_die: float = 0.3  # probability that a candidate is a die at all
    min_confidence: float = 0.9  # below this a die is UNREADABLE rather than guessed
    overlap: float = 0.6  # two dice are never closer than this many sides
    # First look: the detector's size at these quarter turns; a die read at least `quick_sure`
    # from it needs no more (most do, so the full look below is paid for the few that don't).
    # No quick turns: every die gets the full look.
    quick_turns: tuple[int, ...] = (0, 2)
    quick_sure: float = 0.95
    # Full look: each of these sizes (times the detector's) at each of these quarter turns.
    value_scales: tuple[float, ...] = (0.85, 1.0, 1.2, 1.4)
    turns: tuple[int, ...] = (0, 1, 2, 3)


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

    def load(self) -> None:
        """Reads both models now, so the first picture's time is the reading alone."""
        self.classifier.load()
        self.values.load()

    def _sizes(self) -> tuple[int, ...]:
        if self.calibration is not None and self.calibration.die_size is not None:
            side = self.calibration.die_size
            return tuple(sorted({round(side * f) for f in (0.8, 1.0, 1.25)}))
        return DEFAULT_SIZES

    def candidates(self, image: Image) -> list[Candidate]:
        """Where dice may lie: the whole picture, or only the tray when calibrated."""
        if self.calibration is None:
            return find_candidates(image, self._sizes())
        h, w = image.shape[:2]
        if self._tray_lab is None or self._tray_lab.shape[:2] != (h // 2, w // 2):
            background = self.calibration.background_for(image)
            self._tray_lab = tray_lab(background, w, h)
        found = find_candidates(image, self._sizes(), background_lab=self._tray_lab)
        return [c for c in found if self.calibration.inside(c.x, c.y)]

    def read(self, image: Image) -> FrameReading:
        """Every die in the picture with its value, or COCKED / UNREADABLE when not sure."""
        candidates = self.candidates(image)
        probs = self.classifier.score(image, candidates)
        kept = self.keep(candidates, probs)
        dice = [c for c, _ in kept]
        views: list[npt.NDArray[np.float32] | None] = [None] * len(dice)
        quick = self.settings.quick_turns
        if quick:
            first = self._looks(image, dice, (1.0,), quick)
            for i, view in enumerate(first):
                p = view.mean(axis=0)
                if p.max() >= self.settings.quick_sure and int(p.argmax()) + 1 != COCKED:
                    views[i] = view
        unsure = [i for i, view in enumerate(views) if view is None]
        # A value does not change when a die is turned, so the looks at one size are pooled
        # and one unlucky crop cannot decide alone. The detector's sizes are coarse steps,
        # so the reader looks at a few sizes too and believes the one at which it is surest.
        full = self._looks(
            image, [dice[i] for i in unsure], self.settings.value_scales, self.settings.turns
        )
        for i, view in zip(unsure, full, strict=True):
            views[i] = view
        pooled = [(c, view) for c, view in zip(dice, views, strict=True) if view is not None]
        return self.decide(image.shape[1], image.shape[0], pooled)

    def _looks(
        self,
        image: Image,
        dice: list[Candidate],
        scales: tuple[float, ...],
        turns: tuple[int, ...],
    ) -> list[npt.NDArray[np.float32]]:
        """For each die, the value reader's probabilities at the size it is surest of: one
        row per turn (all dice in one call of the network)."""
        if not dice:
            return []
        cuts = [
            look
            for c in dice
            for scale in scales
            for look in self.values.looks(image, c.x, c.y, c.size * scale, turns)
        ]
        probs = self.values.probabilities(cuts).reshape(len(dice), len(scales), len(turns), -1)
        means = probs.mean(axis=2)  # dice x scales x classes
        surest = means.max(axis=2).argmax(axis=1)
        return [probs[i, surest[i]] for i in range(len(dice))]

    def keep(
        self, candidates: list[Candidate], probs: npt.NDArray[np.float32]
    ) -> list[tuple[Candidate, npt.NDArray[np.float32]]]:
        """The best candidate per die, with the class probabilities of every candidate that
        saw the same die at about the same size (its supporters)."""
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
                if math.hypot(c.x - k.x, c.y - k.y) < settings.overlap * max(c.size, k.size):
                    owner = (k, support)
                    break
            if owner is None:
                kept.append((c, [index]))
            elif 0.7 <= c.size / owner[0].size <= 1.45:
                owner[1].append(index)
        return [(c, probs[support]) for c, support in kept]

    def decide(
        self,
        width: int,
        height: int,
        pooled: list[tuple[Candidate, npt.NDArray[np.float32]]],
    ) -> FrameReading:
        """Turns each die's pooled class probabilities into a reading."""
        settings = self.settings
        dice: list[DieReading] = []
        for c, looks in pooled:
            # Columns: values 1-6, then cocked.
            p = looks.mean(axis=0)
            best = int(np.argmax(p)) + 1
            confidence = float(p[best - 1])
            half = c.size / 2.0
            box = (
                max(0, round(c.x - half)),
                max(0, round(c.y - half)),
                min(width, round(c.x + half)),
                min(height, round(c.y + half)),
            )
            if best == COCKED:  # the value reader's class 7 is "cocked", as the detector's
                dice.append(DieReading(None, confidence, box, DieStatus.COCKED))
            elif confidence < settings.min_confidence:
                dice.append(DieReading(None, confidence, box, DieStatus.UNREADABLE))
            else:
                dice.append(DieReading(best, confidence, box, DieStatus.READ))
        dice.sort(key=lambda d: (round(d.center[1] / 40), d.center[0]))
        return FrameReading(tuple(dice))
