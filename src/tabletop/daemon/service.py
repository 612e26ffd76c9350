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
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from tabletop.rules.games import DEFAULT_GAME
from tabletop.rules.games.game import WaitKind
from tabletop.wire.mqtt import BrokerUrl, Connected, Disconnected, Message, MqttLink, Will
from tabletop.wire.throttled_log import ThrottledLog
from tabletop.wire.topics import ROOT, RoomTopics, TableIdError, TableTopics, check_table_id

from .referee import SNAPSHOT_EVERY, Referee
from .server import (
    ONLINE,
    TableOptions,
    TableServer,
    internal_refusal,
)
from .store import LogDatabase, StoreError, append_together
from .table import PhysicalTable

log = logging.getLogger(__name__)

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
# With --all-tables, the most tables one daemon takes on (a bound on what strangers can make
# it open by publishing on made-up table ids).
MAX_TABLES: Final = 2000
# Commits after which the WAL is checkpointed between rounds even when the room is busy.
CHECKPOINT_COMMITS: Final = 1000
# Table events are read at most this often when no message arrives (grace periods).
TICK_SECONDS: Final = 0.2


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
        reply = internal_refusal(item.payload)
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
