"""The game interface: everything the table needs from a game, and all it may assume of one.

A game module (Six Shooter in `tabletop.rules.games.sixshooter.game`, others beside it) is a
`GameRules` object the registry (`tabletop.rules.games`) finds by name. The daemon, the replay,
`tabletop gm`, the bridge's configuration and the simulated table talk to a game only through this
interface, so none of them knows which game is on the table. Like boardgame.io's game object, a game
gives its setup (options), its moves (commands -> events), the fold (events -> state), what it waits
for, and views of its state for each audience; like OpenSpiel's chance player, the dice are an
outside party: the game says what throw it waits for, the camera (or a person) answers.

Everything here is pure: no I/O, no clock, no global random state.
"""

from __future__ import annotations

import argparse
import inspect
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from pathlib import Path
from typing import Any, Final, Generic, Protocol, TypeVar, runtime_checkable

from .errors import InvalidCommand, NoGame, quote
from .reading import Action, SlotView
from .setup import PlayerSetup


class FoldsEvents(Protocol):
    """An immutable game state: `apply(event)` returns the state after the event."""

    def apply(self, event: Any) -> Any: ...


StateT = TypeVar("StateT", bound=FoldsEvents)
EventT = TypeVar("EventT")


class EventLog(Generic[StateT, EventT]):
    """The part every engine shares: the events so far and the state folded from them.

    A game's engine subclasses it, decides a command into events, and `_record`s them; its
    state is an immutable value, so a refused command leaves nothing to undo."""

    def __init__(self, initial: StateT, events: Iterable[EventT] = ()) -> None:
        self._state = initial
        self._events: list[EventT] = []
        self._record(tuple(events))

    @property
    def events(self) -> Sequence[EventT]:
        return self._events

    @property
    def state(self) -> StateT:
        return self._state

    def _record(self, events: tuple[EventT, ...]) -> tuple[EventT, ...]:
        """Folds `events` into the state and appends them to the log; returns them."""
        state = self._state
        for event in events:
            state = state.apply(event)
        self._state = state
        self._events.extend(events)
        return events

    def resume(self, state: StateT, events: Iterable[EventT] = ()) -> None:
        """Goes on from `state`, the fold of the game's earlier events (a snapshot's), with
        `events` folded into it; `events` holds only those from then on."""
        self._state = state
        self._events = []
        self._record(tuple(events))

    def _keep(self, gathered: Gathering[StateT, EventT]) -> tuple[EventT, ...]:
        """Keeps what one command decided (`Gathering`): its events, already folded into its
        state, so they are not folded again; returns them."""
        self._state = gathered.state
        self._events.extend(gathered.events)
        return tuple(gathered.events)


class Gathering(Generic[StateT, EventT]):
    """The events one command causes, gathered while it is decided: each is folded into
    `state` at once, so the next step decides from the state the last one made."""

    def __init__(self, state: StateT) -> None:
        self.state = state
        self.events: list[EventT] = []

    def add(self, *events: EventT) -> None:
        for event in events:
            self.state = self.state.apply(event)
            self.events.append(event)


HandlerT = TypeVar("HandlerT")


def command_handler(
    command: object, handlers: Mapping[str, HandlerT], game: str, state: Any
) -> tuple[str, HandlerT]:
    """The `cmd` of a command and its handler among `handlers`; refuses what is not a command
    object or names no handler (InvalidCommand, listing the game's commands), and any command
    but `new_game` while no game is in play (NoGame; `state` has `in_play` and `over`)."""
    if not isinstance(command, Mapping):
        raise InvalidCommand("expected a command object", "cmd")
    cmd = command.get("cmd")
    handler = handlers.get(cmd) if isinstance(cmd, str) else None
    if handler is None or not isinstance(cmd, str):
        known = ", ".join(sorted(handlers))
        raise InvalidCommand(f"cmd: {game} has no command {quote(cmd)} ({known})", "cmd")
    if cmd != "new_game" and not state.in_play:
        raise NoGame(
            "the game is over: the game master starts a new one"
            if state.over
            else "there is no game yet: the game master starts one first"
        )
    return cmd, handler


# Keys any command may carry besides its own fields: the verb, and the envelope of
# `game/command` (docs/mqtt.md): the client's id, the payload version, the sender's name.
ENVELOPE_KEYS: Final = frozenset({"cmd", "id", "v", "source"})


