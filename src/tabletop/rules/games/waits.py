"""What a game waits for: nothing, the game master, a throw of dice, a card, a choice.

The table's readers, the console and the simulated people read a `Waiting` and need not know
the game; a `DiceThrow` says how many dice, whose, and how they score. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Scoring(Enum):
    """How the dice of one throw are read."""

    HIGHEST = "highest"
    LOWEST = "lowest"
    SUM = "sum"
    COUNT_SIXES = "count_sixes"
    EACH = "each"  # every die counts on its own (poker hands, pools kept die by die)


@dataclass(frozen=True, slots=True)
class DiceThrow:
    """A throw the game waits for: who throws, how many dice, how they are read."""

    who: str | None
    count: int
    scoring: Scoring = Scoring.HIGHEST
    rerollable: bool = False  # some dice may be kept and the others thrown again
    # How many of the `count` dice are thrown in this throw, when the game knows: `count` for
    # a fresh throw, fewer for a reroll in which the others stay where they lie (Steamfunkateers'
    # Vigor: every die not showing a six). None: the game does not say (a poker draw, where the
    # player chooses). The camera checks the tray against it.
    rethrow: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "who": self.who,
            "count": self.count,
            "scoring": self.scoring.value,
            "rerollable": self.rerollable,
        }
        if self.rethrow is not None:  # an added field: readers of version 1 may ignore it
            data["rethrow"] = self.rethrow
        return data


@dataclass(frozen=True, slots=True)
class Reroll:
    """Which dice of a throw stayed where they lay, as the camera saw it (values of each kind).

    The camera compares the resting dice with the last throw's: `kept` lay in the same place
    showing the same face, `moved` lay there but were pushed or turned, `thrown` were thrown."""

    kept: tuple[int, ...] = ()
    moved: tuple[int, ...] = ()
    thrown: tuple[int, ...] = ()


class WaitKind(Enum):
    """What kind of thing the game waits for, for any game."""

    NOTHING = "nothing"  # no game yet, or the game is over
    GAME_MASTER = "game_master"  # a call only the game master makes
    DICE = "dice"
    CARD = "card"  # a card turned, laid or lifted on the mat
    CHOICE = "choice"  # a player decides (yes/no, keep/retire, ...)


@dataclass(frozen=True, slots=True)
class Waiting:
    """What the game waits for now: in a generic form for the table, and in plain words."""

    kind: WaitKind
    words: str
    who: tuple[str, ...] = ()
    dice: DiceThrow | None = None
    # The game's own structured account of what is pending (`pending` in game/prompt).
    detail: Mapping[str, Any] | None = None
