"""The game interface: everything the table needs from a game, and all it may assume of one.

A game module (Six Shooter in `tabletop.rules.games.sixshooter.game`, others beside it) is a
`GameRules` object the registry (`tabletop.rules.games`) finds by name. The daemon, the replay,
`tabletop gm`, the bridge's configuration and the simulated table talk to a game only through this
interface, so none of them knows which game is on the table. Like boardgame.io's game object, a game
gives its setup (options), its moves (commands -> events), the fold (events -> state), what it waits
for, and views of its state for each audience; like OpenSpiel's chance player, the dice are an
outside party: the game says what throw it waits for, the camera (or a person) answers.

The interface is gathered here from small modules, each one idea, and a game's package
imports it from here: `log` (the engine's event log, the verbs' dispatch, the events' JSON),
`waits` (what a game waits for), `physical` (the mat's layout, the LEDs, the table's reader),
`verbs` (the game master's verbs), `hands` (the simulated people and their hands); this file
holds the game object itself (`GameRules`), its description and its screen.

Everything here is pure: no I/O, no clock, no global random state.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import InvalidCommand
from .hands import (
    WAIT_ALERT,
    PeopleSettings,
    RerollHands,
    SimulatedPeople,
    TableHands,
    TouchHands,
)
from .log import (
    ENVELOPE_KEYS,
    Engine,
    EventCodec,
    EventLog,
    FoldsEvents,
    Gathering,
    ReadKeys,
    UnknownKey,
    command_handler,
    execute_every_key,
)
from .physical import (
    TOUCH_SIDES,
    Indicators,
    MatLayout,
    SeatLights,
    SlotLight,
    SlotShow,
    SnapshotReader,
    TableReader,
    TouchReader,
    touch_observer,
)
from .setup import PlayerSetup
from .verbs import (
    EVERYONE,
    PLAYER,
    PLAYER_OR_ALL,
    YES_NO,
    ArgumentAdder,
    CommandBuilder,
    GmAction,
    VerbGroup,
    labelled,
    worded,
)
from .waits import (
    DiceThrow,
    Reroll,
    Scoring,
    Waiting,
    WaitKind,
)

# The game interface, gathered: what a game's package imports from here (the parts live in the
# modules beside this one: log, waits, physical, verbs, hands).
__all__ = [
    "ENVELOPE_KEYS",
    "EVERYONE",
    "PLAYER",
    "PLAYER_OR_ALL",
    "TOUCH_SIDES",
    "WAIT_ALERT",
    "YES_NO",
    "ArgumentAdder",
    "CommandBuilder",
    "DiceThrow",
    "Engine",
    "EventCodec",
    "EventLog",
    "FoldsEvents",
    "GameInfo",
    "GameRules",
    "Gathering",
    "GmAction",
    "Indicators",
    "MatLayout",
    "Option",
    "PeopleSettings",
    "ReadKeys",
    "Reroll",
    "RerollHands",
    "Scoring",
    "Screen",
    "SeatLights",
    "SimulatedPeople",
    "SlotLight",
    "SlotShow",
    "SnapshotReader",
    "TableHands",
    "TableReader",
    "TouchHands",
    "TouchReader",
    "UnknownKey",
    "VerbGroup",
    "WaitKind",
    "Waiting",
    "command_handler",
    "execute_every_key",
    "labelled",
    "touch_observer",
    "worded",
]


@dataclass(frozen=True, slots=True)
class Option:
    """One house rule a table may choose: its name, default, what it means, allowed values."""

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class Screen:
    """Where a game's own screen lies: a script (and a stylesheet) in the game's package that
    draws its seats, phase, end and seat decisions in the console's pages (the console serves
    each installed game's as /games/NAME/screen.js and /games/NAME/screen.css;
    docs/architecture.md, "Writing a game")."""

    package: str  # the package the files lie in (the game's own: `__package__`)
    script: str = "screen.js"
    style: str | None = "screen.css"  # None: the game's screen needs no rules of its own


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game as `tabletop games` lists it."""

    name: str
    title: str
    version: str
    seed: str
    options: tuple[Option, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "version": self.version,
            "seed": self.seed,
            "options": [
                {
                    "name": o.name,
                    "default": o.default,
                    "help": o.help,
                    **({"choices": list(o.choices)} if o.choices else {}),
                }
                for o in self.options
            ],
        }


