"""The rules daemon: one table's referee on MQTT, the single authority on its game.

The loop takes what the MQTT link queued, decides every command waiting (a batch), writes the
batch to the log in one transaction, and only then publishes the replies, the events, the
retained state and the prompt. Batching is what makes a durable log fast: one disk sync covers
every command that arrived while the previous one was being written.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from rules.games import DEFAULT_GAME
from rules.reading import Action, Execute
from wire.mqtt import BrokerUrl, Connected, Disconnected, Message, MqttLink, Will
from wire.payload import PayloadError, encode, read_json
from wire.throttled_log import ThrottledLog
from wire.topics import TableTopics

from .referee import PROTOCOL_VERSION, Outcome, Referee
from .store import GameLog, StoreError
from .table import PhysicalTable

log = logging.getLogger(__name__)

ONLINE: Final = b"online"
OFFLINE: Final = b"offline"
MAX_BATCH: Final = 512
# A table move can lead to another (a deal, then nothing else): a bound in case of a bug.
MAX_TABLE_STEPS: Final = 8


class RulesDaemon:
    """Serves one table: `start()`, then `run(stop)` until `stop` is set, then `close()`."""

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
    ) -> None:
        self.url = url
        self.topics = TableTopics(table)
        self.referee = Referee(GameLog(db_path, table, sync), game, options)
        # With seats, the daemon also reads the physical table the bridge publishes.
        self.physical = (
            PhysicalTable(self.topics, seats, grace, self.referee.rules) if seats else None
        )
        subscriptions = [(self.topics.command, 1)]
        if self.physical is not None:
            subscriptions += self.physical.subscriptions
        # Commands and table events are things to do now: a retained one would be done
        # again by every daemon that starts, so a retained message on these is never run.
        self._never_retained = {self.topics.command, self.topics.mat_event, self.topics.dice_event}
        self._warnings = ThrottledLog(log)
        self.link = MqttLink(
            url,
            # Unguessable: a client connecting with the daemon's id would take its session
            # over (MQTT gives an id to the newest connection), and the table would go deaf.
            client_id=f"tabletop-rules-{table}-{secrets.token_hex(8)}",
            subscriptions=subscriptions,
            will=Will(self.topics.rules_availability, OFFLINE, clean=OFFLINE),
            # The serving loop does the network work itself: a command is read, decided,
            # logged and answered on one thread, with no hand-offs between threads.
            threaded=False,
            # Enough QoS 1 messages in flight that a batch's replies and events leave at once;
            # paho walks this window on every acknowledgement, so not more.
            max_inflight=200,
        )
        self.batches = 0
        self._last_views: dict[str, bytes] = {}
        self._last_table: dict[str, bytes] = {}

    def start(self, timeout: float | None = None) -> None:
        """Opens the log, rebuilds the game, and starts connecting (waits up to `timeout`)."""
        self.referee.log.open()
        try:
            self.referee.load()
        except StoreError:
            self.referee.log.close()
            raise
        log.info(
            "table %s: %d commands in the log, %d events; connecting to %s",
            self.topics.table,
            self.referee.last_seq,
            len(self.referee.game.events),
            self.url,
        )
        self.link.start(timeout=None)
        self._publish_views()
        self.link.publish_retained(self.topics.rules_availability, ONLINE)
        if not self.link.wait_connected(3.0 if timeout is None else timeout):
            if self.link.refusal is not None:
                log.error(
                    "table %s: the broker at %s refused the daemon's login (%s): check the "
                    "user and password in the table's file; still trying",
                    self.topics.table,
                    self.url,
                    self.link.refusal,
                )
            else:
                log.warning(
                    "table %s: no broker at %s yet; still trying (commands wait until then)",
                    self.topics.table,
                    self.url,
                )

    def run(self, stop: threading.Event) -> None:
        """Serves commands until `stop` is set."""
        while not stop.is_set():
            item = self.link.get(timeout=0.2)
            if item is None:
                if self.physical is not None:
                    self._serve([])  # grace periods run out with no message arriving
                self._checkpoint()
                continue
            # Corked: the acknowledgements, replies, events and views of a batch leave in as
            # few TCP segments as possible, when the batch is done.
            with self.link.corked():
                batch = [item]
                while len(batch) < MAX_BATCH and (more := self.link.get(timeout=0)) is not None:
                    batch.append(more)
                try:
                    self._serve(batch)
                except Exception:  # a bug must not take the table down; the log is intact
                    log.exception("table %s: a batch of %d failed", self.topics.table, len(batch))
                    self._recover()

    def _recover(self) -> None:
        # Whatever was decided but not written is forgotten (none of it was acknowledged);
        # the game goes on from the log.
        try:
            self.referee.load()
        except StoreError as error:
            log.error("table %s: %s", self.topics.table, error)

    def _checkpoint(self) -> None:
        # Checkpointing syncs the database file: done while nobody waits for a reply.
        try:
            self.referee.log.checkpoint()
        except StoreError as error:
            log.warning("table %s: %s", self.topics.table, error)

    def close(self) -> None:
        """Publishes `offline`, disconnects and closes the log."""
        self.link.stop()
        self.referee.log.close()

    # -- one batch ------------------------------------------------------------------------

    def _serve(self, batch: list[Message | Connected | Disconnected]) -> None:
        outcomes: list[Outcome] = []
        table = self.physical
        now = time.monotonic()
        for item in batch:
            try:
                self._take(item, outcomes, now)
            except Exception:  # one message must never cost the others of its batch
                topic = item.topic if isinstance(item, Message) else type(item).__name__
                log.exception(
                    "table %s: a message on %s failed; going on", self.topics.table, topic
                )
                if isinstance(item, Message) and item.topic == self.topics.command:
                    self._publish_reply(_internal_refusal(item.payload))
        if table is not None:
            try:
                self._act(table, table.tick(self.referee.game.state, now), outcomes, now)
            except Exception:
                log.exception("table %s: reading the table failed; going on", self.topics.table)
            self._publish_table(table)
        if not outcomes:
            return
        try:
            self.referee.commit()
        except StoreError as error:
            log.error("table %s: %s", self.topics.table, error)
            for outcome in outcomes:
                self._publish_reply(
                    {
                        "v": PROTOCOL_VERSION,
                        "id": outcome.reply.get("id"),
                        "ok": False,
                        "error": f"storage: the game log could not be written ({error}); "
                        "nothing was applied, send it again",
                        "kind": "storage",
                    }
                )
            return
        self.batches += 1
        # Replies first, and sent at once: someone waits for them. Events and views follow.
        for outcome in outcomes:
            self._publish_reply(outcome.reply)
        self.link.flush()
        changed = False
        for outcome in outcomes:
            if outcome.duplicate:
                continue
            changed = True
            if not outcome.ok and outcome.reply.get("id") is None:
                self._warnings.warning(
                    "refused without id",
                    "table %s: refused command %s (no id): %s",
                    self.topics.table,
                    outcome.reply["seq"],
                    outcome.reply["error"],
                )
            if outcome.events:
                self._publish_events(outcome)
        if changed:
            self._publish_views()

    def _take(
        self, item: Message | Connected | Disconnected, outcomes: list[Outcome], now: float
    ) -> None:
        """Decides one inbound item; the commands it amounts to go to `outcomes`."""
        table = self.physical
        if isinstance(item, Connected):
            log.info("table %s: connected to %s", self.topics.table, self.url)
        elif isinstance(item, Disconnected):
            log.warning(
                "table %s: lost the broker (%s); reconnecting", self.topics.table, item.reason
            )
        elif item.retain and item.topic in self._never_retained:
            self._warnings.warning(
                f"retained {item.topic}",
                "table %s: ignored a retained message on %s (%d bytes): commands and table "
                "events are never retained; clear it with an empty retained message",
                self.topics.table,
                item.topic,
                len(item.payload),
            )
        elif item.topic == self.topics.command:
            if table is None:
                outcomes.append(self.referee.handle(item.payload))
            else:
                self._table_command(table, item.payload, outcomes, now)
        elif table is not None and table.owns(item.topic):
            state = self.referee.game.state
            self._act(table, table.message(item.topic, item.payload, state, now), outcomes, now)

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
            # Refused, or a repeat: answered now, never held while the mat is awaited.
            self._execute(table, raw, payload, outcomes, now)
            return
        rules, state = trial
        table.use(rules)  # a new game of another game is read by that game's reader
        actions = table.reader.request(state, raw, now)
        if actions == [Execute(raw)]:
            self._execute(table, raw, payload, outcomes, now)
            return
        what = "the deal on the mat" if raw.get("cmd") != "turn_order" else "cards on the pad"
        self._publish_reply(
            {"v": PROTOCOL_VERSION, "id": raw.get("id"), "ok": True, "waiting": what}
        )
        self._act(table, actions, outcomes, now)

    def _act(
        self, table: PhysicalTable, actions: list[Action], outcomes: list[Outcome], now: float
    ) -> None:
        """Executes the commands the table's actions amount to, and keeps their alerts."""
        for _ in range(MAX_TABLE_STEPS):
            table.record(actions)
            commands = [action.command for action in actions if isinstance(action, Execute)]
            if not commands:
                return
            actions = []
            for command in commands:
                actions += self._execute(table, command, encode(command), outcomes, now)
        log.error("table %s: the table's moves did not settle", self.topics.table)

    def _execute(
        self,
        table: PhysicalTable,
        command: dict[str, Any],
        payload: bytes,
        outcomes: list[Outcome],
        now: float,
    ) -> list[Action]:
        outcome = self.referee.handle(payload)
        outcomes.append(outcome)
        state = self.referee.game.state
        if outcome.ok:
            return table.reader.applied(state, command, now)
        if outcome.duplicate:
            return []
        return table.reader.refused(command, str(outcome.reply.get("error", "")))

    def _publish_table(self, table: PhysicalTable) -> None:
        for topic, payload in (
            (self.topics.table_alert, table.alert_payload()),
            (self.topics.leds_frame, table.led_payload(self.referee.game.state)),
        ):
            data = encode(payload)
            if self._last_table.get(topic) != data:
                self._last_table[topic] = data
                self.link.publish_retained(topic, data)

    def _publish_events(self, outcome: Outcome) -> None:
        # One message per command: the events a command caused belong together (a roll and
        # the discards, Strikes and offers it brings), and one message costs one round of
        # acknowledgements instead of one per event. The referee's topic has the engine's
        # events (a deal names every card); game/event only what anyone may see.
        seq = outcome.reply["seq"]
        first = outcome.first_event_number
        words = self.referee.describe_event
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

    def _publish_reply(self, reply: dict[str, Any]) -> None:
        self.link.publish(self.topics.reply, encode(reply))

    def _publish_views(self) -> None:
        self.link.publish_retained(self.topics.referee_state, encode(self.referee.state_json()))
        self.link.publish_retained(self.topics.state, encode(self.referee.public_state_json()))
        if self.physical is not None:
            for number, seat in enumerate(self.physical.seats, start=1):
                self._publish_changed(
                    self.topics.seat_state(number), encode(self.referee.seat_state_json(seat))
                )
        self._publish_changed(self.topics.prompt, encode(self.referee.prompt_json()))
        self._publish_changed(
            self.topics.referee_prompt, encode(self.referee.referee_prompt_json())
        )

    def _publish_changed(self, topic: str, payload: bytes) -> None:
        """Publishes a retained view only when it changed (a prompt stays the same for long)."""
        if self._last_views.get(topic) != payload:
            self.link.publish_retained(topic, payload)
            self._last_views[topic] = payload


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
