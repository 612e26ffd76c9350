"""OS-SIX's table reader: no cards, only the dice tray; a throw at rest is the awaited roll."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tabletop.rules.games.game import Reroll
from tabletop.rules.games.reading import Action, Alert, AlertCleared, DiceTrayReader, Execute

from .poker import Phase, Poker, check_draw, matches
from .state import State

MISMATCH = "poker.mismatch."  # an alert key: the reveal's tray against the hand entered


def _dice(values: Sequence[int]) -> str:
    return " ".join(str(v) for v in values)


def draw_problem(
    table: Poker, who: str, values: Sequence[int], reroll: Reroll | None
) -> str | None:
    """Why a draw seen in the tray is not one the seed allows, in plain words (None if it is).

    "select up to three dice from their hand and re-roll them (being careful ... not
    accidentally alter the other dice)": with the camera comparing (`reroll`), no kept die may
    have moved and the dice that stayed must be the ones the player kept; without it, at least
    the kept dice must be among the player's hand."""
    seat = table.seat(who)
    assert seat is not None
    if reroll is not None:
        if reroll.moved:
            return (
                f"{who}: a kept die was moved ({_dice(reroll.moved)}); the kept dice must not "
                "move: the game master enters the hand if it cannot be set right"
            )
        stayed = tuple(sorted(reroll.kept))
        if seat.kept is not None and stayed != seat.kept:
            return (
                f"{who} kept {_dice(seat.kept)} but the camera saw "
                f"{_dice(stayed) or 'no die'} stay: leave the kept dice as they lie and "
                "throw only the others"
            )
        if len(reroll.thrown) > 3:
            return f"{who}: {len(reroll.thrown)} dice were thrown; the draw is up to three"
        if seat.kept is None and Counter(stayed) - Counter(seat.dice):
            return (
                f"{who}: the dice that stayed ({_dice(stayed)}) are not all from the hand "
                f"{_dice(seat.dice)}: set the hand back and throw up to three dice again"
            )
    return check_draw(table, who, values)


@dataclass
class DiceReader(DiceTrayReader):
    """Turns a throw into the `roll` the game waits for; a wrong number of dice is an alert.
    OS-SIX lays no cards: the mat, if there is one, is not read."""

    title = "OS-SIX"
    refusals: set[str] = field(default_factory=set)
    mismatches: set[str] = field(default_factory=set)  # the reveal's, until the next hand

    def observe_dice(
        self, state: State, values: Sequence[int], now: float, reroll: Reroll | None = None
    ) -> list[Action]:
        """Dice came to rest in the tray with these values."""
        pending = state.pending
        table = state.poker
        if pending is None and table is not None:
            return self._poker_dice(table, values, reroll)
        if pending is None or pending.dice == 0:
            return [Alert("dice", "dice were thrown but no roll is awaited now")]
        who = pending.player or "game master"
        if len(values) != pending.dice:
            return [Alert("dice", f"{who}: {len(values)} dice in the tray, throw {pending.dice}")]
        return [
            AlertCleared("dice"),
            Execute({"cmd": "roll", "values": list(values), "source": "dice"}),
        ]

    def _poker_dice(
        self, table: Poker, values: Sequence[int], reroll: Reroll | None
    ) -> list[Action]:
        awaited = table.awaited_dice()
        if awaited is None and table.awaited_hands():
            return [
                Alert(
                    "dice",
                    "the poker hands are concealed: throw behind your hand and enter the dice "
                    "on your phone, not in the tray",
                )
            ]
        if awaited is None:
            return [Alert("dice", "dice were thrown but no poker dice are awaited now")]
        who, count, _ = awaited
        if len(values) != count:
            return [Alert("dice", f"{who}: {len(values)} dice in the tray, throw {count}")]
        if table.phase is Phase.REVEAL:
            return self._revealed(table, who, values)
        if table.phase is Phase.DRAW:
            problem = draw_problem(table, who, values, reroll)
            if problem is not None:
                return [Alert("dice", problem)]
        return [
            AlertCleared("dice"),
            Execute({"cmd": "roll", "values": list(values), "source": "dice"}),
        ]

    def _revealed(self, table: Poker, who: str, values: Sequence[int]) -> list[Action]:
        """A concealed hand laid in the tray at the reveal: the camera's read checked against
        what was entered. A mismatch is the game master's alert only (the hand entered was
        bet on and is paid by; the game master judges the rest), and the reveal goes on."""
        seat = table.seat(who)
        assert seat is not None
        out: list[Action] = [AlertCleared("dice")]
        if not matches(seat, values):
            key = f"{MISMATCH}{who}"
            self.mismatches.add(key)
            message = (
                f"{who} entered {_dice(seat.dice)} but the tray shows {_dice(values)}: "
                "look at the dice; the pots are paid by the hand entered"
            )
            out.append(Alert(key, message, private=True))
        out.append(Execute({"cmd": "roll", "values": list(values), "source": "dice"}))
        return out

    def refused(self, command: dict[str, Any], error: str) -> list[Action]:
        key = f"refused:{command.get('cmd')}"
        self.refusals.add(key)
        return [Alert(key, error)]

    def applied(self, state: Any, command: dict[str, Any], now: float) -> list[Action]:
        """A command went through: the refusals it answers are cleared, and the reveal's
        mismatches once the next hand is anted or the poker ends."""
        cleared: list[Action] = []
        if command.get("cmd") in ("ante", "poker_end"):
            cleared += [AlertCleared(key) for key in sorted(self.mismatches)]
            self.mismatches.clear()
        key = f"refused:{command.get('cmd')}"
        if key in self.refusals:
            self.refusals.discard(key)
            cleared.append(AlertCleared(key))
        return cleared
