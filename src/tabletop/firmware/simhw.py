"""Simulated mat hardware: the cards lying on the mat, RFID readers with a timing model, face
sensors and LEDs. The simulated mat and the firmware tests run the real logic against these.

Every reader operation spends modelled time on a pacer (virtual in tests, real sleeps in the
simulated mat), so sweep times and latencies measured on the simulator mean something.
See docs/mat.md, "Timing model", for where the figures come from.
"""

from .hal import FaceSensors, Leds, Link, ReaderFault, RfidBus
from .touch import MAX_CHIPS, SIDE_FAR, SIDE_NEAR

# Microseconds per operation. "tuned" is this firmware on an RP2040: 1 ms REQA timeout, a
# wake-up for a known card, antennas off between reads. "plain" is the common Arduino sketch:
# every reader re-initialised and polled with the library's 25 ms timeout, a full UID read each
# time, so ten readers take about 500 ms.
PROFILES = {
    "tuned": {
        "wake_card": 2300,  # SPI set-up 150, antenna on + 2 ms guard time, ATQA after ~150
        "wake_empty": 3150,  # the same, then the 1 ms receive timeout runs out
        "read_uid": 4000,  # two cascade levels of anticollision + select for a 7-byte UID
        "read_uid_slow": 2000,  # extra, for the reads that need a retry (1 in 10)
        "idle": 50,
        "level": 100,  # IR LED on, ADC, LED off, ADC
        "reset": 50000,
    },
    "plain": {
        "wake_card": 26000,  # PCD_Init per reader, then IsNewCardPresent
        "wake_empty": 50000,  # PCD_Init and the 25 ms timeout
        "read_uid": 24000,  # ReadCardSerial: about 25 ms a read in all ...
        "read_uid_slow": 12000,  # ... and about 37 ms at worst
        "idle": 50,
        "level": 100,
        "reset": 50000,
    },
}


class Rng:
    """A small xorshift generator that gives the same numbers under MicroPython and CPython."""

    def __init__(self, seed=1):
        self.state = (seed & 0xFFFFFFFF) or 0x9E3779B9

    def next32(self):
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x
        return x

    def random(self):
        """A float in [0, 1)."""
        return self.next32() / 4294967296.0

    def below(self, n):
        """An int in [0, n)."""
        return self.next32() % n


class SimCard:
    """A card with its NFC tag's UID and how much light its back and face reflect."""

    def __init__(self, uid, back_level=11000, face_level=45000, name=""):
        self.uid = bytes(uid)
        self.back_level = back_level
        self.face_level = face_level
        self.name = name


class SimTable:
    """What lies on the simulated mat, zone by zone, and the faults injected into its readers."""

    def __init__(self, zone_count, miss_rate=0.0, seed=1):
        self.cards = [None] * zone_count
        self.faces = ["up"] * zone_count
        self.hung = [False] * zone_count
        self.touched = [False] * zone_count  # a finger on either half of the zone's pad now
        self.touch_ms = [None] * zone_count  # when a finger last arrived or left (mat's clock)
        # Fingers on each half of each pad, (zone, SIDE_NEAR or SIDE_FAR) -> [count before the
        # changes kept, [(at_ms, +1 or -1), ...]]: a finger from a side reaches its own half
        # first and the other a little later, so a change may lie in the future.
        self.fingers = {}
        self.miss_rate = miss_rate
        self.rng = Rng(seed)

    def place(self, zone, card, face="up"):
        self.cards[zone] = card
        self.faces[zone] = face

    def remove(self, zone):
        self.cards[zone] = None

    def flip(self, zone):
        self.faces[zone] = "down" if self.faces[zone] == "up" else "up"

    def hang(self, zone):
        """Makes the zone's reader stop answering until it is reset."""
        self.hung[zone] = True

    def touch(self, zone, touched, at_ms, side=None, lead_ms=0):
        """A finger arrives on (or leaves) the zone at `at_ms`, the mat's milliseconds.

        A finger from `side` (SIDE_NEAR: the slot's owner; SIDE_FAR: across the table) reaches
        that half of a split pad first and the other half `lead_ms` later; with no side it lands
        on both at once. A finger leaves both halves at once (and never reaches a half it had
        not reached yet). Fingers add up: a pad is touched while any finger is on it.
        `lead_ms` None with a side: the fingertip stays on the half it reached."""
        halves = (SIDE_NEAR, SIDE_FAR)
        if touched:
            for half in halves:
                if side is not None and half != side and lead_ms is None:
                    continue
                late = lead_ms if side is not None and half != side else 0
                self._change(zone, half, at_ms + late, 1)
        else:
            for half in halves:
                changes = self._half(zone, half)[1]
                pending = [c for c in changes if c[0] > at_ms and c[1] > 0]
                if pending:
                    changes.remove(pending[-1])  # lifted before it got there
                elif self.feels(zone, half, at_ms):
                    self._change(zone, half, at_ms, -1)
        now_touched = self.feels(zone, None, at_ms)
        if now_touched != self.touched[zone]:
            self.touched[zone] = now_touched
            self.touch_ms[zone] = at_ms

    def _half(self, zone, half):
        key = (zone, half)
        if key not in self.fingers:
            self.fingers[key] = [0, []]
        return self.fingers[key]

    def _change(self, zone, half, at_ms, delta):
        record = self._half(zone, half)
        changes = record[1]
        changes.append((at_ms, delta))
        changes.sort()
        if len(changes) > 32:  # fold old changes into the count; keep the recent ones
            old = changes[:16]
            record[0] += sum(d for _, d in old)
            del changes[:16]

    def feels(self, zone, half, at_ms):
        """Whether a finger is on the zone's `half` (None: on either half) at `at_ms`."""
        if half is None:
            return self.feels(zone, SIDE_NEAR, at_ms) or self.feels(zone, SIDE_FAR, at_ms)
        record = self.fingers.get((zone, half))
        if record is None:
            return False
        count = record[0]
        for at, delta in record[1]:
            if at <= at_ms:
                count += delta
        return count > 0

    def lift_all(self):
        """Every finger gone (the mat powered off and on again)."""
        self.fingers = {}
        self.touched = [False] * len(self.touched)
        self.touch_ms = [None] * len(self.touch_ms)


