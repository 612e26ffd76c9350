"""The registry of games: which games this table can host, found by name.

The games that ship with the project are listed here by the module that holds them, and
imported only when asked for. A game from another package plugs in through the
`tabletop.games` entry point group (`name = "package.module:GAME"`); tests may `register()` one
for the life of the process. This is the only place outside a game's package that names it.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Final

from .errors import InvalidCommand, quote
from .game import GameInfo, GameRules

DEFAULT_GAME: Final = "sixshooter"
ENTRY_POINT_GROUP: Final = "tabletop.games"

# name -> "module:attribute" of its GameRules instance
BUILT_IN: Final[dict[str, str]] = {
    "sixshooter": "tabletop.rules.games.sixshooter.game:SIX_SHOOTER",
    "ossix": "tabletop.rules.games.ossix.game:OS_SIX",
    "steamfunkateers": "tabletop.rules.games.steamfunkateers.game:STEAMFUNKATEERS",
    "showdown": "tabletop.rules.games.showdown.game:SHOWDOWN",
}
_registered: dict[str, GameRules] = {}
_loaded: dict[str, GameRules] = {}


class UnknownGame(InvalidCommand):
    """A game name this installation has no module for."""

    def __init__(self, name: object, where: str = "game") -> None:
        known = ", ".join(names())
        super().__init__(
            f"{where}: no game named {quote(name)} is installed (installed: {known})", where
        )


def register(game: GameRules) -> None:
    """Makes `game` available by its name in this process (a game written for tests)."""
    _registered[game.name] = game


def unregister(name: str) -> None:
    """Forgets a game `register()` added."""
    _registered.pop(name, None)


def _sources() -> dict[str, str]:
    found = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return {**found, **BUILT_IN}


def built_in_packages() -> list[str]:
    """The packages of the games that ship with the project (`tabletop.rules.games.sixshooter`,
    ...)."""
    return sorted(source.partition(":")[0].rpartition(".")[0] for source in BUILT_IN.values())


def names() -> list[str]:
    """Every installed game's name, sorted."""
    return sorted({*_sources(), *_registered})


def get(name: object, where: str = "game") -> GameRules:
    """The game called `name`; UnknownGame (naming `where`) if none is installed."""
    if not isinstance(name, str):
        raise UnknownGame(name, where)
    if name in _registered:
        return _registered[name]
    if name in _loaded:
        return _loaded[name]
    source = _sources().get(name)
    if source is None:
        raise UnknownGame(name, where)
    module_name, _, attribute = source.partition(":")
    game = getattr(importlib.import_module(module_name), attribute)
    if not isinstance(game, GameRules):
        raise TypeError(f"{source} is not a GameRules instance")
    _loaded[name] = game
    return game


def available() -> list[GameInfo]:
    """What `tabletop games` lists: every installed game's name, title, version and options."""
    return [get(name).info for name in names()]
