"""Steamfunkateers behind the game interface (`GameRules`): what the table asks of it."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..game import (
    Engine,
    GameInfo,
    GameRules,
    Indicators,
    MatLayout,
    Option,
    Screen,
    SeatLights,
    TableReader,
    Waiting,
)
from .actions import GM_ACTIONS
from .engine import Game, throw_pending
from .events import CODEC, Event, GameStarted
from .model import CONTEST_WINS
from .people import SimulatedTable, dice_command, gm_command, new_game_command
from .reading import DiceReader
from .state import GameState
from .view import describe_event, render_view, state_to_json, waiting


class Steamfunkateers(GameRules):
    """Steamfunkateers, page 2 of the rules (seed 004): pools of sixes, Vigor, contests."""

    # The player's own decision: a Vigor spent to fold.
    seat_verbs = frozenset({"fold"})
    screen = Screen("tabletop.rules.games.steamfunkateers")  # screen.js, screen.css
    info = GameInfo(
        name="steamfunkateers",
        title="Steamfunkateers",
        version="page 2",
        seed="004 (Steamfunkateers, page 2 of the rules)",
        options=(
            Option(
                "starting_vigor",
                0,
                'Vigor each player begins with ("the GM may opt to give players a small number '
                'of points of Vigor to begin play")',
            ),
            Option("gm_vigor", 0, "Vigor the game master begins with (the page names none)"),
            Option(
                "vigor_once_per_roll",
                True,
                'one Vigor spend per roll, an extra die or a reroll ("You can only spend a '
                'point of Vigor once for each roll"); false: the sentence limits rerolls only, '
                "and a roll may have both",
            ),
            Option(
                "fold_after_failed_throw",
                False,
                "a player may fold after her own throw failed, before keeping it (default no: "
                'a fold removes the character "from the risks" of the action, and once her dice '
                "failed the risk has come)",
            ),
        ),
    )
    roster_keys = ("players", "options")
    codec = CODEC
    start_event = GameStarted
    has_secrets = False  # nothing in this game is hidden
    verbs = GM_ACTIONS
    people = SimulatedTable

    def new_engine(self, events: Sequence[Any] = ()) -> Engine:
        return Game(events)

    def referee_view(self, state: GameState) -> dict[str, Any]:
        return state_to_json(state)

    def describe_event(self, event: Event) -> str:
        return describe_event(event)

    def waiting(self, state: GameState) -> Waiting:
        return waiting(state)

    def render_view(self, view: Mapping[str, Any]) -> str:
        return render_view(view)

    # -- the physical table: no cards, the dice tray and three LEDs a seat -----------------

    def mat_layout(self, options: Mapping[str, Any]) -> MatLayout:
        return MatLayout(slots_per_seat=0)

    def table_reader(self, seats: Sequence[str], grace: float) -> TableReader:
        return DiceReader(seats, grace)

    def indicators(self, state: GameState, seats: Sequence[str]) -> Indicators:
        wins = state.contest.wins if state.contest is not None else {}
        return Indicators(
            f"contest victories (the first to {CONTEST_WINS} wins the contest)",
            tuple(SeatLights(min(wins.get(name, 0), CONTEST_WINS)) for name in seats),
        )

    def random_command(self, state: GameState, rng: random.Random) -> dict[str, Any] | None:
        if not state.started:
            return new_game_command(rng)
        if state.over:
            return None
        view = state_to_json(state)
        if throw_pending(state):
            return dice_command(view, rng)
        return gm_command(view, rng)


STEAMFUNKATEERS = Steamfunkateers()
