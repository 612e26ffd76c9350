"""One audience's live picture of a table: an MQTT subscription folded into a JSON snapshot.

The room's feed reads only the topics the `viewer` role may read (docs/security.md), so a
face-down card cannot reach the room view even by mistake in the console; the game master's
feed reads the referee's topics with the game master's own broker login. Every change is
folded into one snapshot, encoded once, and handed to each open page's queue, newest only:
a slow page skips to the latest picture instead of falling behind.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tabletop.wire.mqtt import BrokerUrl, Connected, Disconnected, Message, MqttLink
from tabletop.wire.resend import resend_waits, with_id
from tabletop.wire.topics import TableTopics

from . import ConsoleError
from .corrections import ThrowPhoto, read_photo

EVENTS_KEPT = 30  # the feed on the page: the latest events of the game
PICTURE_LIMIT = 2 * 1024 * 1024  # the last throw's JPEG (the bridge's are ~50 KB)
_JPEG_START = b"\xff\xd8\xff"


class NoReply(ConsoleError):
    """The rules daemon did not answer a command in the time allowed."""


class Offline(NoReply):
    """A command not sent at all: the table is offline (no broker, or the rules daemon said
    it is gone), so no answer could come; said at once rather than after the wait."""


OFFLINE = "Not sent: the table is offline"


@dataclass(frozen=True, slots=True)
class Audience:
    """Which topics feed which part of the snapshot: the room's or the game master's."""

    name: str
    state: str  # relative topic of the state view
    prompt: str
    event: str
    commands: bool  # sends on game/command and reads game/reply
    alert: str  # the alerts: the public words, or the referee's (which may name cards)
    seats: bool = False  # reads each seat's own view (seat/N/state), for the seats' screens
    photo: bool = False  # reads the throw's raw photo (dice/photo), for correcting a reading

    def topics(self, topics: TableTopics) -> dict[str, str]:
        """Full topic -> snapshot key."""
        root = topics.root
        return {
            f"{root}/{self.state}": "state",
            f"{root}/{self.prompt}": "prompt",
            f"{root}/{self.event}": "events",
            f"{root}/{self.alert}": "alert",
            f"{root}/leds/frame": "leds",
            f"{root}/dice/event": "dice",
            f"{root}/dice/picture": "picture",
            f"{root}/rules/availability": "rules",
            **({f"{root}/dice/photo": "photo"} if self.photo else {}),
        }


ROOM = Audience(
    "room", "game/state", "game/prompt", "game/event", commands=False, alert="table/alert"
)
GAME_MASTER = Audience(
    "gm",
    "referee/state",
    "referee/prompt",
    "referee/event",
    commands=True,
    alert="referee/alert",
    seats=True,
    photo=True,
)


def hide_face_down(value: Any) -> Any:
    """`value` with the card of every face-down slot removed.

    The daemon's public view already names no face-down card; the room's feed checks again
    because a screen in a room is the one place a leak cannot be taken back."""
    if isinstance(value, list):
        return [hide_face_down(item) for item in value]
    if isinstance(value, dict):
        cleaned = {key: hide_face_down(item) for key, item in value.items()}
        if cleaned.get("state") == "face_down" and "card" in cleaned:
            cleaned["card"] = None
        return cleaned
    return value


class _Subscriber:
    """One open page: a queue holding at most the newest snapshot, on the page's event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=1)

    def offer(self, data: str | None) -> None:
        """Called on the loop: replaces a snapshot the page has not taken yet."""
        if self.queue.full():
            self.queue.get_nowait()
        self.queue.put_nowait(data)


