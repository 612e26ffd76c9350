"""Each player's choices when a game starts from names on the game master's page (issue 48).

The game says what its players choose (`GameRules.player_setup`, src/tabletop/rules/games/setup.py),
from its own package; the console only knows where its decks lie. Nothing here opens a path a page
names.
"""

from __future__ import annotations

from pathlib import Path

from tabletop import rules
from tabletop.rules.games.game import GameRules
from tabletop.rules.games.setup import PlayerSetup

# The decks shipped with the project, which the console knows unless given another folder.
EXAMPLE_DECKS = Path(rules.__file__).resolve().parents[3] / "examples" / "decks"


def player_setup(game: GameRules, decks_folder: Path) -> PlayerSetup | None:
    """The per-player choices of a game started from names here, or None (its `new` takes
    names already, as OS-SIX's and Steamfunkateers' do)."""
    return game.player_setup(decks_folder)
