"""The state of a Six Shooter game, built only by folding events (`GameState.apply`).

The engine validates a command against this state before it records any event, so the state
changes only through `apply`; nothing here checks rules or does I/O. Readers outside the
package should treat it as read-only and use view.py for a JSON snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..cards import Card
from . import events as ev
from .model import HAND_SIZE, Descriptor, Method, Options, Phase, SlotState, Status


@dataclass(slots=True)
class Slot:
    """One of the six places of a hand; `card` is None once discarded."""

    card: Card | None = None
    state: SlotState = SlotState.DISCARDED


@dataclass(slots=True)
class Operator:
    """A player's Operator and their hand."""

    name: str
    descriptor: Descriptor
    archetype: str
    lucky: list[int]
    strikes: int = 0
    status: Status = Status.ACTIVE
    slots: list[Slot] = field(default_factory=lambda: [Slot() for _ in range(HAND_SIZE)])
    revealed: bool = False
    returning: bool = False
    granted: bool = False

    def slot(self, number: int) -> Slot:
        """The slot numbered 1 (leftmost) to 6."""
        return self.slots[number - 1]


@dataclass(frozen=True, slots=True)
class PendingRoll:
    """The game waits for this player's die."""

    player: str
    purpose: ev.RollPurpose


@dataclass(frozen=True, slots=True)
class PendingLucky:
    """The game waits for this player to take or refuse a Lucky Number replacement."""

    player: str
    slot: int
    card: Card


Pending = PendingRoll | PendingLucky


@dataclass(slots=True)
class ChallengeInProgress:
    """The challenge whose roll is awaited."""

    player: str
    method: Method
    base: int
    critical: int
    wager: int
    stage: str | None
    boosted: bool


@dataclass(slots=True)
class ContestInProgress:
    """A player-versus-player contest; boosts and rolls are for the current exchange."""

    players: tuple[str, str]
    methods: dict[str, Method]
    boosts: dict[str, tuple[int, int]] = field(default_factory=dict)
    rolls: dict[str, int] = field(default_factory=dict)
    exchanges: int = 0


@dataclass(slots=True)
class Stage:
    """A multi-stage challenge's progress."""

    needed: int
    successes: int = 0


@dataclass(slots=True)
class GameState:
    """Everything about one game; `phase` None means no game has started."""

    phase: Phase | None = None
    options: Options = field(default_factory=Options)
    seed: int | str = 0
    jokers: bool = False
    adventure: int = 0
    operators: dict[str, Operator] = field(default_factory=dict)
    deck: list[Card] = field(default_factory=list)  # the top card is deck[-1]
    discard: list[Card] = field(default_factory=list)  # bottom first
    turn_order: tuple[str, ...] = ()
    pending: list[Pending] = field(default_factory=list)  # what the game waits for, first first
    challenge: ChallengeInProgress | None = None
    contest: ContestInProgress | None = None
    stages: dict[str, Stage] = field(default_factory=dict)
    reshuffles: int = 0
    events_applied: int = 0

    def apply(self, event: ev.Event) -> None:
        """Folds one event into the state."""
        _APPLIERS[type(event)](self, event)
        self.events_applied += 1

    @classmethod
    def from_events(cls, events: Iterable[ev.Event]) -> GameState:
        """Rebuilds a state by folding a log of events from the start."""
        state = cls()
        for event in events:
            state.apply(event)
        return state

    # -- the small moves the appliers share ------------------------------------------------

    def draw(self, card: Card) -> None:
        """Takes `card` from the deck: the top card, or the one a player physically drew."""
        if self.deck and self.deck[-1] == card:
            self.deck.pop()
        else:
            self.deck.remove(card)  # ValueError if the log disagrees with the deck

    def discard_from(self, player: str, slot: int) -> None:
        """Moves a card from a slot to the discard pile."""
        place = self.operators[player].slot(slot)
        if place.card is not None:
            self.discard.append(place.card)
        place.card = None
        place.state = SlotState.DISCARDED

    def pop_pending(self, wanted: type[Pending], player: str) -> None:
        """Removes the first pending item; it must be what the event answers."""
        head = self.pending[0] if self.pending else None
        if not isinstance(head, wanted) or head.player != player:
            raise ValueError(f"event answers {wanted.__name__} for {player}, but head is {head}")
        self.pending.pop(0)


def _game_started(state: GameState, e: ev.GameStarted) -> None:
    applied = state.events_applied
    GameState.__init__(state)  # a new game after a finished one starts from nothing
    state.events_applied = applied
    state.phase = Phase.SETUP
    state.options = e.options
    state.seed = e.seed
    state.jokers = e.jokers
    state.adventure = 1
    state.operators = {
        spec.name: Operator(spec.name, spec.descriptor, spec.archetype, list(spec.lucky))
        for spec in e.players
    }
    state.deck = list(reversed(e.deck))


