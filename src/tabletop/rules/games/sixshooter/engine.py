"""The Six Shooter engine: checks each command against the rules, then records its events.

`Game.execute` either returns the events a command caused (already folded into the state and
appended to the log) or raises an IllegalMove/InvalidCommand and leaves state and log exactly
as they were. Each handler below checks everything it can before it emits its first event; the
consequences that follow (a discard offering a Lucky Number, a third Strike removing an
Operator) are emitted one by one, each folded into the state before the next is decided.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ..cards import Card, shuffled, standard_deck
from ..errors import (
    DrawError,
    IllegalMove,
    NoGame,
    OutOfTurn,
    SetupError,
    UnknownPlayer,
    WrongPhase,
    plain,
    quote,
)
from . import commands as cm
from . import events as ev
from .errors import (
    CardNotUsable,
    ChallengeError,
    ContestError,
    LuckyNumberError,
    PlayerOutOfPlay,
    ProgressionError,
    WagerNotAllowed,
)
from .model import (
    CRITICAL_CAP,
    HAND_SIZE,
    MAX_STRIKES,
    Deal,
    LuckyReplacement,
    Method,
    Outcome,
    Phase,
    SlotState,
    Status,
    card_reduction,
)
from .state import GameState, Operator, PendingLucky, PendingRoll
from .view import describe_pending

# Ties in turn order are redrawn; after this many rounds the listed order breaks the tie, so
# a table with a single card left to draw cannot loop forever.
MAX_TIE_REDRAWS = 20


class _Turn:
    """One command's work: emits events into the state and remembers them."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.emitted: list[ev.Event] = []

    def emit(self, event: ev.Event) -> None:
        self.state.apply(event)
        self.emitted.append(event)


class Game:
    """One table's Six Shooter game: the event log and the state folded from it."""

    def __init__(self) -> None:
        self._state = GameState()
        self._events: list[ev.Event] = []
        # A game resumed from a snapshot: its state before `_events`, kept as a copy to refold
        # from (the state itself changes in place).
        self._base: GameState | None = None

    @classmethod
    def from_events(cls, events: Iterable[ev.Event]) -> Game:
        """Rebuilds a game from its event log."""
        game = cls()
        game._events = list(events)
        game._state = GameState.from_events(game._events)
        return game

    @classmethod
    def resumed(cls, state: GameState, events: Iterable[ev.Event] = ()) -> Game:
        """Goes on from `state`, the fold of the game's earlier events (a snapshot's), with
        `events` folded on; `events` holds only these."""
        game = cls()
        game._base = copy.deepcopy(state)
        game._events = list(events)
        game._state = game._refold()
        return game

    def _refold(self) -> GameState:
        state = GameState() if self._base is None else copy.deepcopy(self._base)
        for event in self._events:
            state.apply(event)
        return state

    @property
    def state(self) -> GameState:
        """The current state; read it, never change it (every change goes through events)."""
        return self._state

    @property
    def events(self) -> Sequence[ev.Event]:
        """Every event recorded so far, oldest first."""
        return self._events

    def execute(self, command: cm.Command | Mapping[str, Any]) -> tuple[ev.Event, ...]:
        """Applies one command (typed, or its JSON object) and returns the events it caused.

        Raises InvalidCommand for a command that cannot be read and an IllegalMove subclass
        for one the rules forbid now; either way nothing changes.
        """
        if not isinstance(command, _COMMAND_TYPES):
            command = cm.parse_command(command)
        turn = _Turn(self._state)
        try:
            _HANDLERS[type(command)](turn, command)
        except BaseException:
            if turn.emitted:
                # A rule found broken after the first event: refold the log we kept.
                self._state = self._refold()
            raise
        self._events.extend(turn.emitted)
        return tuple(turn.emitted)


# -- lookups shared by the handlers ----------------------------------------------------------


def _require_game(state: GameState) -> None:
    if state.phase is None:
        raise NoGame("there is no game yet: the game master starts one first")
    if state.phase is Phase.FINISHED:
        raise NoGame("the game is over: nothing more can happen in it")


def _require_phase(state: GameState, command: str, *phases: Phase) -> None:
    _require_game(state)
    if state.phase not in phases:
        allowed = " or ".join(phase.value.replace("_", " ") for phase in phases)
        raise WrongPhase(
            f"{command.replace('_', ' ')} belongs to {allowed}, but the game is in "
            f"{state.phase.value.replace('_', ' ') if state.phase else 'no phase'}"
        )


def _require_nothing_pending(state: GameState, command: str) -> None:
    if state.pending:
        raise OutOfTurn(f"cannot {command} now: {describe_pending(state, state.pending[0])} first")
    if state.contest is not None:
        a, b = state.contest.players
        raise OutOfTurn(f"cannot {command} now: the contest between {a} and {b} is under way")


