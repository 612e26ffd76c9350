"""The durable game log: every command a table received, its reply and its events.

The log lives in SQLite (a file path) or in PostgreSQL (`postgresql://...`), in the same three
tables either way. One database holds any number of tables; each table's rows are keyed by its
id. `LogDatabase` is one connection to such a database, shared by every table a daemon serves,
so that one transaction (one disk sync) can carry the commands of many tables at once
(`append_together`). `GameLog` is one table's part of it.

SQLite is written in WAL mode, by default with `synchronous=FULL`: each commit reaches the disk
before the daemon publishes anything about it (GameLog explains the faster "normal" mode).
A daemon holds an exclusive lock per table so two daemons never write the same table: a lock
file beside the SQLite file, or a PostgreSQL advisory lock held by the connection that writes
(so a daemon that dies, or loses its connection, loses its tables' leases with it). The state
is the fold of the events; a table's latest snapshot (`snapshots`, one row a table, written in
the same transaction as the commands it follows) is a cache of that fold at one command, so a
restart folds only the commands after it. A log without snapshots (written before them) is
read as before, and gets one at its table's next start.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .errors import DaemonError

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commands (
    table_id   TEXT    NOT NULL,
    seq        INTEGER NOT NULL,
    command_id TEXT,
    payload    TEXT    NOT NULL,
    reply      TEXT    NOT NULL,
    ok         INTEGER NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS commands_by_id
    ON commands (table_id, command_id) WHERE command_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT    NOT NULL,
    number   INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    event    TEXT    NOT NULL,
    PRIMARY KEY (table_id, number)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    table_id    TEXT    NOT NULL PRIMARY KEY,
    seq         INTEGER NOT NULL,
    events      INTEGER NOT NULL,
    format      INTEGER NOT NULL,
    fingerprint TEXT    NOT NULL,
    meta        TEXT    NOT NULL,
    state       BLOB    NOT NULL
);
"""
# The same tables in PostgreSQL: the same columns and keys, in its dialect.
_PG_SCHEMA = (
    _SCHEMA.replace(" WITHOUT ROWID", "")
    .replace("seq        INTEGER", "seq        BIGINT")
    .replace("number   INTEGER", "number   BIGINT")
    .replace("seq      INTEGER", "seq      BIGINT")
    .replace("seq         INTEGER", "seq         BIGINT")
    .replace("events      INTEGER", "events      BIGINT")
    .replace("BLOB", "BYTEA")
)
# A snapshot's row: replaced by the table's next one.
_SNAPSHOT_UPSERT = (
    "INSERT INTO snapshots VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET "
    "seq = excluded.seq, events = excluded.events, format = excluded.format, "
    "fingerprint = excluded.fingerprint, meta = excluded.meta, state = excluded.state"
)
# Every advisory lock key of this program starts from this, so other users of the same
# PostgreSQL database do not collide with a table's lease by chance.
_LEASE_NAMESPACE = b"tabletop/v1 rules lease "
# Two daemons creating the schema at once would collide on PostgreSQL's catalog.
_SCHEMA_LOCK_KEY = 0x7AB1E70B
_ROOM_NAMESPACE = b"tabletop/v1 rules room "


class StoreError(DaemonError):
    """The game log cannot be opened, read or written."""


