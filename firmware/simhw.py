"""Simulated mat hardware: the cards lying on the mat, RFID readers with a timing model, face
sensors and LEDs. The simulated mat and the firmware tests run the real logic against these.

Every reader operation spends modelled time on a pacer (virtual in tests, real sleeps in the
simulated mat), so sweep times and latencies measured on the simulator mean something.
See docs/mat.md, "Timing model", for where the figures come from.
"""

from .hal import FaceSensors, Leds, Link, ReaderFault, RfidBus

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
        self.touched = [False] * zone_count
        self.touch_ms = [None] * zone_count  # when a finger last arrived or left (mat's clock)
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

    def touch(self, zone, touched, at_ms):
        """A finger arrives on (or leaves) the zone at `at_ms`, the mat's milliseconds."""
        self.touched[zone] = touched
        self.touch_ms[zone] = at_ms


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


class SimMpr121Bus:
    """An I2C bus of simulated MPR121s whose electrodes feel the fingers a SimTable records.

    `zones_per_chip` maps each chip (at 0x5A, 0x5B, ...) electrode by electrode to its zone. A
    chip reports a change `response_ms` after it happened (its second filter, SFI x ESI) and
    answers only the registers the driver uses; a chip in `absent` does not answer at all.
    """

    def __init__(self, table, zones_per_chip, clock, pacer, response_ms=4):
        self.table = table
        self.zones_per_chip = zones_per_chip
        self.clock = clock
        self.pacer = pacer
        self.response_ms = response_ms
        self.absent = set()
        self.registers = {}
        self.reads = 0
        for index in range(len(zones_per_chip)):
            self.registers[0x5A + index] = {0x5D: 0x24}

    def _chip(self, address):
        if address in self.absent or address not in self.registers:
            raise OSError(19, "ENODEV")  # what machine.I2C raises for a missing device
        return self.registers[address]

    def writeto_mem(self, address, register, data):
        chip = self._chip(address)
        self.pacer.spend(I2C_WRITE_US * (len(data) + 2))
        if register == 0x80 and data[:1] == bytes([0x63]):
            chip.clear()
            chip[0x5D] = 0x24
            return
        for offset, value in enumerate(data):
            chip[register + offset] = value

    def readfrom_mem(self, address, register, count):
        chip = self._chip(address)
        self.pacer.spend(I2C_READ_US)
        self.reads += 1
        if register == 0x00:
            mask = self._status(address - 0x5A, chip)
            return bytes([mask & 0xFF, mask >> 8])
        return bytes([chip.get(register + i, 0) for i in range(count)])

    def _status(self, index, chip):
        if not chip.get(0x5E, 0) & 0x0F:  # Stop mode: no measurements
            return 0
        now = self.clock.now_ms()
        mask = 0
        for electrode, zone in enumerate(self.zones_per_chip[index]):
            touched = self.table.touched[zone]
            changed = self.table.touch_ms[zone]
            if changed is not None and now - changed < self.response_ms:
                touched = not touched  # the chip has not caught up with the change yet
            if touched:
                mask |= 1 << electrode
        return mask
