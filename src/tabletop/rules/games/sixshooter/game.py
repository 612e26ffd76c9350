"""Six Shooter behind the game interface (`GameRules`): what the table asks of it."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from enum import Enum
from pathlib import Path
from typing import Any

from ..game import (
    DiceThrow,
    Engine,
    GameInfo,
    GameRules,
    Indicators,
    MatLayout,
    Option,
    PeopleSettings,
    Screen,
    SeatLights,
    TableHands,
    TableReader,
    Waiting,
    WaitKind,
)
from ..setup import PlayerSetup
from . import choices
from .actions import GM_ACTIONS, ROSTER_KEYS
from .engine import Game
from .events import Event, GameStarted, event_from_json, event_to_json
from .model import HAND_SIZE, MAX_STRIKES, Options, Phase, Status
from .people import SixShooterPeople
from .players import random_command
from .reading import TableReader as SixShooterReader
from .state import GameState, PendingLucky, PendingRoll
from .view import (
    describe_event,
    pending_to_json,
    public_event_to_json,
    public_state_to_json,
    render_public_view,
    render_table,
    state_to_json,
)

_OPTION_HELP = {
    "version": 'the text played: "0.03" (default) or "0.02" (at most two Lucky Numbers, no '
    "progressive cap)",
    "deal": "how the six cards reach each player: round_robin (one at a time) or block",
    "ace_high": "an ace counts high (14) when drawing for turn order",
    "lucky_replacement": "a discarded card matching a Lucky Number: ask the owner, always "
    "replace it, or never",
    "lucky_cap": 'the most Lucky Numbers an Operator may hold ("If the GM wishes, they may set '
    'the cap lower")',
    "lucky_progressive_cap": "a third Lucky Number or more only if every other Operator has as "
    "many",
    "removed_cards_to_discard": "a removed Operator's cards go to the discard pile",
    "tell_critical_numbers": 'players see the exact Critical Number before they roll ("You '
    "don't have to tell your players the exact Critical Numbers\")",
}


def _options() -> tuple[Option, ...]:
    defaults = Options()
    out = []
    for field in fields(Options):
        value = getattr(defaults, field.name)
        choices: tuple[Any, ...] = ()
        if isinstance(value, Enum):
            choices = tuple(member.value for member in type(value))
            value = value.value
        out.append(Option(field.name, value, _OPTION_HELP.get(field.name, ""), choices))
    return tuple(out)


class SixShooter(GameRules):
    """Six Shooter v0.03 (and v0.02 by option), the first game of the table."""

    # The player's own decision: a Lucky Number offer answered.
    seat_verbs = frozenset({"lucky"})
    # screen.js; its cards are playing cards, which the console styles for every game
    screen = Screen("tabletop.rules.games.sixshooter", style=None)
    info = GameInfo(
        name="sixshooter",
        title="Six Shooter",
        version="0.03",
        seed="000 (Six Shooter Universal RPG System v0.03, v0.02)",
        options=_options(),
    )
    roster_keys = ROSTER_KEYS
    start_event = GameStarted
    verbs = GM_ACTIONS

    def player_setup(self, decks_folder: Path) -> PlayerSetup:
        """Each Operator's Descriptor, Archetype and Lucky Number (`choices.py`)."""
        return PlayerSetup(
            choices.PLAYER_CHOICES,
            choices.CHOICES_NOTE,
            choices.default_player,
            choices.complete_player,
        )

    def read_options(self, raw: object, where: str = "options") -> dict[str, Any]:
        return Options.from_json(raw, where).to_json()

    def new_engine(self, events: Sequence[Any] = ()) -> Engine:
        return Game.from_events(events)

    def resume_engine(self, state: Any, events: Sequence[Any] = ()) -> Engine:
        return Game.resumed(state, events)

    def event_to_json(self, event: Any) -> dict[str, Any]:
        return event_to_json(event)

    def event_from_json(self, raw: Mapping[str, Any]) -> Event:
        return event_from_json(dict(raw))

    def is_over(self, state: GameState) -> bool:
        return state.phase in (None, Phase.FINISHED)

    # -- views ------------------------------------------------------------------------------

    def referee_view(self, state: GameState) -> dict[str, Any]:
        return state_to_json(state)

    def public_view(self, state: GameState) -> dict[str, Any]:
        view = public_state_to_json(state)
        view["pending"] = pending_to_json(state, hide_critical=_hides_critical(state))
        return view

    # seat_view: the public view, as a player never sees their own face-down cards either
    # (they are dealt face-down).

    def describe_event(self, event: Any) -> str:
        return describe_event(event)

    def public_event(self, event: Any, state: GameState) -> dict[str, Any]:
        return public_event_to_json(event, hide_critical=_hides_critical(state))

    def waiting(self, state: GameState) -> Waiting:
        return _waiting(state, hide_critical=False)

    def public_waiting(self, state: GameState) -> Waiting:
        return _waiting(state, hide_critical=_hides_critical(state))

    def render(self, state: GameState) -> str:
        return render_table(state)

    def render_view(self, view: Mapping[str, Any]) -> str:
        return render_public_view(dict(view))

    # -- the physical table -----------------------------------------------------------------

    def mat_layout(self, options: Mapping[str, Any]) -> MatLayout:
        return MatLayout(slots_per_seat=HAND_SIZE, pad=True, deck="standard-54")

    def table_reader(self, seats: Sequence[str], grace: float) -> TableReader:
        return SixShooterReader(seats, grace=grace)

    def indicators(self, state: GameState, seats: Sequence[str]) -> Indicators:
        lights = []
        for name in seats:
            operator = state.operators.get(name)
            if operator is None:
                lights.append(SeatLights(0))
            else:
                out = operator.status is not Status.ACTIVE
                lights.append(SeatLights(min(operator.strikes, MAX_STRIKES), blinking=out))
        return Indicators("Strikes (all three blink: removed from play)", tuple(lights))

    # -- people -----------------------------------------------------------------------------

    def random_command(self, state: GameState, rng: random.Random) -> dict[str, Any] | None:
        if state.phase is Phase.FINISHED:
            return None
        return random_command(state, rng)

    def simulated_people(
        self,
        seats: Sequence[str],
        hands: TableHands,
        rng: random.Random,
        send: Callable[[dict[str, Any]], None],
        settings: PeopleSettings,
    ) -> SixShooterPeople:
        return SixShooterPeople(
            list(seats),
            hands,
            rng,
            send,
            mistake_rate=settings.mistake_rate,
            pause=settings.pause,
            challenges_per_adventure=settings.length,
        )


