"""The refused commands a game's state reports: this game's only, the latest few, each short.

The state a table publishes after every command lists what was refused, so the game master
sees mistakes. Kept in full, across games, that list let anyone on the broker grow the state
without limit (300 refused 60 KB payloads made an 18 MB state). So the list starts again with
each new game, keeps the latest `KEPT` entries, and cuts each error to `ERROR_CHARS`; `count`
says how many there were in all.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Final

KEPT: Final = 20
ERROR_CHARS: Final = 300


def short_error(error: str, limit: int = ERROR_CHARS) -> str:
    """An error message cut to `limit` characters (with an ellipsis when cut)."""
    return error if len(error) <= limit else error[: limit - 1] + "…"


class Refusals:
    """The refusals of the current game: the latest KEPT of them, and how many in all."""

    def __init__(self) -> None:
        self.latest: deque[dict[str, Any]] = deque(maxlen=KEPT)
        self.count = 0

    def add(self, line: int, error: str) -> None:
        """Records that command number `line` was refused with `error`."""
        self.latest.append({"line": line, "error": short_error(error)})
        self.count += 1

    def new_game(self) -> None:
        """Forgets the last game's refusals: a new game started."""
        self.latest.clear()
        self.count = 0

    def to_json(self) -> list[dict[str, Any]]:
        """The `rejected` list of the state: oldest first."""
        return list(self.latest)