class TableFeed:
    """A table seen by one audience: the latest of each view, and the pages following it."""

    def __init__(self, url: BrokerUrl, table: str, audience: Audience) -> None:
        self.url = url
        self.table = TableTopics(table)
        self.audience = audience
        self.keys = audience.topics(self.table)
        self.parts: dict[str, Any] = {"events": []}
        self.picture: bytes | None = None  # the last throw, a JPEG
        self.photo: ThrowPhoto | None = None  # the last throw as the camera took it
        # Each seat's own view (seat number -> view), outside the snapshot: only a seat's
        # screen shows it (src/tabletop/console/seats.py).
        self.seat_views: dict[int, dict[str, Any]] = {}
        self.broker_connected = False
        self.broker_refusal: str | None = None  # why the broker refused this feed's login
        self.version = 0
        self._encoded = ""
        self._lock = threading.Lock()
        self._subscribers: set[_Subscriber] = set()
        self._replies: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        subscriptions = [(topic, 1) for topic in self.keys]
        if audience.commands:
            subscriptions.append((self.table.reply, 1))
        if audience.seats:
            subscriptions.append((f"{self.table.root}/seat/+/state", 1))
        self.link = MqttLink(
            url,
            client_id=f"tabletop-console-{audience.name}-{uuid.uuid4().hex[:12]}",
            subscriptions=subscriptions,
        )

    # -- lifecycle ------------------------------------------------------------------------

    def start(self, timeout: float | None = 5.0) -> None:
        """Connects (raising NotConnected after `timeout`) and starts filing messages."""
        self._encode()
        self.link.start(timeout=timeout)
        self._thread = threading.Thread(
            target=self._run, name=f"console-feed-{self.audience.name}", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self.link.stop()
        with self._lock:
            subscribers = list(self._subscribers)
        for subscriber in subscribers:  # ends each page's stream
            subscriber.loop.call_soon_threadsafe(subscriber.offer, None)

    # -- pages ----------------------------------------------------------------------------

    def follow(self) -> _Subscriber:
        """A new page's queue, holding the current snapshot already."""
        subscriber = _Subscriber(asyncio.get_running_loop())
        with self._lock:
            self._subscribers.add(subscriber)
            subscriber.offer(self._encoded)
        return subscriber

    def unfollow(self, subscriber: _Subscriber) -> None:
        with self._lock:
            self._subscribers.discard(subscriber)

    @property
    def pages(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def snapshot(self) -> dict[str, Any]:
        """The current picture as the pages receive it (a copy)."""
        with self._lock:
            value: dict[str, Any] = json.loads(self._encoded)
            return value

    @property
    def game(self) -> str | None:
        """The game being played, as the prompt names it (its registry name)."""
        prompt = self.parts.get("prompt")
        name = prompt.get("game") if isinstance(prompt, dict) else None
        return name if isinstance(name, str) else None

    # -- commands (game master) -----------------------------------------------------------

    async def send(
        self, command: Mapping[str, Any], timeout: float = 10.0, resend_after: float = 2.0
    ) -> dict[str, Any]:
        """Sends a command and returns the daemon's reply, resending it (same id) while none
        comes, as tabletop.daemon.client.TableClient does (tabletop.wire.resend).

        While the table is offline (no connection to the broker, or the daemon's retained
        availability says "offline") nothing is sent and Offline says so at once: a command
        queued for later would be played when nobody expects it any more."""
        if not self.audience.commands:
            raise ConsoleError("the room's feed sends no commands")
        self._refuse_offline()
        key, data = with_id(command, "console", keep_id=False, source="console")
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()
        self._replies[key] = (loop, answer)
        try:
            for wait in resend_waits(timeout, resend_after, loop.time):
                self.link.publish(self.table.command, data)
                try:
                    reply: dict[str, Any] = await asyncio.wait_for(asyncio.shield(answer), wait)
                    return reply
                except TimeoutError:
                    self._refuse_offline()  # it went offline during the wait
            raise NoReply(
                f"No answer: the rules daemon did not reply in {timeout:g} s; look "
                "at the table before sending it again"
            )
        finally:
            self._replies.pop(key, None)

    def _refuse_offline(self) -> None:
        if not self.broker_connected:
            raise Offline(f"{OFFLINE}: the console has no connection to the broker")
        if self.parts.get("rules") == "offline":
            raise Offline(f"{OFFLINE}: the rules daemon is not running")

    # -- the MQTT side --------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            item = self.link.get(timeout=0.2)
            if item is None:
                # A refused login is not "no connection": the page says which (issue 33).
                refusal = None if self.broker_connected else self.link.refusal
                if refusal != self.broker_refusal:
                    self.broker_refusal = refusal
                    self._publish()
                continue
            if isinstance(item, Connected | Disconnected):
                self.broker_connected = isinstance(item, Connected)
                self._publish()
            elif isinstance(item, Message):
                self._file(item)

    def _file(self, message: Message) -> None:
        if message.topic == self.table.reply:
            self._answer(message.payload)
            return
        key = self.keys.get(message.topic)
        if key is None:
            if self.audience.seats:
                self._file_seat(message)
            return
        if key == "picture":
            self._file_picture(message.payload)
            return
        if key == "photo":
            self._file_photo(message.payload)
            return
        if key == "rules":
            self.parts["rules"] = message.payload.decode("utf-8", errors="replace")
            self._publish()
            return
        if not message.payload:  # a retained view cleared
            self.parts.pop(key, None)
            self._publish()
            return
        try:
            body = json.loads(message.payload)
        except (ValueError, RecursionError):  # not JSON, or nested past what json reads
            return  # not ours to judge: the daemon's payloads are JSON
        if not isinstance(body, dict):
            return
        if self.audience is ROOM:
            body = hide_face_down(body)
        if key == "dice":  # when it was read, so the pages tell a fresh throw from an old one
            self.parts["dice_at"] = time.time()
        if key == "events":
            events = [
                {"number": event.get("number"), "text": event.get("text")}
                for event in body.get("events", [])
                if isinstance(event, dict)
            ]
            self.parts["events"] = (self.parts["events"] + events)[-EVENTS_KEPT:]
            # when each was read, as dice_at is for a throw: the pages tell a throw entered by
            # hand since the camera's last read from one entered before it
            read = self.parts.get("events_at", [])
            self.parts["events_at"] = (read + [time.time()] * len(events))[-EVENTS_KEPT:]
        else:
            self.parts[key] = body
        self._publish()

    def _file_seat(self, message: Message) -> None:
        """A seat's own view (`seat/N/state`), kept for that seat's screen."""
        prefix, _, rest = message.topic.partition(f"{self.table.root}/seat/")
        number, _, tail = rest.partition("/")
        if prefix or tail != "state" or not number.isdigit() or not 1 <= int(number) <= 64:
            return
        if not message.payload:
            self.seat_views.pop(int(number), None)
        else:
            try:
                body = json.loads(message.payload)
            except (ValueError, RecursionError):
                return
            if not isinstance(body, dict):
                return
            self.seat_views[int(number)] = body
        self._publish()

    def _file_picture(self, payload: bytes) -> None:
        """Keeps the last throw's picture; the snapshot carries only its number, so pages
        fetch it (GET .../dice.jpg) when it changes, not with every snapshot."""
        if not payload:  # cleared
            self.picture = None
            self.parts.pop("picture", None)
        elif len(payload) > PICTURE_LIMIT or not payload.startswith(_JPEG_START):
            return  # not a picture the bridge sends
        else:
            self.picture = payload
            self.parts["picture"] = int(self.parts.get("picture", 0)) + 1
        self._publish()

    def _file_photo(self, payload: bytes) -> None:
        """Keeps the last throw's raw photo; the snapshot carries its id, size and dice (the
        page fetches the JPEG); a payload that is no photo of the bridge's is ignored."""
        photo = read_photo(payload) if payload else None
        if payload and photo is None:
            return
        self.photo = photo
        if photo is None:
            self.parts.pop("photo", None)
        else:
            self.parts["photo"] = photo.to_json()
        self._publish()

    def _answer(self, payload: bytes) -> None:
        try:
            body = json.loads(payload)
        except (ValueError, RecursionError):
            return
        if not isinstance(body, dict):
            return
        waiting = self._replies.get(str(body.get("id")))
        if waiting is not None:
            loop, answer = waiting
            loop.call_soon_threadsafe(_resolve, answer, body)

    def _publish(self) -> None:
        with self._lock:
            self._encode()
            data = self._encoded
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            subscriber.loop.call_soon_threadsafe(subscriber.offer, data)

    def _encode(self) -> None:
        self.version += 1
        online = self.broker_connected and self.parts.get("rules") == "online"
        self._encoded = json.dumps(
            {
                "v": 1,
                "audience": self.audience.name,
                "version": self.version,
                "sent": time.time(),
                "online": online,
                "broker": self.broker_connected,
                "refused": None if self.broker_connected else self.broker_refusal,
                "table": self.table.table,
                **self.parts,
            },
            separators=(",", ":"),
        )


def _resolve(answer: asyncio.Future[Any], body: dict[str, Any]) -> None:
    if not answer.done():
        answer.set_result(body)
