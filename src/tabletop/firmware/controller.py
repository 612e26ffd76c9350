"""The mat's main logic: the zone table the scanners fill, and the link to the host.

`MatController.service()` runs between scan steps on the first core: it answers host commands,
sends a snapshot after every settled change and as a heartbeat, and feeds the watchdog only
while every scanner is making progress, so a hung scan loop resets the mat.
"""

from . import wire
from .config import SPLIT_SEATS, ScanConfig
from .debounce import ZoneState
from .hal import NullLock
from .touch import split_seat_zones

FIRMWARE_VERSION = "tabletop-mat 1.0.0"
STALL_MS = 1000
WARM_UP_SWEEPS = 2
STALE_COMMAND_MS = 50
MAX_LOG_LINES = 8


class ZoneTable:
    """Every zone's state, shared by the scanners (writers) and the controller (reader)."""

    def __init__(self, layout, config=None, lock=None):
        self.layout = layout
        self.config = config or ScanConfig()
        self.lock = lock or NullLock()
        self.states = [ZoneState() for _ in range(layout.count)]
        self.changed = False
        self.logs = []

    def mark_changed(self, zone):
        """Notes that a zone's settled state changed (the caller holds the lock)."""
        self.changed = True

    def take_changed(self):
        """Returns True once for each batch of changes."""
        with self.lock:
            changed = self.changed
            self.changed = False
        return changed

    def log(self, level, text):
        """Queues a LOG line for the host, keeping only the latest few."""
        with self.lock:
            self.logs.append((level, text))
            del self.logs[:-MAX_LOG_LINES]

    def take_logs(self):
        with self.lock:
            logs = self.logs
            self.logs = []
        return logs

    def records(self):
        """Returns every zone's SNAPSHOT record, taken under the lock so none is half-updated."""
        with self.lock:
            return [
                wire.encode_zone(
                    s.uid is not None,
                    s.face,
                    s.fault,
                    s.generation,
                    s.quality,
                    s.level,
                    s.uid or b"",
                )
                for s in self.states
            ]


