"""Judging and saying the race to the defender's cards: pure functions on two touch times.

One judgement serves every way a race reaches the engine: the table's reader (`reading.py`)
judges the mat's timestamps with `judge_race`, and the engine checks a `race` command's own
timestamps with the same function, so a race entered by hand or read from a file is held to
"If it is unclear which player was fastest to the defender's cards, then the defender is
considered to have been fast enough" exactly as the mat's is. `race_words` says a race as it
was: the margin in milliseconds, and a tie as a tie.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final


class RaceWinner(Enum):
    """Who was first to the defender's cards."""

    ATTACKER = "attacker"
    DEFENDER = "defender"


def judge_race(
    attacker_touch_ms: int | None, defender_touch_ms: int | None, tie_window_ms: int
) -> RaceWinner:
    """Who won the race to the defender's cards, from the two touch times (same clock).

    "If it is unclear which player was fastest to the defender's cards, then the defender is
    considered to have been fast enough": the attacker wins only when their touch came more
    than `tie_window_ms` before the defender's. No attacker touch: the defender was first; no
    defender touch: the attacker was."""
    if tie_window_ms < 0:
        raise ValueError(f"tie_window_ms: expected 0 or more, got {tie_window_ms}")
    if attacker_touch_ms is None and defender_touch_ms is None:
        raise ValueError("judge_race: neither player touched a bullet")
    if attacker_touch_ms is None:
        return RaceWinner.DEFENDER
    if defender_touch_ms is None:
        return RaceWinner.ATTACKER
    if defender_touch_ms - attacker_touch_ms > tie_window_ms:
        return RaceWinner.ATTACKER
    return RaceWinner.DEFENDER


def too_close_to_call(
    attacker_touch_ms: int | None, defender_touch_ms: int | None, tie_window_ms: int | None
) -> bool:
    """Whether two touch times lie within the tie window of each other (either way round):
    a race nobody watching could call, which the defender wins."""
    if attacker_touch_ms is None or defender_touch_ms is None or tie_window_ms is None:
        return False
    return abs(defender_touch_ms - attacker_touch_ms) <= tie_window_ms


def race_words(
    winner: str,
    attacker_ms: int | None,
    defender_ms: int | None,
    tie_window_ms: int | None,
    defender: str | None = None,
) -> str:
    """The race as it was, in words: who was first and by how many milliseconds, or, inside
    the tie window, that it was too close to call and the defender was fast enough. Never
    names a player "first" when the times are too close to tell them apart.

    `winner` is the name the race went to; `defender` the defender's name when known (None:
    a race decided without the state at hand, said without naming the defender). Without
    it, a race judged by its times with a recorded window still tells whose it was
    (`judge_race`, which the engine holds every race's winner to): a defender's timed win is
    said as the defender's in the game master's log too, never in the attacker's words."""
    timed = attacker_ms is not None or defender_ms is not None
    if defender is None and tie_window_ms is not None and timed:
        side = judge_race(attacker_ms, defender_ms, tie_window_ms)
        defender = winner if side is RaceWinner.DEFENDER else None
    if attacker_ms is None or defender_ms is None:
        # No margin to give: the result alone (a defender who won is "fast enough", which is
        # also what an unclear race gives them, so no claim to have been first is made).
        if defender is None:
            return f"{winner} won the race to the defender's cards"
        if winner == defender:
            return f"{winner}, the defender, was fast enough"
        return f"{winner} was first to {defender}'s cards"
    apart = abs(defender_ms - attacker_ms)
    if too_close_to_call(attacker_ms, defender_ms, tie_window_ms):
        return f"{apart} ms apart, too close to call: {winner}, the defender, was fast enough"
    attacker_first = attacker_ms < defender_ms
    if defender is not None and winner == defender and not attacker_first:
        return f"{winner}, the defender, was first by {apart} ms: fast enough"
    if defender is not None and winner != defender and attacker_first:
        return f"{winner} was first to {defender}'s cards by {apart} ms"
    if defender is None and tie_window_ms is not None:
        # Judged by `judge_race` with this window: outside it, the winner touched first.
        return f"{winner} was first to the defender's cards by {apart} ms"
    # An event logged before races were checked against their times (no window, or a winner
    # the times do not bear out): the result and the margin, and no claim beyond them.
    return f"{winner} won the race ({apart} ms apart)"


# -- whose hand: touches with the side they came from ----------------------------------------


class TouchSide(Enum):
    """Which half of a split pad under the defender's bullet a finger reached first
    (docs/mat.md, "Whose hand: split pads"): the half nearer the defender (their own hand),
    the half nearer the attacker across the table, or unknown (a whole pad, or both halves at
    once)."""

    NEAR = "near"
    FAR = "far"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class RaceTouch:
    """One touch on one of the defender's face-down bullets during the race."""

    slot: int
    at_ms: int
    side: TouchSide = TouchSide.UNKNOWN


# A half of a split pad touched this long or more after the other half of the same pad was a
# second hand, not the first finger spreading over the pad (a fingertip covers both halves
# within a few ms of landing; a second person's reaction cannot follow the first so closely
# on purpose). docs/mat.md, "Whose hand: split pads".
SECOND_HAND_MS: Final = 15


def credit_race(
    touches: Sequence[RaceTouch], turned_slot: int | None
) -> tuple[int | None, int | None]:
    """(attacker_ms, defender_ms) from the touches on the defender's bullets and the bullet the
    defender turned (None: none yet).

    A touch whose side is known is credited by it: the far half is the attacker's hand, the
    near half the defender's. A touch of unknown side is credited as a pad that cannot tell
    whose hand it was must be: the first touch on the bullet the defender turned is the
    defender's, the first on any other bullet the attacker's. On one pad, the other half
    touched within `SECOND_HAND_MS` of the first is the same finger spreading and credits
    nothing more."""
    attacker: list[int] = []
    defender: list[int] = []
    first_on: dict[int, RaceTouch] = {}
    for touch in sorted(touches, key=lambda t: t.at_ms):
        first = first_on.setdefault(touch.slot, touch)
        if first is not touch:
            same_finger = touch.at_ms - first.at_ms < SECOND_HAND_MS
            if same_finger or touch.side is TouchSide.UNKNOWN or touch.side is first.side:
                continue
        if touch.side is TouchSide.FAR:
            attacker.append(touch.at_ms)
        elif touch.side is TouchSide.NEAR or touch.slot == turned_slot:
            defender.append(touch.at_ms)
        else:
            attacker.append(touch.at_ms)
    return (min(attacker) if attacker else None, min(defender) if defender else None)