class ReadKeys(Mapping[str, Any]):
    """A command object that notes which of its keys the game read, so that a key no rule
    looked at (a typo such as "valuse") is refused by name instead of silently ignored.

    Only the command's own keys are watched, not those of the objects inside it. Walking the
    keys (`for key in command`, `dict(command)`) counts as reading them all."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self._raw = raw
        self._read: set[str] = set(ENVELOPE_KEYS)

    def __getitem__(self, key: str) -> Any:
        self._read.add(key)
        return self._raw[key]

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self._read.add(key)
        return key in self._raw

    def __iter__(self) -> Iterator[str]:
        self._read.update(self._raw)
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def unread(self) -> list[str]:
        """The command's keys that nothing read, in the command's order."""
        return [key for key in self._raw if key not in self._read]


class UnknownKey(InvalidCommand):
    """A command held a key that its verb does not take; the first such key is `field`."""


def execute_every_key(engine: Engine, command: Any) -> tuple[Any, ...]:
    """`engine.execute(command)`, then UnknownKey if the command held a key that the game did
    not read for it (a misspelt field would otherwise be ignored, its default used).

    The check comes after the engine decided, so on UnknownKey the engine has already
    recorded the events: the caller rebuilds it from the events before (`new_engine`)."""
    if not isinstance(command, Mapping):
        return engine.execute(command)
    watched = ReadKeys(command)
    events = engine.execute(watched)
    unread = watched.unread()
    if unread:
        verb = command.get("cmd")
        verb_words = verb if isinstance(verb, str) else "this command"
        named = ", ".join(quote(key) for key in unread)
        taken = sorted(key for key in command if key not in unread and key != "cmd")
        raise UnknownKey(
            f"{named}: {verb_words} takes no such key"
            f" (it took: {', '.join(taken) or 'no key but cmd'}); nothing was done",
            unread[0],
        )
    return events


class EventCodec(Generic[EventT]):
    """The versioned JSON of a game's events, each a dataclass: `{"v", "type", field: ...}`,
    tuples as lists. `write` turns a field's value that is not plain JSON into JSON; `read`
    has, for such a field, the reader of its JSON (raising InvalidCommand naming it)."""

    def __init__(
        self,
        game: str,
        version: int,
        types: Mapping[str, type[EventT]],
        write: Callable[[Any], Any] | None = None,
        read: Mapping[str, Callable[[Any], Any]] | None = None,
    ) -> None:
        self.game = game
        self.version = version
        self.types = dict(types)
        self.names = {cls: name for name, cls in self.types.items()}
        self.write = write
        self.read = dict(read or {})

    def type_name(self, event: EventT) -> str:
        """The event's type name, as its JSON has it."""
        return self.names[type(event)]

    def to_json(self, event: EventT) -> dict[str, Any]:
        """The event as the log keeps it."""
        out: dict[str, Any] = {"v": self.version, "type": self.type_name(event)}
        for f in fields(event):  # type: ignore[arg-type]
            out[f.name] = self._out(getattr(event, f.name))
        return out

    def from_json(self, raw: dict[str, Any]) -> EventT:
        """An event from its JSON; InvalidCommand naming what is wrong if it is not one."""
        if raw.get("v") != self.version:
            raise InvalidCommand(f"v: expected event version {self.version}", "v")
        cls = self.types.get(str(raw.get("type")))
        if cls is None:
            raise InvalidCommand(f"type: not a {self.game} event: {quote(raw.get('type'))}", "type")
        values: dict[str, Any] = {}
        for f in fields(cls):  # type: ignore[arg-type]
            if f.name in raw:
                reader = self.read.get(f.name)
                values[f.name] = reader(raw[f.name]) if reader else _tuples(raw[f.name])
        try:
            return cls(**values)
        except TypeError as error:
            raise InvalidCommand(f"{raw['type']}: {error}", "type") from None

    def _out(self, value: Any) -> Any:
        if isinstance(value, tuple):
            return [self._out(v) for v in value]
        return self.write(value) if self.write is not None else value


def _tuples(value: Any) -> Any:
    """JSON lists back into the tuples events hold."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


class Engine(Protocol):
    """One table's game in play: its events and the state folded from them."""

    @property
    def events(self) -> Sequence[Any]: ...

    @property
    def state(self) -> Any: ...

    def execute(self, command: Mapping[str, Any]) -> tuple[Any, ...]:
        """The events a command causes (already folded), or a RulesError naming the rule."""
        ...


@dataclass(frozen=True, slots=True)
class Option:
    """One house rule a table may choose: its name, default, what it means, allowed values."""

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] = ()


class Scoring(Enum):
    """How the dice of one throw are read."""

    HIGHEST = "highest"
    LOWEST = "lowest"
    SUM = "sum"
    COUNT_SIXES = "count_sixes"
    EACH = "each"  # every die counts on its own (poker hands, pools kept die by die)


