"""A seat's own command: what a player's phone may send, checked against the game's state.

The console sends a phone's decision on the game master's broker login (the phone never
reaches the broker), marked with the seat it came from and the moment it answers:

    {"cmd": "bet", "player": "Bo", "action": "fold", "seat": 2, "answers": 41}

`seat` is set by the console from the phone's join, never from what the phone sends; the
daemon then checks, against the game as it stands when the command is decided, that:

- the table has that seat, and the command is for that seat's own player (`player`);
- the verb is one a player decides for themselves in this game (the game's `seat_verbs`),
  never the game master's (a new game, a roll entered by hand, an undo);
- the game waits for that player now (the referee's prompt names them in `who`);
- `answers` is the seat's current `version` (in its view, `seat/N/state`): the seq of the
  command after which what the game asks of that seat last changed, or after which the seat
  last acted. An old command sent again (a double tap, a replayed request) answers an older
  version and is refused.

A refusal is the phone's answer only (the reply on `game/reply`, which the console hands to
that phone): it is not logged as the game's refusal and raises no alert. A command that passes
is decided by the referee as any other, with `seat` and `answers` taken off and `source`
saying which seat sent it (kept in the log).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

SEAT_KEYS: Final = ("seat", "answers")


class SeatRefusal(Exception):
    """A seat's command refused before the rules saw it; the message is for the player."""

    def __init__(self, words: str, field: str) -> None:
        super().__init__(words)
        self.field = field


def is_seat_command(raw: Any) -> bool:
    """Whether a command says it comes from a seat's phone."""
    return isinstance(raw, dict) and "seat" in raw


def check_seat_command(
    raw: dict[str, Any],
    *,
    seat_verbs: frozenset[str],
    seats: Sequence[str] | None,
    awaited: Sequence[str],
    versions: Mapping[int, int],
) -> tuple[int, dict[str, Any]]:
    """(the seat number, the command to decide) or SeatRefusal: see the module's rules.

    `seats`: the table's seats' players in order (None: the daemon runs without seats);
    `awaited`: the players the game waits for now; `versions`: each seat's current version."""
    number = raw.get("seat")
    if seats is None:
        raise SeatRefusal(
            "This table takes no commands from the seats' phones (its rules daemon runs "
            "without seats): ask the game master.",
            "seat",
        )
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(seats):
        raise SeatRefusal(f"This table has no seat {number!r}.", "seat")
    name = seats[number - 1]
    verb = raw.get("cmd")
    if verb not in seat_verbs:
        raise SeatRefusal(
            "Only the game master can do that: your phone sends your own decisions.", "cmd"
        )
    player = raw.get("player")
    if player != name:
        raise SeatRefusal(
            f"Seat {number} plays {name}: your phone cannot act for {player!r}."
            if player
            else f"Seat {number} plays {name}: say who acts.",
            "player",
        )
    if name not in awaited:
        waiting = ", ".join(awaited)
        raise SeatRefusal(
            f"It is not your turn: the table waits for {waiting}."
            if waiting
            else "It is not your turn: the table waits for the game master.",
            "player",
        )
    answers = raw.get("answers")
    if isinstance(answers, bool) or answers != versions.get(number):
        raise SeatRefusal(
            "The table has moved on since your screen showed this: look again and choose.",
            "answers",
        )
    command = {key: value for key, value in raw.items() if key not in SEAT_KEYS}
    command["source"] = f"seat {number}"
    return number, command
