"""Six-Gun Showdown's choice per gunslinger when a game starts from names: their deck."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import RulesError
from ..setup import PlayerChoiceError, PlayerSetup
from .decks import Deck, deck_to_json, load_deck

log = logging.getLogger(__name__)


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