@dataclass(frozen=True, slots=True)
class DiceThrow:
    """A throw the game waits for: who throws, how many dice, how they are read."""

    who: str | None
    count: int
    scoring: Scoring = Scoring.HIGHEST
    rerollable: bool = False  # some dice may be kept and the others thrown again
    # How many of the `count` dice are thrown in this throw, when the game knows: `count` for
    # a fresh throw, fewer for a reroll in which the others stay where they lie (Steamfunkateers'
    # Vigor: every die not showing a six). None: the game does not say (a poker draw, where the
    # player chooses). The camera checks the tray against it.
    rethrow: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "who": self.who,
            "count": self.count,
            "scoring": self.scoring.value,
            "rerollable": self.rerollable,
        }
        if self.rethrow is not None:  # an added field: readers of version 1 may ignore it
            data["rethrow"] = self.rethrow
        return data


@dataclass(frozen=True, slots=True)
class Reroll:
    """Which dice of a throw stayed where they lay, as the camera saw it (values of each kind).

    The camera compares the resting dice with the last throw's: `kept` lay in the same place
    showing the same face, `moved` lay there but were pushed or turned, `thrown` were thrown."""

    kept: tuple[int, ...] = ()
    moved: tuple[int, ...] = ()
    thrown: tuple[int, ...] = ()


class WaitKind(Enum):
    """What kind of thing the game waits for, for any game."""

    NOTHING = "nothing"  # no game yet, or the game is over
    GAME_MASTER = "game_master"  # a call only the game master makes
    DICE = "dice"
    CARD = "card"  # a card turned, laid or lifted on the mat
    CHOICE = "choice"  # a player decides (yes/no, keep/retire, ...)


@dataclass(frozen=True, slots=True)
class Waiting:
    """What the game waits for now: in a generic form for the table, and in plain words."""

    kind: WaitKind
    words: str
    who: tuple[str, ...] = ()
    dice: DiceThrow | None = None
    # The game's own structured account of what is pending (`pending` in game/prompt).
    detail: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class MatLayout:
    """The mat a game needs: slots per seat (zones `s<seat>.<slot>`), a draw pad, which deck."""

    slots_per_seat: int
    pad: bool = False
    deck: str | None = None  # "standard-52", "standard-54" (with jokers), or None for no cards


@dataclass(frozen=True, slots=True)
class SeatLights:
    """One seat's indicator LEDs: how many are lit, and whether they blink (out of play)."""

    lit: int
    blinking: bool = False


class SlotShow(Enum):
    """What a slot's guidance LED on the mat says (any game's vocabulary; the bridge picks the
    colour, docs/mqtt.md): alerts, in blinking red, go over all of these."""

    TURN = "turn"  # these slots may be played now: whose turn it is
    RACE = "race"  # both hands race for these slots
    WON = "won"  # this slot won the race (or the contest)
    LOST = "lost"  # these slots lost it


@dataclass(frozen=True, slots=True)
class SlotLight:
    """One slot's guidance LED: 0-based seat, 1-based slot, and what it shows."""

    seat: int
    slot: int
    show: SlotShow

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "slot": self.slot, "show": self.show.value}


@dataclass(frozen=True, slots=True)
class Indicators:
    """What the seats' LEDs show in this game, and what they mean (for the docs and the UI);
    `slots`: the mat's slot LEDs a game lights (whose turn, a race and its result)."""

    meaning: str
    seats: tuple[SeatLights, ...]
    slots: tuple[SlotLight, ...] = ()


ArgumentAdder = Callable[[argparse.ArgumentParser], None]
CommandBuilder = Callable[[argparse.Namespace], dict[str, Any]]


class VerbGroup(Enum):
    """Where a game master's verb stands on the tablet: what part of the game it runs."""

    START = "Start and end"
    DICE = "Dice entered by hand"
    CARDS = "Cards and the mat"
    CHOICES = "The players' choices"
    CALLS = "The game master's calls"


# An argument whose metavar is PLAYER names one of the game's players (the tablet offers the
# seated players in a list); an argument whose dest is "player" is one too unless it says else.
PLAYER: Final = "PLAYER"
# An argument whose metavar is PLAYER_OR_ALL names one of the game's players or "all" (everyone
# at once: OS-SIX's `award` and `rest`); the tablet offers the players and "all" in its list.
PLAYER_OR_ALL: Final = "PLAYER|all"
EVERYONE: Final = "all"
# An argument whose metavar is YES_NO is a yes-or-no answer (the tablet offers two buttons).
YES_NO: Final = "yes|no"


