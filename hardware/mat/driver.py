"""The host driver: reads the mat on its own thread and hands out typed events.

The reader thread owns the port. It feeds bytes to the pure FrameDecoder, checks every message,
diffs each good snapshot against the last and queues the events. Damaged frames, gaps in the
sequence and a mat restart make it ask for a fresh snapshot; an unplugged mat (the port fails)
makes it close the port and try again until the device is back (USB re-enumeration).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import serial

from .cardmap import CardMap, default_card_map
from .diff import diff_snapshots
from .errors import FrameError, LinkError
from .events import EventKind, LinkEvent, MatEvent, ResyncEvent
from .framing import VERSION, Frame, FrameDecoder, encode_frame
from .protocol import (
    PROTOCOL_VERSION,
    Hello,
    LedSetting,
    Log,
    MessageType,
    Pong,
    Result,
    ScanSetting,
    Snapshot,
    configure,
    decode_message,
    hello_request,
    ping,
    set_leds,
    snapshot_request,
)
from .transport import Port, open_port, resolve_url
from .zones import MatLayout

log = logging.getLogger(__name__)

STALE_FRAME_S = 0.1  # a partial frame with no new byte for this long is dropped
SILENCE_S = 3.0  # no snapshot for this long (heartbeats come every second): the link is down
HELLO_RETRY_S = 0.5
REOPEN_S = 0.2
REQUEST_GAP_S = 0.1  # at most one snapshot request per this long, however much damage


@dataclass(slots=True)
class DriverStats:
    """Counts a person debugging the link wants to see (`tabletop mat monitor --stats`)."""

    snapshots: int = 0
    malformed: int = 0  # frames that passed the CRC but did not read as their type
    gaps: int = 0
    stale_snapshots: int = 0  # duplicated or reordered snapshots, ignored
    requests: int = 0
    link_ups: int = 0
    link_downs: int = 0


class MatDriver:
    """A sensor mat opened by URL, read on its own thread; `events()` yields what happens."""

    def __init__(self, url: str, cards: CardMap | None = None) -> None:
        self.url = url
        self.cards = cards if cards is not None else default_card_map()
        self.decoder = FrameDecoder()
        self.stats = DriverStats()
        self.layout: MatLayout | None = None
        self.hello: Hello | None = None
        self.snapshot: Snapshot | None = None
        self.results: queue.Queue[Result] = queue.Queue()
        self.pongs: queue.Queue[Pong] = queue.Queue()
        self._events: queue.Queue[MatEvent] = queue.Queue()
        self._port: Port | None = None
        self._path = url
        self._sim = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._write_lock = threading.Lock()
        self._nonces = itertools.count(1)
        self._up = False
        self._last_snapshot_at = 0.0
        self._last_rx_at = 0.0
        self._last_request_at = 0.0
        self._last_hello_at = 0.0
        self._reported_damage = 0
        self._down_reason = ""
        self._foreign_reported = False
        # Called on the reader thread with every checked frame (monitor --frames uses it).
        self.on_frame: list[Callable[[Frame], None]] = []

    # ---- lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        """Opens the link (starting a simulated mat for "sim:") and starts the reader thread."""
        self._path, self._sim = resolve_url(self.url)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"mat {self.url}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stops the reader thread and closes the port (and a simulated mat it started)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        self._close_port()
        if self._sim is not None:
            self._sim.stop()
            self._sim = None

    def __enter__(self) -> MatDriver:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def path(self) -> str:
        """The device actually opened (the simulated mat's pty for "sim:")."""
        return self._path

    @property
    def connected(self) -> bool:
        return self._up

    # ---- events and commands ---------------------------------------------------------

    def get_event(self, timeout: float | None = None) -> MatEvent | None:
        """Returns the next event, or None when none came within `timeout` seconds."""
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    def events(self, timeout: float | None = None) -> Iterator[MatEvent]:
        """Yields events as they come; stops after `timeout` seconds without one (None: never)."""
        while True:
            event = self.get_event(timeout)
            if event is None:
                return
            yield event

    def request_snapshot(self) -> None:
        self._send(*snapshot_request())

    def set_leds(self, leds: list[LedSetting]) -> None:
        self._send(*set_leds(leds))

    def configure(self, settings: dict[ScanSetting, int]) -> None:
        self._send(*configure(settings))

    def ping(self) -> int:
        """Sends a PING; its PONG arrives on `pongs`. Returns the nonce."""
        nonce = next(self._nonces) & 0xFFFFFFFF
        self._send(*ping(nonce))
        return nonce

    def _send(self, msg_type: MessageType, payload: bytes) -> bool:
        with self._write_lock:
            port = self._port
            if port is None:
                return False
            try:
                port.write(encode_frame(msg_type, payload))
            except (serial.SerialException, OSError) as error:
                log.debug("write to %s failed: %s", self._path, error)
                return False
        return True

    # ---- the reader thread ------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._port is None:
                if not self._open():
                    self._stop.wait(REOPEN_S)
                continue
            try:
                port = self._port
                data = port.read(max(1, port.in_waiting))
            except (serial.SerialException, OSError) as error:
                self._link_lost(f"port failed: {error}")
                continue
            now = time.monotonic()
            if data:
                self._last_rx_at = now
                frames = self.decoder.feed(data)
            elif self.decoder.pending and now - self._last_rx_at > STALE_FRAME_S:
                frames = self.decoder.drop_stale()
            else:
                frames = []
            for frame in frames:
                self._handle(frame, now)
            self._after_damage(now)
            self._check_silence(now)

    def _open(self) -> bool:
        try:
            port = open_port(self._path)
        except LinkError as error:
            if not self._down_reason:
                self._down_reason = str(error)
            return False
        with contextlib.suppress(serial.SerialException, OSError):
            port.reset_input_buffer()
        with self._write_lock:
            self._port = port
        self.decoder.reset()
        now = time.monotonic()
        self._last_snapshot_at = now
        self._last_rx_at = now
        self._send_hello(now)
        return True

    def _close_port(self) -> None:
        with self._write_lock:
            port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()

    def _link_lost(self, reason: str) -> None:
        self._close_port()
        self._set_down(reason)

    def _set_down(self, reason: str) -> None:
        if self._up:
            self._up = False
            self.stats.link_downs += 1
            log.warning("mat on %s lost: %s", self._path, reason)
            self._events.put(LinkEvent(EventKind.LINK_DOWN, self._path, reason))

    def _send_hello(self, now: float) -> None:
        self._last_hello_at = now
        self._send(*hello_request())

    def _check_silence(self, now: float) -> None:
        if now - self._last_snapshot_at > SILENCE_S:
            self._set_down(f"no snapshot for {SILENCE_S:.0f} s")
        if (not self._up or self.hello is None) and now - self._last_hello_at > HELLO_RETRY_S:
            self._send_hello(now)

    def _after_damage(self, now: float) -> None:
        damaged = self.decoder.stats.damaged + self.stats.malformed
        if damaged == self._reported_damage or self.hello is None:
            return
        if now - self._last_request_at < REQUEST_GAP_S:
            return
        count = damaged - self._reported_damage
        self._reported_damage = damaged
        self._request(now, f"{count} damaged frame(s)")

    def _request(self, now: float, reason: str) -> None:
        self._last_request_at = now
        self.stats.requests += 1
        self._events.put(ResyncEvent(reason))
        self.request_snapshot()

    def _handle(self, frame: Frame, now: float) -> None:
        for listener in self.on_frame:
            listener(frame)
        if frame.version != VERSION:
            if not self._foreign_reported:
                self._foreign_reported = True
                reason = (
                    f"the mat speaks protocol v{frame.version}; this host speaks "
                    f"v{PROTOCOL_VERSION}: update tabletop or the mat firmware"
                )
                log.error("%s: %s", self._path, reason)
                self._up = True  # so that the event below is sent once
                self._set_down(reason)
            return
        try:
            message = decode_message(frame.msg_type, frame.payload)
        except FrameError as error:
            self.stats.malformed += 1
            log.warning("%s: dropped a frame: %s", self._path, error)
            return
        if isinstance(message, Hello):
            self._on_hello(message)
        elif isinstance(message, Snapshot):
            self._on_snapshot(message, now)
        elif isinstance(message, Result):
            if message.code.value != 0:
                log.warning(
                    "%s: mat refused 0x%02x: %s", self._path, message.for_type, message.text
                )
            self.results.put(message)
        elif isinstance(message, Pong):
            self.pongs.put(message)
        elif isinstance(message, Log):
            log.log(logging.WARNING if message.level else logging.INFO, "mat: %s", message.text)

    def _on_hello(self, hello: Hello) -> None:
        if hello.version != PROTOCOL_VERSION:
            self._up = True
            self._set_down(
                f"the mat speaks protocol v{hello.version}, this host v{PROTOCOL_VERSION}"
            )
            return
        self.hello = hello
        self.layout = MatLayout(hello.seats, hello.slots, hello.pad)
        if self.cards.calibration is not None:
            self.configure(self.cards.calibration.settings())

    def _on_snapshot(self, snapshot: Snapshot, now: float) -> None:
        if self.hello is None or self.layout is None:
            return  # the HELLO that tells the layout comes first; it was asked for
        if len(snapshot.zones) != self.layout.count:
            self.stats.malformed += 1
            log.warning(
                "%s: snapshot of %d zones from a mat of %d; asking for HELLO again",
                self._path,
                len(snapshot.zones),
                self.layout.count,
            )
            self.hello = None
            self._send_hello(now)
            return
        previous = self.snapshot
        same_boot = previous is not None and previous.boot_id == snapshot.boot_id
        if same_boot and previous is not None:
            if snapshot.seq <= previous.seq:
                self.stats.stale_snapshots += 1
                return
            if snapshot.seq != previous.seq + 1:
                self.stats.gaps += 1
                self._request(now, f"gap: snapshot {snapshot.seq} after {previous.seq}")
        elif previous is not None:
            self._events.put(ResyncEvent(f"mat restarted (boot {snapshot.boot_id:08x})"))
        self.stats.snapshots += 1
        self._last_snapshot_at = now
        if not self._up:
            self._up = True
            self._down_reason = ""
            self.stats.link_ups += 1
            self._events.put(
                LinkEvent(EventKind.LINK_UP, self._path, self.hello.firmware, snapshot.boot_id)
            )
        events = diff_snapshots(previous, snapshot, self.layout, self.cards, same_boot)
        self.snapshot = snapshot
        for event in events:
            self._events.put(event)
