"""The durable game log: every command a table received, its reply and its events, in SQLite.

One database file may hold many tables; each table's rows are keyed by its id. The log is
written in WAL mode, by default with `synchronous=FULL`: each commit reaches the disk before
the daemon publishes anything about it (GameLog explains the faster "normal" mode). A daemon
holds an exclusive lock per table so two daemons never write the same table. The state is
never stored: it is the fold of the events.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import sqlite3
from collections.abc import Iterable, Iterator
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
"""


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


SYNC_MODES = ("full", "normal")
# Pages the WAL may grow to before SQLite checkpoints on its own in the middle of a commit;
# the daemon checkpoints when idle, so this is only the backstop.
WAL_BACKSTOP_PAGES = 20_000


class GameLog:
    """One table's part of a log database: read it all at start, append commands in batches.

    `sync="full"` (the default) syncs the disk on every commit: an acknowledged command
    survives a power cut. `sync="normal"` leaves that to checkpoints: an acknowledged command
    still survives `kill -9` of the daemon (it is in the operating system's hands), but a
    power cut may lose the last ones.
    """

    def __init__(self, path: str | os.PathLike[str], table: str, sync: str = "full") -> None:
        if sync not in SYNC_MODES:
            raise StoreError(f"sync mode {sync!r}: expected {' or '.join(SYNC_MODES)}")
        self.path = Path(path)
        self.table = table
        self.sync = sync
        self.commits_since_checkpoint = 0
        self._db: sqlite3.Connection | None = None
        self._lock: IO[bytes] | None = None
        self._event_count = 0

    def open(self) -> None:
        """Opens (creating if needed) the database and takes this table's lock."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock = self._take_lock()
            # The daemon opens the log on one thread and serves on another, never both at once.
            db = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
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
            self.close()
            raise StoreError(f"cannot open the game log {self.path}: {error}") from error
        if version != str(SCHEMA_VERSION):
            db.close()
            self.close()
            raise StoreError(
                f"the game log {self.path} has schema version {version}; this daemon reads "
                f"version {SCHEMA_VERSION}"
            )
        self._db = db

    def _take_lock(self) -> IO[bytes]:
        lock_path = self.path.with_name(f"{self.path.name}.{self.table}.lock")
        handle = open(lock_path, "ab")  # noqa: SIM115 - held open for the daemon's life
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise StoreError(
                f"another rules daemon already serves table {self.table!r} from {self.path}"
            ) from None
        return handle

    def close(self) -> None:
        """Closes the database and releases the table's lock."""
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError("the game log is not open")
        return self._db

    def records(self) -> Iterator[CommandRecord]:
        """Every command logged for this table, oldest first, with the events it caused.

        A row that cannot be read (damaged, or written by a version that stored text it
        should not have) is skipped with an error in the daemon's log, never fatal: the
        table must start whatever its log holds. The row stays in the file.
        """
        db = self._conn()
        try:
            events: dict[int, list[dict[str, Any]]] = {}
            count = 0
            for number, seq, text in db.execute(
                "SELECT number, seq, event FROM events WHERE table_id = ? ORDER BY number",
                (self.table,),
            ):
                count += 1
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
                        self.path,
                        error,
                    )
            self._event_count = count
            rows = db.execute(
                "SELECT seq, command_id, payload, reply FROM commands WHERE table_id = ? "
                "ORDER BY seq",
                (self.table,),
            ).fetchall()
        except sqlite3.Error as error:
            raise StoreError(
                f"cannot read table {self.table!r} from {self.path}: {error}"
            ) from error
        for seq, command_id, payload, reply_text in rows:
            try:
                reply = json.loads(reply_text)
                if not isinstance(reply, dict):
                    raise ValueError("the reply is not a JSON object")
            except (ValueError, TypeError) as error:
                log.error(
                    "table %s: command %s in %s is unreadable, skipped: %s",
                    self.table,
                    seq,
                    self.path,
                    error,
                )
                continue
            yield CommandRecord(seq, command_id, payload, reply, tuple(events.get(seq, ())))

    def append(self, records: Iterable[CommandRecord]) -> None:
        """Writes a batch of commands and their events in one transaction, durably."""
        db = self._conn()
        number = self._event_count
        command_rows = []
        event_rows = []
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
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO commands VALUES (?, ?, ?, ?, ?, ?)", command_rows)
            db.executemany("INSERT INTO events VALUES (?, ?, ?, ?)", event_rows)
            db.execute("COMMIT")
        except Exception as error:
            # Whatever went wrong (the disk, or a value SQLite cannot bind), the transaction
            # must not stay open: it would hold the write lock of every table in this file.
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise StoreError(
                f"cannot write table {self.table!r} to {self.path}: {error}"
            ) from error
        self._event_count = number
        self.commits_since_checkpoint += 1

    def checkpoint(self) -> None:
        """Folds the WAL into the database file (when the daemon is idle, not mid-command)."""
        if self.commits_since_checkpoint == 0:
            return
        try:
            self._conn().execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as error:
            raise StoreError(f"cannot checkpoint {self.path}: {error}") from error
        self.commits_since_checkpoint = 0
