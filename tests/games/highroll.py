"""High Roll: a one-die game written only for the tests, to prove the game interface.

Each round every player throws one die in seat order; the highest throw wins the round (a
tie wins nothing); the first to `target` rounds wins the game. It has no cards, so the mat
has no slots; each seat's LEDs show the rounds won. Nothing outside this file knows it: the
tests register it, and the daemon, the replay, the table reader and `tabletop gm` serve it
through `rules.game` alone.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rules.errors import IllegalMove, InvalidCommand
from rules.game import (
    DiceThrow,
    EventLog,
    GameInfo,
    GameRules,
    GmAction,
    Indicators,
    MatLayout,
    Option,
    PeopleSettings,
    Reroll,
    SeatLights,
    TableHands,
    Waiting,
    WaitKind,
)
from rules.reading import Action, Alert, AlertCleared, Execute, SlotView


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened: `kind` is started, rolled, round_won, game_won or ended."""

    kind: str
    player: str | None = None
    value: int | None = None
    players: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class State:
    players: tuple[str, ...] = ()
    target: int = 3
    wins: Mapping[str, int] = field(default_factory=dict)
    throws: tuple[int, ...] = ()  # this round's, in seat order
    winner: str | None = None
    over: bool = False
    started: bool = False

    def apply(self, event: Event) -> State:
        if event.kind == "started":
            return State(event.players, event.value or 3, dict.fromkeys(event.players, 0))
        if event.kind == "rolled":
            return replace(self, throws=(*self.throws, event.value or 0), started=True)
        if event.kind == "round_won":
            wins = dict(self.wins)
            if event.player is not None:
                wins[event.player] += 1
            return replace(self, wins=wins, throws=())
        if event.kind == "game_won":
            return replace(self, winner=event.player, over=True)
        return replace(self, over=True)

    @property
    def thrower(self) -> str | None:
        if not self.players or self.over:
            return None
        return self.players[len(self.throws)]


