"""Six-Gun Showdown's one state object, folded from events: `GameState.apply(event)`. No I/O.

The numbers a shot needs (each player's Speed and Accuracy from the revealed bullets, which
Flinch cards count) are computed here from the round's reveals, so the engine, the views and
the tests agree on them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from .decks import CardType, Condition, Deck, DeckCard
from .events import (
    Discarded,
    Drew,
    Event,
    GameEnded,
    GameStarted,
    GameWon,
    Loaded,
    Passed,
    RaceDecided,
    Reached,
    ReplyOpened,
    RerollDeclined,
    Rerolled,
    Revealed,
    Rolled,
    RoundEnded,
    RoundStarted,
    ShotResolved,
    ShotsCalled,
    Touched,
)


class Phase(Enum):
    """Where a round stands ("A round is split into four phases", and between rounds)."""

    NONE = "none"
    LOAD = "load"  # 1) LOAD BULLETS
    STARE_DOWN = "stare_down"  # 2) STARE DOWN
    RACE = "race"  # 3) DRAW: who is first to the defender's cards
    DEFENDER_CHOOSES = "defender_chooses"  # the defender was fast enough: reveal that bullet
    SHOOT = "shoot"  # 4) SHOOT
    REPLY = "reply"  # the attacker missed: the defender may reveal and shoot back
    DISCARD = "discard"  # a Single Shot player discards before the next round
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Bullet:
    """One card laid in a slot this round."""

    slot: int
    card: str
    face_up: bool = False


@dataclass(frozen=True, slots=True)
class Hand:
    """One player's bullets this round."""

    bullets: tuple[Bullet, ...] = ()
    loaded: bool = False
    touched: int | None = None  # the slot chosen by touching, not yet revealed

    def bullet(self, slot: int) -> Bullet | None:
        return next((b for b in self.bullets if b.slot == slot), None)

    @property
    def face_down(self) -> tuple[Bullet, ...]:
        return tuple(b for b in self.bullets if not b.face_up)


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything about one game; `apply` gives the state after an event."""

    started: bool = False
    over: bool = False
    phase: Phase = Phase.NONE
    players: tuple[str, ...] = ()
    decks: Mapping[str, Deck] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    round: int = 0
    points: Mapping[str, int] = field(default_factory=dict)
    available: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # cards to load from
    to_load: Mapping[str, int] = field(default_factory=dict)
    hands: Mapping[str, Hand] = field(default_factory=dict)
    reveals: tuple[tuple[str, str], ...] = ()  # (player, card id) in the order revealed
    turn: str | None = None  # None in the stare down: "Whoever goes first, goes first"
    attacker: str | None = None
    signalled: tuple[str, ...] = ()  # who drew or reached, in order
    drew: tuple[str, ...] = ()  # who revealed a Draw card
    defender_reveals: int = 0  # reveals by the defender since the attack began
    race_winner: str | None = None
    shots: tuple[tuple[str, ...], ...] = ()  # groups still to resolve; the first is current
    rolls: Mapping[str, int] = field(default_factory=dict)  # the current group's dice
    settled: tuple[str, ...] = ()  # the current group's shooters whose die is final
    rerolls_used: tuple[tuple[str, str], ...] = ()
    declined: tuple[tuple[str, str], ...] = ()  # re-rolls let pass for the die in hand
    shot: tuple[str, ...] = ()  # who has taken a shot this round
    hits: tuple[str, ...] = ()  # who hit this round
    passed: bool = False
    discards_due: tuple[str, ...] = ()
    last_round: RoundEnded | None = None
    winner: str | None = None

    @property
    def in_play(self) -> bool:
        return self.started and not self.over

    @property
    def defender(self) -> str | None:
        return None if self.attacker is None else self.opponent(self.attacker)

    def opponent(self, player: str) -> str:
        return self.players[1] if player == self.players[0] else self.players[0]

    def card(self, player: str, card_id: str) -> DeckCard:
        found = self.decks[player].card(card_id)
        assert found is not None, f"{card_id} is not in {player}'s deck"
        return found

    @property
    def current_shooter(self) -> str | None:
        """The shooter whose die the game waits for (or whose die awaits a re-roll choice)."""
        if self.phase is not Phase.SHOOT or not self.shots:
            return None
        return next((p for p in self.shots[0] if p not in self.settled), None)

    # -- the numbers of the shoot phase -----------------------------------------------------

    def counts(self, index: int) -> bool:
        """Whether the reveal at `index` adds its modifiers: a Flinch (or any card with its
        condition) only "if Opponent's next card/bullet is ... a Draw card"."""
        owner, card_id = self.reveals[index]
        card = self.card(owner, card_id)
        if card.condition is Condition.ALWAYS:
            return True
        opponent = self.opponent(owner)
        following = next((c for p, c in self.reveals[index + 1 :] if p == opponent), None)
        return following is not None and self.card(opponent, following).is_draw

    def _total(self, player: str, own: str, theirs: str) -> int:
        total = 0
        for index, (owner, card_id) in enumerate(self.reveals):
            if not self.counts(index):
                continue
            card = self.card(owner, card_id)
            total += getattr(card, own) if owner == player else getattr(card, theirs)
        return total

    def speed(self, player: str) -> int:
        """The Speed modifiers on revealed bullets that affect `player` (no attacker bonus)."""
        return self._total(player, "speed", "opponent_speed")

    def accuracy(self, player: str) -> int:
        """The Accuracy modifiers on revealed bullets that affect `player`."""
        return self._total(player, "accuracy", "opponent_accuracy")

    def reroll_cards(self, player: str) -> tuple[tuple[str, DeckCard], ...]:
        """`player`'s revealed Re-roll cards not yet used this round."""
        return tuple(
            (owner, self.card(owner, card_id))
            for owner, card_id in self.reveals
            if owner == player
            and self.card(owner, card_id).type is CardType.REROLL
            and (owner, card_id) not in self.rerolls_used
        )

    # -- the fold ---------------------------------------------------------------------------

    def apply(self, event: Event) -> GameState:
        """The state after `event` (events are facts: they are not checked again here)."""
        match event:
            case GameStarted(players, decks, options):
                return GameState(
                    started=True,
                    players=players,
                    decks=dict(zip(players, decks, strict=True)),
                    options=dict(options),
                    points=dict.fromkeys(players, 0),
                    available={
                        p: tuple(c.id for c in d.cards) for p, d in zip(players, decks, strict=True)
                    },
                )
            case RoundStarted(number, bullets):
                return replace(
                    self,
                    phase=Phase.LOAD,
                    round=number,
                    to_load=dict(bullets),
                    hands={p: Hand() for p in self.players},
                    reveals=(),
                    turn=None,
                    attacker=None,
                    signalled=(),
                    drew=(),
                    defender_reveals=0,
                    race_winner=None,
                    shots=(),
                    rolls={},
                    settled=(),
                    rerolls_used=(),
                    declined=(),
                    shot=(),
                    hits=(),
                    passed=False,
                    discards_due=(),
                )
            case Loaded(player, bullets):
                hand = Hand(tuple(Bullet(slot, card) for slot, card in bullets), loaded=True)
                state = self._hand(player, hand)
                if all(h.loaded for h in state.hands.values()):
                    state = replace(state, phase=Phase.STARE_DOWN, turn=None)
                return state
            case Touched(player, slot, _):
                state = self._hand(player, replace(self.hands[player], touched=slot))
                if state.phase is Phase.STARE_DOWN and state.turn is None:
                    state = replace(state, turn=player)
                return state
            case Revealed(player, slot, card):
                hand = self.hands[player]
                turned = tuple(
                    replace(b, face_up=True) if b.slot == slot else b for b in hand.bullets
                )
                hands = {**self.hands, player: replace(hand, bullets=turned, touched=None)}
                changes: dict[str, Any] = {
                    "hands": hands,
                    "reveals": (*self.reveals, (player, card)),
                }
                if self.phase is Phase.STARE_DOWN:
                    changes["turn"] = _next_turn(self, hands, player)
                elif player == self.defender:
                    changes["defender_reveals"] = self.defender_reveals + 1
                return replace(self, **changes)
            case Drew(player):
                state = replace(self, drew=(*self.drew, player))
                return state._signal(player)
            case Reached(player):
                return self._signal(player)
            case RaceDecided(winner, _, _, _):
                phase = Phase.DEFENDER_CHOOSES if winner == self.defender else self.phase
                return replace(self, race_winner=winner, phase=phase)
            case ShotsCalled(groups, _):
                return replace(
                    self, phase=Phase.SHOOT, shots=groups, rolls={}, settled=(), declined=()
                )
            case Rolled(player, value):
                return replace(self, rolls={**self.rolls, player: value}, declined=())
            case Rerolled(by, card, shooter, value):
                return replace(
                    self,
                    rolls={**self.rolls, shooter: value},
                    rerolls_used=(*self.rerolls_used, (by, card)),
                    declined=(),
                )
            case RerollDeclined(by, card):
                return replace(self, declined=(*self.declined, (by, card)))
            case ShotResolved(shooter, _, _, hit):
                state = replace(
                    self,
                    settled=(*self.settled, shooter),
                    shot=(*self.shot, shooter),
                    hits=(*self.hits, shooter) if hit else self.hits,
                    declined=(),
                )
                if self.shots and all(p in state.settled for p in self.shots[0]):
                    state = replace(state, shots=self.shots[1:], rolls={}, settled=())
                return state
            case ReplyOpened(_):
                return replace(self, phase=Phase.REPLY)
            case Passed(_):
                return replace(self, passed=True)
            case RoundEnded(_, scored, _, spent, discards):
                points = dict(self.points)
                for player, gained in scored:
                    points[player] += gained
                available = dict(self.available)
                for player, cards in spent:
                    available[player] = tuple(c for c in available[player] if c not in cards)
                return replace(
                    self,
                    points=points,
                    available=available,
                    phase=Phase.DISCARD if discards else self.phase,
                    discards_due=discards,
                    last_round=event,
                )
            case Discarded(player, cards):
                available = dict(self.available)
                available[player] = tuple(c for c in available[player] if c not in cards)
                due = tuple(p for p in self.discards_due if p != player)
                return replace(self, available=available, discards_due=due)
            case GameWon(winner, _):
                return replace(self, over=True, phase=Phase.FINISHED, winner=winner)
            case GameEnded():
                return replace(self, over=True, phase=Phase.FINISHED)
        raise TypeError(f"not a Six-Gun Showdown event: {event!r}")

    def _hand(self, player: str, hand: Hand) -> GameState:
        return replace(self, hands={**self.hands, player: hand})

    def _signal(self, player: str) -> GameState:
        state = replace(self, signalled=(*self.signalled, player))
        if self.attacker is None:
            return replace(state, attacker=player, phase=Phase.RACE, turn=None)
        return state


def _next_turn(state: GameState, hands: Mapping[str, Hand], player: str) -> str | None:
    """Whose turn follows `player`'s reveal: strictly the other's, unless they have no
    face-down bullet left (then `player` goes on); None when nobody has one."""
    other = state.opponent(player)
    if hands[other].face_down:
        return other
    if hands[player].face_down:
        return player
    return None
