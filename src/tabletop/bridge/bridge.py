"""The bridge on the Pi: mat, dice camera and seat LEDs on one side, MQTT on the other.

What it publishes under `tabletop/v1/<table>/` (docs/mqtt.md):
- `mat/event`: every mat event, with the bridge's boot id and a sequence number (QoS 1);
- `mat/snapshot` (retained): what every zone holds now, the truth that events only hint at;
- `dice/event`: every throw the vision pipeline announces;
- `dice/picture` (retained): the last settled throw as the camera saw it, annotated (a JPEG);
- `dice/photo` (retained): the same throw's frame as the camera took it, with its dice (JSON);
- `bridge/availability` (retained): `online`, `degraded: mat, camera` with a line per missing
  part when the mat or the camera is missing (`tabletop.bridge.health`), and `offline` as the last
  will.
What it reads: `leds/frame` (retained), shown on the seat LEDs, its `slots` on the mat's slot
LEDs; `table/alert` (retained), whose alerts blink red on the slots they name. MQTT resends both
after every reconnect because they are retained and the link resubscribes.
With a dice camera, `game/prompt` (retained) too: the throw it awaits is what the camera's
watcher expects (`tabletop.bridge.dice`); and `bridge/enrol`, a request that it enrol the camera
from the game master's corrections (`tabletop.bridge.reenrol`), answered on `bridge/enrol/status`
(retained).

While the broker is away, events wait in a bounded queue (the oldest are dropped and counted:
the retained snapshot, republished on reconnect, still tells the truth).

A part that fails (a mat port that is not there or went, a camera that will not open or stops
giving frames, a broker that cannot be reached or refuses the login) is one log line naming the
part, its setting and what to do, said again at growing intervals while it lasts; the mat and
the camera are named on `bridge/availability`, which the rules daemon turns into an alert on
`table/alert`. Every part is tried again, backing off, until it is back.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import queue
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from tabletop.bridge.dice import PromptError, expectation_from_prompt
from tabletop.hardware.leds import LedFrame, SeatLeds
from tabletop.hardware.mat import CardEvent, EventKind, LinkEvent, MatDriver, MatError, MatEvent
from tabletop.hardware.mat.protocol import LedSetting
from tabletop.vision.reading import Expectation
from tabletop.wire.leds import FrameError
from tabletop.wire.mqtt import BrokerUrl, Connected, Disconnected, Message, MqttLink, Will
from tabletop.wire.payload import read_json
from tabletop.wire.topics import TableTopics

from .dice import PHOTO, PICTURE, photo_message
from .health import CameraStatus, Health, Problem, broker_problem
from .reenrol import Reenrolment

log = logging.getLogger(__name__)

FORMAT_VERSION: Final = 1
QUEUE_LIMIT: Final = 1000
# The colour (red, green, blue) and blinking of a slot LED for each thing a game shows on a slot
# (`tabletop.rules.games.game.SlotShow`, docs/mqtt.md); an alert's slot blinks red over any of them.
SLOT_COLOURS: Final[dict[str, tuple[int, int, int, bool]]] = {
    "turn": (0, 160, 0, False),
    "race": (255, 140, 0, True),
    "won": (0, 255, 0, True),
    "lost": (90, 0, 0, False),
}
ALERT_COLOUR: Final = (255, 0, 0, True)
ONLINE: Final = b"online"
OFFLINE: Final = b"offline"
# How often the bridge looks at its parts, and how long each may be away before it is said:
# a mat cable re-seated, or a broker restarting, is back within these.
CHECK_S: Final = 0.1
MAT_GRACE_S: Final = 2.0
BROKER_GRACE_S: Final = 2.0
BROKER_PROBE_S: Final = 10.0  # while the broker is away, why is asked again this often
# A live camera that gives no frame this long is said to have stopped (it hangs in a read).
CAMERA_STALL_S: Final = 10.0


def encode(payload: dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON, as every table message."""
    return json.dumps(payload, separators=(",", ":")).encode("utf-8")


