"""A client of the rules daemon: sends commands and waits for replies, reads the retained views.

What `tabletop gm` uses, and what any other program that drives a table can use:

    with TableClient(url, "main") as table:
        reply = table.send({"cmd": "roll", "value": 5})
        table.state()

`send` gives each command an id and, while no reply comes, sends it again with the same id
(`tabletop.wire.resend`, as the console does): the daemon applies an id once and answers a
repeat with the reply it gave, so a command lost while the daemon restarted is applied exactly
once.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from types import TracebackType
from typing import Any

from tabletop.wire.mqtt import BrokerUrl, Message, MqttLink
from tabletop.wire.resend import resend_waits, with_id
from tabletop.wire.topics import TableTopics

from .errors import DaemonError


class NoReply(DaemonError):
    """No reply came from the rules daemon in the time allowed."""


class TableClient:
    """A synchronous MQTT client of one table's rules daemon."""

    def __init__(
        self,
        url: BrokerUrl,
        table: str,
        *,
        follow_events: bool = False,
        referee: bool = True,
    ) -> None:
        self.url = url
        self.topics = TableTopics(table)
        self.follow_events = follow_events
        # The game master reads the referee's view (every card); a display the public one.
        self.state_topic = self.topics.referee_state if referee else self.topics.state
        self.event_topic = self.topics.referee_event if referee else self.topics.event
        self.retained: dict[str, Any] = {}
        # every event seen: {"seq", "number", "event", "text"} ("type" for public events)
        self.events: list[dict[str, Any]] = []
        self.replies: list[dict[str, Any]] = []
        self._pending_ids: set[str] = set()
        self._answers: dict[str, dict[str, Any]] = {}
        subscriptions = [
            (self.topics.reply, 1),
            (self.state_topic, 1),
            (self.topics.prompt, 1),
            (self.topics.rules_availability, 1),
        ]
        if follow_events:
            subscriptions.append((self.event_topic, 1))
        self.link = MqttLink(
            url, client_id=f"tabletop-client-{uuid.uuid4().hex[:12]}", subscriptions=subscriptions
        )

    def start(self, timeout: float = 5.0) -> None:
        """Connects and subscribes; raises NotConnected if the broker is out of reach (and
        then stops trying: a client that did not start leaves nothing running)."""
        try:
            self.link.start(timeout=timeout)
            self.link.get(timeout=timeout)  # the Connected item: subscriptions are sent now
        except BaseException:
            self.link.stop()
            raise

    def close(self) -> None:
        self.link.stop()

    def __enter__(self) -> TableClient:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    # -- commands -------------------------------------------------------------------------

    def send(
        self, command: Mapping[str, Any], timeout: float = 10.0, resend_after: float = 2.0
    ) -> dict[str, Any]:
        """Sends a command and returns its reply; resends it (same id) while none comes."""
        key, data = with_id(command, "c")
        self._pending_ids.add(key)
        try:
            for wait in resend_waits(timeout, resend_after):
                self.link.publish(self.topics.command, data)
                until = time.monotonic() + wait
                while (now := time.monotonic()) < until:
                    self.pump(until - now)
                    if key in self._answers:
                        return self._answers.pop(key)
            raise NoReply(self._silence_reason(timeout))
        finally:
            self._pending_ids.discard(key)

    def send_raw(self, payload: bytes) -> None:
        """Publishes bytes on game/command as they are (for tests and fuzzing)."""
        self.link.publish(self.topics.command, payload)

    def _silence_reason(self, timeout: float) -> str:
        availability = self.retained.get(self.topics.rules_availability)
        if availability is None:
            whom = f"no rules daemon has ever announced table {self.topics.table!r} on {self.url}"
        elif availability == "offline":
            whom = f"the rules daemon of table {self.topics.table!r} is offline"
        else:
            whom = f"the rules daemon of table {self.topics.table!r} says it is online"
        return f"no reply in {timeout:g} s: {whom}"

    # -- reading --------------------------------------------------------------------------

    def pump(self, timeout: float) -> Message | None:
        """Takes one inbound item (waiting up to `timeout`) and files it; returns a message."""
        item = self.link.get(timeout=timeout)
        if not isinstance(item, Message):
            return None
        if item.topic == self.topics.rules_availability:
            self.retained[item.topic] = item.payload.decode("utf-8", errors="replace")
            return item
        try:
            body = json.loads(item.payload)
        except ValueError:
            return item
        if item.topic == self.topics.reply and isinstance(body, dict):
            if not body.get("sync"):  # a barrier's answer is no reply to a command
                self.replies.append(body)
            key = None if body.get("id") is None else str(body["id"])
            if key is not None and key in self._pending_ids:
                self._answers[key] = body
        elif item.topic == self.event_topic and isinstance(body, dict):
            # filed one event at a time, each with the seq of the command that caused it
            for event in body.get("events", []):
                self.events.append({"seq": body.get("seq"), **event})
        else:
            self.retained[item.topic] = body
        return item

    def wait_for(self, topic: str, timeout: float = 5.0) -> Any:
        """The retained payload of `topic`, waiting up to `timeout` for it to arrive."""
        deadline = time.monotonic() + timeout
        while topic not in self.retained:
            left = deadline - time.monotonic()
            if left <= 0:
                raise NoReply(f"nothing retained on {topic} after {timeout:g} s")
            self.pump(left)
        return self.retained[topic]

    def state(self, timeout: float = 5.0) -> dict[str, Any]:
        """The table's retained state: the referee's view (what `tabletop replay --json`
        prints), or the public one for a client made with referee=False."""
        value: dict[str, Any] = self.wait_for(self.state_topic, timeout)
        return value

    def messages(self, poll: float = 0.5, stop: threading.Event | None = None) -> Iterator[Message]:
        """Every message as it arrives, until `stop` is set (for following a table live)."""
        while stop is None or not stop.is_set():
            message = self.pump(poll)
            if message is not None:
                yield message

    def gather_retained(self, quiet: float = 0.05, timeout: float = 0.5) -> None:
        """Files the retained messages the broker sends on subscribing, for a one-shot read
        such as `tabletop gm state` that must work with no daemon running (so no `sync`):
        they come at once after the subscription, so a short quiet spell ends them."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.pump(quiet) is None:
                return

    def sync(self, timeout: float = 30.0) -> None:
        """Files every message the daemon published before now: the events and views of the
        commands already answered (a `sync`, answered in order after them, is the barrier).
        The timeout is a safety net; NoReply if the daemon does not answer in it."""
        reply = self.send({"cmd": "sync"}, timeout=timeout)
        if not reply.get("sync"):
            raise NoReply(f"the rules daemon did not take the sync: {reply.get('error', reply)}")
