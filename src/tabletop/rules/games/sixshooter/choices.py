"""What each Operator's player chooses when a game starts, and legal choices by default.

"Each Operator starts with a Descriptor, an Archetype, and a Lucky Number." (seed 000). The
game master's page offers each as a choice per player, filled in with these defaults so that
a game starts from names alone; every default is a legal choice the player may change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .model import Descriptor
from .players import ARCHETYPES

DESCRIPTORS: tuple[str, ...] = tuple(descriptor.value for descriptor in Descriptor)
LUCKY_NUMBERS: tuple[int, ...] = tuple(range(2, 11))
# "Each player should pick a Lucky Number for their Operator from 2 to 10. No two Operators
# at the same table should start with the same Lucky Number." (seed 000): the defaults are
# nine different numbers, so up to nine players start with no two alike.
DEFAULT_LUCKY: tuple[int, ...] = (7, 3, 10, 5, 9, 4, 8, 2, 6)

PLAYER_CHOICES: tuple[dict[str, Any], ...] = (
    {"name": "descriptor", "label": "Descriptor", "kind": "choice", "choices": DESCRIPTORS},
    {"name": "archetype", "label": "Archetype", "kind": "text", "choices": ()},
    {
        "name": "lucky",
        "label": "Lucky Number",
        "kind": "choice",
        "choices": tuple(str(number) for number in LUCKY_NUMBERS),
    },
)
CHOICES_NOTE = (
    "Descriptor, Archetype and Lucky Number are each player's to choose: the ones shown are "
    "legal defaults (no two Lucky Numbers alike); change any before starting."
)


def default_player(name: str, index: int) -> dict[str, Any]:
    """The `index`-th player's Operator (0 first) with legal default choices."""
    return {
        "name": name,
        "descriptor": DESCRIPTORS[index % len(DESCRIPTORS)],
        "archetype": ARCHETYPES[index % len(ARCHETYPES)],
        "lucky": [DEFAULT_LUCKY[index % len(DEFAULT_LUCKY)]],
    }


def complete_player(raw: str | Mapping[str, Any], index: int) -> Any:
    """A roster's player as `new_game` reads it: a bare name gets the defaults; a player with
    some choices made gets the defaults for the rest, and a Lucky Number picked from a list
    ("7") as the list of numbers the game takes. Anything else is left for the game to judge."""
    if isinstance(raw, str):
        return default_player(raw, index)
    if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
        return raw
    player = {**default_player(raw["name"], index), **raw}
    lucky = player.get("lucky")
    if isinstance(lucky, str) and lucky.strip().isdigit():
        player["lucky"] = [int(lucky.strip())]
    return player