class VirtualClock:
    """Modelled time that moves only when hardware spends it; single-threaded tests use it."""

    def __init__(self):
        self.us = 0

    def now_ms(self):
        return self.us // 1000

    def spend(self, us):
        self.us += us

    def advance_ms(self, ms):
        self.us += ms * 1000


class SimRfidBus(RfidBus):
    """RFID readers on one bus that answer from a SimTable, spending modelled time on `pacer`."""

    def __init__(self, table, pacer, profile="tuned", seed=2):
        self.table = table
        self.pacer = pacer
        self.timing = PROFILES[profile]
        self.rng = Rng(seed)
        self.counts = {"wake": 0, "read_uid": 0, "reset": 0, "fault": 0}
        self._answered = None

    def _check(self, zone):
        if self.table.hung[zone]:
            self.counts["fault"] += 1
            self.pacer.spend(1000)
            raise ReaderFault(zone, "no answer on SPI")

    def wake(self, zone):
        self.counts["wake"] += 1
        self._check(zone)
        card = self.table.cards[zone]
        if card is not None and self.rng.random() >= self.table.miss_rate:
            self._answered = card
            self.pacer.spend(self.timing["wake_card"])
            return True
        self._answered = None
        self.pacer.spend(self.timing["wake_empty"])
        return False

    def read_uid(self, zone):
        self.counts["read_uid"] += 1
        self._check(zone)
        spent = self.timing["read_uid"]
        if self.rng.below(10) == 0:
            spent += self.rng.below(self.timing["read_uid_slow"] + 1)
        self.pacer.spend(spent)
        card = self._answered
        # The card may have been lifted between the wake-up and the read.
        if card is None or self.table.cards[zone] is not card:
            return None
        return card.uid

    def idle(self, zone):
        self.pacer.spend(self.timing["idle"])

    def reset(self, zone):
        self.counts["reset"] += 1
        self.table.hung[zone] = False
        self.pacer.spend(self.timing["reset"])


class SimFaceSensors(FaceSensors):
    """Reflectance sensors that see the lower side of the card the SimTable says is there."""

    def __init__(self, table, pacer, noise=600, seed=3):
        self.table = table
        self.pacer = pacer
        self.noise = noise
        self.rng = Rng(seed)

    def level(self, zone):
        self.pacer.spend(PROFILES["tuned"]["level"])
        card = self.table.cards[zone]
        if card is None:
            base = 3000
        elif self.table.faces[zone] == "down":
            base = card.face_level
        else:
            base = card.back_level
        jitter = self.rng.below(2 * self.noise + 1) - self.noise if self.noise else 0
        return max(0, min(65535, base + jitter))


