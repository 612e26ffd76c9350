"""Touch pads: which zones a finger is on, and when it arrived or left, in the mat's milliseconds.

Each zone's electrode is one input of an MPR121 (`mpr121.Mpr121`). `TouchPads.poll()` reads
every chip's status (one 2-byte I2C read each) and debounces each zone: a change counts after
`debounce` polls in a row agree, but its time is that of the FIRST poll that saw it, so
debouncing delays the report, never the timestamp. docs/mat-protocol.md ("Touch extension")
says how the events travel.
"""

from .mpr121 import ADDRESSES, ESI_MS, Mpr121, TouchChipFault
from .wire import LOG_ERROR, LOG_INFO

ELECTRODES_PER_CHIP = 12
MAX_CHIPS = 4  # 0x5A-0x5D on one I2C bus
MAX_MUXED_CHIPS = 8  # two channels of a TCA9548A, four chips each (a mat with split pads)
DEBOUNCE_POLLS = 2
MAX_PENDING = 64  # events kept for the host; older ones are dropped if nobody takes them
RETRY_MS = 1000  # how often a chip that failed is set up again

RELEASED = 0
TOUCHED = 1

# Which half of a split pad a finger reached first (docs/mat.md, "Whose hand: split pads"):
# the half nearer the slot's owner, or the half nearer the player across the table.
SIDE_UNKNOWN = 0  # a whole pad, a release, or both halves first seen in the same poll
SIDE_NEAR = 1
SIDE_FAR = 2


def zones_per_chip(zone_count):
    """Wires zones to chips in zone order, 12 each: on a full mat 0x5A takes seats 1-2, 0x5B
    seats 3-4, 0x5C seats 5-6 and 0x5D the draw pad (docs/mat.md, "Touch pads")."""
    if zone_count > ELECTRODES_PER_CHIP * MAX_CHIPS:
        raise ValueError("%d zones need more than %d touch chips" % (zone_count, MAX_CHIPS))
    return [
        list(range(start, min(start + ELECTRODES_PER_CHIP, zone_count)))
        for start in range(0, zone_count, ELECTRODES_PER_CHIP)
    ]


def split_zones_per_chip(zone_count, split):
    """Wires electrodes to chips in zone order, 12 each, where each zone in `split` has a pad of
    two halves taking two electrodes, `(zone, SIDE_NEAR)` then `(zone, SIDE_FAR)`; a whole pad
    is its zone number, as `zones_per_chip` gives. More than four chips need the I2C mux
    (`MuxedI2C`): chips 0-3 on its channel 0, 4-7 on channel 1."""
    electrodes = []
    for zone in range(zone_count):
        if zone in split:
            electrodes.append((zone, SIDE_NEAR))
            electrodes.append((zone, SIDE_FAR))
        else:
            electrodes.append(zone)
    if len(electrodes) > ELECTRODES_PER_CHIP * MAX_MUXED_CHIPS:
        raise ValueError(
            "%d electrodes need more than %d touch chips" % (len(electrodes), MAX_MUXED_CHIPS)
        )
    return [
        electrodes[start : start + ELECTRODES_PER_CHIP]
        for start in range(0, len(electrodes), ELECTRODES_PER_CHIP)
    ]


def split_seat_zones(seats, slots, split_seats):
    """The zones with split pads: every slot of each seat whose bit is set in `split_seats`
    (bit 0 is seat 1; the CONFIGURE key split_seats). Raises ValueError naming a seat the mat
    does not have."""
    if split_seats >> seats:
        raise ValueError(
            "split_seats 0x%02x names a seat past %d: the mat has %d seats"
            % (split_seats, seats, seats)
        )
    zones = set()
    for seat in range(seats):
        if split_seats & (1 << seat):
            zones.update(range(seat * slots, (seat + 1) * slots))
    return zones


