"""Touch pads: which zones a finger is on, and when it arrived or left, in the mat's milliseconds.

Each zone's electrode is one input of an MPR121 (`mpr121.Mpr121`). `TouchPads.poll()` reads
every chip's status (one 2-byte I2C read each) and debounces each zone: a change counts after
`debounce` polls in a row agree, but its time is that of the FIRST poll that saw it, so
debouncing delays the report, never the timestamp. docs/mat-protocol.md ("Touch extension")
says how the events travel.
"""

from .mpr121 import ESI_MS, TouchChipFault
from .wire import LOG_ERROR, LOG_INFO

ELECTRODES_PER_CHIP = 12
MAX_CHIPS = 4  # 0x5A-0x5D on one I2C bus
DEBOUNCE_POLLS = 2
MAX_PENDING = 64  # events kept for the host; older ones are dropped if nobody takes them
RETRY_MS = 1000  # how often a chip that failed is set up again

RELEASED = 0
TOUCHED = 1


def zones_per_chip(zone_count):
    """Wires zones to chips in zone order, 12 each: on a full mat 0x5A takes seats 1-2, 0x5B
    seats 3-4, 0x5C seats 5-6 and 0x5D the draw pad (docs/mat.md, "Touch pads")."""
    if zone_count > ELECTRODES_PER_CHIP * MAX_CHIPS:
        raise ValueError("%d zones need more than %d touch chips" % (zone_count, MAX_CHIPS))
    return [
        list(range(start, min(start + ELECTRODES_PER_CHIP, zone_count)))
        for start in range(0, zone_count, ELECTRODES_PER_CHIP)
    ]


class TouchZone:
    """One zone's settled touch state and the change it may be about to make."""

    __slots__ = ("candidate_ms", "candidate_polls", "touched")

    def __init__(self):
        self.touched = False
        self.candidate_ms = 0
        self.candidate_polls = 0


class TouchPads:
    """The touch electrodes of the whole mat, on up to four MPR121s.

    `zones_per_chip[i]` lists the zone wired to each electrode of `chips[i]`, electrode 0 first.
    """

    def __init__(self, chips, zones_per_chip, log=None, debounce=DEBOUNCE_POLLS, sample_ms=ESI_MS):
        self.chips = chips
        self.zones_per_chip = zones_per_chip
        self.log = log
        self.debounce = debounce
        self.sample_ms = sample_ms  # how often the chips measure (their ESI)
        self.zones = {}
        for zones in zones_per_chip:
            for zone in zones:
                self.zones[zone] = TouchZone()
        self.events = []  # (zone, TOUCHED or RELEASED, t_ms)
        self.dropped = 0
        self.polls = 0
        self.last_poll_ms = None
        self._faulty = [True] * len(chips)  # not started yet
        self._retry_ms = [0] * len(chips)

    @property
    def count(self):
        """How many zones have an electrode."""
        return len(self.zones)

    def start(self, now):
        """Sets every chip up; a chip that fails is logged and retried while polling."""
        for index in range(len(self.chips)):
            self._start_chip(index, now)

    def _start_chip(self, index, now):
        chip = self.chips[index]
        self._retry_ms[index] = now + RETRY_MS
        try:
            chip.start()
        except TouchChipFault as fault:
            self._say(LOG_ERROR, str(fault))
            return
        if self._faulty[index] and self.polls:
            self._say(LOG_INFO, "touch chip 0x%02x answers again" % chip.address)
        self._faulty[index] = False

    def _say(self, level, text):
        if self.log is not None:
            self.log(level, text)

    def poll(self, now):
        """Reads every chip once at `now` (the mat's milliseconds) and debounces each zone."""
        self.polls += 1
        self.last_poll_ms = now
        for index, chip in enumerate(self.chips):
            if self._faulty[index]:
                if now >= self._retry_ms[index]:
                    self._start_chip(index, now)
                continue
            try:
                mask = chip.touched()
            except TouchChipFault as fault:
                self._faulty[index] = True
                self._retry_ms[index] = now + RETRY_MS
                self._say(LOG_ERROR, str(fault))
                # A finger on a chip that stopped answering is not known to stay: release
                # its zones now rather than report them touched forever.
                for zone in self.zones_per_chip[index]:
                    self._settle(zone, False, now)
                continue
            for electrode, zone in enumerate(self.zones_per_chip[index]):
                self._sample(zone, bool(mask & (1 << electrode)), now)

    def _sample(self, zone, touched, now):
        state = self.zones[zone]
        if touched == state.touched:
            state.candidate_polls = 0
            return
        if state.candidate_polls == 0:
            state.candidate_ms = now
        state.candidate_polls += 1
        if state.candidate_polls >= self.debounce:
            self._settle(zone, touched, state.candidate_ms)

    def _settle(self, zone, touched, at):
        state = self.zones[zone]
        state.candidate_polls = 0
        if touched == state.touched:
            return
        state.touched = touched
        self.events.append((zone, TOUCHED if touched else RELEASED, at))
        if len(self.events) > MAX_PENDING:
            del self.events[0]
            self.dropped += 1

    def take_events(self):
        """Returns the settled changes since the last call, oldest first."""
        events = self.events
        self.events = []
        return events

    def touched_zones(self):
        """Returns the zones a finger is on now, in zone order."""
        return sorted(zone for zone, state in self.zones.items() if state.touched)