class MatController:
    """Answers the host and reports the zone table; the scanners run beside it."""

    def __init__(
        self,
        table,
        link,
        clock,
        boot_id,
        scanners=(),
        leds=None,
        watchdog=None,
        touch=None,
        touch_factory=None,
    ):
        self.table = table
        self.link = link
        self.clock = clock
        self.boot_id = boot_id
        self.scanners = scanners
        self.leds = leds
        self.watchdog = watchdog
        self.reader = wire.FrameReader()
        self.seq = 0
        self.last_snapshot_ms = 0
        self.sent = 0
        self.ready = False
        self.last_rx_ms = 0
        # Touch pads (touch.TouchPads) or None; their events go out only to a host that asked
        # for the touch extension in its last HELLO_REQUEST, so a v1 host never sees a TOUCH.
        self.touch = touch
        # Builds the touch pads again for another split_seats (CONFIGURE): split_seats -> pads.
        self.touch_factory = touch_factory
        self.touch_on = False
        self.touch_seq = 0
        # What the last HELLO_REQUEST asked for: extensions at all (then CAPABILITIES is due
        # after HELLO and after the pads change), and touches with their side (TOUCH_SIDES).
        self.extensions_asked = False
        self.sides_asked = False
        self.sides_on = False
        self._capabilities_due = False

    def start(self):
        """Announces the mat with a HELLO; the first snapshot follows once the zones are known."""
        if self.touch is not None:
            self.touch.start(self.clock.now_ms())
        self._send_hello()

    def is_ready(self):
        """True once every zone has been read often enough that "empty" means empty.

        Until then a snapshot would report cards still being confirmed as missing, and a host
        would see them removed and laid again after every restart.
        """
        if self.ready:
            return True
        for scanner in self.scanners:
            if not scanner.zones:
                continue  # a bus with no reader (one seat, no pad) is never swept
            if scanner.sweeps < WARM_UP_SWEEPS:
                return False
            if scanner.sweeps < 2 * WARM_UP_SWEEPS and scanner.pending():
                return False
        self.ready = True
        return True

    def service(self):
        """Handles the link once: commands in, change or heartbeat snapshots and logs out."""
        now = self.clock.now_ms()
        data = self.link.read()
        if data:
            self.last_rx_ms = now
            for msg_type, payload in self.reader.feed(data):
                self.handle(msg_type, payload)
        elif self.reader.pending() and now - self.last_rx_ms > STALE_COMMAND_MS:
            # A command whose length was damaged would swallow the next ones: nothing more
            # is coming, so give it up and read what it swallowed.
            while self.reader.pending():
                for msg_type, payload in self.reader.drop_stale():
                    self.handle(msg_type, payload)
        if self.touch is not None:
            self.touch.poll(self.clock.now_ms())
            if self.sides_on:
                self._send_touches(self.touch.take_events_with_sides())
            else:
                self._send_touches(self.touch.take_events())
        for level, text in self.table.take_logs():
            self.link.write(wire.encode_log(level, text))
        now = self.clock.now_ms()
        if not self.ready:
            if self.is_ready():
                self.table.take_changed()
                self.send_snapshot(wire.REASON_BOOT)
        elif self.table.take_changed():
            self.send_snapshot(wire.REASON_CHANGE)
        elif now - self.last_snapshot_ms >= self.table.config.heartbeat_ms:
            self.send_snapshot(wire.REASON_HEARTBEAT)
        if self.watchdog is not None and self.scanners_alive(now):
            self.watchdog.feed()

    def scanners_alive(self, now):
        """True when every scanner stepped within the last second."""
        return all(now - scanner.last_step_ms <= STALL_MS for scanner in self.scanners)

    def send_snapshot(self, reason):
        """Sends the state of every zone."""
        self.seq = (self.seq + 1) & 0xFFFFFFFF
        now = self.clock.now_ms()
        self.last_snapshot_ms = now
        self.link.write(
            wire.encode_snapshot(self.boot_id, self.seq, now, reason, self.table.records())
        )
        self.sent += 1

    def _send_touches(self, events):
        if not self.touch_on:
            return
        for start in range(0, len(events), wire.MAX_TOUCH_EVENTS):
            self.touch_seq = (self.touch_seq + 1) & 0xFFFF
            chunk = events[start : start + wire.MAX_TOUCH_EVENTS]
            if self.sides_on:
                self.link.write(wire.encode_touch_sides(self.boot_id, self.touch_seq, chunk))
            else:
                self.link.write(wire.encode_touch(self.boot_id, self.touch_seq, chunk))

    def _send_capabilities(self):
        # A host that asked for sides reads touch version 2 (with the split pads); any other
        # gets version 1's five bytes exactly as before.
        touch = self.touch
        split = None
        if self.sides_asked:
            split = touch.split_zones() if touch is not None else []
        if touch is None:
            self.link.write(wire.encode_capabilities(0, 0, 0, 0, split))
            return
        extensions = wire.EXT_TOUCH if self.touch_on else 0
        if self.sides_on:
            extensions |= wire.EXT_TOUCH_SIDES
        self.link.write(
            wire.encode_capabilities(
                extensions, touch.count, touch.sample_ms, touch.debounce, split
            )
        )

    def _send_hello(self):
        layout = self.table.layout
        self.link.write(
            wire.encode_hello(
                self.boot_id, layout.seats, layout.slots, layout.pad, FIRMWARE_VERSION
            )
        )

    def handle(self, msg_type, payload):
        """Carries out one host command; a bad one gets a RESULT with the reason."""
        try:
            if msg_type == wire.HELLO_REQUEST:
                _version, extensions = wire.decode_hello_request(payload)
                self.touch_on = bool(extensions & wire.EXT_TOUCH) and self.touch is not None
                self.extensions_asked = len(payload) > 1
                self.sides_asked = bool(extensions & wire.EXT_TOUCH_SIDES)
                self.sides_on = self.touch_on and self.sides_asked
                self._send_hello()
                if self.extensions_asked:  # a host that knows extensions: say which we have
                    self._send_capabilities()
                if self.ready:
                    self.send_snapshot(wire.REASON_REQUEST)
            elif msg_type == wire.SNAPSHOT_REQUEST:
                if self.ready:  # otherwise the BOOT snapshot is on its way
                    self.send_snapshot(wire.REASON_REQUEST)
            elif msg_type == wire.PING:
                self.link.write(wire.encode_pong(wire.decode_ping(payload), self.clock.now_ms()))
            elif msg_type == wire.SET_LEDS:
                self._set_leds(wire.decode_set_leds(payload))
                self.link.write(wire.encode_result(msg_type, wire.OK))
            elif msg_type == wire.CONFIGURE:
                self._configure(wire.decode_configure(payload))
                self.link.write(wire.encode_result(msg_type, wire.OK))
                if self._capabilities_due:  # the pads changed: say how they are now
                    self._capabilities_due = False
                    self._send_capabilities()
            else:
                raise wire.CommandError(
                    wire.UNKNOWN_COMMAND, "unknown command type 0x%02x" % msg_type
                )
        except wire.CommandError as error:
            self.link.write(wire.encode_result(msg_type, error.code, error.text))

    def _set_leds(self, entries):
        count = self.table.layout.count
        for zone, _red, _green, _blue, mode in entries:
            if zone != 255 and zone >= count:
                raise wire.CommandError(wire.BAD_VALUE, "no zone %d for an LED" % zone)
            if mode > 1:
                raise wire.CommandError(wire.BAD_VALUE, "LED mode %d is not 0 or 1" % mode)
        if self.leds is None:
            return
        for zone, red, green, blue, mode in entries:
            targets = range(count) if zone == 255 else (zone,)
            for target in targets:
                self.leds.set(target, red, green, blue, mode)
        self.leds.show()

    def _configure(self, pairs):
        # Check every pair before changing anything, so a refused command changes nothing.
        probe = ScanConfig()
        layout = self.table.layout
        for key, value in pairs:
            try:
                probe.set(key, value)
                if key == SPLIT_SEATS:
                    split_seat_zones(layout.seats, layout.slots, value)
            except KeyError as error:
                raise wire.CommandError(wire.BAD_KEY, str(error.args[0])) from None
            except ValueError as error:
                raise wire.CommandError(wire.BAD_VALUE, str(error)) from None
        split_before = self.table.config.split_seats
        with self.table.lock:
            for key, value in pairs:
                self.table.config.set(key, value)
        split_seats = self.table.config.split_seats
        if split_seats != split_before and self.touch_factory is not None:
            # The electrodes are read in another order: start the pads afresh (a finger on a
            # pad now is reported as a touch once more).
            self.touch = self.touch_factory(split_seats)
            self.touch.start(self.clock.now_ms())
            self._capabilities_due = self.extensions_asked
