"""Reading the table for Steamfunkateers: no cards, only the dice tray.

A throw at rest is the roll the game waits for (a pool, a tie die, a severity die); while a
Vigor reroll is open, the tray after the non-sixes were thrown again is the reroll, checked
against what the camera saw stay from the last throw (`tabletop.rules.games.game.Reroll`): the same
dice, no six taken away, only the non-sixes thrown, the sixes left where they lay. A throw that is
not what the game waits for raises an alert in plain words instead of a command.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..game import Reroll
from ..reading import Action, Alert, AlertCleared, DiceTrayReader, Execute, SlotView
from .model import SUCCESS_FACE
from .state import GameState, sixes
from .view import waiting

DICE_ALERT = "dice"


@dataclass
class DiceReader(DiceTrayReader):
    """Turns throws into `roll` and `reroll` commands; alerts on a throw that cannot be one."""

    title = "Steamfunkateers"
    alerted: bool = False

    def observe_slot(
        self, state: Any, seat: int, slot: int, view: SlotView, now: float
    ) -> list[Action]:
        key = f"mat.s{seat}.{slot}"
        if view.card is None:
            return [AlertCleared(key)]  # an empty slot is what this game expects
        return [Alert(key, "Steamfunkateers uses no cards: take the card off the mat", seat, slot)]

    def observe_dice(
        self, state: GameState, values: Sequence[int], now: float, reroll: Reroll | None = None
    ) -> list[Action]:
        awaited = waiting(state)
        throw, detail = awaited.dice, awaited.detail or {}
        if throw is None:
            if not state.started or state.over:
                return []  # no game in play: dice thrown then are nobody's move to put right
            return self._alert("dice were thrown but no throw is awaited now")
        if len(values) != throw.count:
            return self._alert(_wrong_count(detail, throw.who or "", throw.count, len(values)))
        if detail.get("type") == "reroll":
            pool = state.round.current if state.round is not None else None
            before = pool.values if pool is not None else ()
            problem = vigor_problem(throw.who or "", before, tuple(values), reroll)
            if problem:
                return self._alert(problem)
            return self._clear([Execute({"cmd": "reroll", "values": list(values)})])
        return self._clear([Execute({"cmd": "roll", "values": list(values)})])

    def applied(self, state: Any, command: dict[str, Any], now: float) -> list[Action]:
        """A command went through: the game moved on, so a throw's alert and a refusal are old
        news (the next throw is judged afresh)."""
        return [AlertCleared("refused"), *self._clear([])]

    def _alert(self, message: str) -> list[Action]:
        self.alerted = True
        return [Alert(DICE_ALERT, message)]

    def _clear(self, actions: list[Action]) -> list[Action]:
        # Always: the table also raises this alert itself for a throw the camera found
        # unclear, and a good throw answers that too (clearing no alert changes nothing).
        self.alerted = False
        return [AlertCleared(DICE_ALERT), *actions]


def vigor_problem(
    who: str, before: Sequence[int], after: Sequence[int], reroll: Reroll | None
) -> str:
    """Why a tray is not the Vigor reroll of `before`, in plain words ("" when it is one).

    "reroll all dice not showing sixes": the same dice in the tray, every six where it lay,
    every other die thrown again. `reroll` is what the camera saw stay from the last throw;
    None when it saw every die thrown (then the camera's watcher, told the prompt's `rethrow`,
    has already said so) or when no camera compares throws (dice typed in): only the faces are
    checked then."""
    kept_sixes = sixes(tuple(before))
    others = len(before) - kept_sixes
    if sixes(tuple(after)) < kept_sixes:
        return (
            f"{who}: a six was taken away; leave the {_count(kept_sixes, 'six')} in the tray "
            "and throw only the other dice again"
        )
    if reroll is None:
        return ""
    if reroll.moved:
        return (
            f"{who}: the rethrown dice knocked a six that stayed (now {_faces(reroll.moved)}); "
            "the game master enters the reroll by hand as it should stand"
        )
    stayed = reroll.kept
    if any(v != SUCCESS_FACE for v in stayed):
        left = [v for v in stayed if v != SUCCESS_FACE]
        return (
            f"{who}: {_faces(left)} stayed in the tray, but a Vigor reroll throws every die "
            "not showing a six again: pick them up and throw them too"
        )
    if len(stayed) < kept_sixes or len(reroll.thrown) != others:
        return (
            f"{who}: {_count(len(reroll.thrown), 'die')} thrown again, but the reroll throws "
            f"the {_count(others, 'die')} not showing sixes and leaves the "
            f"{_count(kept_sixes, 'six')} where they lie"
        )
    return ""


def _count(n: int, word: str) -> str:
    plural = {"six": "sixes", "die": "dice"}[word]
    return f"{n} {word if n == 1 else plural}"


def _faces(values: Sequence[int]) -> str:
    return " ".join(str(v) for v in values)


def _wrong_count(detail: Mapping[str, Any], who: str, count: int, seen: int) -> str:
    if detail.get("type") == "reroll":
        return (
            f"{who}: the tray shows {seen} dice but the pool is {count}; for a reroll leave the "
            "sixes and throw the other dice again, all of them in the tray"
        )
    return f"{who}: throw {count} {'die' if count == 1 else 'dice'}, not {seen}"
