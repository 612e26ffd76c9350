"""OS-SIX's table reader: no cards, only the dice tray; a throw at rest is the awaited roll."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rules.game import Reroll
from rules.reading import Action, Alert, AlertCleared, Execute, SlotView

from .state import State


@dataclass
class DiceReader:
    """Turns a throw into the `roll` the game waits for; a wrong number of dice is an alert."""

    seats: Sequence[str]
    grace: float = 1.0
    instructions: list[str] = field(default_factory=list)
    seen: dict[tuple[int, int], SlotView] = field(default_factory=dict)
    refusals: set[str] = field(default_factory=set)

    def request(self, state: Any, command: dict[str, Any], now: float) -> list[Action]:
        return [Execute(command)]

    def observe_slot(
        self, state: Any, seat: int, slot: int, view: SlotView, now: float
    ) -> list[Action]:
        return []  # OS-SIX lays no cards: the mat, if there is one, is not read

    def observe_pad(self, state: Any, card: Any, now: float) -> list[Action]:
        return [Alert("pad", "OS-SIX uses no cards: take the card off the pad")]

    def observe_dice(
        self, state: State, values: Sequence[int], now: float, reroll: Reroll | None = None
    ) -> list[Action]:
        """Dice came to rest in the tray with these values."""
        pending = state.pending
        if pending is None or pending.dice == 0:
            return [Alert("dice", "dice were thrown but no roll is awaited now")]
        who = pending.player or "game master"
        if len(values) != pending.dice:
            return [Alert("dice", f"{who}: {len(values)} dice in the tray, throw {pending.dice}")]
        return [
            AlertCleared("dice"),
            Execute({"cmd": "roll", "values": list(values), "source": "dice"}),
        ]

    def refused(self, command: dict[str, Any], error: str) -> list[Action]:
        key = f"refused:{command.get('cmd')}"
        self.refusals.add(key)
        return [Alert(key, error)]

    def applied(self, state: Any, command: dict[str, Any], now: float) -> list[Action]:
        """A command went through: the refusals it answers are cleared."""
        key = f"refused:{command.get('cmd')}"
        if key not in self.refusals:
            return []
        self.refusals.discard(key)
        return [AlertCleared(key)]

    def tick(self, state: Any, now: float) -> list[Action]:
        return []