@dataclass(slots=True)
class BridgeStats:
    """What the bridge has done, for logs and tests."""

    mat_events: int = 0
    dice_events: int = 0
    frames_shown: int = 0
    bad_frames: int = 0
    dropped: int = 0
    prompts: int = 0  # game/prompt messages turned into what the camera expects
    bad_prompts: int = 0


class Bridge:
    """Runs one table's devices against MQTT: `start()`, `run(stop)`, `close()`."""

    def __init__(
        self,
        url: BrokerUrl,
        table: str,
        mat: MatDriver,
        leds: SeatLeds,
        dice: Callable[[threading.Event], Iterator[dict[str, Any]]] | None = None,
        *,
        expect: Callable[[Expectation | None], None] | None = None,
        camera: CameraStatus | None = None,
        settings: Mapping[str, str] | None = None,
        enrolment: Reenrolment | None = None,
    ) -> None:
        self.topics = TableTopics(table)
        # Enrols the camera again from the corrections when `bridge/enrol` asks.
        self.enrolment = enrolment
        self.mat = mat
        self.leds = leds
        self.dice = dice
        # Told what throw each game/prompt awaits (an AwaitedThrow's `set`): the dice source's
        # watcher then says when the tray does not hold it.
        self.expect = expect
        self.boot = os.urandom(4).hex()
        self.stats = BridgeStats()
        self.zones: dict[str, dict[str, Any]] = {}
        self.alerted: set[str] = set()  # zones an alert names
        self.lit: dict[str, str] = {}  # zone -> what the game shows there (leds/frame "slots")
        self.link = MqttLink(
            url,
            # Not derived from the boot id, which every message carries: an id others can
            # read is an id others can connect with, taking the bridge's session over.
            client_id=f"tabletop-bridge-{table}-{secrets.token_hex(8)}",
            subscriptions=[
                (self.topics.leds_frame, 1),
                (self.topics.table_alert, 1),
                *([(self.topics.prompt, 1)] if expect is not None else []),
                *([(self.topics.bridge_enrol, 1)] if enrolment is not None else []),
            ],
            will=Will(self.topics.bridge_availability, OFFLINE, clean=OFFLINE),
        )
        self._seq = 0
        self._outbox: collections.deque[tuple[str, bytes]] = collections.deque()
        self._dice_events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._dice_thread: threading.Thread | None = None
        self._stop = threading.Event()
        # Called with "card" or "die" when a report from the mat or the camera has been sent
        # on: where the host's share of the latency starts.
        self.reported: Callable[[str], None] = lambda kind: None
        # What the dice camera's thread finds; the settings that name each part in messages.
        self.camera = camera
        self.settings = {
            "mat": f'mat.port = "{mat.url}"',
            "camera": "camera.source",
            "broker": f"broker {url}",
            **(settings or {}),
        }
        self.health = Health()
        self._checked = 0.0
        self._availability = ONLINE
        self._mat_down_since: float | None = None
        self._broker_down_since: float | None = None
        self._broker_refusal: str | None = None  # the link's refusal when the broker went
        self._probe: threading.Thread | None = None
        self._probe_next = 0.0
        self._probed: Problem | None = None

    def start(self, timeout: float | None = 10.0) -> None:
        """Shows the LED test pattern, opens the mat and the camera, connects to the broker."""
        self.leds.start()
        self.mat.start()
        if self.dice is not None:
            self._dice_thread = threading.Thread(
                target=self._watch_dice, name="bridge-dice", daemon=True
            )
            self._dice_thread.start()
        now = time.monotonic()
        self._mat_down_since = now
        self._broker_down_since = now
        self._broker_refusal = self.link.refusal
        self.link.start(timeout=timeout)
        self.link.publish_retained(self.topics.bridge_availability, self._availability)
        self._publish_snapshot()
        if self.enrolment is not None:
            # Sent once subscribed (retained): requests are heard from then on.
            self.enrolment.ready()
            self._publish_enrolment()

    def run(self, stop: threading.Event) -> None:
        """Moves events between the devices and MQTT until `stop` is set."""
        while not stop.is_set():
            try:
                # A short wait on the mat, so a throw waiting behind it is not held up long.
                self.step(timeout=0.003)
            except Exception:  # a bug here must not stop the mat, the camera or the LEDs
                log.exception("bridge: a step failed; going on")

    def step(self, timeout: float) -> None:
        """One round: mat events, dice events, then what the broker sent; the parts' health."""
        self._check(time.monotonic())
        event = self.mat.get_event(timeout=timeout)
        while event is not None:
            self._mat_event(event)
            event = self.mat.get_event(timeout=0)
        while True:
            try:
                throw = self._dice_events.get_nowait()
            except queue.Empty:
                break
            picture = throw.pop(PICTURE, None)
            photo = throw.pop(PHOTO, None)
            self._send(self.topics.dice_event, {**self._header(), **throw})
            if isinstance(picture, bytes):
                # Retained and kept by the link: a screen that opens later, or a broker that
                # restarted, still gets the last throw's picture.
                self.link.publish_retained(self.topics.dice_picture, picture, qos=0)
            # the bridge's header without a sequence number: the photo is no event to count
            header = {"v": FORMAT_VERSION, "bridge": self.boot}
            message = photo_message(header, throw, photo)
            if message is not None:  # the game master's page corrects a reading on it
                self.link.publish_retained(self.topics.dice_photo, message, qos=0)
            self.stats.dice_events += 1
            self.reported("die")
        while (item := self.link.get(timeout=0)) is not None:
            if isinstance(item, Message) and item.topic == self.topics.leds_frame:
                self._show(item.payload)
            elif isinstance(item, Message) and item.topic == self.topics.table_alert:
                self._guide(item.payload)
            elif isinstance(item, Message) and item.topic == self.topics.prompt:
                self._expect(item.payload)
            elif (
                isinstance(item, Message)
                and item.topic == self.topics.bridge_enrol
                and self.enrolment is not None
            ):
                self.enrolment.request(item.payload, retained=item.retain)
            elif isinstance(item, Connected):
                self._flush()
            elif isinstance(item, Disconnected):
                log.warning("bridge: lost the broker (%s); events wait in the queue", item.reason)
                self._broker_down_since = time.monotonic()
                self._broker_refusal = self.link.refusal
        self._publish_enrolment()

    def _publish_enrolment(self) -> None:
        if self.enrolment is None:
            return
        for status in self.enrolment.statuses():
            # Retained: a page or `tabletop bridge enrol` that looks later sees how it went.
            body = {"v": FORMAT_VERSION, "bridge": self.boot, **status}
            self.link.publish_retained(self.topics.bridge_enrol_status, encode(body))

    def close(self) -> None:
        """Publishes `offline`, stops the devices and turns the LEDs off."""
        self._stop.set()
        if self.enrolment is not None:
            self.enrolment.close()  # it stops at its next photo, writing nothing
        self.link.stop()
        self.mat.close()
        self.leds.stop()
        if self._dice_thread is not None:
            self._dice_thread.join(timeout=2)
        if self._probe is not None:
            self._probe.join(timeout=3)

    # -- the parts' health ----------------------------------------------------------------

    def _check(self, now: float) -> None:
        """Looks at the mat, the camera and the broker; says what changed, and publishes the
        availability when the missing parts changed."""
        if now - self._checked < CHECK_S:
            return
        self._checked = now
        self._check_mat(now)
        if self.camera is not None:
            self.camera.stalled(CAMERA_STALL_S, self.settings["camera"])
            for change in self.camera.changes():
                self.health.set("camera", change)
                self._publish_availability()  # each change, so a short return is said too
        self._check_broker(now)
        self.health.remind()
        self._publish_availability()

    def _publish_availability(self) -> None:
        payload = self.health.availability()
        if payload != self._availability:
            self._availability = payload
            self.link.publish_retained(self.topics.bridge_availability, payload)

    def _check_mat(self, now: float) -> None:
        if self.mat.connected:
            self._mat_down_since = None
            self.health.set("mat", None)
            return
        if self._mat_down_since is None:
            self._mat_down_since = now
        if now - self._mat_down_since < MAT_GRACE_S:
            return
        why = self.mat.problem or (
            f"{self.mat.path} is open but no mat answers on it (no HELLO): is the tabletop "
            "firmware on the Pico, and is this its port? (tabletop mat monitor PORT shows what "
            "it sends)"
        )
        self.health.set("mat", Problem("mat", self.settings["mat"], f"{why}; trying again"))

    def _check_broker(self, now: float) -> None:
        if self.link.is_connected:
            self._broker_down_since = None
            self._probed = None
            self.health.set("broker", None)
            return
        if self._broker_down_since is None:
            self._broker_down_since = now
            self._broker_refusal = self.link.refusal
        if now - self._broker_down_since < BROKER_GRACE_S:
            return
        if self._probed is not None:
            self.health.set("broker", self._probed)
        probing = self._probe is not None and self._probe.is_alive()
        if not probing and now >= self._probe_next:
            self._probe_next = now + BROKER_PROBE_S
            # A refusal the link had before the broker went is another evening's.
            refusal = self.link.refusal
            fresh = refusal if refusal != self._broker_refusal else None
            broker = self.link.broker
            setting = self.settings["broker"]

            def probe() -> None:
                self._probed = broker_problem(broker.host, broker.port, fresh, setting)

            self._probe = threading.Thread(target=probe, name="bridge-broker-probe", daemon=True)
            self._probe.start()

    # -- the mat --------------------------------------------------------------------------

    def _mat_event(self, event: MatEvent) -> None:
        self.stats.mat_events += 1
        if isinstance(event, CardEvent):
            if event.kind is EventKind.REMOVED:
                self.zones.pop(event.zone, None)
            elif event.kind is EventKind.UNKNOWN_CARD:
                self.zones[event.zone] = {"card": None, "uid": event.uid, "face": event.face.text}
            else:
                card = event.card.code if event.card is not None else None
                self.zones[event.zone] = {"card": card, "face": event.face.text}
        self._send(self.topics.mat_event, {**self._header(), **event.to_json()})
        if isinstance(event, CardEvent | LinkEvent):
            self._publish_snapshot()
        if isinstance(event, LinkEvent) and event.kind is EventKind.LINK_UP:
            self._paint()  # a mat that (re)booted has its guidance LEDs dark
        if isinstance(event, CardEvent):
            self.reported("card")

    def _publish_snapshot(self) -> None:
        payload = {
            **self._header(),
            "connected": self.mat.connected,
            "zones": dict(sorted(self.zones.items())),
        }
        # Retained: the link republishes it after a reconnect, so it needs no queue.
        self.link.publish_retained(self.topics.mat_snapshot, encode(payload))

    def _header(self) -> dict[str, Any]:
        self._seq += 1
        return {"v": FORMAT_VERSION, "bridge": self.boot, "seq": self._seq}

    # -- the dice -------------------------------------------------------------------------

    def _watch_dice(self) -> None:
        assert self.dice is not None
        try:
            for throw in self.dice(self._stop):
                self._dice_events.put(throw)
        except Exception as error:  # a bug here must not take the mat and the LEDs down
            log.exception("bridge: the dice reader stopped")
            if self.camera is not None:
                self.camera.failed(
                    Problem(
                        "camera",
                        self.settings["camera"],
                        f"the dice reader stopped ({type(error).__name__}: {error}): a bug, "
                        "its traceback is in the log; restart the bridge",
                    )
                )

    def _expect(self, payload: bytes) -> None:
        """Tells the camera what throw the table's prompt awaits; a prompt it cannot read
        leaves it expecting nothing (no check is better than a wrong one)."""
        if self.expect is None:
            return
        if not payload:  # the retained prompt was deleted: no game is waiting
            self.expect(None)
            return
        try:
            expectation = expectation_from_prompt(read_json(payload))
        except (ValueError, PromptError) as error:
            self.stats.bad_prompts += 1
            log.warning(
                "bridge: ignored a bad game/prompt message (the camera expects no particular "
                "throw until the next good one): %s",
                error,
            )
            self.expect(None)
            return
        self.stats.prompts += 1
        self.expect(expectation)

    # -- the LEDs -------------------------------------------------------------------------

    def _show(self, payload: bytes) -> None:
        try:
            raw = read_json(payload)
            frame = LedFrame.from_json(raw)
        except (ValueError, FrameError) as error:
            self.stats.bad_frames += 1
            log.warning("bridge: ignored a bad LED frame: %s", error)
            return
        self.leds.show(frame)
        self.stats.frames_shown += 1
        try:
            lit = _slot_lights(raw.get("slots", []))
        except (ValueError, KeyError, TypeError) as error:
            log.warning("bridge: ignored the slot lights of an LED frame: %s", error)
            return
        if lit != self.lit:
            self.lit = lit
            self._paint()

    def _guide(self, payload: bytes) -> None:
        """Keeps the slots an alert names: their guidance LEDs blink red."""
        try:
            alerts = read_json(payload)["alerts"]
            zones = {
                f"s{alert['seat'] + 1}.{alert['slot']}"
                for alert in alerts
                if isinstance(alert.get("seat"), int) and isinstance(alert.get("slot"), int)
            }
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            log.warning("bridge: ignored a bad table/alert message: %s", error)
            return
        self.alerted = zones
        self._paint()

    def _paint(self) -> None:
        """Sets the mat's guidance LEDs: what the game shows on its slots, alerts over it."""
        layout = self.mat.layout
        if layout is None or not self.mat.connected:
            return
        colours = {zone: SLOT_COLOURS[show] for zone, show in self.lit.items()}
        colours.update({zone: ALERT_COLOUR for zone in self.alerted})
        settings = [LedSetting(255, 0, 0, 0)]  # every guidance LED off, then the lit ones
        for zone, (red, green, blue, blink) in sorted(colours.items()):
            try:
                settings.append(LedSetting(layout.index(zone), red, green, blue, blink=blink))
            except MatError:
                continue  # a slot this mat does not have
        try:
            self.mat.set_leds(settings)
        except MatError as error:
            log.warning("bridge: could not set the mat's guidance LEDs: %s", error)

    # -- the outbox -----------------------------------------------------------------------

    def _send(self, topic: str, payload: dict[str, Any]) -> None:
        if len(self._outbox) >= QUEUE_LIMIT:
            self._outbox.popleft()
            self.stats.dropped += 1
        self._outbox.append((topic, encode(payload)))
        if self.link.is_connected:
            self._flush()

    def _flush(self) -> None:
        while self._outbox and self.link.is_connected:
            topic, data = self._outbox.popleft()
            self.link.publish(topic, data)


def _slot_lights(raw: object) -> dict[str, str]:
    """`leds/frame`'s "slots" as zone -> show; an unknown show is left dark (a newer game's)."""
    if not isinstance(raw, list):
        raise ValueError("slots: expected a list of {seat, slot, show}")
    lit: dict[str, str] = {}
    for light in raw:
        if not isinstance(light, dict):
            raise ValueError(f"slots: {light!r}: expected an object")
        seat, slot, show = light["seat"], light["slot"], light["show"]
        if not isinstance(seat, int) or not isinstance(slot, int) or seat < 0 or slot < 1:
            raise ValueError(f"slots: {light!r}: seat from 0 and slot from 1 expected")
        if show in SLOT_COLOURS:
            lit[f"s{seat + 1}.{slot}"] = show
    return lit