class Engine(EventLog[State, Event]):
    def __init__(self, events: Sequence[Event] = ()) -> None:
        super().__init__(State(over=True), events)

    def execute(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        state, out = self._state, []
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
            out.append(Event("started", value=target, players=tuple(names)))
        elif state.over:
            raise IllegalMove("no game: start one first", "game")
        elif cmd == "roll":
            value = command.get("value")
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
                raise InvalidCommand("value: expected a die, 1 to 6", "value")
            who = state.thrower
            if command.get("player", who) != who:
                raise IllegalMove(f"it is {who}'s throw", "turn")
            out.append(Event("rolled", who, value))
            throws = (*state.throws, value)
            if len(throws) == len(state.players):
                best = max(throws)
                leaders = [p for p, t in zip(state.players, throws, strict=True) if t == best]
                won = leaders[0] if len(leaders) == 1 else None
                out.append(Event("round_won", won))
                if won is not None and state.wins[won] + 1 >= state.target:
                    out.append(Event("game_won", won))
        elif cmd == "end_game":
            out.append(Event("ended"))
        else:
            raise InvalidCommand(f"cmd: High Roll has no command {cmd!r}", "cmd")
        return self._record(tuple(out))


@dataclass
class DiceReader:
    """Reads only the dice: a throw at rest is the roll the game waits for."""

    seats: Sequence[str]
    grace: float = 1.0
    instructions: list[str] = field(default_factory=list)
    seen: dict[tuple[int, int], SlotView] = field(default_factory=dict)

    def request(self, state: Any, command: dict[str, Any], now: float) -> list[Action]:
        return [Execute(command)]

    def observe_slot(
        self, state: Any, seat: int, slot: int, view: SlotView, now: float
    ) -> list[Action]:
        return []

    def observe_pad(self, state: Any, card: Any, now: float) -> list[Action]:
        return [Alert("pad", "High Roll uses no cards: take the card off the pad")]

    def observe_dice(
        self, state: State, values: Sequence[int], now: float, reroll: Reroll | None = None
    ) -> list[Action]:
        if state.thrower is None:
            return []
        if len(values) != 1:
            return [Alert("dice", f"{state.thrower}: throw one die, not {len(values)}")]
        return [AlertCleared("dice"), Execute({"cmd": "roll", "value": values[0]})]

    def refused(self, command: dict[str, Any], error: str) -> list[Action]:
        return [Alert("refused", error)]

    def applied(self, state: Any, command: dict[str, Any], now: float) -> list[Action]:
        return []

    def tick(self, state: Any, now: float) -> list[Action]:
        return []


class HighRoll(GameRules):
    info = GameInfo(
        name="highroll",
        title="High Roll",
        version="1",
        seed="none (a test game)",
        options=(Option("target", 3, "rounds to win the game"),),
    )

    def new_engine(self, events: Sequence[Any] = ()) -> Engine:
        return Engine(events)

    def event_to_json(self, event: Event) -> dict[str, Any]:
        return {
            "type": event.kind,
            "player": event.player,
            "value": event.value,
            "players": list(event.players),
        }

    def event_from_json(self, raw: Mapping[str, Any]) -> Event:
        if raw.get("type") not in ("started", "rolled", "round_won", "game_won", "ended"):
            raise InvalidCommand(f"not a High Roll event: {raw.get('type')!r}")
        return Event(raw["type"], raw.get("player"), raw.get("value"), tuple(raw["players"]))

    def starts_game(self, event: Event) -> bool:
        return event.kind == "started"

    def is_over(self, state: State) -> bool:
        return state.over

    def referee_view(self, state: State) -> dict[str, Any]:
        return {
            "v": 1,
            "game": "highroll",
            "phase": "finished" if state.over else "play",
            "players": [{"name": p, "wins": state.wins.get(p, 0)} for p in state.players],
            "throws": list(state.throws),
            "winner": state.winner,
            "pending": _pending(state),
        }

    def public_view(self, state: State) -> dict[str, Any]:
        return self.referee_view(state)

    def seat_view(self, state: State, seat: str) -> dict[str, Any]:
        return {**self.public_view(state), "seat": seat, "your_turn": state.thrower == seat}

    def describe_event(self, event: Event) -> str:
        if event.kind == "started":
            return f"High Roll starts: {', '.join(event.players)}"
        if event.kind == "rolled":
            return f"{event.player} throws {event.value}"
        if event.kind == "round_won":
            return f"{event.player} wins the round" if event.player else "a tie: nobody wins"
        if event.kind == "game_won":
            return f"{event.player} wins the game"
        return "The game is over"

    def public_event(self, event: Event, state: State) -> dict[str, Any]:
        return {"type": event.kind, "text": self.describe_event(event)}

    def waiting(self, state: State) -> Waiting:
        who = state.thrower
        if who is None:
            return Waiting(WaitKind.NOTHING, "the game is over" if state.players else "no game")
        throw = DiceThrow(who, 1)
        return Waiting(WaitKind.DICE, f"{who}: throw the die", (who,), throw, _pending(state))

    def render(self, state: State) -> str:
        return self.render_view(self.public_view(state))

    def render_view(self, view: Mapping[str, Any]) -> str:
        return "  ".join(f"{p['name']} {p['wins']}" for p in view.get("players", []))

    def mat_layout(self, options: Mapping[str, Any]) -> MatLayout:
        return MatLayout(slots_per_seat=0)

    def table_reader(self, seats: Sequence[str], grace: float) -> DiceReader:
        return DiceReader(seats, grace)

    def indicators(self, state: State, seats: Sequence[str]) -> Indicators:
        return Indicators(
            "rounds won", tuple(SeatLights(state.wins.get(name, 0)) for name in seats)
        )

    def gm_actions(self) -> tuple[GmAction, ...]:
        def new_arguments(parser: argparse.ArgumentParser) -> None:
            parser.add_argument("players", nargs="+")

        def roll_arguments(parser: argparse.ArgumentParser) -> None:
            parser.add_argument("value", type=int)

        return (
            GmAction(
                "new",
                "start High Roll",
                new_arguments,
                lambda a: {"cmd": "new_game", "players": a.players},
            ),
            GmAction(
                "roll", "enter a throw", roll_arguments, lambda a: {"cmd": "roll", "value": a.value}
            ),
        )

    def random_command(self, state: State, rng: random.Random) -> dict[str, Any] | None:
        if state.over:
            return {"cmd": "new_game", "players": ["Ana", "Bo", "Cy"][: rng.randint(2, 3)]}
        return {"cmd": "roll", "value": rng.randint(1, 6)}

    def simulated_people(
        self,
        seats: Sequence[str],
        hands: TableHands,
        rng: random.Random,
        send: Callable[[dict[str, Any]], None],
        settings: PeopleSettings,
    ) -> HighRollPeople:
        return HighRollPeople(tuple(seats), hands, rng, send, settings)


def _pending(state: State) -> dict[str, Any] | None:
    """What the game waits for, as the public state and the prompt both carry it."""
    who = state.thrower
    return None if who is None else {"type": "roll", "player": who}


@dataclass
class HighRollPeople:
    """Players who throw one die when the prompt names them, now and then two by mistake."""

    seats: tuple[str, ...]
    hands: TableHands
    rng: random.Random
    send: Callable[[dict[str, Any]], None]
    settings: PeopleSettings
    mistakes_made: int = 0
    mistakes_caught: int = 0
    _slipped: bool = False

    def start_game(self, seed: int) -> None:
        """A game to `settings.length` rounds won (High Roll's unit of length)."""
        target = max(1, self.settings.length)
        self.send({"cmd": "new_game", "players": list(self.seats), "options": {"target": target}})

    def replied(self, ok: bool) -> None:
        pass  # the people only throw dice; their one command is the new game

    def step(
        self, state: dict[str, Any] | None, prompt: dict[str, Any] | None, alerts: dict[str, str]
    ) -> bool:
        if state is None or prompt is None or state.get("phase") != "play":
            return False
        if prompt.get("waiting") != "dice" or state.get("pending") != prompt.get("pending"):
            return False
        if self._slipped and "dice" in alerts:
            self._slipped = False
            self.mistakes_caught += 1
        dice = 1
        if self.rng.random() < self.settings.mistake_rate:
            dice, self._slipped = 2, True  # a second die in the tray: the table says so
            self.mistakes_made += 1
        self.settings.pause(0.5)
        self.hands.throw([self.rng.randint(1, 6) for _ in range(dice)])
        return True


HIGH_ROLL = HighRoll()