@dataclass(frozen=True, slots=True)
class GmAction:
    """One verb of `tabletop gm`: its help, its arguments, and the command it builds."""

    verb: str
    help: str
    arguments: ArgumentAdder
    build: CommandBuilder
    # True when `build` reads files named in the arguments (a roster, a deck): fine for
    # `tabletop gm` on the game master's own machine, never for a web page (the console
    # offers such a `new` as a roster built in the page instead).
    reads_files: bool = False
    # The verb in plain words for the game master's tablet ("Enter the dice by hand"), and
    # where it stands there; `answers`: what it answers when the game waits, as the prompt
    # says it (a `waiting` kind such as "dice", or a `pending` type such as "poker_bet"), so
    # the tablet shows the prompt's own actions first.
    title: str = ""
    group: VerbGroup = VerbGroup.CALLS
    answers: tuple[str, ...] = ()
    # A label in people's words for an argument whose name would not do on a page (argument
    # dest -> label): "gm_vigor" is "the GM's starting Vigor" (`labelled`).
    labels: tuple[tuple[str, str], ...] = ()


def worded(
    actions: Iterable[GmAction], words: Mapping[str, tuple[str, VerbGroup, tuple[str, ...]]]
) -> tuple[GmAction, ...]:
    """The verbs with their plain words (title, group, what they answer) from one table per
    game; a verb without words, or words for no verb, is a mistake said at import."""
    listed = tuple(actions)
    verbs = {action.verb for action in listed}
    missing = sorted(verbs - set(words))
    extra = sorted(set(words) - verbs)
    if missing or extra:
        raise ValueError(f"plain words: verbs without words {missing}, words without verb {extra}")
    return tuple(
        replace(
            action,
            title=words[action.verb][0],
            group=words[action.verb][1],
            answers=words[action.verb][2],
        )
        for action in listed
    )


def labelled(
    actions: Iterable[GmAction], labels: Mapping[str, Mapping[str, str]]
) -> tuple[GmAction, ...]:
    """The verbs with the labels in people's words of some of their arguments (verb -> dest
    -> label); a label for no verb is a mistake said at import."""
    listed = tuple(actions)
    extra = sorted(set(labels) - {action.verb for action in listed})
    if extra:
        raise ValueError(f"labels for no verb: {extra}")
    return tuple(
        replace(action, labels=tuple(labels[action.verb].items()))
        if action.verb in labels
        else action
        for action in listed
    )


@dataclass(frozen=True, slots=True)
class Screen:
    """Where a game's own screen lies: a script (and a stylesheet) in the game's package that
    draws its seats, phase, end and seat decisions in the console's pages (the console serves
    every installed game's in /games/screens.js and /games/screens.css; docs/architecture.md,
    "Writing a game")."""

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


class TableReader(Protocol):
    """Reads a physical table for one game: mat and dice observations in, actions out.

    Its actions are `tabletop.rules.games.reading`'s `Execute`, `Alert` and `AlertCleared`; `seen`
    is what the mat last showed in each (0-based seat, 1-based slot). The reader does no I/O and
    reads no clock: callers pass `now`.

    A reader that cares when a slot is touched (a mat with touch pads) also has
    `observe_touch` (`TouchReader`); it is optional, and a reader without it never hears of
    touches (`touch_observer`)."""

    instructions: list[str]
    seen: dict[tuple[int, int], SlotView]

    def request(self, state: Any, command: dict[str, Any], now: float) -> list[Action]: ...

    def observe_slot(
        self, state: Any, seat: int, slot: int, view: SlotView, now: float
    ) -> list[Action]: ...

    def observe_pad(self, state: Any, card: Any, now: float) -> list[Action]: ...

    def observe_dice(
        self, state: Any, values: Sequence[int], now: float, reroll: Reroll | None = None
    ) -> list[Action]:
        """A throw at rest: its values, and `reroll` when the camera saw dice stay from the last."""
        ...

    def refused(self, command: dict[str, Any], error: str) -> list[Action]: ...

    def applied(self, state: Any, command: dict[str, Any], now: float) -> list[Action]: ...

    def tick(self, state: Any, now: float) -> list[Action]: ...


# The half of a split touch pad a finger reached first (docs/mat.md, "Whose hand: split pads"):
# the slot owner's side, the side across the table, or both at once.
TOUCH_SIDES = ("near", "far", "unknown")