def build_pads(i2c, zone_count, split, log=None):
    """Returns the touch pads (not started) of `zone_count` zones on `i2c`, the zones in `split`
    with split pads: electrodes in zone order, 12 a chip (`split_zones_per_chip`). Up to four
    chips sit on the bus itself at 0x5A-0x5D; more sit behind a TCA9548A switch at 0x70, chips
    0-3 on its channel 0 and 4-7 on channel 1 (docs/mat.md, "Whose hand: split pads")."""
    wiring = split_zones_per_chip(zone_count, split)
    selected = [None]  # the channel the switch has on: shared by the chips behind it
    chips = []
    for index, electrodes in enumerate(wiring):
        muxed = len(wiring) > MAX_CHIPS
        bus = MuxedI2C(i2c, index // MAX_CHIPS, selected) if muxed else i2c
        chips.append(Mpr121(bus, ADDRESSES[index % MAX_CHIPS], len(electrodes)))
    return TouchPads(chips, wiring, log)


class MuxedI2C:
    """One channel of a TCA9548A I2C switch, looking like the bus itself to an `Mpr121`: it
    selects its channel before each transfer, writing the switch only when another channel was
    selected last (`selected` is shared by the channels of one switch)."""

    def __init__(self, i2c, channel, selected, address=0x70):
        if not 0 <= channel <= 7:
            raise ValueError("a TCA9548A has channels 0-7, not %d" % channel)
        self.i2c = i2c
        self.channel = channel
        self.selected = selected  # a one-item list: the channel the switch has on now
        self.address = address

    def _select(self):
        if self.selected[0] != self.channel:
            self.i2c.writeto(self.address, bytes([1 << self.channel]))
            self.selected[0] = self.channel

    def readfrom_mem(self, address, register, count):
        self._select()
        return self.i2c.readfrom_mem(address, register, count)

    def writeto_mem(self, address, register, data):
        self._select()
        self.i2c.writeto_mem(address, register, data)


def _electrode(entry):
    """(zone, side) of a wiring entry: a zone number is a whole pad."""
    if isinstance(entry, tuple):
        return entry
    return entry, SIDE_UNKNOWN


class TouchZone:
    """One zone's settled touch state and the change it may be about to make."""

    __slots__ = ("candidate_ms", "candidate_polls", "touched")

    def __init__(self):
        self.touched = False
        self.candidate_ms = 0
        self.candidate_polls = 0


class TouchPads:
    """The touch electrodes of the whole mat, on up to four MPR121s (eight behind a mux).

    `zones_per_chip[i]` lists the zone wired to each electrode of `chips[i]`, electrode 0 first:
    a zone number for a whole pad, `(zone, SIDE_NEAR)` and `(zone, SIDE_FAR)` for the two
    halves of a split pad (`split_zones_per_chip`). Each electrode is debounced on its own; a
    zone is touched while any of its electrodes is, and its touch event says which half was
    first seen (`take_events_with_sides`).
    """

    def __init__(self, chips, zones_per_chip, log=None, debounce=DEBOUNCE_POLLS, sample_ms=ESI_MS):
        self.chips = chips
        self.zones_per_chip = zones_per_chip
        self.log = log
        self.debounce = debounce
        self.sample_ms = sample_ms  # how often the chips measure (their ESI)
        self.zones = {}  # zone -> whether a finger is on any of its electrodes
        self.electrodes = {}  # (zone, side) -> its debounced state
        self.halves = {}  # zone -> its electrodes' keys
        for entries in zones_per_chip:
            for entry in entries:
                key = _electrode(entry)
                self.zones[key[0]] = False
                self.electrodes[key] = TouchZone()
                self.halves.setdefault(key[0], []).append(key)
        self.events = []  # (zone, TOUCHED or RELEASED, t_ms, side)
        self.dropped = 0
        self.polls = 0
        self.last_poll_ms = None
        self._faulty = [True] * len(chips)  # not started yet
        self._retry_ms = [0] * len(chips)

    @property
    def count(self):
        """How many zones have an electrode."""
        return len(self.zones)

    def split_zones(self):
        """Returns the zones whose pad is split in two halves, in zone order."""
        return sorted(zone for zone, keys in self.halves.items() if len(keys) > 1)

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
                for entry in self.zones_per_chip[index]:
                    self._settle(_electrode(entry), False, now)
                continue
            for electrode, entry in enumerate(self.zones_per_chip[index]):
                self._sample(_electrode(entry), bool(mask & (1 << electrode)), now)

    def _sample(self, key, touched, now):
        state = self.electrodes[key]
        if touched == state.touched:
            state.candidate_polls = 0
            return
        if state.candidate_polls == 0:
            state.candidate_ms = now
        state.candidate_polls += 1
        if state.candidate_polls >= self.debounce:
            self._settle(key, touched, state.candidate_ms)

    def _settle(self, key, touched, at):
        state = self.electrodes[key]
        state.candidate_polls = 0
        if touched == state.touched:
            return
        state.touched = touched
        zone, side = key
        halves = self.halves[zone]
        if touched:
            if self.zones[zone]:
                # The other half is already touched: the same finger spreading, or a second
                # hand. Reported with sides only; the zone itself did not change.
                self._event(zone, TOUCHED, at, side, False)
                return
            for other in halves:
                pending = self.electrodes[other]
                if other != key and pending.candidate_polls and pending.candidate_ms == at:
                    side = SIDE_UNKNOWN  # both halves first seen in the same poll
                    pending.touched = True  # one event for both: the finger straddles them
                    pending.candidate_polls = 0
            self.zones[zone] = True
            self._event(zone, TOUCHED, at, side, True)
            return
        if any(self.electrodes[other].touched for other in halves):
            return  # a finger is still on the other half
        self.zones[zone] = False
        self._event(zone, RELEASED, at, SIDE_UNKNOWN, True)

    def _event(self, zone, state, at, side, zone_changed):
        self.events.append((zone, state, at, side, zone_changed))
        if len(self.events) > MAX_PENDING:
            del self.events[0]
            self.dropped += 1

    def take_events_with_sides(self):
        """Returns the settled changes since the last call, oldest first, as (zone, TOUCHED or
        RELEASED, t_ms, side): a zone's touch names the half of a split pad first touched
        (SIDE_UNKNOWN for a whole pad or both halves in one poll), and a half touched while the
        other already is comes as a touch of its own side (the finger spreading, or a second
        hand); a zone is released once both halves are."""
        events = self.events
        self.events = []
        return [event[:4] for event in events]

    def take_events(self):
        """Returns the zones' settled changes since the last call, oldest first, as (zone,
        state, t_ms): what a host without sides is told."""
        events = self.events
        self.events = []
        return [event[:3] for event in events if event[4]]

    def touched_zones(self):
        """Returns the zones a finger is on now, in zone order."""
        return sorted(zone for zone, touched in self.zones.items() if touched)