@dataclass(frozen=True, slots=True)
class CommandRecord:
    """One command as logged: its sequence number at the table, id, payload, reply and events."""

    seq: int
    command_id: str | None
    payload: str
    reply: dict[str, Any]
    # The events as their game wrote them (`GameRules.event_to_json`): the log keeps any
    # game's events without knowing the game; the reply of a new game names it.
    events_json: tuple[dict[str, Any], ...] = ()

    @property
    def ok(self) -> bool:
        return bool(self.reply.get("ok"))


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A table's state after one command, as the log keeps it: a cache of the fold.

    `seq`: the last command folded in; `events`: the table's event rows up to it; `format` and
    `fingerprint`: what wrote `state` (tabletop.rules.games.snapshots); `meta`: what the referee
    keeps beside the game's state (the game's name, its refusals, ...)."""

    seq: int
    events: int
    format: int
    fingerprint: str
    meta: dict[str, Any]
    state: bytes


SYNC_MODES = ("full", "normal")
# Pages the WAL may grow to before SQLite checkpoints on its own in the middle of a commit;
# the daemon checkpoints when idle, so this is only the backstop.
WAL_BACKSTOP_PAGES = 20_000


def is_postgresql(where: str | os.PathLike[str]) -> bool:
    """True when `--db` names a PostgreSQL database rather than a SQLite file."""
    return str(where).startswith(("postgresql://", "postgres://"))


def lease_key(table: str) -> int:
    """The PostgreSQL advisory lock key of a table's lease (a signed 64-bit number)."""
    digest = hashlib.sha256(_LEASE_NAMESPACE + table.encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def room_key(room: str) -> int:
    """The advisory lock key every daemon of one room holds shared while it runs."""
    digest = hashlib.sha256(_ROOM_NAMESPACE + room.encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


Rows = tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]


class LogDatabase:
    """One connection to a log database, shared by the tables one daemon serves.

    Opened by `open()`, which creates the schema if needed; `claim(table)` takes a table's
    lease (False if another daemon holds it); `write()` stores the rows of many tables in
    one transaction.
    """

    def __init__(self, where: str | os.PathLike[str], sync: str = "full") -> None:
        if sync not in SYNC_MODES:
            raise StoreError(f"sync mode {sync!r}: expected {' or '.join(SYNC_MODES)}")
        self.where = str(where)
        self.postgresql = is_postgresql(where)
        self.sync = sync
        self.commits_since_checkpoint = 0
        self._sqlite: sqlite3.Connection | None = None
        self._pg: Any = None  # a psycopg.Connection, imported only when one is used
        self._locks: dict[str, IO[bytes]] = {}
        self._leases: set[str] = set()
        # PostgreSQL: the room this connection says it serves (see `room_loads`).
        self.room: str | None = None

    def __str__(self) -> str:
        if not self.postgresql:
            return self.where
        # A PostgreSQL URL may carry a password: logs and messages name the rest.
        from urllib.parse import urlsplit

        parts = urlsplit(self.where)
        host = parts.hostname or "localhost"
        port = f":{parts.port}" if parts.port else ""
        user = f"{parts.username}@" if parts.username else ""
        return f"{parts.scheme}://{user}{host}{port}{parts.path}"

    @property
    def is_open(self) -> bool:
        return self._sqlite is not None or self._pg is not None

    # -- opening and closing --------------------------------------------------------------

    def open(self) -> None:
        """Connects (creating the SQLite file and the schema if needed)."""
        if self.is_open:
            return
        if self.postgresql:
            self._open_postgresql()
        else:
            self._open_sqlite()

    def _open_sqlite(self) -> None:
        path = Path(self.where)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # The daemon opens the log on one thread and serves on another, never both at once.
            db = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={self.sync.upper()}")
            db.execute(f"PRAGMA wal_autocheckpoint={WAL_BACKSTOP_PAGES}")
            db.executescript(_SCHEMA)
            db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)",
                (str(SCHEMA_VERSION),),
            )
            (version,) = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except (OSError, sqlite3.Error) as error:
            raise StoreError(f"cannot open the game log {self}: {error}") from error
        if version != str(SCHEMA_VERSION):
            db.close()
            raise StoreError(self._wrong_version(version))
        self._sqlite = db

    def _open_postgresql(self) -> None:
        try:
            import psycopg
        except ImportError as error:  # the `venue` extra: a single table has no need of it
            raise StoreError(
                f"the game log {self} is in PostgreSQL, whose driver (psycopg) is the "
                "project's `venue` extra: install it with pip install '.[venue]' in the "
                "checkout (or pip install 'psycopg[binary]'), or give --db a SQLite file"
            ) from error
        try:
            conn = psycopg.connect(self.where, autocommit=True, connect_timeout=10)
        except psycopg.Error as error:
            raise StoreError(f"cannot open the game log {self}: {error}") from error
        try:
            if self.sync == "normal":
                # The counterpart of SQLite's NORMAL: survives the daemon's crash, not the
                # database server's.
                conn.execute("SET synchronous_commit = off")
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK_KEY,))
                for statement in _PG_SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema', %s) ON CONFLICT DO NOTHING",
                    (str(SCHEMA_VERSION),),
                )
                row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except psycopg.Error as error:
            conn.close()
            raise StoreError(f"cannot open the game log {self}: {error}") from error
        if row is None or row[0] != str(SCHEMA_VERSION):
            conn.close()
            raise StoreError(self._wrong_version(None if row is None else row[0]))
        self._pg = conn
        if self.room is not None:
            # Held as long as this connection lives: how the daemons of a room count one another.
            self._pg_fetch("SELECT pg_advisory_lock_shared(%s)", (room_key(self.room),))

    def _wrong_version(self, version: object) -> str:
        return (
            f"the game log {self} has schema version {version}; this daemon reads "
            f"version {SCHEMA_VERSION}"
        )

    def close(self) -> None:
        """Closes the connection and gives every table's lease back."""
        for table in list(self._locks):
            self.release(table)
        self._leases.clear()
        if self._sqlite is not None:
            self._sqlite.close()
            self._sqlite = None
        if self._pg is not None:
            try:
                self._pg.close()
            finally:
                self._pg = None

    # -- leases ---------------------------------------------------------------------------

    def claim(self, table: str) -> bool:
        """Takes the table's lease for this connection; False if another daemon holds it."""
        if table in self._leases:
            return True
        if self.postgresql:
            taken = bool(self._pg_fetch("SELECT pg_try_advisory_lock(%s)", (lease_key(table),)))
        else:
            taken = self._lock_file(table)
        if taken:
            self._leases.add(table)
        return taken

    def _lock_file(self, table: str) -> bool:
        path = Path(self.where)
        lock_path = path.with_name(f"{path.name}.{table}.lock")
        try:
            handle = open(lock_path, "ab")  # noqa: SIM115 - held open while the lease is held
        except OSError as error:
            raise StoreError(f"cannot lock table {table!r} of {self}: {error}") from error
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self._locks[table] = handle
        return True

    def release(self, table: str) -> None:
        """Gives the table's lease back (nothing if it was not held)."""
        if table not in self._leases:
            return
        self._leases.discard(table)
        handle = self._locks.pop(table, None)
        if handle is not None:
            handle.close()
        elif self._pg is not None:
            try:
                self._pg_fetch("SELECT pg_advisory_unlock(%s)", (lease_key(table),))
            except StoreError as error:  # the connection is gone, and the lease with it
                log.debug("releasing %s: %s", table, error)

    def room_loads(self, tables: Sequence[str] | None) -> tuple[int, dict[int, int]]:
        """PostgreSQL: this connection's server pid, and for every live daemon of this
        connection's room (by its pid, this one included) how many of `tables` it holds
        (None: how many table leases of any table).

        A daemon that died, or lost its connection, is not counted: its locks ended with it.
        """
        if self.room is None or self._pg is None:
            raise StoreError("the daemons of a room are counted on PostgreSQL only")
        keys = None if tables is None else [lease_key(table) for table in tables]
        try:
            rows = self._query(
                "SELECT member.pid, (SELECT count(*) FROM pg_locks lease "
                "  WHERE lease.locktype = 'advisory' AND lease.granted AND lease.objsubid = 1 "
                "  AND lease.mode = 'ExclusiveLock' AND lease.pid = member.pid "
                "  AND (%s::bigint[] IS NULL "
                "       OR ((lease.classid::bigint << 32) | lease.objid::bigint) = ANY(%s))) "
                "FROM pg_locks member WHERE member.locktype = 'advisory' AND member.granted "
                "AND member.objsubid = 1 AND member.mode = 'ShareLock' "
                "AND member.database = (SELECT oid FROM pg_database "
                "                       WHERE datname = current_database()) "
                "AND ((member.classid::bigint << 32) | member.objid::bigint) = %s",
                (keys, keys, room_key(self.room)),
            )
        except self._errors() as error:
            raise StoreError(f"cannot count the daemons of {self}: {error}") from error
        own = self._pg_fetch("SELECT pg_backend_pid()", ())
        return int(own), {int(pid): int(count) for pid, count in rows}

    def ping(self) -> None:
        """Raises StoreError if the connection is gone (PostgreSQL; its leases went with it)."""
        if self._pg is not None:
            self._pg_fetch("SELECT 1", ())

    def holds(self, table: str) -> bool:
        return table in self._leases

    def _pg_fetch(self, sql: str, params: tuple[Any, ...]) -> Any:
        import psycopg

        if self._pg is None:
            raise StoreError("the game log is not open")
        try:
            row = self._pg.execute(sql, params).fetchone()
        except psycopg.Error as error:
            raise StoreError(f"the game log {self}: {error}") from error
        return None if row is None else row[0]

    # -- reading and writing --------------------------------------------------------------

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        if self._sqlite is not None:
            return self._sqlite.execute(sql, params).fetchall()
        if self._pg is not None:
            rows: list[tuple[Any, ...]] = self._pg.execute(
                sql.replace("?", "%s"), params
            ).fetchall()
            return rows
        raise StoreError("the game log is not open")

    def _errors(self) -> tuple[type[Exception], ...]:
        if self.postgresql:
            import psycopg

            return (psycopg.Error, sqlite3.Error)
        return (sqlite3.Error,)

    def read(self, table: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """A table's event rows (number, seq, event) and command rows (seq, id, payload, reply)."""
        try:
            events = self._query(
                "SELECT number, seq, event FROM events WHERE table_id = ? ORDER BY number",
                (table,),
            )
            commands = self._query(
                "SELECT seq, command_id, payload, reply FROM commands WHERE table_id = ? "
                "ORDER BY seq",
                (table,),
            )
        except self._errors() as error:
            raise StoreError(f"cannot read table {table!r} from {self}: {error}") from error
        return events, commands

    def read_after(
        self, table: str, seq: int, events: int
    ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """`read`, of the rows after command `seq` and event `events` only."""
        try:
            event_rows = self._query(
                "SELECT number, seq, event FROM events WHERE table_id = ? AND number > ? "
                "ORDER BY number",
                (table, events),
            )
            commands = self._query(
                "SELECT seq, command_id, payload, reply FROM commands WHERE table_id = ? "
                "AND seq > ? ORDER BY seq",
                (table, seq),
            )
        except self._errors() as error:
            raise StoreError(f"cannot read table {table!r} from {self}: {error}") from error
        return event_rows, commands

    def snapshot(self, table: str) -> Snapshot | None:
        """A table's latest snapshot, if it has one that agrees with the log's rows: its
        command is there and its event count is where the events stand at that command (a
        log cut short by hand, or another table's rows under its id: None, with a warning)."""
        try:
            rows = self._query(
                "SELECT seq, events, format, fingerprint, meta, state FROM snapshots "
                "WHERE table_id = ?",
                (table,),
            )
            if not rows:
                return None
            seq, events, format_, fingerprint, meta_text, state = rows[0]
            # The command it follows is there, and the events up to it are exactly `events`.
            command = self._query(
                "SELECT seq FROM commands WHERE table_id = ? AND seq = ?", (table, seq)
            )
            bounds = self._query(
                "SELECT number, seq FROM events WHERE table_id = ? AND number IN (?, ?)",
                (table, events, events + 1),
            )
        except self._errors() as error:
            raise StoreError(f"cannot read table {table!r} from {self}: {error}") from error
        by_number = {int(number): int(at) for number, at in bounds}
        agrees = (
            bool(command)
            and (events == 0 or by_number.get(events, seq + 1) <= seq)
            and by_number.get(events + 1, seq + 1) > seq
        )
        try:
            meta = json.loads(meta_text)
            if not isinstance(meta, dict):
                raise ValueError("not a JSON object")
        except (ValueError, TypeError) as error:
            log.warning("table %s: its snapshot in %s is unreadable (%s)", table, self, error)
            return None
        if not agrees:
            log.warning(
                "table %s: its snapshot at command %s does not match the log in %s; the "
                "whole log is read instead",
                table,
                seq,
                self,
            )
            return None
        return Snapshot(int(seq), int(events), int(format_), str(fingerprint), meta, bytes(state))

    def command_ids(self, table: str) -> set[str]:
        """Every command id a table's log holds (their replies are read when a repeat comes)."""
        try:
            rows = self._query(
                "SELECT command_id FROM commands WHERE table_id = ? AND command_id IS NOT NULL",
                (table,),
            )
        except self._errors() as error:
            raise StoreError(f"cannot read table {table!r} from {self}: {error}") from error
        return {row[0] for row in rows}

    def reply(self, table: str, command_id: str) -> str | None:
        """The logged reply to a command id (its text), or None."""
        try:
            rows = self._query(
                "SELECT reply FROM commands WHERE table_id = ? AND command_id = ?",
                (table, command_id),
            )
        except self._errors() as error:
            raise StoreError(f"cannot read table {table!r} from {self}: {error}") from error
        return str(rows[0][0]) if rows else None

    def tables(self) -> list[str]:
        """Every table that has a command in this log."""
        try:
            return [row[0] for row in self._query("SELECT DISTINCT table_id FROM commands", ())]
        except self._errors() as error:
            raise StoreError(f"cannot list the tables of {self}: {error}") from error

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> None:
        """Runs one statement outside the daemon's own (for tests and repairs)."""
        try:
            self._query(sql, params) if sql.lstrip().upper().startswith("SELECT") else (
                self._statement(sql, params)
            )
        except self._errors() as error:
            raise StoreError(f"{self}: {error}") from error

    def _statement(self, sql: str, params: tuple[Any, ...]) -> None:
        if self._sqlite is not None:
            self._sqlite.execute(sql, params)
        elif self._pg is not None:
            self._pg.execute(sql.replace("?", "%s"), params)
        else:
            raise StoreError("the game log is not open")

    def write(
        self, batches: Sequence[tuple[str, Rows]], snapshots: Sequence[tuple[Any, ...]] = ()
    ) -> None:
        """Stores the command and event rows of every table in `batches` in one transaction,
        and the tables' new `snapshots` rows (each replacing its table's last one).

        Raises StoreError naming the tables when nothing was written; a table whose lease
        this connection no longer holds is never written (PostgreSQL: the lease is checked
        inside the transaction).
        """
        names = ", ".join(repr(table) for table in sorted({table for table, _ in batches}))
        commands = [row for _, (rows, _events) in batches for row in rows]
        events = [row for _, (_rows, rows) in batches for row in rows]
        try:
            if self._sqlite is not None:
                self._write_sqlite(self._sqlite, commands, events, snapshots)
            elif self._pg is not None:
                tables = [table for table, _ in batches]
                self._write_postgresql(self._pg, tables, commands, events, snapshots)
            else:
                raise StoreError("the game log is not open")
        except StoreError:
            raise
        except Exception as error:
            raise StoreError(f"cannot write table {names} to {self}: {error}") from error
        self.commits_since_checkpoint += 1

    def _write_sqlite(
        self,
        db: sqlite3.Connection,
        commands: list[tuple[Any, ...]],
        events: list[tuple[Any, ...]],
        snapshots: Sequence[tuple[Any, ...]],
    ) -> None:
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO commands VALUES (?, ?, ?, ?, ?, ?)", commands)
            db.executemany("INSERT INTO events VALUES (?, ?, ?, ?)", events)
            db.executemany(_SNAPSHOT_UPSERT, snapshots)
            db.execute("COMMIT")
        except Exception:
            # Whatever went wrong (the disk, or a value SQLite cannot bind), the transaction
            # must not stay open: it would hold the write lock of every table in this file.
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def _write_postgresql(
        self,
        conn: Any,
        tables: list[str],
        commands: list[tuple[Any, ...]],
        events: list[tuple[Any, ...]],
        snapshots: Sequence[tuple[Any, ...]],
    ) -> None:
        with conn.transaction(), conn.cursor() as cursor:
            # A lease lost with a broken connection cannot come back on a new one unseen:
            # the session's own advisory locks are checked in the same transaction.
            keys = [lease_key(table) for table in tables]
            cursor.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND pid = pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint) "
                "= ANY(%s)",
                (keys,),
            )
            row = cursor.fetchone()
            if row is None or row[0] < len(set(keys)):
                raise StoreError(f"the lease of table {', '.join(tables)} in {self} was lost")
            if commands:
                cursor.executemany("INSERT INTO commands VALUES (%s, %s, %s, %s, %s, %s)", commands)
            if events:
                cursor.executemany("INSERT INTO events VALUES (%s, %s, %s, %s)", events)
            if snapshots:
                cursor.executemany(_SNAPSHOT_UPSERT.replace("?", "%s"), snapshots)

    @property
    def broken(self) -> bool:
        """True when a PostgreSQL connection was lost (its leases are gone with it)."""
        return self._pg is not None and bool(self._pg.closed or self._pg.broken)

    def checkpoint(self) -> None:
        """SQLite: folds the WAL into the database file (when idle, not mid-command)."""
        if self.commits_since_checkpoint == 0 or self._sqlite is None:
            self.commits_since_checkpoint = 0
            return
        try:
            self._sqlite.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as error:
            raise StoreError(f"cannot checkpoint {self}: {error}") from error
        self.commits_since_checkpoint = 0


