"""The rules daemon: tables' referees on MQTT, the single authority on their games.

`RoomDaemon` serves any number of tables over one MQTT connection and one log database;
`RulesDaemon` is the same daemon for one table (`tabletop rules --table X`), with its last
will on that table's `rules/availability` as always.

The loop takes what the MQTT link queued and sorts it into one bounded inbox per table. Each
round it takes at most `PER_TABLE_ROUND` items from every table with work (round robin, so a
flooded table cannot hold another's commands back), decides them table by table (one table's
failure is contained to it), writes every table's decided commands to the log in ONE
transaction (a group commit: one disk sync for the whole room), and only then publishes the
replies, the events, the retained state and the prompts. Batching is what makes a durable log
fast: one sync covers every command that arrived while the previous one was being written.

With several daemons on one log (PostgreSQL, or one SQLite file on one machine), each table is
served by whichever daemon holds its lease (store.LogDatabase.claim); the others stand by and
poll the leases, and take a table over from the shared log when its daemon dies.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from tabletop.rules.games import DEFAULT_GAME
from tabletop.rules.games.game import WaitKind
from tabletop.rules.games.reading import Action, Alert, Execute
from tabletop.wire.mqtt import BrokerUrl, Connected, Disconnected, Message, MqttLink, Will
from tabletop.wire.payload import PayloadError, encode, read_json
from tabletop.wire.throttled_log import ThrottledLog
from tabletop.wire.topics import ROOT, RoomTopics, TableIdError, TableTopics, check_table_id

from .referee import PROTOCOL_VERSION, SNAPSHOT_EVERY, Outcome, Referee
from .seat_commands import SeatRefusal, check_seat_command, is_seat_command
from .store import GameLog, LogDatabase, StoreError, append_together
from .table import PhysicalTable, hidden_names
from .waits import DEFAULT_PATIENCE_S, WaitWatch

log = logging.getLogger(__name__)

ONLINE: Final = b"online"
OFFLINE: Final = b"offline"
MAX_BATCH: Final = 512
# Items one table may have decided in one round: a flooded table gets its share, no more.
PER_TABLE_ROUND: Final = 64
# Items waiting per table; beyond this a command is refused as "busy" at once (not logged).
MAX_INBOX: Final = 2048
# Items taken from the connection in one go before a round is served.
MAX_DRAIN: Final = 8192
# How often a standing-by daemon looks for tables whose daemon is gone.
LEASE_POLL_SECONDS: Final = 0.5
# A table move can lead to another (a deal, then nothing else): a bound in case of a bug.
MAX_TABLE_STEPS: Final = 8
# With --all-tables, the most tables one daemon takes on (a bound on what strangers can make
# it open by publishing on made-up table ids).
MAX_TABLES: Final = 2000
# Commits after which the WAL is checkpointed between rounds even when the room is busy.
CHECKPOINT_COMMITS: Final = 1000
# Table events are read at most this often when no message arrives (grace periods).
TICK_SECONDS: Final = 0.2
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
                    self.publish_reply(_internal_refusal(item.payload))
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
            sync = _sync_reply(item.payload)
            if sync is not None:
                # Answered in order with the round's replies, after every earlier round's
                # events and views: a client's barrier, never logged, never a command.
                outcomes.append(Outcome(sync, duplicate=True))
            elif (seat := _seat_command_of(item.payload)) is not None and not (
                self.referee.answered(seat)
            ):
                self._seat_command(seat, outcomes, now)
            elif table is None:
                outcomes.append(self.referee.handle(item.payload))
            else:
                self._table_command(table, item.payload, outcomes, now)
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
        self._table_command(table, encode(command), outcomes, now)
        for index in range(count, len(outcomes)):
            if outcomes[index].reply.get("id") == command.get("id"):
                outcomes[index] = replace(outcomes[index], seat=number)
                if outcomes[index].ok and "seq" in outcomes[index].reply:
                    # the seat acted: a second sending of what it answered is now stale
                    self._seat_versions[number] = int(outcomes[index].reply["seq"])

    # -- the physical table ----------------------------------------------------------------

    def _table_command(
        self, table: PhysicalTable, payload: bytes, outcomes: list[Outcome], now: float
    ) -> None:
        """A game master's command: a deal or a draw without cards waits for the mat."""
        try:
            raw = read_json(payload)
        except PayloadError:
            raw = None
        if not isinstance(raw, dict):
            outcomes.append(self.referee.handle(payload))  # the referee words the refusal
            return
        trial = self.referee.trial(raw)
        if trial is None:
            # Refused, or a repeat: answered now, never held while the mat is awaited. The
            # refusal is the game master's reply; nothing on the table is to be put right.
            self._execute(table, raw, payload, outcomes, now, by_game_master=True)
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
            after = self._execute(table, raw, payload, outcomes, now, by_game_master=True)
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
    ) -> list[Action]:
        outcome = self.referee.handle(payload)
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


