"""The referee of one table: reads command payloads, applies them, keeps the durable log.

This is the daemon without the network: `handle(payload)` decides one command in memory (and
queues it for the log); `commit()` writes every queued command in one transaction. The daemon
publishes nothing about a command before `commit()` returned, so an acknowledged command is
always on disk. Payloads are untrusted bytes: every way they can be wrong ends in a refusal
with a message, never in an exception.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

from tabletop.rules import games
from tabletop.rules.games.errors import IllegalMove, InvalidCommand, RulesError
from tabletop.rules.games.game import (
    ENVELOPE_KEYS,
    Engine,
    GameRules,
    UnknownKey,
    Waiting,
    execute_every_key,
)
from tabletop.rules.games.refusals import Refusals, short_error
from tabletop.rules.games.snapshots import FORMAT as SNAPSHOT_FORMAT
from tabletop.rules.games.snapshots import SnapshotError, dump_state, load_state
from tabletop.wire.payload import (
    MAX_PAYLOAD_BYTES,
    PayloadError,
    check_value,
    read_command,
    whole_number,
)

from .fingerprint import fingerprint
from .store import CommandRecord, GameLog, Snapshot, StoreError

log = logging.getLogger(__name__)
# `Referee.handle`'s `read` when the caller has not read the payload: it reads it itself.
NOT_READ: Final = object()

PROTOCOL_VERSION: Final = 1
# The game of a log written before tables hosted more than one game.
LEGACY_GAME: Final = "sixshooter"
MAX_ID_LENGTH: Final = 128
# The game master's command that takes the last applied command of the game back.
UNDO: Final = "undo"
# A refused payload is kept in the log only as its first characters: enough to see what was
# sent, never a way to fill the disk.
LOGGED_PAYLOAD_CHARS: Final = 2000
# A reply is final for its id (docs/mqtt.md, "Ids"), except that of a command the engine
# failed on: that is a bug, and the same command sent again (to a fixed daemon) is decided again.
RETRYABLE_KINDS: Final = frozenset({"internal", "storage"})
# A snapshot of the table's state goes into the log with the batch that reaches this many
# commands after the last one, so a restart folds fewer than this many a table. Measured
# (docs/benchmarks.md, "Restart"): a command folds in about 175 µs on a busy 2-core machine,
# so a room of 40 tables, each just short of its next snapshot, folds 40 x 98 commands in
# 0.7 s (with 250: 1.7 s); a snapshot (2 KB here) takes about 0.5 ms to build, 5 µs a command.
SNAPSHOT_EVERY: Final = 100


@dataclass(frozen=True, slots=True)
class TakenBack:
    """A command an `undo` took back: its seq and the events it had caused."""

    seq: int
    events: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one payload: the reply to publish and the events to announce."""

    reply: dict[str, Any]
    events: tuple[Any, ...] = ()
    events_json: tuple[dict[str, Any], ...] = ()
    first_event_number: int = 0
    duplicate: bool = False
    # A seat's command: the seat number whose phone sent it
    # (src/tabletop/daemon/seat_commands.py).
    seat: int | None = None
    # An `undo`: the command taken back, with its events, to tell the table what was undone.
    undone: TakenBack | None = None

    @property
    def ok(self) -> bool:
        return bool(self.reply.get("ok"))


