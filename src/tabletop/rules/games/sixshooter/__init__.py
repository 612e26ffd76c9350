"""Six Shooter v0.03: the engine, its commands and events, and views of its state.

game = Game()
game.execute({"cmd": "new_game", "players": [...], "seed": 1})
state_to_json(game.state)
"""

from .commands import Command, parse_command
from .engine import Game
from .events import Event, event_from_json, event_name, event_to_json
from .model import Descriptor, Method, Options, Outcome, Phase, SlotState, Status
from .state import GameState
from .view import (
    describe_event,
    pending_to_json,
    public_event_to_json,
    public_state_to_json,
    render_table,
    state_to_json,
)

__all__ = [
    "Command",
    "Descriptor",
    "Event",
    "Game",
    "GameState",
    "Method",
    "Options",
    "Outcome",
    "Phase",
    "SlotState",
    "Status",
    "describe_event",
    "event_from_json",
    "event_name",
    "event_to_json",
    "parse_command",
    "pending_to_json",
    "public_event_to_json",
    "public_state_to_json",
    "render_table",
    "state_to_json",
]
