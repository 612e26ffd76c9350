"""Reading the table for Steamfunkateers: no cards, only the dice tray.

A throw at rest is the roll the game waits for (a pool, a tie die, a severity die); while a
Vigor reroll is open, the tray after the non-sixes were thrown again is the reroll. A throw
with the wrong number of dice raises an alert in plain words instead of a command.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..game import Reroll
from ..reading import Action, Alert, AlertCleared, Execute, SlotView
from .state import GameState, sixes
from .view import waiting

DICE_ALERT = "dice"


@dataclass
class DiceReader:
    """Turns throws into `roll` and `reroll` commands; alerts on a throw that cannot be one."""

    seats: Sequence[str]
    grace: float = 1.0
    instructions: list[str] = field(default_factory=list)
    seen: dict[tuple[int, int], SlotView] = field(default_factory=dict)
    alerted: bool = False

    def request(self, state: Any, command: dict[str, Any], now: float) -> list[Action]:
        return [Execute(command)]

    def observe_slot(
        self, state: Any, seat: int, slot: int, view: SlotView, now: float
    ) -> list[Action]:
        key = f"mat.s{seat}.{slot}"
        if view.card is None:
            return [AlertCleared(key)]  # an empty slot is what this game expects
        return [Alert(key, "Steamfunkateers uses no cards: take the card off the mat", seat, slot)]

    def observe_pad(self, state: Any, card: Any, now: float) -> list[Action]:
        return [Alert("pad", "Steamfunkateers uses no cards: take the card off the pad")]

    def observe_dice(
        self, state: GameState, values: Sequence[int], now: float, reroll: Reroll | None = None
    ) -> list[Action]:
        awaited = waiting(state)
        throw, detail = awaited.dice, awaited.detail or {}
        if throw is None:
            return []
        if len(values) != throw.count:
            return self._alert(_wrong_count(detail, throw.who or "", throw.count, len(values)))
        if detail.get("type") == "reroll":
            pool = state.round.current if state.round is not None else None
            kept = sixes(pool.values) if pool is not None else 0
            if sixes(tuple(values)) < kept:
                return self._alert(
                    f"{throw.who}: a six was taken away; leave the {kept} sixes in the tray and "
                    "throw only the other dice again"
                )
            return self._clear([Execute({"cmd": "reroll", "values": list(values)})])
        return self._clear([Execute({"cmd": "roll", "values": list(values)})])

    def refused(self, command: dict[str, Any], error: str) -> list[Action]:
        return [Alert("refused", error)]

    def applied(self, state: Any, command: dict[str, Any], now: float) -> list[Action]:
        return []

    def tick(self, state: Any, now: float) -> list[Action]:
        return []

    def _alert(self, message: str) -> list[Action]:
        self.alerted = True
        return [Alert(DICE_ALERT, message)]

    def _clear(self, actions: list[Action]) -> list[Action]:
        if self.alerted:
            self.alerted = False
            return [AlertCleared(DICE_ALERT), *actions]
        return actions


def _wrong_count(detail: Mapping[str, Any], who: str, count: int, seen: int) -> str:
    if detail.get("type") == "reroll":
        return (
            f"{who}: the tray shows {seen} dice but the pool is {count}; for a reroll leave the "
            "sixes and throw the other dice again, all of them in the tray"
        )
    return f"{who}: throw {count} {'die' if count == 1 else 'dice'}, not {seen}"
