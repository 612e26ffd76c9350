"""Six-Gun Showdown behind the game interface (`GameRules`): what the table asks."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..game import (
    Engine,
    GameInfo,
    GameRules,
    Indicators,
    MatLayout,
    Screen,
    SeatLights,
    SlotLight,
    SlotShow,
    TableReader,
    Waiting,
)
from ..setup import PlayerSetup
from .actions import GM_ACTIONS
from .decks import DECK_FORMAT, enrolment_codes, read_deck
from .engine import Game
from .events import CODEC, Event, GameStarted, event_type
from .model import OPTIONS
from .people import Gunslingers, random_command
from .reading import ShowdownReader
from .setup import known_decks, showdown_setup
from .state import GameState
from .view import describe_event, render_view, state_to_json, waiting

SEED = "003 (Six-Gun Showdown)"


class Showdown(GameRules):
    """Six-Gun Showdown (seed 003): load bullets, stare down, draw, shoot; three rounds."""

    # The player's own decisions: a Re-roll let stand, a defender's pass.
    seat_verbs = frozenset({"keep", "pass"})
    screen = Screen("tabletop.rules.games.showdown")  # screen.js, screen.css
    info = GameInfo(
        name="showdown",
        title="Six-Gun Showdown",
        version="1",  # the seed text carries no version of its own
        seed=SEED,
        options=OPTIONS,
    )
    roster_keys = ("players", "options")
    codec = CODEC
    start_event = GameStarted
    verbs = GM_ACTIONS
    people = Gunslingers

    def player_setup(self, decks_folder: Path) -> PlayerSetup | None:
        """Each gunslinger's deck, from the decks in `decks_folder` (None: there are none)."""
        return showdown_setup(known_decks(decks_folder))

    def new_engine(self, events: Sequence[Any] = ()) -> Engine:
        return Game(events)

    # -- views: the face-down bullets are the secret -----------------------------------------

    def referee_view(self, state: GameState) -> dict[str, Any]:
        return state_to_json(state)

    def public_view(self, state: GameState) -> dict[str, Any]:
        return state_to_json(state, frozenset())

    def seat_view(self, state: GameState, seat: str) -> dict[str, Any]:
        return self.your_turn(state_to_json(state, frozenset({seat})), state, seat)

    def describe_event(self, event: Event) -> str:
        return describe_event(event)

    def public_event(self, event: Event, state: GameState) -> dict[str, Any]:
        return {"type": event_type(event), "text": describe_event(event, state, public=True)}

    def waiting(self, state: GameState) -> Waiting:
        return waiting(state)

    def render_view(self, view: Mapping[str, Any]) -> str:
        return render_view(view)

    # -- the physical table: two seats of six slots, a die, three LEDs a seat ----------------

    def mat_layout(self, options: Mapping[str, Any]) -> MatLayout:
        return MatLayout(slots_per_seat=6, pad=False, deck="six-gun-showdown")

    def table_reader(self, seats: Sequence[str], grace: float) -> TableReader:
        return ShowdownReader(seats, grace)

    def indicators(self, state: GameState, seats: Sequence[str]) -> Indicators:
        # Points beyond three cannot be shown one LED each: the seat's LEDs blink instead.
        lights = []
        for name in seats:
            points = state.points.get(name, 0)
            lights.append(SeatLights(min(points, 3), blinking=points > 3))
        return Indicators(
            "points (blinking: more than three)", tuple(lights), _slot_lights(state, seats)
        )

    deck_format = DECK_FORMAT

    def deck_codes(self, raw: object, source: str) -> tuple[str, tuple[str, ...]]:
        deck = read_deck(raw, source)
        return deck.name, tuple(enrolment_codes(deck))

    def random_command(self, state: GameState, rng: random.Random) -> dict[str, Any] | None:
        if state.over and state.started:
            return None
        return random_command(state, rng)


# The prompt's light hints (`pending.lights`) as the mat's slot LEDs show them.
_SHOWS = {
    "turn": SlotShow.TURN,
    "race": SlotShow.RACE,
    "defender_first": SlotShow.WON,
    "won": SlotShow.WON,
    "lost": SlotShow.LOST,
}


def _slot_lights(state: GameState, seats: Sequence[str]) -> tuple[SlotLight, ...]:
    """Whose turn it is, the race and its result, on the slots of the players' seats."""
    detail = waiting(state).detail or {}
    out = []
    for hint in detail.get("lights", ()):
        player, show = hint["player"], _SHOWS.get(hint["show"])
        if player not in seats or show is None:
            continue
        seat = list(seats).index(player)
        out += [SlotLight(seat, slot, show) for slot in hint["slots"]]
    return tuple(out)


SHOWDOWN = Showdown()
