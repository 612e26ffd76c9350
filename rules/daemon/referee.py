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
from typing import Any, Final

from rules.errors import IllegalMove, InvalidCommand, RulesError
from rules.sixshooter import Event, Game, event_to_json, pending_to_json, state_to_json

from .store import CommandRecord, GameLog, StoreError

log = logging.getLogger(__name__)

PROTOCOL_VERSION: Final = 1
MAX_PAYLOAD_BYTES: Final = 64 * 1024
MAX_ID_LENGTH: Final = 128
# Oversized or undecodable payloads are kept in the log only as their first characters.
LOGGED_PAYLOAD_CHARS: Final = 2000


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one payload: the reply to publish and the events to announce."""

    reply: dict[str, Any]
    events: tuple[Event, ...] = ()
    events_json: tuple[dict[str, Any], ...] = ()
    first_event_number: int = 0
    duplicate: bool = False

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
    """One table's game, its rejected commands and its id index, backed by a GameLog."""

    def __init__(self, log_: GameLog) -> None:
        self.log = log_
        self.game = Game()
        self.rejected: list[dict[str, Any]] = []
        self.replies_by_id: dict[str, dict[str, Any]] = {}
        self.last_seq = 0
        self._unsaved: list[CommandRecord] = []
        self._unsaved_ids: list[str] = []

    @property
    def table(self) -> str:
        return self.log.table

    def load(self) -> None:
        """Rebuilds the game, the rejected list and the id index from the log."""
        events: list[Event] = []
        rejected: list[dict[str, Any]] = []
        replies: dict[str, dict[str, Any]] = {}
        last_seq = 0
        for record in self.log.records():
            last_seq = record.seq
            events.extend(record.events)
            if not record.ok:
                rejected.append({"line": record.seq, "error": record.reply.get("error", "")})
            if record.command_id is not None:
                replies[record.command_id] = record.reply
        try:
            self.game = Game.from_events(events)
        except RulesError as error:  # only a damaged or foreign log gets here
            raise StoreError(f"the log of table {self.table!r} does not replay: {error}") from error
        self.rejected = rejected
        self.replies_by_id = replies
        self.last_seq = last_seq
        self._unsaved.clear()
        self._unsaved_ids.clear()

    # -- deciding -------------------------------------------------------------------------

    def handle(self, payload: bytes) -> Outcome:
        """Decides one payload from `game/command`; nothing is durable until commit()."""
        command_id: str | None = None
        id_value: str | int | None = None
        text = ""
        try:
            if len(payload) > MAX_PAYLOAD_BYTES:
                raise _Refusal(
                    "too_large",
                    f"payload of {len(payload)} bytes is over the {MAX_PAYLOAD_BYTES}-byte limit",
                )
            try:
                text = payload.decode("utf-8")
            except UnicodeDecodeError as error:
                raise _Refusal(
                    "invalid", f"payload is not UTF-8 text (byte {error.start})"
                ) from None
            try:
                raw = json.loads(text)
            except json.JSONDecodeError as error:
                raise _Refusal(
                    "invalid", f"not valid JSON: {error.msg} at column {error.colno}"
                ) from None
            except RecursionError:
                raise _Refusal("invalid", "not valid JSON: nested too deeply") from None
            except ValueError as error:  # e.g. an integer of more than 4,300 digits
                raise _Refusal("invalid", f"not valid JSON: {error}") from None
            if isinstance(raw, dict):
                # multi_stage's `id` is its stage's name and its request id at once (the
                # vocabulary of `tabletop replay`), so a stage name is used once per table.
                id_value = _read_id(raw)
                command_id = None if id_value is None else str(id_value)
                if command_id is not None and command_id in self.replies_by_id:
                    reply = {**self.replies_by_id[command_id], "duplicate": True}
                    return Outcome(reply, duplicate=True)
                _check_version(raw)
            before = len(self.game.events)
            try:
                events = self.game.execute(raw)
            except IllegalMove as error:
                raise _Refusal("illegal", str(error), field=error.rule) from None
            except InvalidCommand as error:
                raise _Refusal("invalid", str(error), field=error.field) from None
            except RulesError as error:
                raise _Refusal("invalid", str(error)) from None
            except Exception as error:  # a bug in the engine must not take the table down
                log.exception("the rules engine failed on a command at table %s", self.table)
                raise _Refusal(
                    "internal", f"internal: the rules engine failed: {error!r}"
                ) from None
        except _Refusal as refusal:
            return self._refuse(command_id, id_value, payload, text, refusal)
        seq = self._next_seq()
        reply = {
            "v": PROTOCOL_VERSION,
            "id": id_value,
            "ok": True,
            "seq": seq,
            "events": len(events),
        }
        events_json = tuple(event_to_json(event) for event in events)
        self._queue(CommandRecord(seq, command_id, text, reply, events, events_json))
        return Outcome(reply, events, events_json, first_event_number=before + 1)

    def _refuse(
        self,
        command_id: str | None,
        id_value: str | int | None,
        payload: bytes,
        text: str,
        refusal: _Refusal,
    ) -> Outcome:
        seq = self._next_seq()
        reply: dict[str, Any] = {
            "v": PROTOCOL_VERSION,
            "id": id_value,
            "ok": False,
            "seq": seq,
            "error": str(refusal),
            "kind": refusal.kind,
        }
        if refusal.kind == "illegal":
            reply["rule"] = refusal.field
        elif refusal.field is not None:
            reply["field"] = refusal.field
        logged = text if text and refusal.kind != "too_large" else payload[:LOGGED_PAYLOAD_CHARS]
        if isinstance(logged, bytes):
            logged = logged.decode("utf-8", errors="replace")
        self._queue(CommandRecord(seq, command_id, logged[:MAX_PAYLOAD_BYTES], reply))
        self.rejected.append({"line": seq, "error": reply["error"]})
        return Outcome(reply)

    def _next_seq(self) -> int:
        self.last_seq += 1
        return self.last_seq

    def _queue(self, record: CommandRecord) -> None:
        self._unsaved.append(record)
        if record.command_id is not None:
            self.replies_by_id[record.command_id] = record.reply
            self._unsaved_ids.append(record.command_id)

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
        try:
            self.log.append(self._unsaved)
        except StoreError:
            self.load()
            raise
        self._unsaved.clear()
        self._unsaved_ids.clear()

    # -- views ----------------------------------------------------------------------------

    def state_json(self) -> dict[str, Any]:
        """What `game/state` carries: `tabletop replay --json` of the same commands."""
        return {**state_to_json(self.game.state), "rejected": list(self.rejected)}

    def prompt_json(self) -> dict[str, Any]:
        """What `game/prompt` carries: the pending item structured, and in words."""
        pending = pending_to_json(self.game.state)
        phase = self.game.state.phase
        if pending is not None:
            words = str(pending["prompt"])
        elif phase is None:
            words = "no game yet: the game master starts one (tabletop gm new ROSTER)"
        elif phase.value == "finished":
            words = "the game is over"
        else:
            words = "the game master: call a challenge, a contest or the end of the adventure"
        return {
            "v": PROTOCOL_VERSION,
            "phase": phase.value if phase else None,
            "prompt": words,
            "pending": pending,
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
    return value


def _check_version(raw: dict[str, Any]) -> None:
    version = raw.get("v", PROTOCOL_VERSION)
    if version != PROTOCOL_VERSION or isinstance(version, bool):
        raise _Refusal(
            "invalid",
            f"v: payload version {version!r} is not supported "
            f"(this daemon speaks {PROTOCOL_VERSION})",
            "v",
        )
