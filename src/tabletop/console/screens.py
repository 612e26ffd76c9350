"""The games' own screens for the console's pages: each installed game's script and stylesheet.

A game names its screen's files in its package (`GameRules.screen`, a `Screen`); the console
reads them once when it starts and serves each game's as /games/NAME/screen.js and
/games/NAME/screen.css, which every page links, one tag a game, after the console's own
table.js and stylesheets (`Screens.linked`). The console itself draws what every game shares
and knows no game by name. A game whose files cannot be read is drawn as any game without a
screen (each player's box, the state as it comes), and the console says so in its log, naming
the game and the file; a script apiece means one game's broken script (a syntax error) loses
that game's drawing alone: one game's broken package does not take the console down.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from urllib.parse import quote

from tabletop.rules.games.game import GameRules

LOG = logging.getLogger(__name__)


# Where a page's head takes the games' stylesheets and scripts (console/static/*.html).
STYLES_HERE = "<!--the games' stylesheets-->"
SCRIPTS_HERE = "<!--the games' scripts-->"


@dataclass(frozen=True, slots=True)
class Screens:
    """Every installed game's screen: its script and stylesheet by game name, and the files
    that could not be read (each "game: package/file: why")."""

    scripts: dict[str, str] = field(default_factory=dict)
    styles: dict[str, str] = field(default_factory=dict)
    missing: tuple[str, ...] = field(default=())

    def linked(self, page: str) -> str:
        """`page` (a page's HTML) with a tag for each game's stylesheet and script."""
        links = "".join(
            f'<link rel="stylesheet" href="/games/{quote(name)}/screen.css">\n'
            for name in self.styles
        )
        scripts = "".join(
            f'<script src="/games/{quote(name)}/screen.js" defer></script>\n'
            for name in self.scripts
        )
        return page.replace(STYLES_HERE + "\n", links).replace(SCRIPTS_HERE + "\n", scripts)


def _read(package: str, name: str) -> str:
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def read_screens(rules: Iterable[GameRules]) -> Screens:
    """The screens of `rules`, in the order given, each headed by the game and file it came
    from (a reader of the page's source finds the file)."""
    scripts: dict[str, str] = {}
    styles: dict[str, str] = {}
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
            into[game.name] = f"/* {game.name}: {where} */\n{text.rstrip()}\n"
    return Screens(scripts, styles, tuple(missing))