def _cards_dealt(state: GameState, e: ev.CardsDealt) -> None:
    dealt: set[Card] = set()
    for name, cards in e.hands:
        operator = state.operators[name]
        for number, card in enumerate(cards, start=1):
            operator.slot(number).card = card
            operator.slot(number).state = SlotState.FACE_DOWN
            dealt.add(card)
    state.deck = [card for card in state.deck if card not in dealt]


def _card_revealed(state: GameState, e: ev.CardRevealed) -> None:
    operator = state.operators[e.player]
    operator.slot(e.slot).state = SlotState.FACE_UP
    operator.revealed = True


def _play_began(state: GameState, e: ev.PlayBegan) -> None:
    state.phase = Phase.PLAY


def _deck_reshuffled(state: GameState, e: ev.DeckReshuffled) -> None:
    state.deck = list(reversed(e.deck))
    # A Lucky Number's replacement leaves the card it replaces on the pile (engine._ensure_deck).
    shuffled_in = set(e.deck)
    state.discard = [card for card in state.discard if card not in shuffled_in]
    state.reshuffles += 1


def _turn_order_drawn(state: GameState, e: ev.TurnOrderDrawn) -> None:
    state.draw(e.card)
    state.discard.append(e.card)


def _turn_order_set(state: GameState, e: ev.TurnOrderSet) -> None:
    state.turn_order = e.order


def _stage_opened(state: GameState, e: ev.StageOpened) -> None:
    state.stages[e.stage] = Stage(e.needed)


def _card_used(state: GameState, e: ev.CardUsed) -> None:
    state.discard_from(e.owner, e.slot)


def _challenge_declared(state: GameState, e: ev.ChallengeDeclared) -> None:
    state.challenge = ChallengeInProgress(
        e.player, e.method, e.base, e.critical, e.wager, e.stage, boosted=e.boosted
    )


def _challenge_boosted(state: GameState, e: ev.ChallengeBoosted) -> None:
    if state.challenge is not None:
        state.challenge.critical = e.critical
        state.challenge.wager += e.wager
        state.challenge.boosted = True


def _roll_called(state: GameState, e: ev.RollCalled) -> None:
    state.pending.append(PendingRoll(e.player, e.purpose))


def _die_rolled(state: GameState, e: ev.DieRolled) -> None:
    state.pop_pending(PendingRoll, e.player)
    if e.purpose is ev.RollPurpose.CONTEST and state.contest is not None:
        state.contest.rolls[e.player] = e.value


def _challenge_resolved(state: GameState, e: ev.ChallengeResolved) -> None:
    state.challenge = None
    # A boost that brought the Critical Number to 0 or lower resolves it before any roll.
    state.pending = [
        item
        for item in state.pending
        if not (isinstance(item, PendingRoll) and item.purpose is ev.RollPurpose.CHALLENGE)
    ]


def _stage_progressed(state: GameState, e: ev.StageProgressed) -> None:
    state.stages[e.stage].successes = e.successes


def _stage_overcome(state: GameState, e: ev.StageOvercome) -> None:
    del state.stages[e.stage]


def _card_flipped(state: GameState, e: ev.CardFlipped) -> None:
    state.operators[e.player].slot(e.slot).state = SlotState.FACE_UP


def _card_discarded(state: GameState, e: ev.CardDiscarded) -> None:
    state.discard_from(e.player, e.slot)


def _nothing(state: GameState, e: Any) -> None:
    """Events that only tell (a joker kept, an adventure's retirements are applied elsewhere)."""


def _strike_gained(state: GameState, e: ev.StrikeGained) -> None:
    state.operators[e.player].strikes = e.total


def _operator_removed(state: GameState, e: ev.OperatorRemoved) -> None:
    operator = state.operators[e.player]
    operator.status = Status.REMOVED
    leaving = set(e.discarded)
    for number, slot in enumerate(operator.slots, start=1):
        if slot.card in leaving:
            state.discard_from(e.player, number)
    state.pending = [item for item in state.pending if item.player != e.player]
    if state.challenge is not None and state.challenge.player == e.player:
        state.challenge = None


def _lucky_offered(state: GameState, e: ev.LuckyOffered) -> None:
    # "As soon as the card is discarded": the choice comes before anything already waiting.
    state.pending.insert(0, PendingLucky(e.player, e.slot, e.card))


