"""The games: the game interface, the registry and one package per game, all pure.

No I/O, no clock and no global random state: a game is its state, its commands and its
events (docs/architecture.md, "Writing a game"). `tabletop.rules.games` is also the registry
(`tabletop.rules.games.registry`): `games.get(name)`, `games.names()`, ... find a game by its name,
and the registry is the only module outside a game's package that names it.
"""

from .errors import IllegalMove, InvalidCommand, RulesError
from .registry import (
    BUILT_IN,
    DEFAULT_GAME,
    ENTRY_POINT_GROUP,
    UnknownGame,
    available,
    built_in_packages,
    get,
    names,
    register,
    unregister,
)

__all__ = [
    "BUILT_IN",
    "DEFAULT_GAME",
    "ENTRY_POINT_GROUP",
    "IllegalMove",
    "InvalidCommand",
    "RulesError",
    "UnknownGame",
    "available",
    "built_in_packages",
    "get",
    "names",
    "register",
    "unregister",
]
