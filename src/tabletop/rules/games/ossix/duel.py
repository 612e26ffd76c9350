"""The quick-draw duel of "Additional Rules" as a scripted scene on action rolls.

A duel is a sequence of the player's action rolls, each tagged with its step; what a step's
final result (after any Luck Point) carries into the next pool is decided here, purely."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from .outcomes import Outcome


class DuelStep(Enum):
    """The player's rolls in a duel, in the order the scene allows them."""

    STANDOFF = "standoff"  # Will, optional
    DRAW = "draw"  # Agility: the first attack
    SECOND_SHOT = "second_shot"  # two pistols, after a complete success on the draw
    DEFENSE = "defense"  # against the opponent's shot (the Combat chapter's roll)
    ATTACK = "attack"  # a later round, guns already drawn


@dataclass(frozen=True, slots=True)
class Duel:
    """A duel in progress: who against whom, what the last step carries into the next pools."""

    player: str
    opponent: str
    two_pistols: bool
    allowed: tuple[DuelStep, ...] = (DuelStep.STANDOFF, DuelStep.DRAW)
    attack_mod: int = 0  # +1 Bonus / -1 Penalty on the first attack (the standoff)
    defense_mod: int = 0  # +1 Bonus / -1 Penalty on the next Defense roll (the draw)
    called: DuelStep | None = None  # the step rolled and not yet resolved
    # The called step's own result so far (its roll, then any Luck Point spent on that roll):
    # another roll made meanwhile is not the step's ("The player rolls Agility: On a failure,
    # they draw too slow and miss"), so it must not stand in for it.
    result: Outcome | None = None
    round: int = 1


def pool_change(duel: Duel, step: DuelStep) -> tuple[int, int]:
    """The (Bonus, Penalty) the duel adds to this step's pool."""
    if step is DuelStep.DRAW:
        return max(duel.attack_mod, 0), max(-duel.attack_mod, 0)
    if step is DuelStep.SECOND_SHOT:
        return 0, 1  # "the second attack is made with a penalty"
    if step is DuelStep.DEFENSE:
        return max(duel.defense_mod, 0), max(-duel.defense_mod, 0)
    return 0, 0


def called(duel: Duel, step: DuelStep) -> Duel:
    """The duel once `step` is called: the modifiers it used are spent."""
    if step is DuelStep.DRAW:
        return replace(duel, called=step, result=None, attack_mod=0)
    if step is DuelStep.DEFENSE:
        return replace(duel, called=step, result=None, defense_mod=0)
    return replace(duel, called=step, result=None)


def step_rolled(duel: Duel, step: str, outcome: Outcome) -> Duel:
    """The duel once the roll made for `step` (a step's value, "" for a roll outside the
    duel) has `outcome`: only the called step's own roll is its result."""
    if duel.called is None or duel.called.value != step:
        return duel
    return replace(duel, result=outcome)


def resolved(duel: Duel, outcome: Outcome) -> Duel:
    """The duel after the called step's final outcome."""
    step = duel.called
    done = replace(duel, called=None, result=None)
    if step is DuelStep.STANDOFF:
        mod = {Outcome.COMPLETE: 1, Outcome.FAILURE: -1}.get(outcome, 0)
        return replace(done, attack_mod=mod, allowed=(DuelStep.DRAW,))
    if step is DuelStep.DRAW:
        if outcome is Outcome.COMPLETE:
            nxt = (
                (DuelStep.SECOND_SHOT, DuelStep.DEFENSE)
                if duel.two_pistols
                else (DuelStep.DEFENSE,)
            )
            return replace(done, defense_mod=1, allowed=nxt)
        mod = -1 if outcome is Outcome.FAILURE else 0
        return replace(done, defense_mod=mod, allowed=(DuelStep.DEFENSE,))
    if step is DuelStep.DEFENSE:
        return replace(done, allowed=(DuelStep.ATTACK,), round=duel.round + 1)
    return replace(done, allowed=(DuelStep.DEFENSE,))  # a second shot or an attack