class SnapshotReader(Protocol):
    """The optional part of a `TableReader` that reads a mat's snapshot whole: every slot it
    changed at once, judged together. Slot by slot, a fresh reader (a restarted daemon) sees a
    card not yet reported as lifted, and may read a move nobody made; a reader without it hears
    the snapshot slot by slot (`observe_slot`)."""

    def observe_slots(
        self, state: Any, views: Mapping[tuple[int, int], SlotView], now: float
    ) -> list[Action]: ...


@runtime_checkable
class TouchReader(Protocol):
    """The optional part of a `TableReader` for mats with touch pads (docs/mat-protocol.md)."""

    def observe_touch(
        self, state: Any, seat: int, slot: int, at_ms: int, now: float
    ) -> list[Action]:
        """A finger landed on (0-based seat, 1-based slot) at `at_ms`, the mat controller's
        milliseconds since its boot: compare touches by `at_ms`, not by `now` (when the
        message arrived), which carries the link's delays.

        Where the slot's pad is split, the table also passes `side=` one of `TOUCH_SIDES`
        (whose hand it was); a reader that takes no `side` is never passed one."""
        ...


def touch_observer(
    reader: TableReader,
) -> Callable[..., list[Action]] | None:
    """The reader's `observe_touch` as a call that takes the touch's `side=` (None: no side),
    handing the side on only to a reader whose `observe_touch` takes one; None for a game
    that does not use touches."""
    observe = getattr(reader, "observe_touch", None)
    if not callable(observe):
        return None
    takes_side = "side" in inspect.signature(observe).parameters

    def call(
        state: Any, seat: int, slot: int, at_ms: int, now: float, *, side: str | None = None
    ) -> list[Action]:
        if side is None or not takes_side:
            return list(observe(state, seat, slot, at_ms, now))
        return list(observe(state, seat, slot, at_ms, now, side=side))

    return call


@runtime_checkable
class TouchHands(Protocol):
    """Simulated hands that can touch a slot's pad without moving its card (a touch mat)."""

    def touch(self, seat: int, slot: int, hand: int | None = None) -> None:
        """A finger on (seat, slot); `hand` is the seat whose hand it is (None: the slot's
        owner), so a split pad feels it come from that side."""
        ...


class TableHands(Protocol):
    """What simulated hands can do at the table (`tabletop sim`); seats from 0, slots from 1."""

    def lay(self, seat: int, slot: int, card: str, face_up: bool) -> None: ...

    def lift(self, seat: int, slot: int) -> None: ...

    def flip(self, seat: int, slot: int) -> None: ...

    def lay_on_pad(self, card: str) -> None: ...

    def throw(self, values: Sequence[int]) -> None:
        """Throws dice into the tray that come to rest showing `values`."""
        ...


@runtime_checkable
class RerollHands(TableHands, Protocol):
    """Hands that can leave some dice of the last throw lying and throw only the others (the
    simulated tray renders exactly that; hands without it throw the whole tray again)."""

    def reroll(self, keep: Sequence[int], thrown: Sequence[int]) -> None:
        """Leaves the last throw's dice showing `keep` where they lie, picks up the others and
        throws them: they come to rest showing `thrown`."""
        ...


class SimulatedPeople(Protocol):
    """A game's simulated players and game master, for `tabletop sim` and tests.

    They see what people at the table see: the public state and prompt, and the alerts; they
    act with their hands (`TableHands`) and send the game master's commands."""

    mistakes_made: int
    mistakes_caught: int  # the mistakes the table's alerts made them undo

    def start_game(self, seed: int) -> None:
        """Clears the table and announces a new game (its `new_game` goes out by `send`)."""
        ...

    def replied(self, ok: bool) -> None:
        """The daemon's answer to the last command they sent."""
        ...

    def step(
        self, state: dict[str, Any] | None, prompt: dict[str, Any] | None, alerts: dict[str, str]
    ) -> bool:
        """Does the next thing a person would do now; False when there is nothing to do."""
        ...


# The key of the alert the table raises when a wait outlasts its patience
# (tabletop.daemon.waits); the people of a game may act on it, as a person hears the game
# master say "we wait for you".
WAIT_ALERT: Final = "wait"


@dataclass(frozen=True, slots=True)
class PeopleSettings:
    """How simulated people behave: how often they make a mistake the table must catch, how
    long a game runs (a game's own unit: challenges per adventure, hands of poker, ...), and
    how time passes for them (`pause(seconds)`, scaled by `tabletop sim --speed`; `react
    (seconds)`, a reaction the table times, such as a race to touch a card, which passes in
    human time whatever the speed, since the mat's clock is not sped up)."""

    mistake_rate: float = 0.02
    length: int = 12
    pause: Callable[[float], None] = lambda seconds: None
    react: Callable[[float], None] = lambda seconds: None


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
