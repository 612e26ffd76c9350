"""Steamfunkateers' one state object, folded from events: `GameState.apply(event)`. No I/O."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .events import (
    ConditionCalled,
    ConditionSuffered,
    ConflictEnded,
    ContestEnded,
    ContestStarted,
    DiceRerolled,
    DiceRolled,
    Event,
    ExchangeWon,
    Folded,
    GameEnded,
    GameStarted,
    GmBought,
    NarrationWon,
    OrderCalled,
    OrderSet,
    PoolKept,
    RoundCalled,
    RoundResolved,
    TieDieRolled,
    TurnEnded,
    VigorChanged,
)
from .model import GM, SUCCESS_FACE, OrderKind, RoundKind


def sixes(values: tuple[int, ...]) -> int:
    """Successes in a throw: "a number of successes (rolling a six)"."""
    return sum(1 for v in values if v == SUCCESS_FACE)


@dataclass(frozen=True, slots=True)
class Pool:
    """One thrower's dice in the round: what they showed first, and after any reroll."""

    who: str  # a player, or an NPC's name for a pool the GM throws
    dice: int
    label: str = ""
    values: tuple[int, ...] = ()
    first_sixes: int = 0
    rerolled: bool = False
    done: bool = False
    folded: bool = False
    vigor_spent: bool = False  # on an extra die: "spend a point of Vigor once for each roll"

    @property
    def thrown(self) -> bool:
        return bool(self.values)

    @property
    def sixes(self) -> int:
        return sixes(self.values)


@dataclass(frozen=True, slots=True)
class Round:
    """Pools the game master called, thrown one after the other in the listed order."""

    kind: RoundKind
    pools: tuple[Pool, ...]
    task: str = ""

    @property
    def current(self) -> Pool | None:
        return next((p for p in self.pools if not p.done and not p.folded), None)


@dataclass(frozen=True, slots=True)
class Contest:
    """A contest in play (or just won): victories per participant."""

    participants: tuple[str, ...]
    wins: Mapping[str, int]
    goal: str = ""
    winner: str | None = None
    over: bool = False


