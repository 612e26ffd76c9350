"""High Roll: a one-die game written only for the tests, to prove the game interface.

Each round every player throws one die in seat order; the highest throw wins the round (a
tie wins nothing); the first to `target` rounds wins the game. It has no cards, so the mat
has no slots; each seat's LEDs show the rounds won. Nothing outside this file knows it: the
tests register it, and the daemon, the replay, the table reader and `tabletop gm` serve it
through `tabletop.rules.games.game` alone. docs/architecture.md, "Writing a game", walks through it.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tabletop.rules.games.errors import IllegalMove, InvalidCommand
from tabletop.rules.games.game import (
    DiceThrow,
    EventCodec,
    EventLog,
    GameInfo,
    GameRules,
    GmAction,
    Indicators,
    MatLayout,
    Option,
    Reroll,
    Screen,
    SeatLights,
    Waiting,
    WaitKind,
)
from tabletop.rules.games.people import People
from tabletop.rules.games.reading import Action, Alert, AlertCleared, DiceTrayReader, Execute

# -- 1. events: what happened, each a frozen dataclass; the codec writes and reads their JSON --


@dataclass(frozen=True, slots=True)
class Started:
    players: tuple[str, ...]
    target: int


@dataclass(frozen=True, slots=True)
class Rolled:
    player: str
    value: int


@dataclass(frozen=True, slots=True)
class RoundWon:
    player: str | None  # None: a tie, nobody wins the round


@dataclass(frozen=True, slots=True)
class GameWon:
    player: str


@dataclass(frozen=True, slots=True)
class Ended:
    pass


Event = Started | Rolled | RoundWon | GameWon | Ended
TYPES = {"started": Started, "rolled": Rolled, "round_won": RoundWon, "game_won": GameWon}
CODEC: EventCodec[Event] = EventCodec("High Roll", 1, {**TYPES, "ended": Ended})


# -- 2. state: an immutable value; `apply` folds one event into the next state ----------------


@dataclass(frozen=True, slots=True)
class State:
    players: tuple[str, ...] = ()
    target: int = 3
    wins: Mapping[str, int] = field(default_factory=dict)
    throws: tuple[int, ...] = ()  # this round's, in seat order
    winner: str | None = None
    over: bool = True  # no game yet, or the game is over

    def apply(self, event: Event) -> State:
        if isinstance(event, Started):
            return State(event.players, event.target, dict.fromkeys(event.players, 0), over=False)
        if isinstance(event, Rolled):
            return replace(self, throws=(*self.throws, event.value))
        if isinstance(event, RoundWon):
            wins = dict(self.wins)
            if event.player is not None:
                wins[event.player] += 1
            return replace(self, wins=wins, throws=())
        if isinstance(event, GameWon):
            return replace(self, winner=event.player, over=True)
        return replace(self, over=True)

    @property
    def thrower(self) -> str | None:
        if not self.players or self.over:
            return None
        return self.players[len(self.throws)]


# -- 3. the engine: a command in, the events it causes out (or a RulesError, nothing done) ----


class Engine(EventLog[State, Event]):
    def __init__(self, events: Sequence[Event] = ()) -> None:
        super().__init__(State(), events)

    def execute(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        state, out = self._state, list[Event]()
        cmd = command.get("cmd")
        if cmd == "new_game":
            players = command.get("players")
            if not isinstance(players, list) or len(players) < 2:
                raise InvalidCommand("players: expected two names or more", "players")
            names = [p["name"] if isinstance(p, dict) else p for p in players]
            if not all(isinstance(n, str) and n for n in names) or len(set(names)) < len(names):
                raise InvalidCommand("players: expected different names", "players")
            if not state.over:
                raise IllegalMove("end the game first", "game")
            target = dict(command.get("options") or {}).get("target", 3)
            out.append(Started(tuple(names), target))
        elif state.over:
            raise IllegalMove("no game: start one first", "game")
        elif cmd == "roll":
            value = command.get("value")
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
                raise InvalidCommand("value: expected a die, 1 to 6", "value")
            who = state.thrower
            if who is None or command.get("player", who) != who:
                raise IllegalMove(f"it is {who}'s throw", "turn")
            out.append(Rolled(who, value))
            throws = (*state.throws, value)
            if len(throws) == len(state.players):
                best = max(throws)
                leaders = [p for p, t in zip(state.players, throws, strict=True) if t == best]
                won = leaders[0] if len(leaders) == 1 else None
                out.append(RoundWon(won))
                if won is not None and state.wins[won] + 1 >= state.target:
                    out.append(GameWon(won))
        elif cmd == "end_game":
            out.append(Ended())
        else:
            raise InvalidCommand(f"cmd: High Roll has no command {cmd!r}", "cmd")
        return self._record(tuple(out))


# -- 4. the table reader: a throw at rest in the tray is the roll the game waits for ----------


@dataclass
class DiceReader(DiceTrayReader):
    """Reads only the dice: a throw at rest is the roll the game waits for."""

    title = "High Roll"

    def observe_dice(
        self, state: State, values: Sequence[int], now: float, reroll: Reroll | None = None
    ) -> list[Action]:
        if state.thrower is None:
            return []
        if len(values) != 1:
            return [Alert("dice", f"{state.thrower}: throw one die, not {len(values)}")]
        return [AlertCleared("dice"), Execute({"cmd": "roll", "value": values[0]})]


# -- 5. the game master's verbs for `tabletop gm` and the tablet -----------------------------


def _names(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("players", nargs="+")


def _new_game(a: argparse.Namespace) -> dict[str, Any]:
    return {"cmd": "new_game", "players": a.players}


def _value(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("value", type=int)


VERBS = (
    GmAction("new", "start High Roll", _names, _new_game),
    GmAction("roll", "enter a throw", _value, lambda a: {"cmd": "roll", "value": a.value}),
)


# -- 6. simulated people for `tabletop sim --game highroll` ----------------------------------


@dataclass
class HighRollPeople(People):
    """Players who throw one die when the prompt names them, now and then two by mistake."""

    _slipped: bool = False
    _slip_pending: Any = None  # what the table awaited when the second die went in

    def start_game(self, seed: int) -> None:
        """A game to `settings.length` rounds won (High Roll's unit of length)."""
        target = max(1, self.settings.length)
        self.send({"cmd": "new_game", "players": list(self.seats), "options": {"target": target}})

    def step(
        self, state: dict[str, Any] | None, prompt: dict[str, Any] | None, alerts: dict[str, str]
    ) -> bool:
        if state is None or prompt is None or state.get("phase") != "play":
            return False
        if prompt.get("waiting") != "dice" or state.get("pending") != prompt.get("pending"):
            return False
        if self._slipped:
            if "dice" in alerts:
                self._slipped = False
                self.mistakes_caught += 1
            elif state.get("pending") == self._slip_pending:
                return False  # a person who slipped waits to hear what the table says
            else:
                self._slipped = False  # the table moved on without a word: not caught
        dice = 1
        if self.rng.random() < self.settings.mistake_rate:
            dice, self._slipped = 2, True  # a second die in the tray: the table says so
            self._slip_pending = state.get("pending")
            self.mistakes_made += 1
        self.settings.pause(0.5)
        self.hands.throw([self.rng.randint(1, 6) for _ in range(dice)])
        return True


# -- 7. the game module: what the table asks; the views are written here -----------------------


class HighRoll(GameRules):
    info = GameInfo(
        name="highroll",
        title="High Roll",
        version="1",
        seed="none (a test game)",
        options=(Option("target", 3, "rounds to win the game"),),
    )
    codec = CODEC
    start_event = Started
    has_secrets = False  # every throw is seen by all
    verbs = VERBS
    people = HighRollPeople
    # how the console draws it: highroll.js (and highroll.css) beside this file
    screen = Screen("tests.games", script="highroll.js", style="highroll.css")

    def new_engine(self, events: Sequence[Any] = ()) -> Engine:
        return Engine(events)

    def is_over(self, state: State) -> bool:
        return state.over

    def referee_view(self, state: State) -> dict[str, Any]:
        return {
            "v": 1,
            "game": "highroll",
            "phase": "finished" if state.over else "play",
            "players": [{"name": p, "wins": state.wins.get(p, 0)} for p in state.players],
            "target": state.target,
            "throws": list(state.throws),
            "winner": state.winner,
            "pending": _pending(state),
        }

    def describe_event(self, event: Event) -> str:
        if isinstance(event, Started):
            return f"High Roll starts: {', '.join(event.players)}"
        if isinstance(event, Rolled):
            return f"{event.player} throws {event.value}"
        if isinstance(event, RoundWon):
            return f"{event.player} wins the round" if event.player else "a tie: nobody wins"
        if isinstance(event, GameWon):
            return f"{event.player} wins the game"
        return "The game is over"

    def waiting(self, state: State) -> Waiting:
        who = state.thrower
        if who is None:
            return Waiting(WaitKind.NOTHING, "the game is over" if state.players else "no game")
        throw = DiceThrow(who, 1)
        return Waiting(WaitKind.DICE, f"{who}: throw the die", (who,), throw, _pending(state))

    def render_view(self, view: Mapping[str, Any]) -> str:
        return "  ".join(f"{p['name']} {p['wins']}" for p in view.get("players", []))

    def mat_layout(self, options: Mapping[str, Any]) -> MatLayout:
        return MatLayout(slots_per_seat=0)

    def table_reader(self, seats: Sequence[str], grace: float) -> DiceReader:
        return DiceReader(seats, grace)

    def indicators(self, state: State, seats: Sequence[str]) -> Indicators:
        lights = tuple(SeatLights(state.wins.get(name, 0)) for name in seats)
        return Indicators("rounds won", lights)

    def random_command(self, state: State, rng: random.Random) -> dict[str, Any] | None:
        if state.over:
            return {"cmd": "new_game", "players": ["Ana", "Bo", "Cy"][: rng.randint(2, 3)]}
        return {"cmd": "roll", "value": rng.randint(1, 6)}


def _pending(state: State) -> dict[str, Any] | None:
    """What the game waits for, as the public state and the prompt both carry it."""
    who = state.thrower
    return None if who is None else {"type": "roll", "player": who}


HIGH_ROLL = HighRoll()
