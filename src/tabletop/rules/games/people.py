"""What every game's simulated people share (the interface's `SimulatedPeople`, `tabletop sim`).

A game's people subclass `People`: it keeps the seats, the hands, the dice's random source,
the game master's `send` and the settings, and counts the mistakes made and caught. What
they do at the table is each game's own.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .game import PeopleSettings, TableHands


@dataclass
class People:
    """The people at one simulated table: `seats` (a tuple) play, `send` carries the game
    master's commands, `hands` act on the table; `step` is each game's own."""

    seats: Sequence[str]
    hands: TableHands
    rng: random.Random
    send: Callable[[dict[str, Any]], None]
    settings: PeopleSettings
    mistakes_made: int = field(default=0, kw_only=True)
    mistakes_caught: int = field(default=0, kw_only=True)  # undone because the table said so

    def __post_init__(self) -> None:
        self.seats = tuple(self.seats)

    def replied(self, ok: bool) -> None:
        """The daemon's answer to the last command: by default nothing to do (a refused call
        leaves the table as it was, and the next step looks at it again)."""
