"""A stand-in for MicroPython's `machine` on the test bench: pins remember their levels, and
each SPI bus answers as MFRC522 register files behind the chip select the pins point at.

Only for tests/mat/fw/test_fw_board.py; the firmware's real `machine` is MicroPython's.
"""

PINS = {}


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1

    def __init__(self, number, mode=None, pull=None, value=None):
        self.number = number
        self.level = 1 if (pull == Pin.PULL_UP and value is None) else (value or 0)
        PINS[number] = self

    def value(self, level=None):
        if level is None:
            return self.level
        self.level = level
        return None


class ADC:
    def __init__(self, pin):
        self.pin = pin

    def read_u16(self):
        # The mux output: bright when the IR emitters (GP22) are lit.
        return 20000 if PINS[22].level else 60000


class WDT:
    def __init__(self, timeout):
        self.timeout = timeout

    def feed(self):
        pass


class SPI:
    """A bus of register files; wire(address pins, enable pins) tells it how readers are picked."""

    def __init__(self, bus_id, baudrate=0, polarity=0, phase=0, sck=None, mosi=None, miso=None):
        self.bus_id = bus_id
        self.address = ()
        self.enables = ()
        self.registers = {}
        self.log = []

    def wire(self, address, enables):
        self.address = address
        self.enables = enables

    def selected(self):
        low = [i for i, number in enumerate(self.enables) if PINS[number].level == 0]
        assert len(low) == 1, "SPI transfer with %d chip selects low" % len(low)
        local = 0
        for bit, number in enumerate(self.address):
            local |= PINS[number].level << bit
        return low[0] * 16 + local

    def _file(self, local):
        if local not in self.registers:
            self.registers[local] = {0x37: 0x92, 0x04: 0x01}  # version; timer IRQ (no card)
        return self.registers[local]

    def write(self, data):
        local = self.selected()
        register = (data[0] >> 1) & 0x3F
        self._file(local)[register] = data[1]
        self.log.append((local, register, data[1]))

    def write_readinto(self, data, out):
        local = self.selected()
        register = (data[0] >> 1) & 0x3F
        out[1] = self._file(local).get(register, 0)