class SimLeds(Leds):
    """Guidance LEDs that remember their colours, for tests and the simulator's display."""

    def __init__(self, count):
        self.colours = [(0, 0, 0, 0)] * count
        self.shows = 0

    def set(self, zone, red, green, blue, mode):
        self.colours[zone] = (red, green, blue, mode)

    def show(self):
        self.shows += 1


class MemoryLink(Link):
    """A link that keeps what the mat wrote and hands it the bytes a test queued."""

    def __init__(self):
        self.inbox = bytearray()
        self.sent = bytearray()

    def read(self):
        data = bytes(self.inbox)
        self.inbox = bytearray()
        return data

    def write(self, data):
        self.sent.extend(data)


# An MPR121 status read at 400 kHz: START, address, register, repeated START, address, two data
# bytes and STOP, 46 bit times (115 us), plus the RP2040's set-up around the transfer.
I2C_READ_US = 150
I2C_WRITE_US = 25  # per byte written


# How long after a finger lands an MPR121 tells it: its second filter (SFI x ESI).
CHIP_RESPONSE_MS = 4


class SimMpr121Bus:
    """An I2C bus of simulated MPR121s whose electrodes feel the fingers a SimTable records.

    `zones_per_chip` maps each chip electrode by electrode to its zone: a zone number for a
    whole pad, (zone, SIDE_NEAR or SIDE_FAR) for a half of a split one (as
    `touch.split_zones_per_chip`). Up to four chips sit at 0x5A-0x5D; more sit behind a
    TCA9548A switch at 0x70 (chips 0-3 on channel 0, 4-7 on channel 1), whose channel is
    chosen with `writeto`. A chip reports a change `response_ms` after it happened (its second
    filter, SFI x ESI) and answers only the registers the driver uses; a chip in `absent`
    (its address, or (channel, address) behind the switch) does not answer at all.
    """

    SWITCH = 0x70

    def __init__(self, table, zones_per_chip, clock, pacer, response_ms=None):
        self.table = table
        self.zones_per_chip = zones_per_chip
        self.clock = clock
        self.pacer = pacer
        self.response_ms = CHIP_RESPONSE_MS if response_ms is None else response_ms
        self.absent = set()
        self.registers = {}
        self.reads = 0
        self.muxed = len(zones_per_chip) > MAX_CHIPS
        self.channel = None  # the switch's channel (none selected at power-up)
        self._index = {}
        for index in range(len(zones_per_chip)):
            key = self._key(index // MAX_CHIPS, 0x5A + index % MAX_CHIPS)
            self.registers[key] = {0x5D: 0x24}
            self._index[key] = index

    def _key(self, channel, address):
        return (channel, address) if self.muxed else address

    def _chip(self, address):
        key = self._key(self.channel, address)
        if key in self.absent or key not in self.registers:
            raise OSError(19, "ENODEV")  # what machine.I2C raises for a missing device
        return key, self.registers[key]

    def writeto(self, address, data):
        """A plain write: the switch's channel byte (one bit set)."""
        if not self.muxed or address != self.SWITCH:
            raise OSError(19, "ENODEV")
        self.pacer.spend(I2C_WRITE_US * (len(data) + 1))
        mask = data[0]
        self.channel = None
        for channel in range(8):
            if mask == 1 << channel:
                self.channel = channel

    def writeto_mem(self, address, register, data):
        _key, chip = self._chip(address)
        self.pacer.spend(I2C_WRITE_US * (len(data) + 2))
        if register == 0x80 and data[:1] == bytes([0x63]):
            chip.clear()
            chip[0x5D] = 0x24
            return
        for offset, value in enumerate(data):
            chip[register + offset] = value

    def readfrom_mem(self, address, register, count):
        key, chip = self._chip(address)
        self.pacer.spend(I2C_READ_US)
        self.reads += 1
        if register == 0x00:
            mask = self._status(self._index[key], chip)
            return bytes([mask & 0xFF, mask >> 8])
        return bytes([chip.get(register + i, 0) for i in range(count)])

    def _status(self, index, chip):
        if not chip.get(0x5E, 0) & 0x0F:  # Stop mode: no measurements
            return 0
        # The chip shows what its filter has caught up with: the fingers response_ms ago.
        seen_at = self.clock.now_ms() - self.response_ms
        mask = 0
        for electrode, entry in enumerate(self.zones_per_chip[index]):
            if isinstance(entry, tuple):
                zone, half = entry
            else:
                zone, half = entry, None
            if self.table.feels(zone, half, seen_at):
                mask |= 1 << electrode
        return mask
