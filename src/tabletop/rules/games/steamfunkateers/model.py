"""Steamfunkateers' fixed numbers, closed enums, options and errors (no state, no I/O)."""

from __future__ import annotations

from enum import Enum
from typing import Final

from ..errors import IllegalMove

GM: Final = "GM"  # the game master's name wherever a pool, a die or Vigor belongs to them
MAX_RANK: Final = 6  # "Characters may have a maximum number of Skill rank equal to 6."
GM_BASE_DICE: Final = 6  # "The GM typically rolls 6d—six dice."
CONTEST_WINS: Final = 3  # "The first participant to achieve THREE victories wins the contest."
EXTRAORDINARY: Final = 4  # "rolling Four Successes or more on the first roll"
MAX_OBSTACLE: Final = 2  # "An obstacle comes in 2 levels"
SUCCESS_FACE: Final = 6  # "a number of successes (rolling a six)"


class RoundKind(Enum):
    """What a called set of pools decides."""

    CHECK = "check"  # one pool or more, each against the page's "at least one six"
    EXCHANGE = "exchange"  # one exchange of the contest in play: the most sixes scores a victory


class OrderKind(Enum):
    """Which turn order is being set, and which skills it compares."""

    SCENE = "scene"  # outside conflicts: Empathy
    PHYSICAL = "physical"  # Spot, then Athletics, then Physique
    MENTAL = "mental"  # Empathy, then Rapport, then Will


ORDER_SKILLS: Final[dict[OrderKind, tuple[str, ...]]] = {
    OrderKind.SCENE: ("Empathy",),
    OrderKind.PHYSICAL: ("Spot", "Athletics", "Physique"),
    OrderKind.MENTAL: ("Empathy", "Rapport", "Will"),
}


class GmCost(Enum):
    """What the game master may buy with accumulated Vigor (their reroll is a `reroll`)."""

    TAKE_THE_INITIATIVE = "take_the_initiative"
    LOST_POSSESSION = "lost_possession"
    REINFORCEMENTS = "reinforcements"
    INNOCENT_IN_DANGER = "innocent_in_danger"
    HAZARD = "hazard"


# The lowest and highest price of each: "Costs 1-3 points of Vigor, depending on ..."
GM_COSTS: Final[dict[GmCost, tuple[int, int]]] = {
    GmCost.TAKE_THE_INITIATIVE: (1, 1),
    GmCost.LOST_POSSESSION: (3, 3),
    GmCost.REINFORCEMENTS: (1, 3),
    GmCost.INNOCENT_IN_DANGER: (2, 2),
    GmCost.HAZARD: (1, 3),
}


class VigorError(IllegalMove):
    """Spending Vigor that is not there, or twice where the page allows once."""

    rule = "spending vigor"


class PoolError(IllegalMove):
    """A pool the page does not allow (rank over 6, obstacle over level 2, no dice)."""

    rule = "number of dice in pool"


class RerollError(IllegalMove):
    """A Vigor reroll that is not one: a six taken away, the wrong number of dice."""

    rule = "reroll"


class ContestRuleError(IllegalMove):
    """An exchange or contest step that the rules forbid."""

    rule = "contests"


class TurnOrderError(IllegalMove):
    """A turn order or conflict step that the rules forbid."""

    rule = "turn order"


class NarrationError(IllegalMove):
    """A narration bid that the rules forbid."""

    rule = "assume narration of a conflict"