def _alike(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    shortest = min(len(a), len(b))
    return a[:shortest] == b[:shortest]


@dataclass(frozen=True, slots=True)
class Order:
    """A turn order being set or in use: compare keys (ranks, then tie dice), whose turn."""

    kind: OrderKind
    keys: Mapping[str, tuple[int, ...]]
    entrants: tuple[str, ...]  # as called, for stable tie-die order
    npcs: tuple[str, ...] = ()
    order: tuple[str, ...] = ()  # empty until every tie is broken
    turn: int = 0
    exchange: int = 1

    @property
    def tied(self) -> tuple[str, ...]:
        """A group still tied, in called order; () when none.

        Keys are ranks followed by tie dice; one key being the start of another means the
        shorter one's die for this pass is still to come, so the two are still tied."""
        for who in self.entrants:
            group = tuple(w for w in self.entrants if _alike(self.keys[w], self.keys[who]))
            if len(group) > 1:
                return group
        return ()

    @property
    def next_tie_thrower(self) -> str | None:
        group = self.tied
        if not group:
            return None
        shortest = min(len(self.keys[w]) for w in group)
        return next(w for w in group if len(self.keys[w]) == shortest)

    @property
    def current(self) -> str | None:
        return self.order[self.turn] if self.order else None


@dataclass(frozen=True, slots=True)
class PendingCondition:
    """A condition whose severity die is awaited."""

    target: str
    by: str
    thrower: str
    name: str = ""


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything about one game of Steamfunkateers; `apply` gives the state after an event."""

    started: bool = False
    over: bool = False
    players: tuple[str, ...] = ()
    vigor: Mapping[str, int] = field(default_factory=dict)  # players and "GM"
    options: Mapping[str, Any] = field(default_factory=dict)
    round: Round | None = None
    last_result: RoundResolved | None = None
    # The pools of the roll that resolved last, as thrown: the room still sees the dice once
    # nothing more can change them (a pool bought an extra die: no re-roll waits).
    last_round: Round | None = None
    contest: Contest | None = None
    order: Order | None = None
    condition: PendingCondition | None = None
    conditions: Mapping[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    folded: tuple[str, ...] = ()  # players folded out of the action in play
    # Players who folded out of the action that ended last: "Characters who fold receive no
    # Vigor from the GM after a given conflict." Cleared when the next action begins.
    unrewarded: tuple[str, ...] = ()
    narrator: str | None = None

    @property
    def action_in_play(self) -> bool:
        """True while a conflict (a turn order) or a contest is on: a fold lasts that long."""
        return self.order is not None or (self.contest is not None and not self.contest.over)

    def _ended(self, **changes: Any) -> GameState:
        """The state once the action in play ended: its folders go unrewarded."""
        return replace(self, folded=(), unrewarded=self.folded, **changes)

    def _begun(self, **changes: Any) -> GameState:
        """The state once a new action began: nobody is folded out of it yet."""
        return replace(self, folded=(), unrewarded=(), **changes)

    @property
    def in_play(self) -> bool:
        return self.started and not self.over

    def thrower_of(self, who: str) -> str:
        """Who spends and throws for a pool: a player for themselves, the GM for any NPC."""
        return who if who in self.players else GM

    def apply(self, event: Event) -> GameState:
        """The state after `event` (events are facts: they are not checked again here)."""
        match event:
            case GameStarted(players, vigor, options):
                return GameState(
                    started=True, players=players, vigor=dict(vigor), options=dict(options)
                )
            case VigorChanged(who, delta, _):
                changed = dict(self.vigor)
                changed[who] = changed.get(who, 0) + delta
                return replace(self, vigor=changed)
            case RoundCalled(kind, pools, labels, task, vigor_spent):
                made = tuple(
                    Pool(who, dice, label, vigor_spent=who in vigor_spent)
                    for (who, dice), label in zip(pools, labels, strict=True)
                )
                called = Round(RoundKind(kind), made, task)
                if self.action_in_play:
                    return replace(self, round=called, last_result=None, last_round=None)
                # a check on its own
                return self._begun(round=called, last_result=None, last_round=None)
            case DiceRolled(who, values):
                return self._pool(who, values=values, first_sixes=sixes(values))
            case DiceRerolled(who, values):
                return self._pool(who, values=values, rerolled=True, done=True)
            case PoolKept(who):
                return self._pool(who, done=True)
            case Folded(who):
                state = replace(self, folded=(*self.folded, who))
                if self.round is not None and any(p.who == who for p in self.round.pools):
                    state = state._pool(who, folded=True)
                return state
            case RoundResolved():
                if self.action_in_play:
                    return replace(self, round=None, last_result=event, last_round=self.round)
                # a check on its own
                return self._ended(round=None, last_result=event, last_round=self.round)
            case ContestStarted(participants, goal):
                contest = Contest(participants, dict.fromkeys(participants, 0), goal)
                return self._begun(contest=contest)
            case ExchangeWon(who):
                if self.contest is None or who is None:
                    return self
                wins = dict(self.contest.wins)
                wins[who] += 1
                return replace(self, contest=replace(self.contest, wins=wins))
            case ContestEnded(winner):
                if self.contest is None:
                    return self
                ended = replace(self.contest, winner=winner, over=True)
                if self.order is not None:  # a contest within a conflict: the conflict goes on
                    return replace(self, contest=ended, round=None)
                return self._ended(contest=ended, round=None)
            case OrderCalled(kind, ranks, npcs):
                order = Order(OrderKind(kind), dict(ranks), tuple(w for w, _ in ranks), npcs)
                return self._begun(order=order, narrator=None)
            case TieDieRolled(who, value):
                assert self.order is not None
                keys = dict(self.order.keys)
                keys[who] = (*keys[who], value)
                return replace(self, order=replace(self.order, keys=keys))
            case OrderSet(order):
                assert self.order is not None
                return replace(self, order=replace(self.order, order=order, turn=0))
            case TurnEnded():
                assert self.order is not None
                turn, exchange = self.order.turn, self.order.exchange
                # A fold removes the character "from the risks and the rewards of a given
                # action": a folded player's turns are skipped until the conflict ends.
                for _ in self.order.order:
                    turn += 1
                    if turn >= len(self.order.order):
                        turn, exchange = 0, exchange + 1
                    if self.order.order[turn] not in self.folded:
                        break
                return replace(self, order=replace(self.order, turn=turn, exchange=exchange))
            case ConflictEnded():
                return self._ended(order=None, round=None)
            case ConditionCalled(target, by, thrower, name):
                return replace(self, condition=PendingCondition(target, by, thrower, name))
            case ConditionSuffered(target, severity, name):
                conditions = dict(self.conditions)
                conditions[target] = (*conditions.get(target, ()), (name, severity))
                return replace(self, conditions=conditions, condition=None)
            case NarrationWon(player, _):
                return replace(self, narrator=player)
            case GmBought():
                return self
            case GameEnded():
                return replace(self, over=True, round=None, condition=None)
        raise TypeError(f"not a Steamfunkateers event: {event!r}")

    def _pool(self, who: str, **changes: Any) -> GameState:
        assert self.round is not None
        pools = tuple(replace(p, **changes) if p.who == who else p for p in self.round.pools)
        return replace(self, round=replace(self.round, pools=pools))
