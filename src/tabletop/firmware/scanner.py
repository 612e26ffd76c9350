"""The scan loop for one SPI bus: reads its zones one at a time and feeds their debouncers.

Each step reads one zone: the next in turn, or an unsettled zone whose confirm read is due, so a
card laid is confirmed within milliseconds instead of a whole sweep later. A card already known is
checked with a wake-up only (about a millisecond) and its UID read again every `verify_every`
reads and after any miss. A reader that faults three times in a row is reset.
"""

from .debounce import classify_face
from .hal import ReaderFault
from .wire import LOG_WARNING

FAULTS_BEFORE_RESET = 3


class ZoneScanner:
    """Scans the zones wired to one RFID bus."""

    def __init__(self, bus, sensors, zones, table, clock):
        self.bus = bus
        self.sensors = sensors
        self.zones = zones
        self.table = table
        self.clock = clock
        self._turn = 0
        self._pending = []
        self.reads = 0
        self.sweeps = 0
        self.last_step_ms = 0

    def pending(self):
        """Returns how many zones wait for a confirm read."""
        return len(self._pending)

    def step(self):
        """Reads one zone: a due confirm read first, else the next zone in turn (None: the bus
        has no zone)."""
        now = self.clock.now_ms()
        self.last_step_ms = now
        gap = self.table.config.confirm_gap_ms
        for zone in self._pending:
            if now - self.table.states[zone].last_read_ms >= gap:
                self._read(zone, now)
                return zone
        if not self.zones:
            return None  # a bus with no reader on it (a one-seat mat without a draw pad)
        zone = self.zones[self._turn]
        self._turn += 1
        if self._turn >= len(self.zones):
            self._turn = 0
            self.sweeps += 1
        self._read(zone, now)
        return zone

    def _needs_uid(self, state, config):
        return (
            state.uid is None
            or state.unsettled
            or not config.presence_checks
            or state.reads_since_verify >= config.verify_every
        )

    def _read(self, zone, now):
        table = self.table
        config = table.config
        state = table.states[zone]
        state.last_read_ms = now
        self.reads += 1
        uid = None
        level = 0
        try:
            if self.bus.wake(zone):
                if self._needs_uid(state, config):
                    uid = self.bus.read_uid(zone)
                    state.reads_since_verify = 0
                else:
                    uid = state.uid
                    state.reads_since_verify += 1
                if uid is not None:
                    level = self.sensors.level(zone)
            self.bus.idle(zone)
        except ReaderFault as fault:
            self._fault(zone, state, fault)
            return
        with table.lock:
            if state.fault:
                state.fault = False
                state.faults = 0
                table.mark_changed(zone)
            state.faults = 0
            if uid is None:
                changed = state.observe_miss(config)
            else:
                face = classify_face(level, state.face if state.uid == uid else 0, config)
                changed = state.observe_card(uid, face, level, config)
            if changed:
                table.mark_changed(zone)
        if state.unsettled:
            if zone not in self._pending:
                self._pending.append(zone)
        elif zone in self._pending:
            self._pending.remove(zone)

    def _fault(self, zone, state, fault):
        state.faults += 1
        if state.faults < FAULTS_BEFORE_RESET:
            return
        state.faults = 0
        try:
            self.bus.reset(zone)
        except ReaderFault:
            pass
        with self.table.lock:
            if not state.fault:
                state.fault = True
                self.table.mark_changed(zone)
        self.table.log(
            LOG_WARNING,
            "zone %s: reader reset after %d faults (%s)"
            % (self.table.layout.name(zone), FAULTS_BEFORE_RESET, fault),
        )
