"""The game's log: commands in, events out, the state folded from them.

A game's engine keeps its events in an `EventLog` and folds an immutable state from them;
`command_handler` picks a verb's handler, `ReadKeys` and `execute_every_key` refuse a key a
command's handler did not read, and `EventCodec` writes and reads the events' versioned JSON.
Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import fields
from typing import Any, Final, Generic, Protocol, TypeVar

from .errors import InvalidCommand, NoGame, quote


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
    but `new_game` while no game is in play (NoGame; `state` has `in_play` and `started`)."""
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
            if state.started
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