def _operator(state: GameState, name: str) -> Operator:
    operator = state.operators.get(name)
    if operator is None:
        seated = ", ".join(state.operators) or "nobody"
        raise UnknownPlayer(
            f"there is no player named {plain(name)} at this table (seated: {seated})"
        )
    return operator


def _active(state: GameState, name: str) -> Operator:
    operator = _operator(state, name)
    if operator.status is not Status.ACTIVE:
        raise PlayerOutOfPlay(
            f"{name}'s Operator is {operator.status.value} and can do nothing until "
            + ("the next adventure" if operator.status is Status.REMOVED else "the game ends")
        )
    return operator


def _usable_card(state: GameState, ref: cm.CardRef, user: str, method: Method | None) -> Card:
    """Checks that `ref` may lower `user`'s roll with `method` and returns the card."""
    owner = _operator(state, ref.player)
    if owner.status is not Status.ACTIVE:
        raise PlayerOutOfPlay(f"{ref.player}'s Operator is {owner.status.value}: no card to use")
    slot = owner.slot(ref.slot)
    where = f"{ref.player}'s slot {ref.slot}"
    if slot.state is SlotState.DISCARDED or slot.card is None:
        raise CardNotUsable(f"{where} is empty: its card was discarded")
    if slot.state is SlotState.FACE_DOWN:
        raise CardNotUsable(f"{where} is face-down: only face-up cards can be used")
    card = slot.card
    if card.is_joker:
        raise CardNotUsable(
            f"{card} in {where} is a joker: jokers cannot be used", "playing with jokers"
        )
    if method is None:
        raise CardNotUsable(f"a card in this contest needs a method for {user}: give 'method'")
    if ref.player == user:
        if card.suit is not method.suit and owner.descriptor.method is not method:
            raise CardNotUsable(
                f"{card} in {where} is not {method.suit.name.lower()}, the suit of "
                f"{method.value}, and {method.value} is not {user}'s Descriptor "
                f"({owner.descriptor.value})"
            )
    elif not (card.suit is owner.descriptor.suit is method.suit):
        raise CardNotUsable(
            f"{ref.player} cannot help {user} with {card}: the card's suit, the helper's "
            f"Descriptor ({owner.descriptor.value}) and the method ({method.value}) must all "
            f"match ({method.suit.name.lower()})"
        )
    return card


def _check_wager(operator: Operator, wager: int) -> None:
    if wager < 1:
        raise WagerNotAllowed(f"{operator.name} must wager at least 1 Strike")
    if wager + operator.strikes > MAX_STRIKES:
        raise WagerNotAllowed(
            f"{operator.name} has {operator.strikes} Strike(s): wagering {wager} would make "
            f"{operator.strikes + wager}, more than {MAX_STRIKES}"
        )


def draws_decide_order(players: Sequence[str], draws: Sequence[Card], ace_high: bool) -> bool:
    """True when these cards, drawn in this order, settle the turn order of `players` (each
    draws once, tied players draw again, as `turn_order` does); False when more must be drawn."""
    cards = iter(draws)

    def settled(group: list[str], rounds: int) -> bool:
        if len(group) == 1 or rounds >= MAX_TIE_REDRAWS:
            return True
        values: dict[str, int] = {}
        for name in group:
            card = next(cards, None)
            if card is None:
                return False
            values[name] = _card_value_for_order(card, ace_high)
        for value in sorted(set(values.values()), reverse=True):
            tied = [name for name in group if values[name] == value]
            if len(tied) > 1 and not settled(tied, rounds + 1):
                return False
        return True

    return settled(list(players), 0)


def _card_value_for_order(card: Card, ace_high: bool) -> int:
    if card.is_joker:
        return 0  # "A joker has a value of 0 for determining turn order."
    pips = card.rank.pips
    if pips is not None:
        return pips
    return {"J": 11, "Q": 12, "K": 13, "A": 14 if ace_high else 1}[card.rank.value]


# -- consequences shared by several commands ---------------------------------------------------


def _ensure_deck(turn: _Turn, replacing: Card | None = None) -> bool:
    """Before a draw: reshuffles the discard pile into the deck if the deck is empty (it ran out
    when the discard pile was empty too); False if there is still no card to draw.

    A Lucky Number replacement is "a new card": the card it replaces stays on the discard pile.
    """
    state = turn.state
    if state.deck:
        return True
    pile = [card for card in state.discard if card != replacing]
    if not pile:
        return False
    seed = f"{state.seed}:reshuffle:{state.reshuffles + 1}"
    turn.emit(ev.DeckReshuffled(shuffled(pile, seed)))
    return True


def _after_draw(turn: _Turn) -> None:
    """ "If, at any point during the game, the deck runs out of cards, shuffle the discard pile
    and use it as the deck": at once, when a draw took the deck's last card."""
    if not turn.state.deck and turn.state.discard:
        _ensure_deck(turn)


