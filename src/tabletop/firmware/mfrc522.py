"""MFRC522 readers on one SPI bus, selected one at a time through a pair of 74HC154 decoders.

Only what the scan loop needs: antenna on, REQA with a short timeout, anticollision and select
for 4- and 7-byte UIDs, antenna off, hard reset through the reset shift register. The timer is
set to 1 ms (the common library waits 25 ms for a card that is not there).
Register and command numbers are from the NXP MFRC522 data sheet, rev. 3.9, section 9.
"""

try:
    from time import sleep_ms, sleep_us
except ImportError:  # CPython: a Pi driving readers through spidev, or the tests
    import time

    def sleep_us(us):
        time.sleep(us / 1e6)

    def sleep_ms(ms):
        time.sleep(ms / 1e3)


from .hal import ReaderFault

COMMAND = 0x01
COM_IRQ = 0x04
ERROR = 0x06
FIFO_DATA = 0x09
FIFO_LEVEL = 0x0A
CONTROL = 0x0C
BIT_FRAMING = 0x0D
COLL = 0x0E
MODE = 0x11
TX_CONTROL = 0x14
TX_ASK = 0x15
T_MODE = 0x2A
T_PRESCALER = 0x2B
T_RELOAD_H = 0x2C
T_RELOAD_L = 0x2D
VERSION = 0x37

IDLE = 0x00
TRANSCEIVE = 0x0C
SOFT_RESET = 0x0F

REQA = 0x26
SELECT_CL1 = 0x93
SELECT_CL2 = 0x95
CASCADE_TAG = 0x88

# Timer: 13.56 MHz / (2 * 0xA9 + 1) = 40 kHz, so 40 ticks = 1 ms before "no card".
PRESCALER = 0xA9
RELOAD_TICKS = 40
KNOWN_VERSIONS = (0x88, 0x90, 0x91, 0x92, 0xB2)  # FM17522 clones answer 0x88, NXP 0x91/0x92


def crc_a(data):
    """ISO/IEC 14443-3 CRC_A of `data`, as the two bytes sent after it (low byte first)."""
    crc = 0x6363
    for byte in data:
        mixed = byte ^ (crc & 0xFF)
        mixed = (mixed ^ (mixed << 4)) & 0xFF
        crc = (crc >> 8) ^ (mixed << 8) ^ (mixed << 3) ^ (mixed >> 4)
    return bytes([crc & 0xFF, (crc >> 8) & 0xFF])


class DecodedSelect:
    """Chip selects through 74HC154 decoders: address lines shared, one enable per decoder.

    The same lines point the bus's 74HC4067 analog multiplexers at the zone's face sensor, so
    selecting a zone for RFID also selects its reflectance sensor.
    """

    def __init__(self, address_pins, enable_pins):
        self.address_pins = address_pins
        self.enable_pins = enable_pins
        self.current = -1

    def point(self, local):
        """Sets the address lines for the bus's `local`-th reader (no chip selected yet)."""
        if local == self.current:
            return
        for bit, pin in enumerate(self.address_pins):
            pin.value((local >> bit) & 1)
        self.current = local

    def select(self, local):
        self.point(local)
        self.enable_pins[local >> 4].value(0)

    def release(self, local):
        self.enable_pins[local >> 4].value(1)


