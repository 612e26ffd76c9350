"""Judging and saying the race to the defender's cards: pure functions on two touch times.

One judgement serves every way a race reaches the engine: the table's reader (`reading.py`)
judges the mat's timestamps with `judge_race`, and the engine checks a `race` command's own
timestamps with the same function, so a race entered by hand or read from a file is held to
"If it is unclear which player was fastest to the defender's cards, then the defender is
considered to have been fast enough" exactly as the mat's is. `race_words` says a race as it
was: the margin in milliseconds, and a tie as a tie.
"""

from __future__ import annotations

from enum import Enum


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
    a race decided without the state at hand, said without naming the defender)."""
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