def _after_discard(turn: _Turn, owner: str, slot: int, card: Card) -> None:
    """Offers (or applies) a Lucky Number replacement when the discarded card matches one."""
    state = turn.state
    options = state.options
    if card.rank.pips not in state.operators[owner].lucky:
        return
    if options.lucky_replacement is LuckyReplacement.NEVER:
        return
    turn.emit(ev.LuckyOffered(owner, slot, card))
    if options.lucky_replacement is LuckyReplacement.ALWAYS:
        _draw_replacement(turn, owner, slot, card)


def _draw_replacement(turn: _Turn, owner: str, slot: int, replacing: Card) -> None:
    if _ensure_deck(turn, replacing):
        turn.emit(ev.LuckyReplaced(owner, slot, turn.state.deck[-1]))
        _after_draw(turn)
    else:
        turn.emit(ev.LuckyDeclined(owner, slot, "no card left to draw"))


def _gain_strikes(turn: _Turn, player: str, count: int, cause: str) -> None:
    state = turn.state
    operator = state.operators[player]
    total = min(operator.strikes + count, MAX_STRIKES)
    turn.emit(ev.StrikeGained(player, count, total, cause))
    contest = state.contest
    if contest is not None and player in contest.players:
        turn.emit(ev.ContestEnded((player,), "strike"))
    if total >= MAX_STRIKES:
        leaving: tuple[Card, ...] = ()
        if state.options.removed_cards_to_discard:
            leaving = tuple(slot.card for slot in operator.slots if slot.card is not None)
        turn.emit(ev.OperatorRemoved(player, leaving))


def _continue_contest(turn: _Turn) -> None:
    """Calls the next exchange's rolls once nothing else is awaited."""
    contest = turn.state.contest
    if contest is None or turn.state.pending:
        return
    for player in contest.players:
        turn.emit(ev.RollCalled(player, ev.RollPurpose.CONTEST))


Hands = tuple[tuple[str, tuple[Card, ...]], ...]


def _check_hands(hands: Hands, seated: list[str], jokers: bool) -> None:
    """Checks a deal seen at the table: six cards for each player in play, none twice."""
    named = [name for name, _ in hands]
    if sorted(named) != sorted(seated):
        raise SetupError(
            f"the hands dealt are for {', '.join(named) or 'nobody'}, but the players in play "
            f"are {', '.join(seated)}"
        )
    full = set(standard_deck(jokers))
    seen: dict[Card, str] = {}
    for name, cards in hands:
        for slot, card in enumerate(cards, start=1):
            if card not in full:
                raise SetupError(f"{name}'s slot {slot} holds {card}, but jokers are off")
            if card in seen:
                raise SetupError(f"{card} is dealt twice: to {seen[card]} and to {name}")
            seen[card] = name


