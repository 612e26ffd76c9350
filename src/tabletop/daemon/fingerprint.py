"""The code a snapshot of a game's state was written by (tabletop.rules.games.snapshots).

A snapshot is read only by the code that wrote it: the game's name and version, the snapshot
format, the Python version, and a digest of the source of the game's package and of the game
interface (`src/tabletop/rules/games/*.py`). Any change in a byte of them (an upgrade) and the
daemon folds the whole log once, as a daemon without snapshots did, and writes a new snapshot.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from functools import cache
from pathlib import Path

from tabletop.rules.games.game import GameRules
from tabletop.rules.games.snapshots import FORMAT, package


def fingerprint(rules: GameRules) -> str:
    """The stamp of the code that writes and reads snapshots of `rules`' game."""
    return _fingerprint(rules.name, rules.info.version, package(rules))


@cache
def _fingerprint(name: str, version: str, game_package: str) -> str:
    digest = hashlib.sha256(f"{FORMAT} {name} {version} {sys.version_info[:2]}".encode())
    for source in (*_sources(game_package), *_sources("tabletop.rules.games", recursive=False)):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:32]


def _sources(name: str, recursive: bool = True) -> list[Path]:
    """The Python files of a package (the module's own file, for a game in one module)."""
    module = importlib.import_module(name)
    if module.__file__ is None:
        return []
    if getattr(module, "__path__", None) is None:
        return [Path(module.__file__)]
    where = Path(module.__file__).parent
    return sorted(where.glob("**/*.py" if recursive else "*.py"))
