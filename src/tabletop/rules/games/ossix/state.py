"""OS-SIX's state: one immutable object folded from the events, with no I/O."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from . import poker
from .duel import Duel, DuelStep, called, resolved, step_rolled
from .events import Event, EventKind
from .outcomes import Critical, Outcome
from .poker import Poker

MAX_LUCK = 3  # "Each player can only bank up to three luck points."
MAX_STRAIN = 12  # "If a character ever hits 12 strain, they immediately become incapacitated"
# "Brawn Items": normal-sized items carried before a Penalty, by Brawn 0-5.
CARRYING_CAPACITY: Mapping[int, int] = {0: 7, 1: 10, 2: 15, 3: 20, 4: 25, 5: 30}


def apply_poker(p: Poker | None, event: Event) -> Poker | None:
    """The game of poker after one of its events (the engine has checked them)."""
    kind, who = event.kind, event.player or ""
    if kind is EventKind.POKER_STARTED:
        house = dict(event.options)
        return poker.start(
            tuple(zip(event.players, event.values, strict=True)),
            ante=event.number or 1,
            variant=event.text,
            dealer=event.players.index(event.target or event.players[0]),
            minimum_raise=bool(house.get("minimum_raise", True)),
            ties=str(house.get("ties", "values")),
            odd_dollar=str(house.get("odd_dollar", "left_of_dealer")),
            open=bool(house.get("open", True)),  # logged before concealed hands: open
        )
    if p is None:
        return None
    if kind is EventKind.HAND_STARTED:
        return poker.begin_hand(p)
    if kind is EventKind.POKER_THROWN:
        return poker.dealt(p, event.values)
    if kind is EventKind.POKER_BET:
        return poker.act(p, who, event.text, event.number or 0)
    if kind is EventKind.POKER_KEPT:
        return poker.keep(p, who, event.values)
    if kind is EventKind.POKER_DRAWN:
        return poker.drawn(p, who, event.values)
    if kind is EventKind.POKER_ENTERED:
        return poker.entered(p, who, event.values)
    if kind is EventKind.POKER_REVEALED:
        return p
    if kind is EventKind.POKER_SHOWN:
        return poker.shown(p, event.values)
    if kind is EventKind.POT_WON:
        return poker.paid(p, who, event.number or 0)
    if kind is EventKind.HAND_ENDED:
        return poker.end_hand(p, event.number or 0)
    if kind is EventKind.POKER_LEFT:
        return poker.leave(p, who)
    return None  # POKER_ENDED


POKER_KINDS = frozenset(
    k.value
    for k in (
        EventKind.POKER_STARTED,
        EventKind.HAND_STARTED,
        EventKind.POKER_THROWN,
        EventKind.POKER_BET,
        EventKind.POKER_KEPT,
        EventKind.POKER_DRAWN,
        EventKind.POKER_ENTERED,
        EventKind.POKER_REVEALED,
        EventKind.POKER_SHOWN,
        EventKind.POT_WON,
        EventKind.HAND_ENDED,
        EventKind.POKER_LEFT,
        EventKind.POKER_ENDED,
    )
)


class PendingKind(Enum):
    """What the game waits for."""

    ACTION = "action"  # the dice of an action roll
    PUSH = "push"  # the strain dice of pushing your luck
    REDUCE = "reduce"  # the D6 a Luck Point takes off an attack's damage
    GM_ROLL = "gm_roll"  # a D2, D3, D6, 2D6, 3D6, a Morale check or the NPC behaviour table
    PANIC = "panic"  # the GM enters the Panic Roll's outcome (its table is not in the seeds)
    SPEND = "spend"  # a pushed Luck Point that must be used immediately


@dataclass(frozen=True, slots=True)
class Pending:
    """The one thing the game waits for. `pool` is signed: 0 or less rolls at disadvantage."""

    kind: PendingKind
    player: str | None = None
    pool: int = 0
    attribute: str = ""
    high_pressure: bool = False
    helped: bool = False
    gm_roll: str = ""
    morale: int | None = None
    dice_count: int = 1  # PUSH, REDUCE, GM_ROLL
    duel_step: str = ""  # the duel step this action roll is, if any

    @property
    def disadvantage(self) -> bool:
        return self.kind is PendingKind.ACTION and self.pool <= 0

    @property
    def dice(self) -> int:
        """How many dice the table must throw."""
        if self.kind is PendingKind.ACTION:
            return self.pool if self.pool > 0 else 2
        if self.kind in (PendingKind.PANIC, PendingKind.SPEND):
            return 0
        return self.dice_count


@dataclass(frozen=True, slots=True)
class LastRoll:
    """A character's latest action roll, kept for the Luck Points spent after it."""

    values: tuple[int, ...]
    outcome: Outcome
    critical: Critical
    pool: int
    attribute: str
    high_pressure: bool
    upgraded: bool = False
    max_damage: bool = False
    duel_step: str = ""