def default_daemon_name() -> str:
    """The name a room daemon announces itself under: the host's, which stays the same."""
    name = "".join(c if c.isalnum() or c in "-_" else "-" for c in socket.gethostname())
    return (name or "daemon")[:64]


class RoomDaemon:
    """Serves many tables: `start()`, then `run(stop)` until `stop` is set, then `close()`.

    `tables` lists the table ids; None serves every table the log holds and every table a
    message arrives for (under the topic root, as far as the broker lets the daemon read).
    A table whose lease another daemon holds is stood by for: taken over when that daemon
    goes. `strict` (one named table) refuses to start instead.
    """

    def __init__(
        self,
        url: BrokerUrl,
        tables: Sequence[str] | None,
        db_path: str | os.PathLike[str],
        sync: str = "full",
        *,
        setup: TableOptions | None = None,
        name: str | None = None,
        strict: bool = False,
    ) -> None:
        self.url = url
        self.all_tables = tables is None
        self.wanted = list(dict.fromkeys(tables or ()))
        self.database = LogDatabase(db_path, sync)
        self.sync = sync
        self.setup = setup or TableOptions()
        self.name = name or default_daemon_name()
        self.strict = strict
        self.room = RoomTopics(self.name)
        self.servers: dict[str, TableServer] = {}
        self.standby: set[str] = set()
        self.batches = 0
        self.rounds = 0
        # One table alone takes what arrived in one go, as the one-table daemon always did.
        self.per_table_round = (
            PER_TABLE_ROUND if self.all_tables or len(self.wanted) > 1 else (MAX_BATCH)
        )
        # The tables with items in their inbox, in the order they are to be served: each
        # round takes them from the front and puts those with items left at the back (round
        # robin), so a round costs what the busy tables cost, not the whole room.
        self._ready: dict[str, TableServer] = {}
        self._next_lease_poll = 0.0
        self._next_tick = 0.0
        self._busy_warned: set[str] = set()
        self._warnings = ThrottledLog(log)
        # On PostgreSQL the daemons of one room share its tables out evenly (`_balance`).
        self.balanced = self.database.postgresql and not strict
        self._most: int | None = None  # the most tables this daemon takes now, if balanced
        self._surplus = 0  # how many tables to hand over at this poll, if balanced
        if self.balanced:
            self.database.room = "*" if self.all_tables else ",".join(sorted(self.wanted))
        self.link = self._make_link()

    def _make_link(self) -> MqttLink:
        return MqttLink(
            self.url,
            # Unguessable: a client connecting with the daemon's id would take its session
            # over (MQTT gives an id to the newest connection), and the room would go deaf.
            client_id=f"tabletop-rules-{self.name}-{secrets.token_hex(8)}",
            subscriptions=self._subscriptions(),
            will=Will(self.room.availability, OFFLINE, clean=OFFLINE),
            # The serving loop does the network work itself: a command is read, decided,
            # logged and answered on one thread, with no hand-offs between threads.
            threaded=False,
            # No limit on the QoS 1 messages in flight: a room's round sends thousands, and with
            # a limit paho walks its whole queue on every acknowledgement (quadratic); without
            # one it sends each at once and forgets it at its PUBACK.
            max_inflight=0,
        )

    def _subscriptions(self) -> list[tuple[str, int]]:
        relative = ["game/command"]
        if self.setup.seats:
            relative += ["mat/snapshot", "mat/event", "dice/event", "bridge/availability"]
        tables = ["+"] if self.all_tables else self.wanted
        return [(f"{ROOT}/{table}/{topic}", 1) for table in tables for topic in relative]

    # -- starting and stopping ---------------------------------------------------------------

    def start(self, timeout: float | None = None) -> None:
        """Opens the log, takes the tables' leases, rebuilds their games, and connects."""
        self.database.open()
        names = list(self.wanted)
        if self.all_tables:
            try:
                names += [t for t in self.database.tables() if t not in names]
            except StoreError:
                self.database.close()
                raise
        self.standby.update(names[:MAX_TABLES])  # what the room holds, for the fair share
        self._update_share()
        for table in names[:MAX_TABLES]:
            try:
                self._adopt(table, announce=False)
            except StoreError:
                if self.strict:
                    self.database.close()
                    raise
                log.exception("table %s: cannot be served; standing by", table)
                self.standby.add(table)
        log.info(
            "rules daemon %s: %d tables served, %d standing by; connecting to %s",
            self.name,
            len(self.servers),
            len(self.standby),
            self.url,
        )
        self.link.start(timeout=None)
        self._announce_all()
        if not self.link.wait_connected(3.0 if timeout is None else timeout):
            if self.link.refusal is not None:
                log.error(
                    "the broker at %s refused the daemon's login (%s): check the user and "
                    "password in the table's file; still trying",
                    self.url,
                    self.link.refusal,
                )
            else:
                log.warning(
                    "no broker at %s yet; still trying (commands wait until then)", self.url
                )

    def _announce_all(self) -> None:
        for server in self.servers.values():
            server.announce()
        self.link.publish_retained(self.room.availability, ONLINE)

    def _adopt(self, table: str, *, announce: bool = True) -> bool:
        """Takes a table's lease and serves it; False (standing by) if another daemon has it."""
        if self._most is not None and len(self.servers) >= self._most:
            self.standby.add(table)  # this daemon has its share; another takes this one
            return False
        server = TableServer(table, self.link, self.database, self.sync, self.setup)
        if not self.database.claim(table):
            if self.strict:
                raise StoreError(
                    f"another rules daemon already serves table {table!r} from {self.database}"
                )
            self.standby.add(table)
            return False
        try:
            server.load()
        except StoreError:
            self.database.release(table)
            raise
        self.servers[table] = server
        self.standby.discard(table)
        log.info(
            "table %s: served; %d commands in the log, %d events",
            table,
            server.referee.last_seq,
            server.referee.event_count,
        )
        if announce:
            server.announce()
        return True

    def close(self) -> None:
        """Publishes `offline` (each table's and the daemon's), disconnects, closes the log."""
        if self.link.is_connected:
            for server in self.servers.values():
                self.link.publish_retained(server.topics.rules_availability, OFFLINE)
        self.link.stop()
        self.database.close()

    # -- the loop ----------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Serves commands until `stop` is set."""
        while not stop.is_set():
            item = self.link.get(timeout=0 if self._ready else TICK_SECONDS)
            drained = 0
            while item is not None:
                self._route(item)
                drained += 1
                if drained >= MAX_DRAIN:
                    break
                item = self.link.get(timeout=0)
            now = time.monotonic()
            if now >= self._next_lease_poll and (self.standby or self.database.postgresql):
                self._next_lease_poll = now + LEASE_POLL_SECONDS
                self._poll_leases()
            tick = now >= self._next_tick
            if tick:
                self._next_tick = now + TICK_SECONDS
            if not self._ready:
                if tick and self.setup.seats:
                    self._round(now, tick=True)  # grace periods run out with no message
                # Checkpointing syncs the database file: done while nobody waits for a reply,
                # when idle, or between rounds once the WAL has grown (a room is never idle).
                if drained == 0 or self.database.commits_since_checkpoint >= CHECKPOINT_COMMITS:
                    self._checkpoint()
                continue
            try:
                self._round(now, tick=tick and bool(self.setup.seats))
            except Exception:  # a bug must not take the room down; the logs are intact
                log.exception("rules daemon %s: a round failed; going on from the log", self.name)
                for server in self.servers.values():
                    if server.outcomes or server.referee.unsaved:
                        server.recover()
                # whatever the round did not get to is served next
                self._ready = {t: s for t, s in self.servers.items() if s.inbox}

    def serve(self, items: Sequence[Message | Connected | Disconnected]) -> None:
        """Serves these items now, in one round per PER_TABLE_ROUND (tests hand batches in)."""
        for item in items:
            self._route(item)
        while self._ready:
            self._round(time.monotonic(), tick=False)

    def _route(self, item: Message | Connected | Disconnected) -> None:
        """Sorts one inbound item into its table's inbox."""
        if isinstance(item, Connected):
            log.info("rules daemon %s: connected to %s", self.name, item.broker or self.url)
            return
        if isinstance(item, Disconnected):
            log.warning(
                "rules daemon %s: lost the broker (%s); reconnecting", self.name, item.reason
            )
            return
        table = _table_of(item.topic)
        server = self.servers.get(table) if table is not None else None
        if server is None:
            if table is None or table in self.standby:
                return  # another daemon's table (its owner answers), or no table at all
            if not self.all_tables or len(self.servers) + len(self.standby) >= MAX_TABLES:
                return
            try:
                check_table_id(table)
                if not self._adopt(table):
                    return
            except (TableIdError, StoreError) as error:
                self._warnings.warning(
                    f"adopt {table}", "table %s: not served: %s", table[:80], error
                )
                return
            server = self.servers[table]
        if len(server.inbox) >= MAX_INBOX:
            self._refuse_busy(server, item)
            return
        server.inbox.append(item)
        if server.table not in self._ready:
            self._ready[server.table] = server

    def _refuse_busy(self, server: TableServer, item: Message) -> None:
        self._warnings.warning(
            f"busy {server.table}",
            "table %s: %d messages waiting; refusing more until it catches up",
            server.table,
            len(server.inbox),
        )
        if item.topic != server.topics.command or item.retain:
            return
        reply = _internal_refusal(item.payload)
        reply.update(
            kind="busy",
            error=f"busy: table {server.table} has {MAX_INBOX} messages waiting; nothing "
            "was applied, send it again",
        )
        server.publish_reply(reply)

    def _round(self, now: float, *, tick: bool) -> None:
        """Decides up to PER_TABLE_ROUND items of every table, commits them all, publishes."""
        self.rounds += 1
        order = list(self._ready.values())
        if tick:  # every table that reads the physical table looks at its clock
            order += [s for s in self.servers.values() if s.physical and s.table not in self._ready]
        with self.link.corked():
            busy: list[TableServer] = []
            for server in order:
                batch = [
                    server.inbox.popleft()
                    for _ in range(min(self.per_table_round, len(server.inbox)))
                ]
                self._ready.pop(server.table, None)
                if server.inbox:  # more than its share of one round: to the back of the line
                    self._ready[server.table] = server
                try:
                    server.decide(batch, now)
                except Exception:  # a bug must not take the table down; the log is intact
                    log.exception("table %s: a batch of %d failed", server.table, len(batch))
                    server.recover()
                    continue
                if server.outcomes:
                    busy.append(server)
            if not busy:
                return
            self._commit(busy)
            for server in busy:
                server.publish_replies()
            self.link.flush()
            for server in busy:
                server.publish_results()

    def _commit(self, busy: list[TableServer]) -> None:
        """Writes every busy table's decided commands in one transaction; on failure, table by
        table, so one table's bad rows never cost another its commands."""
        writing = [server for server in busy if server.referee.unsaved]
        try:
            append_together([(s.referee.log, s.referee.pending()) for s in writing])
        except StoreError as error:
            if len(writing) == 1 or self.database.broken:
                for server in writing:
                    server.refuse_unsaved(error)
                busy[:] = [server for server in busy if server not in writing]
                self._lost_database()
                return
            log.warning("the round's group commit failed (%s); writing table by table", error)
            failed = []
            for server in writing:
                try:
                    server.referee.log.append(server.referee.pending())
                except StoreError as own:
                    server.refuse_unsaved(own)
                    failed.append(server)
                else:
                    server.referee.saved()
            busy[:] = [server for server in busy if server not in failed]
            return
        for server in writing:
            server.referee.saved()
        self.batches += 1

    def _lost_database(self) -> None:
        """A PostgreSQL connection that broke took every lease with it: stand by for all."""
        if not self.database.broken:
            return
        log.error(
            "rules daemon %s: lost the game log %s; standing by for its %d tables",
            self.name,
            self.database,
            len(self.servers),
        )
        self.standby.update(self.servers)
        self.servers.clear()
        self._ready.clear()
        self.database.close()

    def _poll_leases(self) -> None:
        """Takes over tables whose daemon is gone (their lease is free again); on PostgreSQL,
        first checks that this daemon's own connection (and so its leases) still lives."""
        if self.database.postgresql and self.database.is_open:
            try:
                self.database.ping()
            except StoreError as error:
                self._warnings.warning("ping", "rules daemon %s: %s", self.name, error)
                self._lost_database()
                return
        if self.balanced and self.database.is_open:
            try:
                self._update_share()
            except StoreError as error:
                self._warnings.warning("share", "rules daemon %s: %s", self.name, error)
                self._lost_database()
                return
            self._hand_over_surplus()
        if not self.standby:
            return
        if not self.database.is_open:
            try:
                self.database.open()
            except StoreError as error:
                self._warnings.warning("reopen", "rules daemon %s: %s", self.name, error)
                return
        for table in sorted(self.standby):
            try:
                if self._adopt(table):
                    log.warning("table %s: taken over by daemon %s", table, self.name)
            except StoreError as error:
                self._warnings.warning(f"adopt {table}", "table %s: %s", table, error)
                self._lost_database()
                return

    def _update_share(self) -> None:
        """Balanced: sets how many tables this daemon may take, from the room's live daemons.

        Each takes at most its fair share (the room's tables over the daemons, rounded up),
        and no more than one above the least loaded daemon: a daemon that joins finds the
        others handing tables over until it has its share; a daemon that dies leaves its
        tables to the others, whose share grows.
        """
        if not self.balanced:
            return
        room = len(self.servers) + len(self.standby)
        own, loads = self.database.room_loads(None if self.all_tables else self.wanted)
        daemons = max(1, len(loads | {own: len(self.servers)}))
        share = -(-room // daemons)
        least = min(loads.values(), default=0)
        self._most = min(share, least + 1) if loads.get(own, 0) > least else share
        self._surplus = max(0, len(self.servers) - share)
        if self._surplus == 0 and len(self.servers) >= least + 2:
            self._surplus = 1  # evens out: 5, 5, 2 becomes 4, 4, 4 in a few polls

    def _hand_over_surplus(self) -> None:
        """Gives up the tables beyond this daemon's share, one idle table at a time: its
        lease freed, its daemon-to-be takes it at its next poll (nothing is served twice:
        the lease is the table's)."""
        for _ in range(self._surplus):
            idle = [t for t, server in self.servers.items() if not server.inbox]
            if not idle:
                return
            table = max(idle)
            server = self.servers.pop(table)
            server.served = False
            self.database.release(table)
            self.standby.add(table)
            log.warning(
                "table %s: handed over by daemon %s (more than its share)", table, self.name
            )

    def _checkpoint(self) -> None:
        try:
            self.database.checkpoint()
        except StoreError as error:
            log.warning("%s", error)


class RulesDaemon(RoomDaemon):
    """Serves one table, as `tabletop rules --table X` always has: its last will is the
    table's own `rules/availability`, and a second daemon for the table is turned away."""

    def __init__(
        self,
        url: BrokerUrl,
        table: str,
        db_path: str | Path,
        sync: str = "full",
        *,
        seats: Sequence[str] | None = None,
        grace: float = 1.5,
        game: str = DEFAULT_GAME,
        options: dict[str, Any] | None = None,
        patience: Mapping[WaitKind, float] | None = None,
        snapshot_every: int = SNAPSHOT_EVERY,
    ) -> None:
        self.topics = TableTopics(table)
        setup = TableOptions(
            tuple(seats) if seats else None, grace, game, options, patience, snapshot_every
        )
        super().__init__(
            url,
            [table],
            db_path,
            sync,
            setup=setup,
            name=table,
            strict=True,
        )
        # Built here (not at start) so that the referee and the physical table can be read and
        # patched before the daemon starts, as they always could.
        self.server = TableServer(table, self.link, self.database, sync, self.setup)

    def _make_link(self) -> MqttLink:
        table = self.wanted[0]
        return MqttLink(
            self.url,
            client_id=f"tabletop-rules-{table}-{secrets.token_hex(8)}",
            subscriptions=self._subscriptions(),
            will=Will(TableTopics(table).rules_availability, OFFLINE, clean=OFFLINE),
            threaded=False,
            max_inflight=200,
        )

    @property
    def referee(self) -> Referee:
        return self.server.referee

    @property
    def physical(self) -> PhysicalTable | None:
        return self.server.physical

    def start(self, timeout: float | None = None) -> None:
        """Opens the log, rebuilds the game, and starts connecting (waits up to `timeout`)."""
        self.database.open()
        table = self.topics.table
        try:
            if not self.database.claim(table):
                raise StoreError(
                    f"another rules daemon already serves table {table!r} from {self.database}"
                )
            self.server.load()
        except StoreError:
            self.database.close()
            raise
        self.servers[table] = self.server
        log.info(
            "table %s: %d commands in the log, %d events; connecting to %s",
            table,
            self.referee.last_seq,
            self.referee.event_count,
            self.url,
        )
        self.link.start(timeout=None)
        self.server.announce()
        if not self.link.wait_connected(3.0 if timeout is None else timeout):
            if self.link.refusal is not None:
                log.error(
                    "table %s: the broker at %s refused the daemon's login (%s): check the "
                    "user and password in the table's file; still trying",
                    table,
                    self.url,
                    self.link.refusal,
                )
            else:
                log.warning(
                    "table %s: no broker at %s yet; still trying (commands wait until then)",
                    table,
                    self.url,
                )

    def close(self) -> None:
        """Publishes `offline`, disconnects and closes the log."""
        self.link.stop()  # the will's clean stop is the table's `offline`
        self.database.close()


def _table_of(topic: str) -> str | None:
    """The table a topic belongs to (`tabletop/v1/<table>/...`), or None."""
    prefix = ROOT + "/"
    if not topic.startswith(prefix):
        return None
    table, slash, _ = topic[len(prefix) :].partition("/")
    return table if slash and table else None


def _sync_reply(payload: bytes) -> dict[str, Any] | None:
    """The answer to `{"cmd": "sync", "id": ...}` (None for any other payload).

    A client that has had the reply to its command sends a sync and waits for its answer:
    by then every event and view of the rounds before has been published to it, where
    waiting for a quiet spell would be a guess at how fast the host is."""
    if b'"sync"' not in payload:
        return None
    try:
        raw = read_json(payload)
    except PayloadError:
        return None
    if not isinstance(raw, dict) or raw.get("cmd") != "sync" or set(raw) - {"cmd", "id", "v"}:
        return None
    return {"v": PROTOCOL_VERSION, "id": raw.get("id"), "ok": True, "sync": True}


def _seat_command_of(payload: bytes) -> dict[str, Any] | None:
    """The command a seat's phone sent (it names its `seat`), or None for any other payload."""
    if b'"seat"' not in payload:
        return None
    try:
        raw = read_json(payload)
    except PayloadError:
        return None
    return raw if is_seat_command(raw) else None


def _internal_refusal(payload: bytes) -> dict[str, Any]:
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
