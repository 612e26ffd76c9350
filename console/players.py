"""Each player's choices when a game starts from names, with legal defaults (issue 48 item 1).

A game whose own `new` reads files (Six Shooter's roster, Six-Gun Showdown's decks) is
started on the game master's page from the players' names: each player gets the choices the
game needs (a Descriptor, an Archetype and a Lucky Number; a deck from the decks this console
knows), filled in with defaults that start a legal game, and the console completes what the
page sends into the `new_game` the game reads. Nothing here opens a path a page names.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rules
from rules.games.errors import RulesError
from rules.games.showdown.decks import Deck, deck_to_json, load_deck
from rules.games.sixshooter import choices as sixshooter

from . import ConsoleError

log = logging.getLogger(__name__)

# The decks shipped with the project, which the console knows unless given another folder.
EXAMPLE_DECKS = Path(rules.__file__).resolve().parents[1] / "examples" / "decks"
# How many players' defaults the page is given (it offers a row per name typed).
MOST_PLAYERS = 9


class PlayerChoiceError(ConsoleError):
    """A player's choice the console cannot complete (a deck it does not know)."""


@dataclass(frozen=True, slots=True)
class PlayerSetup:
    """A game's per-player choices: what the page offers and how a player is completed."""

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


def known_decks(folder: Path) -> dict[str, Deck]:
    """The decks in a folder (`*.toml`), by name; a deck that cannot be read is logged and
    left out, so one bad file does not take the others off the page."""
    decks: dict[str, Deck] = {}
    for path in sorted(folder.glob("*.toml")) if folder.is_dir() else ():
        try:
            deck = load_deck(path)
        except RulesError as error:
            log.warning("deck %s left out of the game master's page: %s", path, error)
            continue
        decks.setdefault(deck.name, deck)
    return decks


def showdown_setup(decks: Mapping[str, Deck]) -> PlayerSetup | None:
    """Six-Gun Showdown's choice per gunslinger: their character's deck."""
    if not decks:
        return None
    names = list(decks)

    def default(name: str, index: int) -> dict[str, Any]:
        return {"name": name, "deck": names[index % len(names)]}

    def complete(raw: Any, index: int) -> Any:
        if isinstance(raw, str):
            raw = default(raw, index)
        if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
            return raw
        player = {**default(raw["name"], index), **raw}
        deck = player["deck"]
        if isinstance(deck, str):
            if deck not in decks:
                raise PlayerChoiceError(
                    f"roster: players[{index}].deck: no deck {deck!r}; this console knows "
                    f"{', '.join(names)}"
                )
            player["deck"] = deck_to_json(decks[deck])
        return player

    choice = {
        "name": "deck",
        "label": "Deck",
        "kind": "choice",
        "choices": tuple(names),
        "titles": [decks[name].title for name in names],
    }
    note = (
        "Each gunslinger plays their character's deck: pick it here (the decks this console "
        "knows); the ones shown start a game, change either before starting."
    )
    return PlayerSetup((choice,), note, default, complete, players=2)


SIXSHOOTER = PlayerSetup(
    sixshooter.PLAYER_CHOICES,
    sixshooter.CHOICES_NOTE,
    sixshooter.default_player,
    sixshooter.complete_player,
)


def player_setup(game: str, decks: Mapping[str, Deck]) -> PlayerSetup | None:
    """The per-player choices of a game started from names here, or None (its `new` takes
    names already, as OS-SIX's and Steamfunkateers' do)."""
    if game == "sixshooter":
        return SIXSHOOTER
    if game == "showdown":
        return showdown_setup(decks)
    return None