@dataclass(frozen=True, slots=True)
class Character:
    """One player character's bookkeeping."""

    name: str
    luck: int = 2
    strain: int = 0
    pushes: int = 0  # since the last long rest
    bonus_next: bool = False  # from a critical success
    brawn: int | None = None
    load_quarters: int = 0  # items carried, in quarters of a normal item
    last: LastRoll | None = None
    rested: bool = False  # a long rest since `last` was thrown

    @property
    def incapacitated(self) -> bool:
        return self.strain >= MAX_STRAIN

    @property
    def overloaded(self) -> bool:
        if self.brawn is None:
            return False
        return self.load_quarters > 4 * CARRYING_CAPACITY[self.brawn]


@dataclass(frozen=True, slots=True)
class State:
    """The whole table: the characters, what is awaited, the last GM roll, the options."""

    characters: tuple[Character, ...] = ()
    pending: Pending | None = None
    last_gm_roll: tuple[str, int, str] | None = None  # kind, result, meaning
    options: Mapping[str, Any] = field(default_factory=dict)
    duel: Duel | None = None
    poker: Poker | None = None
    started: bool = False
    over: bool = True

    @property
    def in_play(self) -> bool:
        return self.started and not self.over

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.characters)

    def character(self, name: str) -> Character | None:
        for character in self.characters:
            if character.name == name:
                return character
        return None

    def _with(self, name: str | None, **changes: Any) -> State:
        chars = tuple(replace(c, **changes) if c.name == name else c for c in self.characters)
        return replace(self, characters=chars)

    def apply(self, event: Event) -> State:
        """The state after `event` (events are already checked by the engine)."""
        kind, who = event.kind, event.player
        me = self.character(who) if who is not None else None
        if kind is EventKind.STARTED:
            options = dict(event.options)
            luck = int(options.get("starting_luck", 2))
            chars = tuple(Character(name, luck=luck) for name in event.players)
            return State(chars, options=options, started=True, over=False)
        if kind is EventKind.ENDED:
            return replace(self, pending=None, over=True, poker=None)
        if kind.value in POKER_KINDS:
            return replace(self, poker=apply_poker(self.poker, event))
        if kind is EventKind.ROLL_CALLED:
            step = event.target or ""
            pending = Pending(
                PendingKind.ACTION, who, event.number or 0, event.text, event.flag, duel_step=step
            )
            duel = self.duel
            if duel is not None and step:
                duel = called(duel, DuelStep(step))
            return replace(self._with(who, bonus_next=False), pending=pending, duel=duel)
        if kind is EventKind.DUEL_STARTED and who is not None:
            duel = Duel(who, event.target or "the opponent", event.flag)
            return replace(self, duel=duel)
        if kind is EventKind.DUEL_RESOLVED and self.duel is not None:
            return replace(self, duel=resolved(self.duel, Outcome(event.text)))
        if kind is EventKind.DUEL_ENDED:
            return replace(self, duel=None)
        if kind is EventKind.HELPED and self.pending is not None:
            pending = replace(self.pending, pool=self.pending.pool + 1, helped=True)
            return replace(self, pending=pending)
        if kind is EventKind.LUCK_SPENT and me is not None:
            return self._spend(me, event.text)
        if kind is EventKind.LUCK_GAINED and me is not None:
            state = self._with(who, luck=min(MAX_LUCK, me.luck + 1))
            if event.text == "push":
                return replace(state, pending=Pending(PendingKind.SPEND, who))
            return state
        if kind is EventKind.ROLLED and me is not None:
            outcome, critical = Outcome(event.text), Critical(event.target or "")
            pending = self.pending or Pending(PendingKind.ACTION, who)
            last = LastRoll(
                event.values,
                outcome,
                critical,
                pending.pool,
                pending.attribute,
                pending.high_pressure,
                duel_step=pending.duel_step,
            )
            state = self._with(
                who, last=last, bonus_next=critical is Critical.SUCCESS, rested=False
            )
            after = Pending(PendingKind.PANIC, who) if critical is Critical.FAILURE else None
            duel = self.duel
            if duel is not None and duel.player == who:
                duel = step_rolled(duel, pending.duel_step, outcome)
            return replace(state, pending=after, duel=duel)
        if kind is EventKind.STRAIN_CHANGED and me is not None:
            strain = max(0, min(MAX_STRAIN, me.strain + (event.number or 0)))
            state = self._with(who, strain=strain)
            if event.text == "push":
                return replace(state, pending=None)
            return state
        if kind is EventKind.INCAPACITATED:
            return self
        if kind is EventKind.PANIC_ENTERED:
            return replace(self, pending=None)
        if kind is EventKind.PUSHED and me is not None:
            pending = Pending(PendingKind.PUSH, who, dice_count=event.number or 1)
            return replace(self._with(who, pushes=me.pushes + 1), pending=pending)
        if kind is EventKind.DAMAGE_REDUCED:
            return replace(self, pending=None)
        if kind is EventKind.GM_ROLL_CALLED:
            count = {"2d6": 2, "3d6": 3, "morale": 2}.get(event.text, 1)
            pending = Pending(
                PendingKind.GM_ROLL,
                None,
                gm_roll=event.text,
                morale=event.number,
                dice_count=count,
            )
            return replace(self, pending=pending)
        if kind is EventKind.GM_ROLLED:
            result = (event.text, event.number or 0, event.target or "")
            return replace(self, pending=None, last_gm_roll=result)
        if kind is EventKind.LOAD_SET:
            quarters = event.values[0] if event.values else 0
            return self._with(who, brawn=event.number, load_quarters=quarters)
        if kind is EventKind.LONG_REST:
            rested = set(event.players)
            chars = tuple(
                replace(c, pushes=0, rested=True) if c.name in rested else c
                for c in self.characters
            )
            return replace(self, characters=chars)
        return self

    def _spend(self, me: Character, use: str) -> State:
        state = self._with(me.name, luck=me.luck - 1)
        if self.pending is not None and self.pending.kind is PendingKind.SPEND:
            state = replace(state, pending=None)
        if use == "bonus" and state.pending is not None:
            return replace(state, pending=replace(state.pending, pool=state.pending.pool + 1))
        last = me.last
        if use == "upgrade" and last is not None:
            upgraded = replace(last, outcome=Outcome.COMPLETE, upgraded=True)
            state = state._with(me.name, last=upgraded)
            if state.duel is not None and state.duel.player == me.name:
                duel = step_rolled(state.duel, last.duel_step, Outcome.COMPLETE)
                state = replace(state, duel=duel)
            return state
        if use == "max_damage" and last is not None:
            return state._with(me.name, last=replace(last, max_damage=True))
        if use == "reroll" and last is not None:
            pending = Pending(
                PendingKind.ACTION,
                me.name,
                last.pool,
                last.attribute,
                last.high_pressure,
                duel_step=last.duel_step,
            )
            return replace(state, pending=pending)
        if use == "reduce_damage":
            return replace(state, pending=Pending(PendingKind.REDUCE, me.name))
        return state