def _hides_critical(state: GameState) -> bool:
    return not state.options.tell_critical_numbers


def _waiting(state: GameState, hide_critical: bool) -> Waiting:
    pending = pending_to_json(state, hide_critical=hide_critical)
    phase = state.phase
    if phase is None:
        return Waiting(WaitKind.NOTHING, "no game yet: the game master starts one")
    if phase is Phase.FINISHED:
        return Waiting(WaitKind.NOTHING, "the game is over")
    if pending is None:
        if phase is Phase.BETWEEN_ADVENTURES:
            words = (
                "the game master, between adventures: grant Lucky Numbers, then start the "
                "next adventure or end the game"
            )
        else:
            words = "the game master: call a challenge, a contest or the end of the adventure"
        return Waiting(WaitKind.GAME_MASTER, words)
    words = str(pending["prompt"])
    head = state.pending[0] if state.pending else None
    if isinstance(head, PendingRoll):
        throw = DiceThrow(who=head.player, count=1)
        return Waiting(WaitKind.DICE, words, (head.player,), throw, pending)
    if isinstance(head, PendingLucky):
        return Waiting(WaitKind.CHOICE, words, (head.player,), None, pending)
    players = tuple(str(name) for name in pending.get("players", ()))
    kind = WaitKind.CARD if pending.get("type") == "reveal" else WaitKind.CHOICE
    return Waiting(kind, words, players, None, pending)


SIX_SHOOTER = SixShooter()
