"""The simulated table's side of a game: the hands its simulated people act through (lay,
lift, flip, touch, throw) and what they are, for `tabletop sim --game NAME`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable


@runtime_checkable
class TouchHands(Protocol):
    """Simulated hands that can touch a slot's pad without moving its card (a touch mat)."""

    def touch(self, seat: int, slot: int, hand: int | None = None) -> None:
        """A finger on (seat, slot); `hand` is the seat whose hand it is (None: the slot's
        owner), so a split pad feels it come from that side."""
        ...


class TableHands(Protocol):
    """What simulated hands can do at the table (`tabletop sim`); seats from 0, slots from 1."""

    def lay(self, seat: int, slot: int, card: str, face_up: bool) -> None: ...

    def lift(self, seat: int, slot: int) -> None: ...

    def flip(self, seat: int, slot: int) -> None: ...

    def lay_on_pad(self, card: str) -> None: ...

    def throw(self, values: Sequence[int]) -> None:
        """Throws dice into the tray that come to rest showing `values`."""
        ...


@runtime_checkable
class RerollHands(TableHands, Protocol):
    """Hands that can leave some dice of the last throw lying and throw only the others (the
    simulated tray renders exactly that; hands without it throw the whole tray again)."""

    def reroll(self, keep: Sequence[int], thrown: Sequence[int]) -> None:
        """Leaves the last throw's dice showing `keep` where they lie, picks up the others and
        throws them: they come to rest showing `thrown`."""
        ...


class SimulatedPeople(Protocol):
    """A game's simulated players and game master, for `tabletop sim` and tests.

    They see what people at the table see: the public state and prompt, and the alerts; they
    act with their hands (`TableHands`) and send the game master's commands."""

    mistakes_made: int
    mistakes_caught: int  # the mistakes the table's alerts made them undo

    def start_game(self, seed: int) -> None:
        """Clears the table and announces a new game (its `new_game` goes out by `send`)."""
        ...

    def replied(self, ok: bool) -> None:
        """The daemon's answer to the last command they sent."""
        ...

    def step(
        self, state: dict[str, Any] | None, prompt: dict[str, Any] | None, alerts: dict[str, str]
    ) -> bool:
        """Does the next thing a person would do now; False when there is nothing to do."""
        ...


# The key of the alert the table raises when a wait outlasts its patience
# (tabletop.daemon.waits); the people of a game may act on it, as a person hears the game
# master say "we wait for you".
WAIT_ALERT: Final = "wait"


@dataclass(frozen=True, slots=True)
class PeopleSettings:
    """How simulated people behave: how often they make a mistake the table must catch, how
    long a game runs (a game's own unit: challenges per adventure, hands of poker, ...), and
    how time passes for them (`pause(seconds)`, scaled by `tabletop sim --speed`; `react
    (seconds)`, a reaction the table times, such as a race to touch a card, which passes in
    human time whatever the speed, since the mat's clock is not sped up)."""

    mistake_rate: float = 0.02
    length: int = 12
    pause: Callable[[float], None] = lambda seconds: None
    react: Callable[[float], None] = lambda seconds: None