def _lucky_replaced(state: GameState, e: ev.LuckyReplaced) -> None:
    state.pop_pending(PendingLucky, e.player)
    state.draw(e.card)
    place = state.operators[e.player].slot(e.slot)
    place.card = e.card
    place.state = SlotState.FACE_UP


def _lucky_declined(state: GameState, e: ev.LuckyDeclined) -> None:
    state.pop_pending(PendingLucky, e.player)


def _contest_started(state: GameState, e: ev.ContestStarted) -> None:
    state.contest = ContestInProgress(e.players, dict(e.methods))


def _contest_boosted(state: GameState, e: ev.ContestBoosted) -> None:
    if state.contest is not None:
        state.contest.boosts[e.player] = (e.reduction, e.wager)


def _contest_exchanged(state: GameState, e: ev.ContestExchanged) -> None:
    if state.contest is not None:
        state.contest.boosts.clear()
        state.contest.rolls.clear()
        state.contest.exchanges += 1


def _contest_ended(state: GameState, e: ev.ContestEnded) -> None:
    state.contest = None
    # Rolls still owed for the contest are void; Rolling Your Hand already owed still happens.
    state.pending = [
        item
        for item in state.pending
        if not (isinstance(item, PendingRoll) and item.purpose is ev.RollPurpose.CONTEST)
    ]


def _adventure_ended(state: GameState, e: ev.AdventureEnded) -> None:
    state.phase = Phase.BETWEEN_ADVENTURES
    state.turn_order = ()
    state.stages.clear()
    for operator in state.operators.values():
        operator.granted = False
        if operator.name in e.retired:
            operator.status = Status.RETIRED


def _lucky_granted(state: GameState, e: ev.LuckyGranted) -> None:
    state.operators[e.giver].granted = True
    state.operators[e.to].lucky.append(e.number)


def _operator_returning(state: GameState, e: ev.OperatorReturning) -> None:
    operator = state.operators[e.player]
    operator.lucky.remove(e.dropped)
    operator.returning = True


def _operator_retired(state: GameState, e: ev.OperatorRetired) -> None:
    state.operators[e.player].status = Status.RETIRED


def _adventure_started(state: GameState, e: ev.AdventureStarted) -> None:
    state.phase = Phase.SETUP
    state.adventure = e.adventure
    state.deck = list(reversed(e.deck))
    state.discard = []
    for operator in state.operators.values():
        operator.strikes = 0
        operator.revealed = False
        if operator.returning:
            operator.status = Status.ACTIVE
            operator.returning = False
        for slot in operator.slots:
            slot.card = None
            slot.state = SlotState.DISCARDED


def _game_ended(state: GameState, e: ev.GameEnded) -> None:
    state.phase = Phase.FINISHED
    state.pending.clear()
    state.challenge = None
    state.contest = None


_APPLIERS: dict[type[Any], Callable[[GameState, Any], None]] = {
    ev.GameStarted: _game_started,
    ev.CardsDealt: _cards_dealt,
    ev.CardRevealed: _card_revealed,
    ev.PlayBegan: _play_began,
    ev.DeckReshuffled: _deck_reshuffled,
    ev.TurnOrderDrawn: _turn_order_drawn,
    ev.TurnOrderSet: _turn_order_set,
    ev.StageOpened: _stage_opened,
    ev.CardUsed: _card_used,
    ev.ChallengeDeclared: _challenge_declared,
    ev.ChallengeBoosted: _challenge_boosted,
    ev.RollCalled: _roll_called,
    ev.DieRolled: _die_rolled,
    ev.ChallengeResolved: _challenge_resolved,
    ev.StageProgressed: _stage_progressed,
    ev.StageOvercome: _stage_overcome,
    ev.CardFlipped: _card_flipped,
    ev.CardDiscarded: _card_discarded,
    ev.JokerKept: _nothing,
    ev.StrikeGained: _strike_gained,
    ev.OperatorRemoved: _operator_removed,
    ev.LuckyOffered: _lucky_offered,
    ev.LuckyReplaced: _lucky_replaced,
    ev.LuckyDeclined: _lucky_declined,
    ev.ContestStarted: _contest_started,
    ev.ContestBoosted: _contest_boosted,
    ev.ContestExchanged: _contest_exchanged,
    ev.ContestEnded: _contest_ended,
    ev.AdventureEnded: _adventure_ended,
    ev.LuckyGranted: _lucky_granted,
    ev.OperatorReturning: _operator_returning,
    ev.OperatorRetired: _operator_retired,
    ev.AdventureStarted: _adventure_started,
    ev.GameEnded: _game_ended,
}
