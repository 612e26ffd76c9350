"""The games' own screens for the console's pages: each installed game's script and stylesheet.

A game names its screen's files in its package (`GameRules.screen`, a `Screen`); the console
reads them once when it starts and serves them together, every game's script in
/games/screens.js and every stylesheet in /games/screens.css, which each page loads after the
console's own table.js and stylesheets. The console itself draws what every game shares and
knows no game by name. A game whose files cannot be read is drawn as any game without a screen
(each player's box, the state as it comes), and the console says so in its log, naming the game
and the file: one game's broken package does not take the console down.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources

from tabletop.rules.games.game import GameRules

LOG = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Screens:
    """Every installed game's screen, joined: the scripts, the stylesheets, and the files that
    could not be read (each "game: package/file: why")."""

    script: str
    style: str
    missing: tuple[str, ...] = field(default=())


def _read(package: str, name: str) -> str:
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def read_screens(rules: Iterable[GameRules]) -> Screens:
    """The screens of `rules`, in the order given, each part headed by the game and file it
    came from (a reader of the page's source finds the file)."""
    scripts: list[str] = []
    styles: list[str] = []
    missing: list[str] = []
    for game in rules:
        screen = game.screen
        if screen is None:
            continue
        wanted = [(screen.script, scripts)]
        if screen.style is not None:
            wanted.append((screen.style, styles))
        for name, into in wanted:
            where = f"{screen.package.replace('.', '/')}/{name}"
            try:
                text = _read(screen.package, name)
            except (OSError, ModuleNotFoundError, UnicodeDecodeError) as failed:
                why = failed.strerror if isinstance(failed, OSError) and failed.strerror else failed
                missing.append(f"{game.name}: {where}: {why}")
                LOG.warning(
                    "the console draws %s without its screen: %s cannot be read (%s)",
                    game.name,
                    where,
                    why,
                )
                if into is scripts:
                    break  # a stylesheet without its script draws nothing
                continue
            into.append(f"/* {game.name}: {where} */\n{text.rstrip()}\n")
    return Screens("\n".join(scripts), "\n".join(styles), tuple(missing))
