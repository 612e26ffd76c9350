"""The host's side of a mat link as pure logic: bytes and clock readings in, events out.

No port and no thread here (the driver owns those), so the fuzz tests can push any byte stream
through exactly the code that runs at the table. Commands for the mat collect in `outgoing`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from .cardmap import CardMap
from .diff import diff_snapshots
from .errors import FrameError
from .events import EventKind, LinkEvent, MatEvent, ResyncEvent, TouchEvent
from .framing import VERSION, Frame, FrameDecoder, encode_frame
from .protocol import (
    EXT_TOUCH,
    EXT_TOUCH_SIDES,
    PROTOCOL_VERSION,
    Capabilities,
    Hello,
    Log,
    MessageType,
    Pong,
    Result,
    ScanSetting,
    Snapshot,
    Touch,
    check_touch_zones,
    configure,
    decode_message,
    hello_request,
    snapshot_request,
    unwrap_ms,
)
from .zones import MatLayout

log = logging.getLogger(__name__)

STALE_FRAME_S = 0.1  # a partial frame with no new byte for this long is dropped
SILENCE_S = 3.0  # no snapshot for this long (heartbeats come every second): the link is down
HELLO_RETRY_S = 0.5
REQUEST_GAP_S = 0.1  # at most one snapshot request per this long, however much damage
# Marks a log record whose news also goes out as an event, so that a program printing the
# events (`tabletop mat monitor`) can leave the record out rather than say it twice.
REPORTED = {"mat_event": True}


@dataclass(slots=True)
class SessionStats:
    """Counts a person debugging the link wants to see (`tabletop mat monitor --stats`)."""

    snapshots: int = 0
    malformed: int = 0  # frames that passed the CRC but did not read as their type
    gaps: int = 0
    stale_snapshots: int = 0  # duplicated or reordered snapshots, ignored
    requests: int = 0
    link_ups: int = 0
    link_downs: int = 0
    touches: int = 0  # touch and release events
    touch_gaps: int = 0  # TOUCH frames lost (their changes cannot be recovered)


class MatSession:
    """Turns what the mat sends into events, and decides what to ask it."""

    def __init__(
        self, port: str, cards: CardMap, touch: bool = True, split_seats: int | None = None
    ) -> None:
        self.port = port
        self.cards = cards
        # Ask for the touch extension, with sides; a v1 mat ignores the request and sends
        # none, a mat of touch version 1 sends touches without sides.
        self.ask_touch = touch
        # The seats whose pads are split (a bit per seat), told to the mat at every HELLO;
        # None leaves the mat as it was built (its firmware's board.SPLIT_SEATS).
        self.split_seats = split_seats
        self.capabilities: Capabilities | None = None
        self.decoder = FrameDecoder()
        self.stats = SessionStats()
        self.hello: Hello | None = None
        self.layout: MatLayout | None = None
        self.snapshot: Snapshot | None = None
        self.up = False
        self.outgoing: list[bytes] = []
        self.replies: list[Result | Pong] = []
        self.on_frame: list[Callable[[Frame], None]] = []
        self._events: list[MatEvent] = []
        self._last_rx_at = 0.0
        self._last_snapshot_at = 0.0
        self._last_hello_at = 0.0
        self._last_request_at = -1e9
        self._reported_damage = 0
        self._damage_kinds: dict[str, int] = {}
        self._foreign_reported = False
        self._touch_boot: int | None = None
        self._touch_seq = 0
        self._touch_ms: int | None = None

    # ---- inputs -----------------------------------------------------------------------

    def opened(self, now: float) -> None:
        """The port was (re)opened: forget partial frames and ask the mat who it is."""
        self.decoder.reset()
        self._last_rx_at = now
        self._last_snapshot_at = now
        self.hello = None
        self._send_hello(now)

    def receive(self, data: bytes, now: float) -> list[MatEvent]:
        """Handles received bytes; returns the events they carry."""
        if data:
            self._last_rx_at = now
            for frame in self.decoder.feed(data):
                self._handle(frame, now)
        return self.tick(now)

    def tick(self, now: float) -> list[MatEvent]:
        """Handles the passing of time: stalled frames, damage, silence, unanswered HELLOs."""
        if self.decoder.pending and now - self._last_rx_at > STALE_FRAME_S:
            # Nothing arrives any more, so no frame in the buffer can complete: drop the
            # stalled start and look again behind it, until no partial frame is left.
            while self.decoder.pending:
                for frame in self.decoder.drop_stale():
                    self._handle(frame, now)
        self._after_damage(now)
        if now - self._last_snapshot_at > SILENCE_S:
            self._set_down(f"no snapshot for {SILENCE_S:.0f} s")
        if (not self.up or self.hello is None) and now - self._last_hello_at > HELLO_RETRY_S:
            self._send_hello(now)
        events, self._events = self._events, []
        return events

    def lost(self, reason: str) -> list[MatEvent]:
        """The port failed (unplugged): the link is down until it opens again."""
        self._set_down(reason)
        events, self._events = self._events, []
        return events

    # ---- outputs ----------------------------------------------------------------------

    def send(self, msg_type: MessageType, payload: bytes) -> None:
        self.outgoing.append(encode_frame(msg_type, payload))

    def take_outgoing(self) -> list[bytes]:
        frames, self.outgoing = self.outgoing, []
        return frames

    # ---- internals ----------------------------------------------------------------------

    def _set_down(self, reason: str) -> None:
        if self.up:
            self.up = False
            self.stats.link_downs += 1
            log.warning("mat on %s lost: %s", self.port, reason, extra=REPORTED)
            self._events.append(LinkEvent(EventKind.LINK_DOWN, self.port, reason))

    def _send_hello(self, now: float) -> None:
        self._last_hello_at = now
        self.send(*hello_request(EXT_TOUCH | EXT_TOUCH_SIDES if self.ask_touch else 0))

    def _after_damage(self, now: float) -> None:
        damaged = self.decoder.stats.damaged + self.stats.malformed
        if damaged == self._reported_damage or self.hello is None:
            return
        if now - self._last_request_at < REQUEST_GAP_S:
            return
        count = damaged - self._reported_damage
        self._reported_damage = damaged
        stats = self.decoder.stats
        kinds = {
            "CRC error": stats.crc_errors,
            "oversized": stats.oversized,
            "bad version": stats.bad_versions,
            "truncated": stats.truncated,
            "unreadable": self.stats.malformed,
        }
        new = [
            f"{kinds[kind] - self._damage_kinds.get(kind, 0)} {kind}"
            for kind in kinds
            if kinds[kind] > self._damage_kinds.get(kind, 0)
        ]
        self._damage_kinds = kinds
        what = f"{count} damaged frame{'s' if count != 1 else ''} ({', '.join(new)})"
        log.warning("%s: %s; asking for a snapshot", self.port, what, extra=REPORTED)
        self._request(now, what)

    def _request(self, now: float, reason: str) -> None:
        self._last_request_at = now
        self.stats.requests += 1
        self._events.append(ResyncEvent(reason))
        self.send(*snapshot_request())

    def _handle(self, frame: Frame, now: float) -> None:
        for listener in self.on_frame:
            listener(frame)
        if frame.version != VERSION:
            if not self._foreign_reported:
                self._foreign_reported = True
                reason = (
                    f"the mat speaks protocol v{frame.version}; this host speaks "
                    f"v{PROTOCOL_VERSION}: update tabletop or the mat's firmware"
                )
                log.error("%s: %s", self.port, reason, extra=REPORTED)
                self.up = True  # so that LINK_DOWN says why, once
                self._set_down(reason)
            return
        try:
            message = decode_message(frame.msg_type, frame.payload)
        except FrameError as error:
            self.stats.malformed += 1
            log.warning("%s: dropped a frame: %s", self.port, error, extra=REPORTED)
            return
        if isinstance(message, Hello):
            self._on_hello(message)
        elif isinstance(message, Snapshot):
            self._on_snapshot(message, now)
        elif isinstance(message, Capabilities):
            self.capabilities = message
        elif isinstance(message, Touch):
            self._on_touch(message, now)
        elif isinstance(message, Result):
            if message.code.value != 0:
                log.warning("%s: mat refused 0x%02x: %s", self.port, message.for_type, message.text)
            self.replies.append(message)
        elif isinstance(message, Pong):
            self.replies.append(message)
        elif isinstance(message, Log):
            log.log(logging.WARNING if message.level else logging.INFO, "mat: %s", message.text)

    def _on_hello(self, hello: Hello) -> None:
        if hello.version != PROTOCOL_VERSION:
            self.up = True
            self._set_down(
                f"the mat speaks protocol v{hello.version}, this host v{PROTOCOL_VERSION}"
            )
            return
        self.hello = hello
        self.capabilities = None  # a mat with extensions says so right after its HELLO
        self.layout = MatLayout(hello.seats, hello.slots, hello.pad)
        settings: dict[ScanSetting, int] = {}
        if self.cards.calibration is not None:
            settings.update(self.cards.calibration.settings())
        if self.split_seats is not None:
            settings[ScanSetting.SPLIT_SEATS] = self.split_seats
        if settings:
            self.send(*configure(settings))

    def _on_snapshot(self, snapshot: Snapshot, now: float) -> None:
        if self.hello is None or self.layout is None:
            return  # the HELLO that tells the layout comes first; it was asked for
        if len(snapshot.zones) != self.layout.count:
            self.stats.malformed += 1
            log.warning(
                "%s: snapshot of %d zones from a mat of %d; asking for HELLO again",
                self.port,
                len(snapshot.zones),
                self.layout.count,
                extra=REPORTED,
            )
            self.hello = None
            self._send_hello(now)
            return
        previous = self.snapshot
        same_boot = previous is not None and previous.boot_id == snapshot.boot_id
        if previous is not None and same_boot:
            if snapshot.seq <= previous.seq:
                self.stats.stale_snapshots += 1
                return
            if snapshot.seq != previous.seq + 1:
                self.stats.gaps += 1
                self._request(now, f"gap: snapshot {snapshot.seq} after {previous.seq}")
        elif previous is not None:
            self._events.append(ResyncEvent(f"mat restarted (boot {snapshot.boot_id:08x})"))
        self.stats.snapshots += 1
        self._last_snapshot_at = now
        if not self.up:
            self.up = True
            self.stats.link_ups += 1
            self._events.append(
                LinkEvent(
                    EventKind.LINK_UP,
                    self.port,
                    self.hello.firmware,
                    snapshot.boot_id,
                    self.touch_zones,
                )
            )
        self._events.extend(diff_snapshots(previous, snapshot, self.layout, self.cards, same_boot))
        self.snapshot = snapshot

    @property
    def touch_zones(self) -> int:
        """How many zones have a touch pad: 0 for a mat without them or without the extension."""
        caps = self.capabilities
        return caps.touch_zones if caps is not None and caps.touch else 0

    def _on_touch(self, touch: Touch, now: float) -> None:
        if self.layout is None:
            return  # the HELLO that tells the layout comes first; it was asked for
        try:
            check_touch_zones(touch, self.layout.count)
        except FrameError as error:
            self.stats.malformed += 1
            log.warning("%s: dropped a frame: %s", self.port, error)
            return
        if touch.boot_id != self._touch_boot:
            self._touch_boot = touch.boot_id
            self._touch_ms = None
        else:
            lost = (touch.seq - self._touch_seq - 1) & 0xFFFF
            if lost >= 0x8000:  # not newer than the last: a repeat
                return
            if lost:
                self.stats.touch_gaps += lost
                log.warning(
                    "%s: %d touch frame(s) lost (TOUCH %d after %d); their touches are gone",
                    self.port,
                    lost,
                    touch.seq,
                    self._touch_seq,
                )
        self._touch_seq = touch.seq
        caps = self.capabilities
        split = caps.split_zones if caps is not None and touch.sides else frozenset()
        for reading in touch.events:
            self._touch_ms = unwrap_ms(self._touch_ms, reading.t_ms)
            kind = EventKind.TOUCH if reading.touched else EventKind.RELEASE
            zone = self.layout.name(reading.zone)
            # A side only where the pad is split: a whole pad's "unknown" is no news.
            side = reading.side if reading.touched and reading.zone in split else None
            self._events.append(TouchEvent(kind, zone, self._touch_ms, touch.boot_id, now, side))
            self.stats.touches += 1