class _Refusal(Exception):
    """Internal: a payload refused before it reached the engine."""

    def __init__(self, kind: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.field = field


class Referee:
    """One table's game, its refusals and its id index, backed by a GameLog.

    The table plays one game at a time; a `new_game` may name another (`"game": NAME`, by
    default the table's game), which replaces the finished one. `options` are the table's
    house rules for its own game: a `new_game` without options gets them.
    """

    def __init__(
        self,
        log_: GameLog,
        game: str = games.DEFAULT_GAME,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.log = log_
        self.table_game = game
        self.table_options = options
        self.rules: GameRules = games.get(game)
        self.game: Engine = self.rules.new_engine()
        self.refusals = Refusals()
        # The replies to the ids decided (or asked again) since the log was read; `known_ids`:
        # every id the log held then, whose reply is read from the log when it comes again.
        self.replies_by_id: dict[str, dict[str, Any]] = {}
        self.known_ids: set[str] = set()
        self.last_seq = 0
        self.snapshot_every = SNAPSHOT_EVERY
        # Whether any game began in the log (a log from before games had names holds Six
        # Shooter's events from its first one).
        self._started = False
        # The current game's events before the engine's own (those a snapshot folded), and
        # that snapshot's state, to rebuild the engine from when a command is taken back.
        self._event_base = 0
        self._base: bytes | None = None
        self._unsaved: list[CommandRecord] = []
        # The current game's applied commands that an `undo` may take back, latest last:
        # (seq, how many events), those after the engine's base (a snapshot) only.
        self._undoable: list[tuple[int, int]] = []
        # Numbers told and then taken back (the events an undo took back, and its own line):
        # an event's number is never told twice in a game, so the pages' lists stay in order.
        self._told = 0

    @property
    def table(self) -> str:
        return self.log.table

    def load(self, *, from_snapshot: bool = True) -> None:
        """Rebuilds the game, the refusals and the id index from the log: from the table's
        latest snapshot and the commands after it, or, when there is none this code can read,
        from every command (and then writes a snapshot, so the next start is quick).

        What the log holds never stops a table from starting: records the store could not
        read are skipped (it says so), and a game whose events stop replaying is rebuilt up
        to the last event that does, with an error in the daemon's log.
        """
        snapshot = self.log.snapshot() if from_snapshot else None
        if snapshot is not None:
            try:
                self._load(snapshot)
            except Exception as error:  # any snapshot, any bytes: the log is the record
                log.warning(
                    "table %s: its snapshot at command %d is not used (%s); the whole log is read",
                    self.table,
                    snapshot.seq,
                    error,
                )
                snapshot = None
        if snapshot is None:
            self._load(None)
        self._unsaved.clear()
        if self.snapshot_every and self.last_seq - self.log.snapshot_seq >= self.snapshot_every:
            try:
                self.log.write_snapshot(self._snapshot())
            except (StoreError, SnapshotError) as error:
                log.warning("table %s: no snapshot written: %s", self.table, error)

    def _load(self, snapshot: Snapshot | None) -> None:
        """`load` from a snapshot (SnapshotError, or any error of its state, if it cannot be
        used) or from the whole log (None)."""
        base: bytes | None = None
        base_state: Any = None
        if snapshot is None:
            rules = games.get(self.table_game)
            refusals = Refusals()
            started, event_base, last_seq = False, 0, 0
        else:
            rules = games.get(snapshot.meta.get("game"))
            if snapshot.format != SNAPSHOT_FORMAT or snapshot.fingerprint != fingerprint(rules):
                raise SnapshotError("it was written by other code")
            base_state = load_state(snapshot.state, rules)
            base = snapshot.state
            refusals = _refusals_from(snapshot.meta)
            started = bool(snapshot.meta["started"])
            event_base = int(snapshot.meta["game_events"])
            last_seq = snapshot.seq
        events: list[Any] = []
        undoable: list[tuple[int, int]] = []
        told = 0
        known_ids = self.log.command_ids()
        for record in self.log.records(snapshot):
            last_seq = record.seq
            undid = record.reply.get("undid") if record.ok else None
            if undid is not None:
                if not undoable or undoable[-1][0] != undid:
                    if snapshot is not None:  # it took back a command the snapshot holds
                        raise SnapshotError(f"command {record.seq} took back one before it")
                    log.error(
                        "table %s: command %s took back command %s, which is not the last "
                        "one applied; skipped",
                        self.table,
                        record.seq,
                        undid,
                    )
                    continue
                _, count = undoable.pop()
                del events[len(events) - count :]
                told += count + 1
                continue
            named = record.reply.get("game") if record.ok else None
            if named is not None or (not started and record.events_json):
                # A new game (its reply names it; a log from before games had names holds
                # Six Shooter's): another game's events start a new engine.
                try:
                    game_rules = games.get(named if named is not None else LEGACY_GAME)
                except RulesError as error:
                    log.error("table %s: command %s: %s", self.table, record.seq, error)
                    continue
                if game_rules is not rules or not started:
                    rules, events, started = game_rules, [], True
                    base, base_state, event_base = None, None, 0
                    undoable, told = [], 0
            decoded = self._decode(rules, record)
            events.extend(decoded)
            if not record.ok:
                refusals.add(record.seq, str(record.reply.get("error", "")))
            elif any(rules.starts_game(event) for event in decoded):
                refusals.new_game()
                undoable = []
            elif decoded:
                undoable.append((record.seq, len(decoded)))
        if base is not None:
            # A tail that does not fold onto the snapshot is the whole log's to judge.
            game = rules.resume_engine(base_state, events)
        else:
            game = self._replay(rules, events)
        self.rules = rules
        self.game = game
        self.refusals = refusals
        self.replies_by_id = {}
        self.known_ids = known_ids
        self.last_seq = last_seq
        self._started = started
        self._event_base = event_base
        self._base = base
        self._undoable = undoable
        self._told = told

    def _snapshot(self) -> Snapshot:
        """The state after the last decided command, for the log."""
        meta = {
            "game": self.rules.name,
            "started": self._started,
            "game_events": self.event_count,
            "refusals": self.refusals.to_json(),
            "refused": self.refusals.count,
        }
        state = dump_state(self.game.state)
        return Snapshot(self.last_seq, 0, SNAPSHOT_FORMAT, fingerprint(self.rules), meta, state)

    @property
    def event_count(self) -> int:
        """How many events the current game has had (its log's, not only this engine's)."""
        return self._event_base + self._told + len(self.game.events)

    def _decode(self, rules: GameRules, record: CommandRecord) -> list[Any]:
        out = []
        for raw in record.events_json:
            try:
                out.append(rules.event_from_json(raw))
            except (RulesError, ValueError, TypeError, KeyError) as error:
                log.error(
                    "table %s: an event of command %s is unreadable, skipped: not one of "
                    "%s's events (%s)",
                    self.table,
                    record.seq,
                    rules.info.title,
                    error,
                )
        return out

    def _replay(self, rules: GameRules, events: list[Any]) -> Engine:
        try:
            return rules.new_engine(events)
        except RulesError as error:  # only a damaged or foreign log gets here
            # The longest prefix that replays (each longer one fails once one does).
            low, high = 0, len(events) - 1
            while low < high:
                middle = (low + high + 1) // 2
                try:
                    rules.new_engine(events[:middle])
                    low = middle
                except RulesError:
                    high = middle - 1
            game = rules.new_engine(events[:low])
            log.error(
                "table %s: the log does not replay past event %d of %d (%s); the game goes on "
                "from there, and the log file keeps every record",
                self.table,
                len(game.events),
                len(events),
                error,
            )
            return game

    # -- deciding -------------------------------------------------------------------------

    def handle(self, payload: bytes, read: Any = NOT_READ) -> Outcome:
        """Decides one payload from `game/command`; nothing is durable until commit().
        `read`: what `read_command(payload)` gave, when the caller has read the payload
        already (the daemon reads each command once); the payload's own text is what the
        log keeps."""
        command_id: str | None = None
        id_value: str | int | None = None
        try:
            raw = read_command(payload) if read is NOT_READ else read
            if isinstance(raw, PayloadError):
                error = raw
                # The reply still carries the id when one can be read, so the sender is not
                # left waiting for an answer that never comes.
                id_value = _salvage_id(payload)
                command_id = None if id_value is None else str(id_value)
                known = self._reply_to(command_id)
                if known is not None:
                    return Outcome({**known, "duplicate": True}, duplicate=True)
                raise _Refusal(error.kind, str(error), error.field) from None
            if isinstance(raw, dict):
                # multi_stage's `id` is its stage's name and its request id at once (the
                # vocabulary of `tabletop replay`), so a stage name is used once per table.
                id_value = _read_id(raw)
                command_id = None if id_value is None else str(id_value)
                known = self._reply_to(command_id)
                if known is not None:
                    return Outcome({**known, "duplicate": True}, duplicate=True)
                _check_version(raw)
                if raw.get("cmd") == UNDO:
                    return self._undo(command_id, id_value, payload, raw)
            rules, engine, command = self._game_for(raw)
            before = len(engine.events)
            base = self._event_base + self._told if engine is self.game else 0
            try:
                events = execute_every_key(engine, command)
                events_json = tuple(rules.event_to_json(event) for event in events)
                # The engine copies text from the command into its events; check what will
                # be stored and published once more, so nothing unencodable gets that far.
                check_value(list(events_json), "events")
            except IllegalMove as error:
                raise _Refusal("illegal", str(error), field=error.rule) from None
            except UnknownKey as error:
                # Refused after the engine decided: take its events back out.
                if engine is self.game:
                    self.game = self._taken_back(before)
                raise _Refusal("invalid", str(error), field=error.field) from None
            except InvalidCommand as error:
                raise _Refusal("invalid", str(error), field=error.field) from None
            except RulesError as error:
                raise _Refusal("invalid", str(error)) from None
            except PayloadError as error:
                if engine is self.game:
                    self.game = self._taken_back(before)
                raise _Refusal("invalid", str(error), error.field) from None
            except Exception as error:  # a bug in the engine must not take the table down
                log.exception("the rules engine failed on a command at table %s", self.table)
                raise _Refusal(
                    "internal", f"internal: the rules engine failed: {error!r}"
                ) from None
        except _Refusal as refusal:
            return self._refuse(command_id, id_value, payload, refusal)
        seq = self._next_seq()
        reply = {
            "v": PROTOCOL_VERSION,
            "id": id_value,
            "ok": True,
            "seq": seq,
            "events": len(events),
        }
        if isinstance(raw, dict) and raw.get("cmd") == "new_game":
            reply["game"] = rules.name  # where `load()` sees a game begin
        if engine is not self.game:
            self.rules, self.game = rules, engine
            self._event_base, self._base = 0, None
            self._undoable, self._told = [], 0
        if events or "game" in reply:
            self._started = True
        if any(rules.starts_game(event) for event in events):
            self.refusals.new_game()
            self._undoable = []  # a game's start is ended, not taken back
        elif events:
            self._undoable.append((seq, len(events)))
        text = payload.decode("utf-8")
        self._queue(CommandRecord(seq, command_id, text, reply, events_json))
        return Outcome(reply, events, events_json, first_event_number=base + before + 1)

    def _undo(
        self, command_id: str | None, id_value: str | int | None, payload: bytes, raw: Any
    ) -> Outcome:
        """The game master's `undo`: the current game's last applied command is taken back,
        its events out of the game (the log keeps both records; a replay leaves both out)."""
        extra = sorted(key for key in raw if key not in ENVELOPE_KEYS)
        if extra:
            raise _Refusal(
                "invalid", f"{', '.join(extra)}: undo takes no such key; nothing was done", extra[0]
            )
        if not self._undoable:
            raise _Refusal(
                "illegal",
                "undo: nothing to take back: no command of this game since it started (or "
                "since the daemon last read its log) is left to undo",
                "undo",
            )
        seq, count = self._undoable[-1]
        number = self.event_count + 1  # the undo's own line, after the events it takes back
        kept = len(self.game.events) - count
        taken = tuple(self.game.events[kept:])
        try:
            game = self._taken_back(kept)
        except RulesError as error:  # the events before it no longer replay (a bug)
            raise _Refusal("internal", f"internal: undo failed: {error}") from None
        self._undoable.pop()
        self.game = game
        self._told += count + 1
        new_seq = self._next_seq()
        reply = {
            "v": PROTOCOL_VERSION,
            "id": id_value,
            "ok": True,
            "seq": new_seq,
            "events": 0,
            "undid": seq,
        }
        self._queue(CommandRecord(new_seq, command_id, payload.decode("utf-8"), reply, ()))
        return Outcome(reply, first_event_number=number, undone=TakenBack(seq, taken))

    def answered(self, raw: Any) -> bool:
        """Whether a command's id was decided already (its repeat is answered as before)."""
        try:
            id_value = _read_id(raw) if isinstance(raw, dict) else None
        except _Refusal:
            return False
        return id_value is not None and (
            str(id_value) in self.replies_by_id or str(id_value) in self.known_ids
        )

    def _reply_to(self, command_id: str | None) -> dict[str, Any] | None:
        """The reply already given to a command id (None: a new id), read from the log when
        it was given before the log was read."""
        if command_id is None:
            return None
        reply = self.replies_by_id.get(command_id)
        if reply is None and command_id in self.known_ids:
            try:
                reply = self.log.reply(command_id)
            except StoreError as error:
                raise _Refusal(
                    "storage",
                    f"storage: cannot tell whether id {command_id} was sent before "
                    f"({error}); nothing was applied, send it again",
                ) from None
            if reply is not None:
                self.replies_by_id[command_id] = reply
        return reply

    def _taken_back(self, before: int) -> Engine:
        """The current game's engine without the events after its first `before`."""
        kept = self.game.events[:before]
        if self._base is None:
            return self.rules.new_engine(kept)
        return self.rules.resume_engine(load_state(self._base, self.rules), kept)

    def trial(self, raw: dict[str, Any]) -> tuple[GameRules, Any] | None:
        """Before a command is held for the mat (a deal to be read): the game it goes to and
        the state it meets, or None when it is to be answered at once: a repeat of an id,
        or a `new_game` the rules refuse (tried on a fresh engine; nothing changes)."""
        try:
            id_value = _read_id(raw)
            if id_value is not None and (
                str(id_value) in self.replies_by_id or str(id_value) in self.known_ids
            ):
                return None
            _check_version(raw)
            rules, engine, command = self._game_for(raw)
            if raw.get("cmd") != "new_game":
                return rules, engine.state
            if engine is self.game and not rules.is_over(engine.state):
                return None  # the rules say why: a game is on
            rules.new_engine().execute(command)
        except Exception:  # any refusal, or a bug the real attempt reports as "internal"
            return None
        return rules, rules.new_engine().state if engine is not self.game else engine.state

    def _game_for(self, raw: Any) -> tuple[GameRules, Engine, Any]:
        """The game a command goes to, and the command as that game reads it.

        Only `new_game` may name a game (`"game"`, the table's by default); a game other
        than the one being played starts on a new engine once the current one is over."""
        if not isinstance(raw, dict) or raw.get("cmd") != "new_game":
            return self.rules, self.game, raw
        try:
            rules = games.get(raw.get("game", self.table_game), "game")
        except RulesError as error:
            raise _Refusal("invalid", str(error), "game") from None
        command = {key: value for key, value in raw.items() if key != "game"}
        if self.table_options and rules.name == self.table_game:
            # The table's house rules, unless the command sets an option itself.
            own = command.get("options")
            if own is None:
                command["options"] = dict(self.table_options)
            elif isinstance(own, dict):
                command["options"] = {**self.table_options, **own}
        if rules is self.rules:
            return rules, self.game, command
        if not self.rules.is_over(self.game.state):
            raise _Refusal(
                "illegal",
                f"game: this table is playing {self.rules.info.title}: end that game first",
                "game",
            )
        return rules, rules.new_engine(), command

    def _refuse(
        self,
        command_id: str | None,
        id_value: str | int | None,
        payload: bytes,
        refusal: _Refusal,
    ) -> Outcome:
        seq = self._next_seq()
        reply: dict[str, Any] = {
            "v": PROTOCOL_VERSION,
            "id": id_value,
            "ok": False,
            "seq": seq,
            "error": short_error(str(refusal)),
            "kind": refusal.kind,
        }
        if refusal.kind == "illegal":
            reply["rule"] = refusal.field
        elif refusal.field is not None:
            reply["field"] = refusal.field
        # Bytes that are not text become U+FFFD, NUL too: PostgreSQL's text cannot hold it,
        # and both logs keep the same record.
        logged = (
            payload[: LOGGED_PAYLOAD_CHARS * 4]
            .decode("utf-8", errors="replace")
            .replace("\x00", "\ufffd")
        )
        remembered = command_id if refusal.kind not in RETRYABLE_KINDS else None
        self._queue(CommandRecord(seq, remembered, logged[:LOGGED_PAYLOAD_CHARS], reply))
        self.refusals.add(seq, reply["error"])
        return Outcome(reply)

    def _next_seq(self) -> int:
        self.last_seq += 1
        return self.last_seq

    def _queue(self, record: CommandRecord) -> None:
        self._unsaved.append(record)
        if record.command_id is not None:
            self.replies_by_id[record.command_id] = record.reply

    # -- saving ---------------------------------------------------------------------------

    @property
    def unsaved(self) -> int:
        """How many decided commands wait for commit()."""
        return len(self._unsaved)

    def commit(self) -> None:
        """Writes every decided command durably; on failure rebuilds from the log and raises.

        After a failure the commands decided since the last commit are forgotten, as if they
        never arrived: none of them was acknowledged.
        """
        if not self._unsaved:
            return
        self._offer_snapshot()
        try:
            self.log.append(self._unsaved)
        except StoreError:
            self.load()
            raise
        self._unsaved.clear()

    def pending(self) -> list[CommandRecord]:
        """The decided commands waiting for the log (a room daemon writes many tables' at once)."""
        self._offer_snapshot()
        return list(self._unsaved)

    def _offer_snapshot(self) -> None:
        """When the pending commands take the table `snapshot_every` past its last snapshot,
        the state after them goes into the log with them (one transaction: never a snapshot
        without its commands)."""
        if not self._unsaved or not self.snapshot_every:
            return
        if self.last_seq - self.log.snapshot_seq < self.snapshot_every:
            return
        try:
            self.log.offer_snapshot(self._snapshot())
        except SnapshotError as error:  # the state cannot be written: the log goes on without
            log.warning("table %s: no snapshot: %s", self.table, error)

    def saved(self) -> None:
        """Says the pending commands were written (by `store.append_together`)."""
        self._unsaved.clear()

    # -- views ----------------------------------------------------------------------------

    def state_json(self) -> dict[str, Any]:
        """The referee's full view (`referee/state`): `tabletop replay --json` of the same
        commands, every face-down card included."""
        return {
            **self.rules.referee_view(self.game.state),
            "rejected": self.refusals.to_json(),
        }

    def public_state_json(self) -> dict[str, Any]:
        """What anyone may see (`game/state`): no face-down card, no secret, no refusal's
        words (a refusal can quote a dealt card); `refused` counts this game's refusals."""
        return {**self.rules.public_view(self.game.state), "refused": self.refusals.count}

    def seat_state_json(self, seat: str) -> dict[str, Any]:
        """What one player may see (`game/seat/<n>/state`)."""
        return self.rules.seat_view(self.game.state, seat)

    def public_events_json(self, outcome: Outcome) -> list[dict[str, Any]]:
        """The events of an outcome as anyone may see them, numbered as in the game's log."""
        state = self.game.state
        return [
            {"number": outcome.first_event_number + offset, **self.rules.public_event(event, state)}
            for offset, event in enumerate(outcome.events)
        ]

    def describe_event(self, event: Any) -> str:
        """An event in the game master's words."""
        return self.rules.describe_event(event)

    def prompt_json(self) -> dict[str, Any]:
        """What `game/prompt` carries (anyone may read it): what the game waits for, in a
        form any table reads (`waiting`, `who`, `dice`), in words, and the game's own
        `pending` item."""
        return _prompt_json(self.rules.public_waiting(self.game.state), self.game.state, self)

    def referee_prompt_json(self) -> dict[str, Any]:
        """The prompt as the game master sees it (`referee/prompt`): nothing hidden."""
        return _prompt_json(self.rules.waiting(self.game.state), self.game.state, self)


def _prompt_json(waiting: Waiting, state: Any, referee: Referee) -> dict[str, Any]:
    phase = getattr(state, "phase", None)
    if not hasattr(state, "phase"):
        # A game whose state keeps no `phase` attribute still names it in its views.
        phase = referee.rules.public_view(state).get("phase")
    return {
        "v": PROTOCOL_VERSION,
        "game": referee.rules.name,
        "phase": phase.value if isinstance(phase, Enum) else phase,
        "prompt": waiting.words,
        "waiting": waiting.kind.value,
        "who": list(waiting.who),
        "dice": waiting.dice.to_json() if waiting.dice is not None else None,
        "pending": dict(waiting.detail) if waiting.detail is not None else None,
    }


def _read_id(raw: dict[str, Any]) -> str | int | None:
    """The command's correlation id (an integer is compared with ids as its text)."""
    if "id" not in raw or raw["id"] is None:
        return None
    value = raw["id"]
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _Refusal("invalid", f"id: expected a string or an integer, got {value!r}", "id")
    text = str(value)
    if not text or len(text) > MAX_ID_LENGTH:
        raise _Refusal("invalid", f"id: expected 1 to {MAX_ID_LENGTH} characters", "id")
    # The id is stored as text of its own (to answer a repeat): PostgreSQL's text cannot hold
    # NUL, and no control character belongs in an id a person may have to read in a log.
    control = next((i for i, c in enumerate(text) if ord(c) < 0x20 or ord(c) == 0x7F), None)
    if control is not None:
        raise _Refusal(
            "invalid",
            f"id: a control character (U+{ord(text[control]):04X}) at character {control}",
            "id",
        )
    return value


def _salvage_id(payload: bytes) -> str | int | None:
    """The id of a payload `read_json` refused, read leniently; None when there is none to read.

    Python's own parser takes what `read_json` refuses (NaN, a repeated key, a lone surrogate
    escape); an id is only used if it would itself have been accepted."""
    if len(payload) > MAX_PAYLOAD_BYTES:
        return None
    try:
        # A number too long to read stands as None here: it is not the id's business.
        raw = json.loads(payload.decode("utf-8"), parse_int=_number_or_none)
        if not isinstance(raw, dict):
            return None
        value = _read_id(raw)
        if value is not None:
            check_value(value)
        return value
    except (ValueError, RecursionError, _Refusal, PayloadError):
        return None


def _number_or_none(text: str) -> int | None:
    try:
        return whole_number(text)
    except PayloadError:
        return None


def _check_version(raw: dict[str, Any]) -> None:
    version = raw.get("v", PROTOCOL_VERSION)
    if version != PROTOCOL_VERSION or isinstance(version, bool):
        raise _Refusal(
            "invalid",
            f"v: payload version {version!r} is not supported "
            f"(this daemon speaks {PROTOCOL_VERSION})",
            "v",
        )


def _refusals_from(meta: dict[str, Any]) -> Refusals:
    """The refusals a snapshot kept."""
    refusals = Refusals()
    for item in meta["refusals"]:
        refusals.add(int(item["line"]), str(item["error"]))
    refusals.count = int(meta["refused"])
    return refusals
