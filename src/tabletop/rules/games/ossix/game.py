"""OS-SIX behind the game interface: the `OS_SIX` game module the registry finds."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from tabletop.rules.games.game import (
    DiceThrow,
    GameInfo,
    GameRules,
    Indicators,
    MatLayout,
    Option,
    Scoring,
    Screen,
    SeatLights,
    Waiting,
    WaitKind,
)

from .actions import GM_ACTIONS
from .engine import Game
from .events import Event, EventKind, event_from_json, event_to_json
from .people import OsSixPeople, random_command
from .poker import ODD_DOLLAR, TIES, VARIANTS, Phase, hand_size
from .reading import DiceReader
from .state import PendingKind, State
from .view import (
    ROOM,
    describe_event,
    pending_to_json,
    pending_words,
    poker_words,
    render_view,
    state_to_json,
)


class OsSix(GameRules):
    """OS-SIX (GameLab): the table keeps the dice, Luck and Strain; the GM runs the story."""

    # The player's own decisions: a bet (check, call, raise, fold, all in), the dice kept
    # at the draw, a hand entered while poker is concealed, a Luck Point spent.
    seat_verbs = frozenset({"bet", "draw", "poker_hand", "spend_luck"})
    verbs = GM_ACTIONS
    screen = Screen("tabletop.rules.games.ossix")  # screen.js, screen.css
    info = GameInfo(
        name="ossix",
        title="OS-SIX",
        version="1",
        seed="002_c69eaa78bbf86afd (How to Play), 001_f59c369dac4f9c94 (Additional Rules)",
        options=(
            Option("starting_luck", 2, "Luck Points each character starts with", (0, 1, 2, 3)),
            Option(
                "luck_after_long_rest",
                False,
                "the GM awards each character a Luck Point after a long rest",
            ),
            Option(
                "push_needs_a_failure",
                True,
                "pushing your luck only after the character's latest action roll failed (\"fails "
                'a crucial action roll"); false: the GM may allow it after any roll',
            ),
            Option(
                "second_chance_after_long_rest",
                False,
                "a push, or a Luck Point's re-roll, may answer a failure thrown before the last "
                "long rest (default no: the second chance is for a failure since the rest)",
            ),
            Option(
                "critical_failure_strain_stacks",
                False,
                "a critical failure in a high-pressure situation gives two Strain, not one",
            ),
            Option(
                "poker_variant",
                "draw",
                "dice poker: five-dice draw, Hold 'Em or Lucky Seven (a game of poker may "
                "name its own)",
                VARIANTS,
            ),
            Option("poker_ante", 1, 'the ante, in dollars ("typically ... one dollar")'),
            Option(
                "poker_minimum_raise",
                True,
                "a raise must be at least the previous bet or raise (the seed's house rule)",
            ),
            Option(
                "poker_ties",
                "values",
                "hands of one rank are compared by their dice (values), or always tie (category)",
                TIES,
            ),
            Option(
                "poker_odd_dollar",
                "left_of_dealer",
                "a split pot's odd dollar goes to the tied winner nearest the dealer's left, "
                "or stays in the pot for the next hand (next_pot)",
                ODD_DOLLAR,
            ),
            Option(
                "poker_open",
                False,
                "dice poker played open, every hand thrown in the tray (default no: each "
                'gambler keeps their dice concealed, "keeping their dice concealed", and enters '
                "them; a game of poker may choose its own)",
            ),
        ),
    )

    has_secrets = True  # a concealed poker hand, before its reveal (see view.py)
    people = OsSixPeople

    def new_engine(self, events: Sequence[Any] = ()) -> Game:
        return Game(events)

    def event_to_json(self, event: Event) -> dict[str, Any]:
        return event_to_json(event)

    def event_from_json(self, raw: Mapping[str, Any]) -> Event:
        return event_from_json(raw)

    def starts_game(self, event: Event) -> bool:
        return event.kind is EventKind.STARTED

    def is_over(self, state: State) -> bool:
        return state.over

    def referee_view(self, state: State) -> dict[str, Any]:
        """The state as JSON, its `pending` the very item the prompt carries (a poker hand's
        throw or bet too), so a reader of both can tell they are of the same moment."""
        detail = self.waiting(state).detail
        return {**state_to_json(state), "pending": dict(detail) if detail is not None else None}

    def public_view(self, state: State) -> dict[str, Any]:
        """The room's view: the referee's, but no concealed poker hand before its reveal."""
        detail = self.public_waiting(state).detail
        view = state_to_json(state, ROOM)
        return {**view, "pending": dict(detail) if detail is not None else None}

    def seat_view(self, state: State, seat: str) -> dict[str, Any]:
        """One player's view: the room's, with their own concealed poker hand shown."""
        detail = self.public_waiting(state).detail
        view = {**state_to_json(state, seat), "pending": dict(detail) if detail else None}
        return self.your_turn(view, state, seat)

    def public_event(self, event: Event, state: State) -> dict[str, Any]:
        return {"type": event.kind.value, "text": describe_event(event, public=True)}

    def public_waiting(self, state: State) -> Waiting:
        return self._waiting(state, public=True)

    def describe_event(self, event: Event) -> str:
        return describe_event(event)

    def waiting(self, state: State) -> Waiting:
        return self._waiting(state, public=False)

    def _waiting(self, state: State, public: bool) -> Waiting:
        if state.over:
            return Waiting(WaitKind.NOTHING, "the game is over" if state.started else "no game")
        pending = state.pending
        if pending is None and state.poker is not None and state.poker.in_hand:
            return self._poker_waiting(state, public)
        words = pending_words(pending)
        detail = pending_to_json(pending)
        if pending is None:
            if state.poker is not None:
                return Waiting(WaitKind.GAME_MASTER, poker_words(state.poker))
            return Waiting(WaitKind.GAME_MASTER, words)
        who = (pending.player,) if pending.player else ()
        if pending.kind is PendingKind.PANIC:
            return Waiting(WaitKind.GAME_MASTER, words, who, None, detail)
        if pending.kind is PendingKind.SPEND:
            return Waiting(WaitKind.CHOICE, words, who, None, detail)
        if pending.kind is PendingKind.ACTION:
            scoring = Scoring.LOWEST if pending.disadvantage else Scoring.HIGHEST
        elif pending.kind is PendingKind.GM_ROLL and pending.gm_roll in ("d2", "d3", "d6"):
            scoring = Scoring.HIGHEST  # one die, read through the D2/D3 table
        else:
            scoring = Scoring.SUM
        throw = DiceThrow(pending.player, pending.dice, scoring)
        return Waiting(WaitKind.DICE, words, who, throw, detail)

    @staticmethod
    def _poker_waiting(state: State, public: bool) -> Waiting:
        """A hand of poker: a throw (the deal, the draw, Hold 'Em's community dice, a hand
        laid in the tray at the reveal), a concealed hand entered, or a bet: the player's
        choice (the game master's for an NPC). `public` names no concealed die."""
        table = state.poker
        assert table is not None
        words = poker_words(table, public)
        entering = table.awaited_hands()
        if entering:
            first = table.seat(entering[0])
            assert first is not None
            draw = table.phase is Phase.DRAW
            entry = {
                "type": "poker_draw" if draw else "poker_hand",
                "player": first.name,
                "players": list(entering),
                "dice": hand_size(table),
                "hand": None if public else list(first.dice),
                "kept": None if public or first.kept is None else list(first.kept),
                "concealed": True,
            }
            npcs = all(state.character(name) is None for name in entering)
            kind = WaitKind.GAME_MASTER if npcs else WaitKind.CHOICE
            return Waiting(kind, words, entering, None, entry)
        awaited = table.awaited_dice()
        if awaited is not None:
            who, count, draw = awaited
            seat = table.seat(who)
            detail = {
                "type": f"poker_{table.phase.value}",
                "player": who,
                "dice": count,
                "hand": list(seat.dice) if seat is not None else [],
                "kept": None if seat is None or seat.kept is None else list(seat.kept),
            }
            throw = DiceThrow(who, count, Scoring.EACH, rerollable=draw)
            return Waiting(WaitKind.DICE, words, (who,), throw, detail)
        bettor = table.bettor()
        if bettor is None or table.phase is not Phase.BETTING:
            return Waiting(WaitKind.GAME_MASTER, words)
        detail = {
            "type": "poker_bet",
            "player": bettor.name,
            "to_call": table.to_call(bettor),
            "min_raise": table.min_raise(),
            "money": bettor.money,
        }
        npc = state.character(bettor.name) is None  # the game master bets for an NPC
        kind = WaitKind.GAME_MASTER if npc else WaitKind.CHOICE
        return Waiting(kind, words, (bettor.name,), None, detail)

    def render_view(self, view: Mapping[str, Any]) -> str:
        return render_view(view)

    def mat_layout(self, options: Mapping[str, Any]) -> MatLayout:
        return MatLayout(slots_per_seat=0)  # no cards: camera and LEDs only

    def table_reader(self, seats: Sequence[str], grace: float) -> DiceReader:
        return DiceReader(seats, grace)

    def indicators(self, state: State, seats: Sequence[str]) -> Indicators:
        lights = []
        for name in seats:
            me = state.character(name)
            lit = me.luck if me is not None else 0
            lights.append(SeatLights(lit, blinking=me is not None and me.incapacitated))
        return Indicators("Luck Points (blinking: incapacitated)", tuple(lights))

    def random_command(self, state: State, rng: random.Random) -> dict[str, Any] | None:
        return random_command(state, rng)


OS_SIX = OsSix()
