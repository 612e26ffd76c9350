"""An action roll's outcome and critical: shared by the state and the duel."""

from __future__ import annotations

from enum import Enum


class Outcome(Enum):
    """An action roll's result: the highest die (the lowest at disadvantage)."""

    COMPLETE = "complete success"  # a 6
    PARTIAL = "partial success"  # 4-5
    FAILURE = "failure"  # 1-3


class Critical(Enum):
    """A critical result on top of the outcome."""

    NONE = ""
    SUCCESS = "critical success"
    FAILURE = "critical failure"