class GameLog:
    """One table's part of a log database: read at start (from its latest snapshot on, or
    all of it), append commands in batches.

    `sync="full"` (the default) syncs the disk on every commit: an acknowledged command
    survives a power cut. `sync="normal"` leaves that to checkpoints: an acknowledged command
    still survives `kill -9` of the daemon (it is in the operating system's hands), but a
    power cut may lose the last ones. Given a `database`, the log shares that connection
    (and its transactions) with other tables; otherwise it opens its own.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        table: str,
        sync: str = "full",
        *,
        database: LogDatabase | None = None,
    ) -> None:
        if sync not in SYNC_MODES:
            raise StoreError(f"sync mode {sync!r}: expected {' or '.join(SYNC_MODES)}")
        self.path = path if is_postgresql(path) else Path(path)
        self.table = table
        self.sync = sync
        self.database = database if database is not None else LogDatabase(path, sync)
        self._own_database = database is None
        self._event_count = 0
        # The command the table's latest snapshot follows (0: none), and the one to write with
        # the next batch (`offer_snapshot`).
        self.snapshot_seq = 0
        self._offered: Snapshot | None = None

    @property
    def commits_since_checkpoint(self) -> int:
        return self.database.commits_since_checkpoint

    def open(self) -> None:
        """Opens (creating if needed) the database and takes this table's lease."""
        self.database.open()
        try:
            taken = self.database.claim(self.table)
        except StoreError:
            self.close()
            raise
        if not taken:
            self.close()
            raise StoreError(
                f"another rules daemon already serves table {self.table!r} from {self.database}"
            )

    def close(self) -> None:
        """Gives the table's lease back (and closes the database when it is this log's own)."""
        self.database.release(self.table)
        if self._own_database:
            self.database.close()

    def snapshot(self) -> Snapshot | None:
        """The table's latest snapshot (None: none, or none that agrees with the log)."""
        if not self.database.is_open:
            raise StoreError("the game log is not open")
        found = self.database.snapshot(self.table)
        self.snapshot_seq = 0 if found is None else found.seq
        return found

    def records(self, after: Snapshot | None = None) -> Iterator[CommandRecord]:
        """Every command logged for this table, oldest first, with the events it caused
        (`after` a snapshot: only those that follow it).

        A row that cannot be read (damaged, or written by a version that stored text it
        should not have) is skipped with an error in the daemon's log, never fatal: the
        table must start whatever its log holds. The row stays in the database.
        """
        if not self.database.is_open:
            raise StoreError("the game log is not open")
        if after is None:
            event_rows, command_rows = self.database.read(self.table)
            before = 0
        else:
            event_rows, command_rows = self.database.read_after(self.table, after.seq, after.events)
            before = after.events
        events: dict[int, list[dict[str, Any]]] = {}
        for number, seq, text in event_rows:
            try:
                event = json.loads(text)
                if not isinstance(event, dict):
                    raise ValueError("the event is not a JSON object")
                events.setdefault(seq, []).append(event)
            except (ValueError, TypeError) as error:
                log.error(
                    "table %s: event %s in %s is unreadable, skipped: %s",
                    self.table,
                    number,
                    self.database,
                    error,
                )
        self._event_count = before + len(event_rows)
        for seq, command_id, payload, reply_text in command_rows:
            try:
                reply = json.loads(reply_text)
                if not isinstance(reply, dict):
                    raise ValueError("the reply is not a JSON object")
            except (ValueError, TypeError) as error:
                log.error(
                    "table %s: command %s in %s is unreadable, skipped: %s",
                    self.table,
                    seq,
                    self.database,
                    error,
                )
                continue
            yield CommandRecord(seq, command_id, payload, reply, tuple(events.get(seq, ())))

    def command_ids(self) -> set[str]:
        """Every command id this table's log holds."""
        return self.database.command_ids(self.table)

    def reply(self, command_id: str) -> dict[str, Any] | None:
        """The logged reply to a command id; None if there is none, or it is unreadable."""
        text = self.database.reply(self.table, command_id)
        if text is None:
            return None
        try:
            reply = json.loads(text)
        except (ValueError, TypeError):
            return None
        return reply if isinstance(reply, dict) else None

    def offer_snapshot(self, snapshot: Snapshot) -> None:
        """A snapshot to write with the next batch, if that batch ends at its command
        (its `events` is filled in then)."""
        self._offered = snapshot

    def write_snapshot(self, snapshot: Snapshot) -> None:
        """Writes a snapshot of the state after the last logged command, on its own."""
        if not self.database.holds(self.table):
            raise StoreError(f"table {self.table!r} is not held by this daemon")
        row = self._snapshot_row(snapshot, self._event_count)
        self.database.write([(self.table, ([], []))], [row])
        self.snapshot_seq = snapshot.seq

    def _snapshot_row(self, snapshot: Snapshot, events: int) -> tuple[Any, ...]:
        meta = json.dumps(snapshot.meta, separators=(",", ":"))
        return (
            self.table,
            snapshot.seq,
            events,
            snapshot.format,
            snapshot.fingerprint,
            meta,
            snapshot.state,
        )

    def rows(self, records: Iterable[CommandRecord]) -> tuple[Rows, int]:
        """The database rows of a batch of records, and the event count after it."""
        number = self._event_count
        command_rows: list[tuple[Any, ...]] = []
        event_rows: list[tuple[Any, ...]] = []
        for record in records:
            command_rows.append(
                (
                    self.table,
                    record.seq,
                    record.command_id,
                    record.payload,
                    json.dumps(record.reply, separators=(",", ":")),
                    int(record.ok),
                )
            )
            for event_json in record.events_json:
                number += 1
                event_rows.append(
                    (self.table, number, record.seq, json.dumps(event_json, separators=(",", ":")))
                )
        return (command_rows, event_rows), number

    def append(self, records: Iterable[CommandRecord]) -> None:
        """Writes a batch of commands and their events in one transaction, durably."""
        append_together([(self, records)])

    def checkpoint(self) -> None:
        """Folds the WAL into the database file (when the daemon is idle, not mid-command)."""
        self.database.checkpoint()


def append_together(batches: Sequence[tuple[GameLog, Iterable[CommandRecord]]]) -> None:
    """Writes the batches of several tables of one database in one transaction (one sync).

    Either every table's batch is written or none is (StoreError).
    """
    if not batches:
        return
    database = batches[0][0].database
    if any(game_log.database is not database for game_log, _ in batches):
        raise StoreError("append_together: the tables' logs are in different databases")
    prepared = []
    snapshots: list[tuple[Any, ...]] = []
    written: list[tuple[GameLog, int]] = []
    for game_log, batch in batches:
        if not database.holds(game_log.table):
            raise StoreError(f"table {game_log.table!r} is not held by this daemon")
        records = list(batch)
        rows, count = game_log.rows(records)
        prepared.append((game_log, rows, count))
        offered, game_log._offered = game_log._offered, None
        if offered is not None and records and offered.seq == records[-1].seq:
            snapshots.append(game_log._snapshot_row(offered, count))
            written.append((game_log, offered.seq))
    database.write([(game_log.table, rows) for game_log, rows, _ in prepared], snapshots)
    for game_log, _, count in prepared:
        game_log._event_count = count
    for game_log, seq in written:
        game_log.snapshot_seq = seq
