"""Six Shooter's own rule errors: each names the rulebook section it comes from (`rule`).

The errors every game shares (IllegalMove, OutOfTurn, UnknownPlayer, ...) are the game
interface's (`tabletop.rules.games.errors`); these are only Six Shooter's.
"""

from __future__ import annotations

from ..errors import IllegalMove


class PlayerOutOfPlay(IllegalMove):
    """A removed or retired Operator was asked to act."""

    rule = "strikes"


class ChallengeError(IllegalMove):
    """A challenge that cannot be attempted as declared."""

    rule = "overcoming challenges"


class CardNotUsable(IllegalMove):
    """A card that cannot be used for this roll (face-down, discarded, joker, wrong suit)."""

    rule = "using cards"


class WagerNotAllowed(IllegalMove):
    """An All Or Nothing wager the rules forbid."""

    rule = "all or nothing"


class LuckyNumberError(IllegalMove):
    """A Lucky Number choice, grant or loss that the rules forbid."""

    rule = "lucky numbers"


class ProgressionError(IllegalMove):
    """An end-of-adventure step (grant, return, retire) that the rules forbid."""

    rule = "character progression"


class ContestError(IllegalMove):
    """A player-versus-player contest step that the rules forbid."""

    rule = "player versus player"
