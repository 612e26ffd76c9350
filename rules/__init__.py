"""Game rules for the table: pure engines with no I/O, no clock and no global random state.

`rules.sixshooter` is the first game; `rules.cards` holds what any card game shares.
"""

from .errors import IllegalMove, InvalidCommand, RulesError

__all__ = ["IllegalMove", "InvalidCommand", "RulesError"]
