"""One table's server inside the rules daemon: its referee, log, physical table and waits.

`TableServer` decides a table's batch of messages (commands, the bridge's mat and dice, a
seat's phone), answers each, and publishes what changed: events, the retained state, views
and prompt, the table's alerts and LED frame. `RoomDaemon` (service.py) owns the connection,
the loop and the leases, and hands each table its messages; a test drives a `TableServer`
directly, with no broker.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from tabletop.rules.games import DEFAULT_GAME
from tabletop.rules.games.game import WaitKind
from tabletop.rules.games.reading import Action, Alert, Execute
from tabletop.wire.mqtt import Message, MqttLink
from tabletop.wire.payload import PayloadError, encode, read_command, read_json
from tabletop.wire.throttled_log import ThrottledLog
from tabletop.wire.topics import TableTopics

from .referee import NOT_READ, PROTOCOL_VERSION, SNAPSHOT_EVERY, Outcome, Referee
from .seat_commands import SeatRefusal, check_seat_command, is_seat_command
from .store import GameLog, LogDatabase, StoreError
from .table import PhysicalTable, hidden_names
from .waits import DEFAULT_PATIENCE_S, WaitWatch

log = logging.getLogger(__name__)

ONLINE: Final = b"online"
# A table move can lead to another (a deal, then nothing else): a bound in case of a bug.
MAX_TABLE_STEPS: Final = 8
# How often a table looks at how long it has waited (its `wait` alert counts in seconds).
WAIT_CHECK_SECONDS: Final = 1.0


@dataclass(frozen=True, slots=True)
class TableOptions:
    """What every table of a room is set up with (the daemon's options)."""

    seats: tuple[str, ...] | None = None
    grace: float = 1.5
    game: str = DEFAULT_GAME
    options: dict[str, Any] | None = None
    # How long a table waits for each kind of thing before its `wait` alert
    # (tabletop.daemon.waits).
    patience: Mapping[WaitKind, float] | None = None
    # Commands between two snapshots of a table's state in the log (0: none; referee.py).
    snapshot_every: int = SNAPSHOT_EVERY


class TableServer:
    """One table inside a daemon: its referee, its physical table and its last views."""

    def __init__(
        self, table: str, link: MqttLink, database: LogDatabase, sync: str, setup: TableOptions
    ) -> None:
        self.topics = TableTopics(table)
        self.link = link
        self.referee = Referee(
            GameLog(database.where, table, sync, database=database), setup.game, setup.options
        )
        self.referee.snapshot_every = setup.snapshot_every
        # With seats, the daemon also reads the physical table the bridge publishes.
        self.physical = (
            PhysicalTable(self.topics, setup.seats, setup.grace, self.referee.rules)
            if setup.seats
            else None
        )
        # Commands and table events are things to do now: a retained one would be done
        # again by every daemon that starts, so a retained message on these is never run.
        self._never_retained = {self.topics.command, self.topics.mat_event, self.topics.dice_event}
        self.inbox: deque[Message] = deque()
        self.outcomes: list[Outcome] = []
        self.served = False  # loaded and announced online
        self._warnings = ThrottledLog(log)
        self._last_views: dict[str, bytes] = {}
        self._last_table: dict[str, bytes] = {}
        # `game/prompt`'s content and the seq it was stamped with when it last changed.
        self._prompt: tuple[dict[str, Any], int] | None = None
        self.waits = WaitWatch(
            dict(setup.patience) if setup.patience is not None else dict(DEFAULT_PATIENCE_S)
        )
        self._next_wait_check = 0.0
        # Each seat's version (seat number -> seq) and what it stands for: the moment its
        # commands answer (src/tabletop/daemon/seat_commands.py), in the seat's view.
        self._seat_versions: dict[int, int] = {}
        self._seat_asks: dict[int, tuple[Any, ...]] = {}

    @property
    def table(self) -> str:
        return self.topics.table

    @property
    def subscriptions(self) -> list[tuple[str, int]]:
        found = [(self.topics.command, 1)]
        if self.physical is not None:
            found += self.physical.subscriptions
        return found

    def load(self) -> None:
        """Rebuilds the game from the log (the lease is held)."""
        self.referee.load()
        self._read_as_played()
        self._last_views.clear()
        self._prompt = None
        self._last_table.clear()

    def announce(self) -> None:
        """Publishes the retained views and `online` (the table is served from now on)."""
        self.served = True
        self.publish_views()
        self.link.publish_retained(self.topics.rules_availability, ONLINE)

    # -- one round ------------------------------------------------------------------------

    def decide(self, batch: list[Message], now: float) -> None:
        """Decides a batch of this table's messages; the outcomes wait for the commit."""
        table = self.physical
        for item in batch:
            try:
                self._take(item, self.outcomes, now)
            except Exception:  # one message must never cost the others of its batch
                log.exception("table %s: a message on %s failed; going on", self.table, item.topic)
                if item.topic == self.topics.command:
                    self.publish_reply(internal_refusal(item.payload))
        if table is not None:
            try:
                self._act(table, table.tick(self.referee.game.state, now), self.outcomes, now)
                # Once a second; while the alert is up, at every round, so that it clears
                # as soon as the table moves.
                if now >= self._next_wait_check or self.waits.raised:
                    self._next_wait_check = now + WAIT_CHECK_SECONDS
                    prompt = self.referee.prompt_json()
                    table.record(self.waits.check(prompt, self.referee.last_seq, now))
            except Exception:
                log.exception("table %s: reading the table failed; going on", self.table)
            self._publish_table(table)

    def recover(self) -> None:
        """After a failure: what was decided but not written is forgotten (none of it was
        acknowledged); the game goes on from the log."""
        self.outcomes.clear()
        try:
            self.referee.load()
        except StoreError as error:
            log.error("table %s: %s", self.table, error)
        self._read_as_played()

    def _read_as_played(self) -> None:
        """The mat is read by the game the log says is being played, not by the table file's
        game: a daemon restarted in the middle of a Showdown read it as Six Shooter until the
        game master's next command (issue 48)."""
        if self.physical is not None:
            self.physical.use(self.referee.rules)

    def refuse_unsaved(self, error: StoreError) -> None:
        """The log could not be written: every reply of the round says so; the game is rebuilt."""
        log.error("table %s: %s", self.table, error)
        outcomes, self.outcomes = self.outcomes, []
        for outcome in outcomes:
            self.publish_reply(
                {
                    "v": PROTOCOL_VERSION,
                    "id": outcome.reply.get("id"),
                    "ok": False,
                    "error": f"storage: the game log could not be written ({error}); "
                    "nothing was applied, send it again",
                    "kind": "storage",
                }
            )
        self.recover()

    def publish_replies(self) -> None:
        """After the commit: the replies, first and at once, since someone waits for them."""
        for outcome in self.outcomes:
            self.publish_reply(outcome.reply)

    def publish_results(self) -> None:
        """After the replies: the events and the views the round's commands changed."""
        outcomes, self.outcomes = self.outcomes, []
        changed = False
        for outcome in outcomes:
            if outcome.duplicate:
                continue
            changed = True
            if not outcome.ok and outcome.reply.get("id") is None:
                self._warnings.warning(
                    "refused without id",
                    "table %s: refused command %s (no id): %s",
                    self.table,
                    outcome.reply["seq"],
                    outcome.reply["error"],
                )
            if outcome.events:
                self._publish_events(outcome)
            elif outcome.undone is not None:
                self._publish_undone(outcome)
        if changed:
            self.publish_views()

    def _take(self, item: Message, outcomes: list[Outcome], now: float) -> None:
        """Decides one inbound message; the commands it amounts to go to `outcomes`."""
        table = self.physical
        if item.retain and item.topic in self._never_retained:
            self._warnings.warning(
                f"retained {item.topic}",
                "table %s: ignored a retained message on %s (%d bytes): commands and table "
                "events are never retained; clear it with an empty retained message",
                self.table,
                item.topic,
                len(item.payload),
            )
        elif item.topic == self.topics.command:
            read = read_command(item.payload)  # once: every step below takes what it read
            sync = sync_reply(read)
            if sync is not None:
                # Answered in order with the round's replies, after every earlier round's
                # events and views: a client's barrier, never logged, never a command.
                outcomes.append(Outcome(sync, duplicate=True))
            elif is_seat_command(read) and not self.referee.answered(read):
                self._seat_command(read, outcomes, now)
            elif table is None:
                outcomes.append(self.referee.handle(item.payload, read))
            else:
                self._table_command(table, item.payload, read, outcomes, now)
        elif table is not None and table.owns(item.topic):
            state = self.referee.game.state
            self._act(table, table.message(item.topic, item.payload, state, now), outcomes, now)

    def _seat_command(self, raw: dict[str, Any], outcomes: list[Outcome], now: float) -> None:
        """A seat's phone's command: checked against the game (seat_commands.py), refused on
        that phone only, or decided as the game master's own command would be."""
        table = self.physical
        state = self.referee.game.state
        try:
            number, command = check_seat_command(
                raw,
                seat_verbs=self.referee.rules.seat_verbs,
                seats=table.seats if table is not None else None,
                awaited=self.referee.rules.waiting(state).who,
                versions=self._seat_versions,
            )
        except SeatRefusal as refused:
            command_id = raw.get("id")
            self.publish_reply(
                {
                    "v": PROTOCOL_VERSION,
                    "id": command_id if isinstance(command_id, str | int) else None,
                    "ok": False,
                    "error": str(refused),
                    "kind": "seat",
                    "field": refused.field,
                }
            )
            return
        assert table is not None  # check_seat_command refuses a table without seats
        count = len(outcomes)
        payload = encode(command)
        self._table_command(table, payload, read_command(payload), outcomes, now)
        for index in range(count, len(outcomes)):
            if outcomes[index].reply.get("id") == command.get("id"):
                outcomes[index] = replace(outcomes[index], seat=number)
                if outcomes[index].ok and "seq" in outcomes[index].reply:
                    # the seat acted: a second sending of what it answered is now stale
                    self._seat_versions[number] = int(outcomes[index].reply["seq"])

    # -- the physical table ----------------------------------------------------------------

    def _table_command(
        self,
        table: PhysicalTable,
        payload: bytes,
        raw: Any,
        outcomes: list[Outcome],
        now: float,
    ) -> None:
        """A game master's command (`payload`, and `raw`, what read_command made of it): a
        deal or a draw without cards waits for the mat."""
        if not isinstance(raw, dict):
            outcomes.append(self.referee.handle(payload, raw))  # the referee words the refusal
            return
        trial = self.referee.trial(raw)
        if trial is None:
            # Refused, or a repeat: answered now, never held while the mat is awaited. The
            # refusal is the game master's reply; nothing on the table is to be put right.
            self._execute(table, raw, payload, outcomes, now, by_game_master=True, read=raw)
            return
        rules, state = trial
        table.use(rules)  # a new game of another game is read by that game's reader
        actions = table.reader.request(state, raw, now)
        if actions == [Execute(raw)]:
            # The alerts the reader raises or clears once it is applied are kept (a refusal
            # it answers; every alert, when it ends the game): dropped, a cleared alert stood
            # for good (the soak: a slot's alert after `end_game`, a refusal after
            # `end_adventure`). What it reads as a move on the mat is not made here: the game
            # master's command is no move on the mat, and a table whose mat never reported
            # would read every face-up card as lifted.
            after = self._execute(table, raw, payload, outcomes, now, by_game_master=True, read=raw)
            table.record([action for action in after if not isinstance(action, Execute)])
            return
        what = "the deal on the mat" if raw.get("cmd") != "turn_order" else "cards on the pad"
        self.publish_reply(
            {"v": PROTOCOL_VERSION, "id": raw.get("id"), "ok": True, "waiting": what}
        )
        self._act(table, actions, outcomes, now)

    def _act(
        self, table: PhysicalTable, actions: list[Action], outcomes: list[Outcome], now: float
    ) -> None:
        """Executes the commands the table's actions amount to, and keeps their alerts."""
        done: list[dict[str, Any]] = []
        for _ in range(MAX_TABLE_STEPS):
            table.record(actions)
            # One move read twice while the table settles (two reveals in one snapshot: the
            # second is read again once the first is applied) is made once.
            commands = [action.command for action in actions if isinstance(action, Execute)]
            if not commands:
                return
            actions = []
            for command in commands:
                if command not in done:
                    done.append(command)
                    actions += self._execute(table, command, encode(command), outcomes, now)
        log.error("table %s: the table's moves did not settle", self.table)

    def _execute(
        self,
        table: PhysicalTable,
        command: dict[str, Any],
        payload: bytes,
        outcomes: list[Outcome],
        now: float,
        *,
        by_game_master: bool = False,
        read: Any = NOT_READ,
    ) -> list[Action]:
        """Decides `command` (sent as `payload`; `read`: what read_command made of it, where
        the caller read it; a reader's command is read back from its JSON, so the engine gets
        lists where the reader built tuples) and hands the table's reader its outcome."""
        outcome = self.referee.handle(payload, read)
        outcomes.append(outcome)
        state = self.referee.game.state
        if outcome.duplicate:  # answered again as before; the table heard of it then
            return []
        if outcome.ok:
            return table.reader.applied(state, command, now)
        if by_game_master:
            # A game master's own command that the rules refuse is their mistake, answered on
            # their screen (the reply on game/reply, and referee/state's refused list): it is no
            # alert for the room, the phones and the stream, and nothing on the table is to be
            # put right (issue 48: "Ana is already in a duel" stood through a poker hand).
            return []
        actions = table.reader.refused(command, str(outcome.reply.get("error", "")))
        if self.referee.rules.is_over(state):
            # No game in play (the last one just ended): cards gathered up or a move that
            # crossed the end are not mistakes to put right, and no later command would clear
            # the alert. The reply still says why it was refused.
            return [action for action in actions if not isinstance(action, Alert)]
        return actions

    def _publish_table(self, table: PhysicalTable) -> None:
        state = self.referee.game.state
        rules = self.referee.rules
        # The public alert never names what the public view hides (issue 33, finding 6);
        # the referee's alert, for the game master, keeps the reader's words.
        # Both views are built only when there are words to check (a room ticks every table).
        hidden: frozenset[str] = frozenset()
        if table.alerts or table.reader.instructions:
            hidden = hidden_names(rules.referee_view(state), rules.public_view(state))
        for topic, payload in (
            (self.topics.table_alert, table.alert_payload(hidden)),
            (self.topics.referee_alert, table.alert_payload()),
            (self.topics.leds_frame, table.led_payload(state)),
        ):
            data = encode(payload)
            if self._last_table.get(topic) != data:
                self._last_table[topic] = data
                self.link.publish_retained(topic, data)

    # -- publishing -------------------------------------------------------------------------

    def _publish_events(self, outcome: Outcome) -> None:
        # One message per command: the events a command caused belong together (a roll and
        # the discards, Strikes and offers it brings), and one message costs one round of
        # acknowledgements instead of one per event. The referee's topic has the engine's
        # events (a deal names every card); game/event only what anyone may see.
        seq = outcome.reply["seq"]
        first = outcome.first_event_number
        words = self.referee.describe_event
        if outcome.seat is not None:  # the game master sees what a seat's phone sent
            told = words

            def words(event: Any) -> str:
                return f"Seat {outcome.seat}'s phone: {told(event)}"

        events = [
            {"number": first + offset, "event": event_json, "text": words(event)}
            for offset, (event, event_json) in enumerate(
                zip(outcome.events, outcome.events_json, strict=True)
            )
        ]
        self.link.publish(
            self.topics.referee_event,
            encode({"v": PROTOCOL_VERSION, "seq": seq, "events": events}),
        )
        public = self.referee.public_events_json(outcome)
        self.link.publish(
            self.topics.event, encode({"v": PROTOCOL_VERSION, "seq": seq, "events": public})
        )

    def _publish_undone(self, outcome: Outcome) -> None:
        """An undo, told as a line of the game's events: what the game master took back."""
        undone = outcome.undone
        assert undone is not None
        seq, number = outcome.reply["seq"], outcome.first_event_number
        state = self.referee.game.state
        rules = self.referee.rules
        told = " ".join(self.referee.describe_event(event) for event in undone.events)
        public = " ".join(str(rules.public_event(e, state).get("text")) for e in undone.events)
        event = {"type": "undo", "undid": undone.seq}
        line = {"number": number, "event": event, "text": f"The game master took back: {told}"}
        self.link.publish(
            self.topics.referee_event,
            encode({"v": PROTOCOL_VERSION, "seq": seq, "events": [line]}),
        )
        public_line = {"number": number, "type": "undo", "text": f"Taken back: {public}"}
        self.link.publish(
            self.topics.event,
            encode({"v": PROTOCOL_VERSION, "seq": seq, "events": [public_line]}),
        )
        for seat in self._seat_versions:  # the game changed under every phone
            self._seat_versions[seat] = int(seq)

    def publish_reply(self, reply: dict[str, Any]) -> None:
        self.link.publish(self.topics.reply, encode(reply))

    def publish_views(self) -> None:
        """The retained views. The public state names the command it reflects (`seq`) and the
        prompt that goes with it (`prompt_seq`: the `seq` that `game/prompt` carries, the
        command after which it last changed), so that anyone holding both can tell they are
        of one moment: a prompt is published only when it changes (the camera's expected
        throw follows it). `referee/state` stays exactly what `tabletop replay` prints."""
        seq = self.referee.last_seq
        prompt = self.referee.prompt_json()
        if self._prompt is None or self._prompt[0] != prompt:
            self._prompt = (prompt, seq)
        public = {**self.referee.public_state_json(), "seq": seq, "prompt_seq": self._prompt[1]}
        self.link.publish_retained(self.topics.referee_state, encode(self.referee.state_json()))
        self.link.publish_retained(self.topics.state, encode(public))
        if self.physical is not None:
            waiting = self.referee.rules.waiting(self.referee.game.state)
            detail = dict(waiting.detail) if waiting.detail is not None else {}
            for number, seat in enumerate(self.physical.seats, start=1):
                # What the game asks of this seat: when it changes, so does the seat's version.
                asks = (seat in waiting.who, waiting.kind.value, detail.get("type"))
                if self._seat_asks.get(number) != asks or number not in self._seat_versions:
                    self._seat_asks[number] = asks
                    self._seat_versions[number] = seq
                version = self._seat_versions[number]
                view = {**self.referee.seat_state_json(seat), "version": version}
                self._publish_changed(self.topics.seat_state(number), encode(view))
        self._publish_changed(self.topics.prompt, encode({**prompt, "seq": self._prompt[1]}))
        self._publish_changed(
            self.topics.referee_prompt, encode(self.referee.referee_prompt_json())
        )

    def _publish_changed(self, topic: str, payload: bytes) -> None:
        """Publishes a retained view only when it changed (a prompt stays the same for long)."""
        if self._last_views.get(topic) != payload:
            self.link.publish_retained(topic, payload)
            self._last_views[topic] = payload


def sync_reply(read: Any) -> dict[str, Any] | None:
    """The answer to `{"cmd": "sync", "id": ...}` (None for any other command), from what
    read_command made of the payload.

    A client that has had the reply to its command sends a sync and waits for its answer:
    by then every event and view of the rounds before has been published to it, where
    waiting for a quiet spell would be a guess at how fast the host is."""
    if not isinstance(read, dict) or read.get("cmd") != "sync" or set(read) - {"cmd", "id", "v"}:
        return None
    return {"v": PROTOCOL_VERSION, "id": read.get("id"), "ok": True, "sync": True}


def internal_refusal(payload: bytes) -> dict[str, Any]:
    """The reply to a command the daemon failed on before deciding it: nothing applied."""
    try:
        raw = read_json(payload)
        command_id = raw.get("id") if isinstance(raw, dict) else None
    except PayloadError:
        command_id = None
    return {
        "v": PROTOCOL_VERSION,
        "id": command_id if isinstance(command_id, str | int) else None,
        "ok": False,
        "error": "internal: the daemon failed on this command; nothing was applied",
        "kind": "internal",
    }
