"""Each player's choices when a game starts from names, with legal defaults (issue 48 item 1).

A game whose `new` needs more than names (Six Shooter's Descriptor, Archetype and Lucky
Number; Six-Gun Showdown's decks) says so with a `PlayerSetup` from its own package
(`GameRules.player_setup`): what a page offers per player, the defaults that start a legal
game, and how a player sent as a bare name or with some choices is completed into what the
game's `new` reads. The console draws the choices; it never names a game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import RulesError

# How many players' defaults a page is given (it offers a row per name typed).
MOST_PLAYERS = 9


class PlayerChoiceError(RulesError):
    """A player's choice that cannot be completed (a deck nobody knows)."""


@dataclass(frozen=True, slots=True)
class PlayerSetup:
    """A game's per-player choices: what a page offers and how a player is completed."""

    choices: tuple[dict[str, Any], ...]  # {"name", "label", "kind": choice|text, "choices"}
    note: str  # said on the page: whose choices these are, and that the defaults may change
    default: Callable[[str, int], dict[str, Any]]
    complete: Callable[[Any, int], Any]
    players: int | None = None  # exactly this many players, when the game says so

    def to_json(self) -> dict[str, Any]:
        defaults = [self.default("", index) for index in range(self.players or MOST_PLAYERS)]
        for each in defaults:
            each.pop("name", None)
            if isinstance(each.get("lucky"), list) and len(each["lucky"]) == 1:
                each["lucky"] = str(each["lucky"][0])  # as the page's list offers it
        return {
            "choices": [{**choice, "choices": list(choice["choices"])} for choice in self.choices],
            "note": self.note,
            "defaults": defaults,
            "count": self.players,
        }

    def roster(self, data: dict[str, Any]) -> dict[str, Any]:
        """The roster with each player completed (a bare name gets the defaults)."""
        players = data.get("players")
        if not isinstance(players, list):
            return data
        return {**data, "players": [self.complete(raw, i) for i, raw in enumerate(players)]}
