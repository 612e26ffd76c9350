"""Six-Gun Showdown's fixed numbers, options and errors (no state, no I/O)."""

from __future__ import annotations

from typing import Any, Final

from ..errors import IllegalMove
from ..game import Option

ROUNDS: Final = 3  # "This is a three-round shootout"
HIT_TOTAL: Final = 6  # "If this total value is 6 or higher ... their shot has hit"
DEFENDER_REVEALS: Final = 2  # "A defender may reveal up to a maximum of two cards"
ATTACKER_SPEED_BONUS: Final = 1  # "with the attacker getting an additional +1 speed modifier"
DISCARD_FLOOR: Final = 4  # "but stop when their deck is reduced to only four cards"

# Human simple visual reaction time is about 200-250 ms and two events closer than about 20-60 ms
# cannot be put in order by a watching person (Hirsh & Sherrick 1961); 50 ms keeps ties a
# person could not call for the defender ("If it is unclear which player was fastest ... the
# defender is considered to have been fast enough") while never handing the race to a defender
# a fifth of a reaction slower. docs/rules-showdown.md, "Judging the race".
TIE_WINDOW_MS: Final = 50
# With touch pads, a touch on a defender's bullet that is not followed by that bullet being
# turned within this long was the attacker's hand.
RACE_SETTLE_MS: Final = 2000

OPTIONS: Final = (
    Option(
        "hit_face",
        6,
        'the die face that counts as the hit symbol ("or they rolled a hit"; the symbol is '
        "lost from the text): 1-6, or 0 for a die without one",
        tuple(range(7)),
    ),
    Option(
        "tie_window_ms",
        TIE_WINDOW_MS,
        "touches on the defender's bullets closer than this (ms) are a tie, which the defender "
        "wins",
    ),
    Option(
        "race_settle_ms",
        RACE_SETTLE_MS,
        "a touch on a defender's bullet not turned within this long (ms) was the attacker's",
    ),
    Option(
        "single_shot_discard",
        "mixed",
        "the Single Shot discard rule: mixed (a Single Shot deck against a full-game deck), "
        "always (both players agree), never",
        ("mixed", "always", "never"),
    ),
    # "Fail to draw or hit your opponent, you don't score points for the round": failing
    # either one scores nothing, so a hit after a reach without a Draw scores nothing by
    # default; true is the house reading that the reach "signalled their intention to shoot"
    # as a Draw does.
    Option(
        "reach_scores",
        False,
        "a hit by a player who reached without revealing a Draw scores its point (default "
        "no: 'Fail to draw or hit your opponent, you don't score points for the round')",
    ),
    # "If a player revealed their Draw card second and hit their opponent, then they get a
    # second point as a bonus for drawing second": after a reach without a Draw, the other
    # player's Draw is the round's first Draw card, so by default it earns no bonus; true is
    # the reading that the reach was the first signal to shoot and the Draw after it second.
    Option(
        "bonus_after_reach",
        False,
        "a player who hits with a Draw revealed after the other's reach without a Draw gets "
        "the drawing-second bonus (default no: 'revealed their Draw card second' needs a Draw "
        "revealed before it)",
    ),
)
OPTION_DEFAULTS: Final[dict[str, Any]] = {o.name: o.default for o in OPTIONS}


class LoadError(IllegalMove):
    """Bullets that cannot be loaded: the wrong number, a card not in the deck, twice."""

    rule = "load bullets"


class StareDownError(IllegalMove):
    """A touch or reveal the stare down forbids (out of turn, a changed mind)."""

    rule = "stare down"


class DrawError(IllegalMove):
    """A race, reach or defender's reveal the Draw phase forbids."""

    rule = "draw"


class ShootError(IllegalMove):
    """A roll, re-roll or keep the Shoot phase forbids."""

    rule = "shoot"


class RoundError(IllegalMove):
    """A discard the end of the round forbids."""

    rule = "end of round"