def _deal(turn: _Turn, hands: Hands | None = None) -> None:
    state = turn.state
    seated = [op.name for op in state.operators.values() if op.status is Status.ACTIVE]
    if hands is not None:
        by_name = dict(hands)
        turn.emit(ev.CardsDealt(tuple((name, by_name[name]) for name in seated)))
        return
    top_first = state.deck[::-1]
    dealt: dict[str, list[Card]] = {name: [] for name in seated}
    for index in range(len(seated) * HAND_SIZE):
        if state.options.deal is Deal.ROUND_ROBIN:
            name = seated[index % len(seated)]
        else:
            name = seated[index // HAND_SIZE]
        dealt[name].append(top_first[index])
    turn.emit(ev.CardsDealt(tuple((name, tuple(cards)) for name, cards in dealt.items())))


# -- one handler per command ---------------------------------------------------------------


def _new_game(turn: _Turn, c: cm.NewGame) -> None:
    state = turn.state
    if state.phase is not None and state.phase is not Phase.FINISHED:
        raise WrongPhase("a game is already under way: end the game first")
    full = standard_deck(c.jokers)
    if not c.players:
        raise SetupError("a game needs at least one player")
    most = len(full) // HAND_SIZE
    if len(c.players) > most:
        raise SetupError(
            f"{len(full)} cards deal six to at most {most} players, not {len(c.players)}"
        )
    seen_names: set[str] = set()
    for spec in c.players:
        if spec.name.casefold() in seen_names:
            raise SetupError(f"two players are named {quote(spec.name)}: names must differ")
        seen_names.add(spec.name.casefold())
        if len(set(spec.lucky)) != len(spec.lucky):
            raise SetupError(f"{spec.name} has the same Lucky Number twice", "lucky numbers")
    if c.campaign:
        _check_carried_lucky(c)
    else:
        _check_starting_lucky(c)
    if c.hands is not None:
        _check_hands(c.hands, [spec.name for spec in c.players], c.jokers)
        dealt = [card for _, cards in c.hands for card in cards]
        rest = [card for card in full if card not in set(dealt)]
        deck = (*dealt, *shuffled(rest, f"{c.seed}:deal:1"))
    elif c.deck is None:
        deck = shuffled(full, f"{c.seed}:deal:1")
    else:
        deck = c.deck
        _check_deck(deck, full, c.jokers)
    turn.emit(ev.GameStarted(c.players, c.jokers, c.seed, deck, c.options))
    _deal(turn, c.hands)


def _check_starting_lucky(c: cm.NewGame) -> None:
    """ "Each Operator starts with a Descriptor, an Archetype, and a Lucky Number." / "No two
    Operators at the same table should start with the same Lucky Number." """
    starting: dict[int, str] = {}
    for spec in c.players:
        if len(spec.lucky) != 1:
            raise SetupError(
                f"{spec.name} starts with {len(spec.lucky) or 'no'} Lucky Numbers, but each "
                "Operator starts with a Lucky Number (one); Operators who gained more in an "
                'earlier game carry them over with "campaign": true',
                "operators",
            )
        number = spec.lucky[0]
        if number in starting:
            raise SetupError(
                f"{spec.name} and {starting[number]} both start with Lucky Number {number}: "
                "no two Operators at the same table should start with the same Lucky Number",
                "lucky numbers",
            )
        starting[number] = spec.name


def _check_carried_lucky(c: cm.NewGame) -> None:
    """A campaign carried over from an earlier game: the Lucky Numbers held must be ones the
    rules for gaining them allow (the table's cap; v0.03's "cannot gain more Lucky Numbers
    unless all other Operators have at least as many"). None is allowed: an Operator who
    returned by losing their last one plays on without ("If a character has three Strikes and
    no Lucky Number, they are still retired permanently")."""
    options = c.options
    held = {spec.name: len(spec.lucky) for spec in c.players}
    for spec in c.players:
        count = held[spec.name]
        if count > options.lucky_limit:
            raise SetupError(
                f"{spec.name} has {count} Lucky Numbers; this table's cap is {options.lucky_limit}",
                "lucky numbers",
            )
        if options.progressive and count > 2:
            behind = [name for name, n in held.items() if name != spec.name and n < count - 1]
            if behind:
                raise SetupError(
                    f"{spec.name} has {count} Lucky Numbers, but an Operator cannot gain more "
                    f"than two unless all other Operators have at least as many: "
                    f"{', '.join(behind)} {'has' if len(behind) == 1 else 'have'} fewer than "
                    f"{count - 1}",
                    "lucky numbers",
                )


def _check_deck(deck: tuple[Card, ...], full: tuple[Card, ...], jokers: bool) -> None:
    counts: dict[Card, int] = {}
    for card in deck:
        counts[card] = counts.get(card, 0) + 1
    doubled = sorted(str(card) for card, n in counts.items() if n > 1)
    if doubled:
        raise SetupError(f"the deck holds {', '.join(doubled)} more than once")
    extra = sorted(str(card) for card in counts if card not in full)
    if extra:
        raise SetupError(
            f"the deck holds {', '.join(extra)}, but jokers are {'on' if jokers else 'off'}"
        )
    missing = [str(card) for card in full if card not in counts]
    if missing:
        raise SetupError(f"the deck lacks {', '.join(missing)}: give all {len(full)} cards")


def _reveal(turn: _Turn, c: cm.Reveal) -> None:
    state = turn.state
    _require_phase(state, "reveal", Phase.SETUP)
    operator = _active(state, c.player)
    if operator.revealed:
        up = next(n for n, s in enumerate(operator.slots, 1) if s.state is SlotState.FACE_UP)
        raise WrongPhase(
            f"{c.player} has already turned a card face-up (slot {up}): one card each",
            "setting up the game",
        )
    card = operator.slot(c.slot).card
    assert card is not None  # every slot holds a face-down card during setup
    turn.emit(ev.CardRevealed(c.player, c.slot, card))
    if all(op.revealed for op in state.operators.values() if op.status is Status.ACTIVE):
        turn.emit(ev.PlayBegan())


def _turn_order(turn: _Turn, c: cm.TurnOrder) -> None:
    state = turn.state
    _require_phase(state, "turn_order", Phase.PLAY)
    _require_nothing_pending(state, "draw for turn order")
    if len(set(c.players)) != len(c.players):
        raise WrongPhase("a player is listed twice for turn order", "deciding turn order")
    if len(c.players) < 2:
        raise WrongPhase(
            "turn order is drawn when several players want the same challenge",
            "deciding turn order",
        )
    for name in c.players:
        _active(state, name)
    if not state.deck and not state.discard:
        raise DrawError("the deck and the discard pile are both empty: no card to draw")
    draws = list(c.draws) if c.draws is not None else None
    order = _draw_order(turn, list(c.players), 0, draws)
    if draws:
        raise DrawError(f"{len(draws)} card(s) drawn beyond what deciding the order needed")
    turn.emit(ev.TurnOrderSet(tuple(order)))


def _draw_order(
    turn: _Turn, players: list[str], rounds: int, draws: list[Card] | None
) -> list[str]:
    """Draws a card for each player, highest first; tied players draw again among themselves.

    With `draws` (cards seen drawn at a physical table) each draw takes the next of them."""
    if len(players) == 1 or rounds >= MAX_TIE_REDRAWS:
        return players
    state = turn.state
    values: dict[str, int] = {}
    for name in players:
        again = f"again (tied with {', '.join(p for p in players if p != name)}) " if rounds else ""
        card = _next_draw(turn, draws, f"{name} must draw {again}for turn order")
        values[name] = _card_value_for_order(card, state.options.ace_high)
        turn.emit(ev.TurnOrderDrawn(name, card, values[name]))
        _after_draw(turn)
    order: list[str] = []
    for value in sorted(set(values.values()), reverse=True):
        tied = [name for name in players if values[name] == value]
        order += _draw_order(turn, tied, rounds + 1, draws) if len(tied) > 1 else tied
    return order


def _next_draw(turn: _Turn, draws: list[Card] | None, why: str) -> Card:
    """The card drawn next: the deck's top card, or the next card seen drawn at the table."""
    _ensure_deck(turn)
    if draws is None:
        return turn.state.deck[-1]
    if not draws:
        raise DrawError(f"{why}: no more drawn cards were given")
    card = draws.pop(0)
    if card not in turn.state.deck:
        raise DrawError(f"{card} cannot be drawn: it is not in the deck")
    return card


def _multi_stage(turn: _Turn, c: cm.MultiStage) -> None:
    state = turn.state
    _require_phase(state, "multi_stage", Phase.PLAY)
    if c.stage in state.stages:
        raise ChallengeError(
            f"the multi-stage challenge {quote(c.stage)} is already open", "multi-stage challenges"
        )
    turn.emit(ev.StageOpened(c.stage, c.needed))


def _challenge(turn: _Turn, c: cm.Challenge) -> None:
    state = turn.state
    _require_phase(state, "challenge", Phase.PLAY)
    _require_nothing_pending(state, "start a challenge")
    operator = _active(state, c.player)
    if c.critical is None:
        raise ChallengeError(
            f"{c.player} cannot attempt an Impossible challenge with {c.method.value}: "
            "there is no point in rolling; search for a different solution"
        )
    if c.critical > CRITICAL_CAP:
        raise ChallengeError(f"a Critical Number is at most {CRITICAL_CAP}, got {c.critical}")
    if c.critical < 0:
        raise ChallengeError(f"a challenge's Critical Number is 0 or more, got {c.critical}")
    if c.card is not None and c.wager:
        raise WagerNotAllowed("cards cannot be used on the same roll as All Or Nothing")
    if c.wager:
        _check_wager(operator, c.wager)
    if c.stage is not None and c.stage not in state.stages:
        raise ChallengeError(
            f"no multi-stage challenge {quote(c.stage)} is open: open it with multi_stage first",
            "multi-stage challenges",
        )
    card = _usable_card(state, c.card, c.player, c.method) if c.card is not None else None
    reduction = card_reduction(card) if card is not None else 0
    critical = min(c.critical + operator.strikes, CRITICAL_CAP) - reduction - c.wager
    if c.card is not None and card is not None:
        turn.emit(ev.CardUsed(c.card.player, c.card.slot, card, c.player, reduction))
        _after_discard(turn, c.card.player, c.card.slot, card)
    boosted = card is not None or c.wager > 0
    turn.emit(
        ev.ChallengeDeclared(c.player, c.method, c.critical, critical, c.wager, c.stage, boosted)
    )
    if critical <= 0:
        _resolve_challenge(turn, None)
    else:
        turn.emit(ev.RollCalled(c.player, ev.RollPurpose.CHALLENGE))


def _resolve_challenge(turn: _Turn, roll: int | None) -> None:
    state = turn.state
    challenge = state.challenge
    assert challenge is not None
    player, critical, stage = challenge.player, challenge.critical, challenge.stage
    if roll is None or roll > critical:
        outcome = Outcome.SUCCESS
    elif roll == critical:
        outcome = Outcome.SUCCESS_ROLL_HAND
    else:
        outcome = Outcome.FAILURE
    wager = challenge.wager
    turn.emit(ev.ChallengeResolved(player, roll, critical, outcome, stage))
    if outcome is not Outcome.FAILURE and stage is not None:
        progress = state.stages[stage]
        turn.emit(ev.StageProgressed(stage, progress.successes + 1, progress.needed))
        if progress.successes >= progress.needed:
            turn.emit(ev.StageOvercome(stage))
    if outcome is Outcome.FAILURE and wager:
        _gain_strikes(turn, player, wager, "all or nothing")
    if outcome is not Outcome.SUCCESS and state.operators[player].status is Status.ACTIVE:
        turn.emit(ev.RollCalled(player, ev.RollPurpose.ROLL_HAND))


def _roll(turn: _Turn, c: cm.Roll) -> None:
    state = turn.state
    _require_phase(state, "roll", Phase.PLAY)
    head = state.pending[0] if state.pending else None
    if not isinstance(head, PendingRoll):
        waiting = describe_pending(state, head) if head else "no roll is awaited"
        raise OutOfTurn(f"cannot take a roll now: {waiting}")
    if len(c.values) != 1:
        raise ChallengeError(f"Six Shooter rolls one six-sided die, not {len(c.values)}")
    value = c.values[0]
    turn.emit(ev.DieRolled(head.player, head.purpose, value))
    if head.purpose is ev.RollPurpose.CHALLENGE:
        _resolve_challenge(turn, value)
    elif head.purpose is ev.RollPurpose.ROLL_HAND:
        _roll_hand(turn, head.player, value)
    else:
        _contest_roll(turn)
    _continue_contest(turn)


def _roll_hand(turn: _Turn, player: str, value: int) -> None:
    """ "Find the card in your hand that matches the number you rolled"."""
    slot = turn.state.operators[player].slot(value)
    card = slot.card
    if slot.state is SlotState.FACE_DOWN and card is not None:
        turn.emit(ev.CardFlipped(player, value, card))
    elif slot.state is SlotState.FACE_UP and card is not None:
        if card.is_joker:
            turn.emit(ev.JokerKept(player, value))
        else:
            turn.emit(ev.CardDiscarded(player, value, card))
            _after_discard(turn, player, value, card)
    else:
        _gain_strikes(turn, player, 1, f"rolled {value}: slot {value} is empty")


def _contest_roll(turn: _Turn) -> None:
    state = turn.state
    contest = state.contest
    assert contest is not None
    if len(contest.rolls) < len(contest.players):
        return
    # "Strikes, using cards, and All Or Nothing all affect the outcome of your opponent player's
    # die roll the same way they would the Critical Number of a challenge": the opponent's roll
    # is this side's Critical Number, raised by this side's Strikes "(but never above 7)" and
    # lowered by this side's card and wager.
    scores: dict[str, int] = {}
    for name, opponent in zip(contest.players, contest.players[::-1], strict=True):
        reduction, wager = contest.boosts.get(opponent, (0, 0))
        raised = min(contest.rolls[name] + state.operators[opponent].strikes, CRITICAL_CAP)
        scores[name] = raised - reduction - wager
    low = min(scores.values())
    losers = tuple(name for name in contest.players if scores[name] == low)
    wagers = {name: contest.boosts.get(name, (0, 0))[1] for name in contest.players}
    turn.emit(
        ev.ContestExchanged(
            tuple((name, contest.rolls[name]) for name in contest.players),
            tuple(scores.items()),
            losers,
        )
    )
    for name in losers:
        if len(losers) == 1 and wagers[name]:
            _gain_strikes(turn, name, wagers[name], "all or nothing")
        if state.operators[name].status is Status.ACTIVE:
            turn.emit(ev.RollCalled(name, ev.RollPurpose.ROLL_HAND))


def _lucky(turn: _Turn, c: cm.Lucky) -> None:
    state = turn.state
    _require_phase(state, "lucky", Phase.PLAY)
    head = state.pending[0] if state.pending else None
    if not isinstance(head, PendingLucky) or head.player != c.player:
        waiting = describe_pending(state, head) if head else "nothing is awaited"
        raise LuckyNumberError(f"{c.player} has no Lucky Number choice to make now: {waiting}")
    if c.replace and c.card is not None:
        if c.card == head.card:
            raise LuckyNumberError(
                f"{c.card} cannot replace itself: the replacement is a new card from the deck"
            )
        in_deck = c.card in state.deck or (not state.deck and c.card in state.discard)
        if not in_deck:
            raise LuckyNumberError(f"{c.card} cannot be the replacement: it is not in the deck")
        _ensure_deck(turn, head.card)
        turn.emit(ev.LuckyReplaced(c.player, head.slot, c.card))
        _after_draw(turn)
    elif c.replace:
        _draw_replacement(turn, c.player, head.slot, head.card)
    else:
        turn.emit(ev.LuckyDeclined(c.player, head.slot, "declined"))
    _continue_contest(turn)


def _contest(turn: _Turn, c: cm.Contest) -> None:
    state = turn.state
    _require_phase(state, "contest", Phase.PLAY)
    _require_nothing_pending(state, "start a contest")
    a, b = c.players
    if a == b:
        raise ContestError(f"{a} cannot contest against themselves")
    for name in c.players:
        _active(state, name)
    methods = dict(c.methods)
    for name in [*methods, *dict(c.cards), *dict(c.wagers)]:
        if name not in c.players:
            raise ContestError(f"{name} is not in this contest between {a} and {b}")
    boosts = [
        _check_boost(
            state, name, dict(c.cards).get(name), dict(c.wagers).get(name, 0), methods.get(name)
        )
        for name in c.players
    ]
    turn.emit(ev.ContestStarted(c.players, tuple(methods.items())))
    for name, boost in zip(c.players, boosts, strict=True):
        if boost is not None:
            _emit_boost(turn, name, *boost)
    _continue_contest(turn)


Boosting = tuple[cm.CardRef | None, Card | None, int]


def _check_boost(
    state: GameState, player: str, ref: cm.CardRef | None, wager: int, method: Method | None
) -> Boosting | None:
    operator = state.operators[player]
    if ref is not None and wager:
        raise WagerNotAllowed("cards cannot be used on the same roll as All Or Nothing")
    if wager:
        _check_wager(operator, wager)
    card = _usable_card(state, ref, player, method) if ref is not None else None
    if ref is None and not wager:
        return None
    return ref, card, wager


def _emit_boost(
    turn: _Turn, player: str, ref: cm.CardRef | None, card: Card | None, wager: int
) -> None:
    reduction = 0
    if ref is not None and card is not None:
        reduction = card_reduction(card)
        turn.emit(ev.CardUsed(ref.player, ref.slot, card, player, reduction))
        _after_discard(turn, ref.player, ref.slot, card)
    turn.emit(ev.ContestBoosted(player, reduction, wager))


def _boost(turn: _Turn, c: cm.Boost) -> None:
    state = turn.state
    _require_phase(state, "boost", Phase.PLAY)
    if state.challenge is not None and state.challenge.player == c.player:
        _boost_challenge(turn, c)
        return
    contest = state.contest
    if contest is None or c.player not in contest.players:
        raise ContestError(
            f"{c.player} has no roll to boost: a boost comes before a challenge or contest roll"
        )
    _active(state, c.player)
    if c.player in contest.rolls:
        raise ContestError(
            f"{c.player} has already rolled in this exchange: a boost comes before the roll"
        )
    if c.player in contest.boosts:
        raise CardNotUsable(
            f"{c.player} already boosted this roll: only 1 card can be used on any given roll"
        )
    boost = _check_boost(state, c.player, c.card, c.wager, contest.methods.get(c.player))
    assert boost is not None  # the reader refuses a boost with neither card nor wager
    _emit_boost(turn, c.player, *boost)


def _boost_challenge(turn: _Turn, c: cm.Boost) -> None:
    """A card used (or Strikes wagered) after the challenge was declared, before its roll."""
    state = turn.state
    challenge = state.challenge
    assert challenge is not None
    operator = _active(state, c.player)
    if challenge.boosted:
        raise CardNotUsable(
            f"{c.player}'s roll already has a card or a wager: only 1 card can be used on any "
            "given roll, and cards cannot be used on the same roll as All Or Nothing"
        )
    boost = _check_boost(state, c.player, c.card, c.wager, challenge.method)
    assert boost is not None
    ref, card, wager = boost
    if wager:
        _check_wager(operator, wager)
    reduction = card_reduction(card) if card is not None else 0
    critical = challenge.critical - reduction - wager
    if ref is not None and card is not None:
        turn.emit(ev.CardUsed(ref.player, ref.slot, card, c.player, reduction))
        _after_discard(turn, ref.player, ref.slot, card)
    turn.emit(ev.ChallengeBoosted(c.player, reduction, wager, critical))
    if critical <= 0:
        _resolve_challenge(turn, None)


def _concede(turn: _Turn, c: cm.Concede) -> None:
    state = turn.state
    _require_phase(state, "concede", Phase.PLAY)
    contest = state.contest
    if contest is None or c.player not in contest.players:
        raise ContestError(f"{c.player} is not in a contest and has nothing to concede")
    turn.emit(ev.ContestEnded((c.player,), "conceded"))


def _end_adventure(turn: _Turn, c: cm.EndAdventure) -> None:
    state = turn.state
    _require_phase(state, "end_adventure", Phase.SETUP, Phase.PLAY)
    _require_nothing_pending(state, "end the adventure")
    retired = tuple(
        op.name for op in state.operators.values() if op.status is Status.REMOVED and not op.lucky
    )
    turn.emit(ev.AdventureEnded(state.adventure, retired))
    _end_if_nobody_left(turn)


def _end_if_nobody_left(turn: _Turn) -> None:
    if all(op.status is Status.RETIRED for op in turn.state.operators.values()):
        turn.emit(ev.GameEnded())


def _grant_lucky(turn: _Turn, c: cm.GrantLucky) -> None:
    state = turn.state
    _require_phase(state, "grant_lucky", Phase.BETWEEN_ADVENTURES)
    giver = _active(state, c.giver)
    target = _operator(state, c.to)
    if giver.granted:
        raise ProgressionError(f"{c.giver} has already given a Lucky Number this adventure")
    if not any(
        slot.state is SlotState.FACE_UP and slot.card is not None and slot.card.rank.is_face_or_ace
        for slot in giver.slots
    ):
        raise ProgressionError(f"{c.giver} has no unused face card or Ace face-up in their hand")
    if target.status is Status.RETIRED:
        raise ProgressionError(f"{c.to}'s Operator is retired")
    if c.number in target.lucky:
        raise LuckyNumberError(f"{c.to} already has Lucky Number {c.number}")
    held = len(target.lucky)
    cap = state.options.lucky_limit
    if held >= cap:
        raise LuckyNumberError(f"{c.to} has {held} Lucky Numbers, this table's cap")
    if state.options.progressive and held >= 2:
        behind = [
            op.name
            for op in state.operators.values()
            if op is not target and op.status is not Status.RETIRED and len(op.lucky) < held
        ]
        if behind:
            raise LuckyNumberError(
                f"{c.to} has {held} Lucky Numbers and cannot gain more until every other Operator "
                f"has at least {held} ({', '.join(behind)} {'has' if len(behind) == 1 else 'have'} "
                "fewer)"
            )
    turn.emit(ev.LuckyGranted(c.giver, c.to, c.number))


def _removed_deciding(state: GameState, name: str) -> Operator:
    _require_phase(state, "return or retire", Phase.BETWEEN_ADVENTURES)
    operator = _operator(state, name)
    if operator.status is not Status.REMOVED or operator.returning:
        raise ProgressionError(
            f"{name} has nothing to decide: only an Operator removed by three Strikes chooses "
            "to return or retire"
        )
    return operator


def _return(turn: _Turn, c: cm.Return) -> None:
    operator = _removed_deciding(turn.state, c.player)
    if c.drop_lucky not in operator.lucky:
        held = ", ".join(map(str, operator.lucky)) or "none"
        raise LuckyNumberError(f"{c.player} has no Lucky Number {c.drop_lucky} (held: {held})")
    turn.emit(ev.OperatorReturning(c.player, c.drop_lucky))


def _retire(turn: _Turn, c: cm.Retire) -> None:
    _removed_deciding(turn.state, c.player)
    turn.emit(ev.OperatorRetired(c.player))
    _end_if_nobody_left(turn)


def _start_adventure(turn: _Turn, c: cm.StartAdventure) -> None:
    state = turn.state
    _require_phase(state, "start_adventure", Phase.BETWEEN_ADVENTURES)
    undecided = [
        op.name
        for op in state.operators.values()
        if op.status is Status.REMOVED and not op.returning
    ]
    if undecided:
        raise ProgressionError(
            f"waiting for {', '.join(undecided)} to return (drop a Lucky Number) or retire"
        )
    if c.hands is not None:
        coming = [
            op.name for op in state.operators.values() if op.status is Status.ACTIVE or op.returning
        ]
        _check_hands(c.hands, coming, state.jokers)
    adventure = state.adventure + 1
    deck = shuffled(standard_deck(state.jokers), f"{state.seed}:adventure:{adventure}")
    turn.emit(ev.AdventureStarted(adventure, deck))
    _deal(turn, c.hands)


def _end_game(turn: _Turn, c: cm.EndGame) -> None:
    _require_game(turn.state)
    turn.emit(ev.GameEnded())


C = TypeVar("C")


def _handler(fn: Callable[[_Turn, C], None]) -> Callable[[_Turn, Any], None]:
    return fn


_HANDLERS: dict[type[Any], Callable[[_Turn, Any], None]] = {
    cm.NewGame: _handler(_new_game),
    cm.Reveal: _handler(_reveal),
    cm.TurnOrder: _handler(_turn_order),
    cm.MultiStage: _handler(_multi_stage),
    cm.Challenge: _handler(_challenge),
    cm.Roll: _handler(_roll),
    cm.Lucky: _handler(_lucky),
    cm.Contest: _handler(_contest),
    cm.Boost: _handler(_boost),
    cm.Concede: _handler(_concede),
    cm.EndAdventure: _handler(_end_adventure),
    cm.GrantLucky: _handler(_grant_lucky),
    cm.Return: _handler(_return),
    cm.Retire: _handler(_retire),
    cm.StartAdventure: _handler(_start_adventure),
    cm.EndGame: _handler(_end_game),
}
_COMMAND_TYPES = tuple(_HANDLERS)

__all__ = ["Game", "IllegalMove"]