class Mfrc522Bus:
    """The readers of one bus; `zones` lists the mat zone of each decoder output in order."""

    def __init__(self, spi, chip_select, resets, zones):
        self.spi = spi
        self.cs = chip_select
        self.resets = resets
        self.local = {}
        for index, zone in enumerate(zones):
            self.local[zone] = index
        self._buffer = bytearray(2)

    # ---- registers --------------------------------------------------------------------

    def _write(self, local, register, value):
        self._buffer[0] = (register << 1) & 0x7E
        self._buffer[1] = value
        self.cs.select(local)
        try:
            self.spi.write(self._buffer)
        finally:
            self.cs.release(local)

    def _read(self, local, register):
        self._buffer[0] = ((register << 1) & 0x7E) | 0x80
        self._buffer[1] = 0
        out = bytearray(2)
        self.cs.select(local)
        try:
            self.spi.write_readinto(self._buffer, out)
        finally:
            self.cs.release(local)
        return out[1]

    def _set_bits(self, local, register, mask):
        self._write(local, register, self._read(local, register) | mask)

    def _clear_bits(self, local, register, mask):
        self._write(local, register, self._read(local, register) & ~mask)

    def _transceive(self, local, data, bits_last=0):
        """Sends `data` to the card and returns (bytes, bits received) or None on timeout."""
        self._write(local, COMMAND, IDLE)
        self._write(local, COM_IRQ, 0x7F)
        self._write(local, FIFO_LEVEL, 0x80)
        for byte in data:
            self._write(local, FIFO_DATA, byte)
        self._write(local, BIT_FRAMING, bits_last)
        self._write(local, COMMAND, TRANSCEIVE)
        self._set_bits(local, BIT_FRAMING, 0x80)
        for _ in range(200):  # the 1 ms timer ends this well before 200 polls
            irq = self._read(local, COM_IRQ)
            if irq & 0x30:  # RxIRq or IdleIRq: an answer
                break
            if irq & 0x01:  # TimerIRq: nobody answered
                return None
        else:
            raise ReaderFault(self._zone(local), "no interrupt from the reader")
        self._clear_bits(local, BIT_FRAMING, 0x80)
        if self._read(local, ERROR) & 0x1B:  # buffer overflow, collision, CRC or parity
            return None
        count = self._read(local, FIFO_LEVEL)
        last_bits = self._read(local, CONTROL) & 0x07
        answer = bytes(self._read(local, FIFO_DATA) for _ in range(count))
        bits = (count - 1) * 8 + last_bits if last_bits else count * 8
        return answer, bits

    def _zone(self, local):
        for zone, index in self.local.items():
            if index == local:
                return zone
        return -1

    # ---- the RfidBus interface -------------------------------------------------------

    def init(self, zone):
        """Sets a reader up after power-on or reset: 1 ms timer, 100% ASK, antenna off."""
        local = self.local[zone]
        self._write(local, COMMAND, SOFT_RESET)
        for _ in range(50):  # the PowerDown bit stays set until the oscillator runs again
            sleep_ms(1)
            if not self._read(local, COMMAND) & 0x10:
                break
        version = self._read(local, VERSION)
        if version not in KNOWN_VERSIONS:
            raise ReaderFault(zone, "version register reads 0x%02x" % version)
        self._write(local, T_MODE, 0x80)
        self._write(local, T_PRESCALER, PRESCALER)
        self._write(local, T_RELOAD_H, RELOAD_TICKS >> 8)
        self._write(local, T_RELOAD_L, RELOAD_TICKS & 0xFF)
        self._write(local, TX_ASK, 0x40)
        self._write(local, MODE, 0x3D)
        self._clear_bits(local, TX_CONTROL, 0x03)

    def wake(self, zone):
        local = self.local[zone]
        self._set_bits(local, TX_CONTROL, 0x03)
        sleep_us(2000)  # field-on guard time for the tag to power up
        self._write(local, COLL, 0x80)
        answer = self._transceive(local, bytes([REQA]), 0x07)
        return answer is not None and answer[1] == 16

    def read_uid(self, zone):
        local = self.local[zone]
        uid = b""
        for level in (SELECT_CL1, SELECT_CL2):
            answer = self._transceive(local, bytes([level, 0x20]))
            if answer is None or len(answer[0]) != 5:
                return None
            part = answer[0]
            if part[0] ^ part[1] ^ part[2] ^ part[3] != part[4]:
                return None  # BCC mismatch: a collision or a moving card
            frame = bytes([level, 0x70]) + part
            selected = self._transceive(local, frame + crc_a(frame))
            if selected is None or not selected[0]:
                return None
            if part[0] == CASCADE_TAG:
                uid += part[1:4]
                continue
            return uid + part[:4]
        return None

    def idle(self, zone):
        self._clear_bits(self.local[zone], TX_CONTROL, 0x03)

    def reset(self, zone):
        self.resets.pulse(zone)
        sleep_ms(50)  # the oscillator start-up after a hard power-down
        self.init(zone)


class ResetChain:
    """The readers' NRSTPD lines on 74HC595s chained seat to seat: all high but a pulsed one.

    `positions[zone]` is the zone's output in the chain, counted from the controller (8 per
    shift register: a seat board uses outputs 0-5 of its own), and `length` the outputs in all.
    """

    def __init__(self, data, clock, latch, positions, length):
        self.data = data
        self.clock = clock
        self.latch = latch
        self.positions = positions
        self.length = length

    def _shift(self, low_zone):
        low = self.positions[low_zone] if low_zone >= 0 else -1
        self.latch.value(0)
        # The first bit shifted in travels furthest: shift the far end first.
        for position in range(self.length - 1, -1, -1):
            self.data.value(0 if position == low else 1)
            self.clock.value(1)
            self.clock.value(0)
        self.latch.value(1)

    def release_all(self):
        self._shift(-1)

    def pulse(self, zone):
        self._shift(zone)
        sleep_us(100)
        self._shift(-1)


def seat_board_positions(layout):
    """Chain positions for one 74HC595 per seat board (slots on outputs 0-5), then the pad's."""
    positions = []
    for zone in range(layout.count):
        if layout.pad and zone == layout.count - 1:
            positions.append(layout.seats * 8)
        else:
            positions.append(zone // layout.slots * 8 + zone % layout.slots)
    return positions, (layout.seats + (1 if layout.pad else 0)) * 8