class GameRules(ABC):
    """A game module: what the table asks of a game. Subclass it, and register the instance."""

    info: GameInfo
    # The keys a roster file for a new game may have (`tabletop gm new ROSTER`).
    roster_keys: tuple[str, ...] = ("players", "seed", "options")
    # The verbs a player decides for themselves, which their own seat's phone may send
    # (src/tabletop/daemon/seat_commands.py checks the rest); none: the game master enters
    # all.
    seat_verbs: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        return self.info.name

    # -- setup ------------------------------------------------------------------------------

    def read_options(self, raw: object, where: str = "options") -> dict[str, Any]:
        """The options as plain JSON values with defaults filled in; a bad key or value is an
        InvalidCommand naming it (`rules.options.cap`)."""
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise InvalidCommand(f"{where}: expected a table of options", field=where)
        known = {option.name: option for option in self.info.options}
        out: dict[str, Any] = {}
        for key, value in raw.items():
            option = known.get(key)
            if option is None:
                names = ", ".join(sorted(known)) or "none"
                raise InvalidCommand(
                    f"{where}.{key}: {self.info.title} has no such option (it has: {names})",
                    field=f"{where}.{key}",
                )
            out[key] = self.check_option(option, value, f"{where}.{key}")
        return {o.name: out.get(o.name, o.default) for o in self.info.options}

    def check_option(self, option: Option, value: Any, where: str) -> Any:
        """One option's value, checked against its default's type and its choices."""
        default = option.default
        if isinstance(default, bool) != isinstance(value, bool) or not isinstance(
            value, type(default)
        ):
            raise InvalidCommand(
                f"{where}: expected {type(default).__name__}, got {value!r}", field=where
            )
        if option.choices and value not in option.choices:
            allowed = ", ".join(repr(c) for c in option.choices)
            raise InvalidCommand(f"{where}: expected one of {allowed}, got {value!r}", field=where)
        return value

    # -- moves and the fold -----------------------------------------------------------------

    # The `EventCodec` of a game whose events are dataclasses: the default `event_to_json` and
    # `event_from_json` use it. A game that writes its events' JSON itself leaves it None.
    codec: EventCodec[Any] | None = None
    # The event type a new game begins with: the default `starts_game` looks for it.
    start_event: type[Any] | None = None

    @abstractmethod
    def new_engine(self, events: Sequence[Any] = ()) -> Engine:
        """An engine with these events already folded (none: no game yet)."""

    def resume_engine(self, state: Any, events: Sequence[Any] = ()) -> Engine:
        """An engine that goes on from `state`, the fold of the game's earlier events (a
        snapshot's), with `events` folded on; its `events` are only these. Default: for an
        engine built on `EventLog` (whose state is an immutable value)."""
        engine = self.new_engine()
        if not isinstance(engine, EventLog):
            raise NotImplementedError(f"{self.info.title}: write `resume_engine`")
        engine.resume(state, events)
        return engine

    def event_to_json(self, event: Any) -> dict[str, Any]:
        """The event as the log keeps it (default: by the game's `codec`)."""
        return self._codec().to_json(event)

    def event_from_json(self, raw: Mapping[str, Any]) -> Any:
        """An event from its JSON; a RulesError if it is not one of this game's (default: by
        the game's `codec`)."""
        return self._codec().from_json(dict(raw))

    def _codec(self) -> EventCodec[Any]:
        if self.codec is None:
            raise NotImplementedError(f"{self.info.title}: set `codec` or write the events' JSON")
        return self.codec

    def starts_game(self, event: Any) -> bool:
        """True for the event a new game begins with (refusals are counted per game); default:
        an event of the game's `start_event` type."""
        if self.start_event is None:
            raise NotImplementedError(f"{self.info.title}: set `start_event` or `starts_game`")
        return isinstance(event, self.start_event)

    def is_over(self, state: Any) -> bool:
        """True when no game is being played (none yet, or finished): another may start.
        Default: the state's `in_play` is false (the state `command_handler` reads)."""
        return not state.in_play

    # -- views ------------------------------------------------------------------------------

    # False for a game in which nothing is hidden from anyone (no face-down card, no secret):
    # then the public view is the referee's, and an event is told to anyone as to the game
    # master. A game with secrets keeps True and writes `public_view` and `public_event`.
    has_secrets: bool = True

    @abstractmethod
    def referee_view(self, state: Any) -> dict[str, Any]:
        """Everything (`referee/state`, `tabletop replay --json`): every hidden card too."""

    def public_view(self, state: Any) -> dict[str, Any]:
        """What anyone at the table may see (`game/state`): no face-down card, no secret.
        Default, for a game without secrets only: the referee's view."""
        self._without_secrets("public_view")
        return self.referee_view(state)

    def seat_view(self, state: Any, seat: str) -> dict[str, Any]:
        """What one player may see: the public view and that player's own secrets (default:
        the public view, `your_turn`ed)."""
        return self.your_turn(self.public_view(state), state, seat)

    def your_turn(self, view: Mapping[str, Any], state: Any, seat: str) -> dict[str, Any]:
        """A view for one seat: `view`, the seat, and whether the game waits on that seat."""
        return {**view, "seat": seat, "your_turn": seat in self.public_waiting(state).who}

    @abstractmethod
    def describe_event(self, event: Any) -> str:
        """An event in plain words, for the game master (may name hidden things)."""

    def public_event(self, event: Any, state: Any) -> dict[str, Any]:
        """An event as anyone may see it: {"type": ..., "text": ...}, naming nothing hidden.
        Default, for a game without secrets only: its JSON type and `describe_event`."""
        self._without_secrets("public_event")
        return {"type": self.event_to_json(event)["type"], "text": self.describe_event(event)}

    def _without_secrets(self, what: str) -> None:
        if self.has_secrets:
            raise NotImplementedError(
                f"{self.info.title} has secrets (has_secrets): it writes its own {what}"
            )

    @abstractmethod
    def waiting(self, state: Any) -> Waiting:
        """What the game waits for now, as the game master may see it."""

    def public_waiting(self, state: Any) -> Waiting:
        """What the game waits for, as anyone may see it (default: the same as `waiting`)."""
        return self.waiting(state)

    def render(self, state: Any) -> str:
        """The table as text, for a terminal (`tabletop replay`); default: `render_view` of
        the referee's view."""
        return self.render_view(self.referee_view(state))

    @abstractmethod
    def render_view(self, view: Mapping[str, Any]) -> str:
        """The table as text from its public view (`tabletop gm state`, which reads MQTT)."""

    # -- the physical table -----------------------------------------------------------------

    @abstractmethod
    def mat_layout(self, options: Mapping[str, Any]) -> MatLayout: ...

    @abstractmethod
    def table_reader(self, seats: Sequence[str], grace: float) -> TableReader: ...

    @abstractmethod
    def indicators(self, state: Any, seats: Sequence[str]) -> Indicators:
        """What each seat's LEDs show now."""

    # A game with decks of its own (not playing cards) names its deck files' "format" here.
    deck_format: str | None = None

    # -- the console ------------------------------------------------------------------------

    # The game's own drawing in the console's pages (None: the console draws each player's
    # name, LEDs and slots, and the state as it comes).
    screen: Screen | None = None

    def deck_codes(self, raw: object, source: str) -> tuple[str, tuple[str, ...]]:
        """A parsed deck file of this game's own cards: (the deck's name, its cards' codes
        `deck/id` in the file's order), what enrolment tags (`tabletop cards enrol --deck`).
        Raises InvalidCommand naming `source` and the key."""
        raise InvalidCommand(f"{source}: {self.info.title} has no decks of its own", "deck")

    # -- people -----------------------------------------------------------------------------

    # The game master's verbs (the default `gm_actions`), and the class of the game's
    # simulated people, made as `people(seats, hands, rng, send, settings)` (the default
    # `simulated_people`; `tabletop.rules.games.people.People` holds what every such class keeps).
    verbs: tuple[GmAction, ...] = ()
    people: Callable[..., SimulatedPeople] | None = None

    def gm_actions(self) -> tuple[GmAction, ...]:
        """The game master's verbs for `tabletop gm` (besides new, send, state and follow)."""
        return self.verbs

    def player_setup(self, decks_folder: Path) -> PlayerSetup | None:
        """What each player chooses when the game starts from names on a page, with legal
        defaults (src/tabletop/rules/games/setup.py); None: the game's `new` takes names as they
        are. `decks_folder`: where the table's deck files lie, for a game whose players pick one."""
        return None

    @abstractmethod
    def random_command(self, state: Any, rng: random.Random) -> dict[str, Any] | None:
        """A random, usually legal, command (None when the game is over): for tests and
        benchmarks."""

    def simulated_people(
        self,
        seats: Sequence[str],
        hands: TableHands,
        rng: random.Random,
        send: Callable[[dict[str, Any]], None],
        settings: PeopleSettings,
    ) -> SimulatedPeople:
        """People who play this game at a simulated table (`tabletop sim --game NAME`)."""
        if self.people is None:
            raise NotImplementedError(f"{self.info.title} has no simulated people yet")
        return self.people(seats, hands, rng, send, settings)
