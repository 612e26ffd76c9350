"""A stand-in for MicroPython's `machine` on the test bench: pins remember their levels, and
each SPI bus answers as MFRC522 register files behind the chip select the pins point at.

Only for tests/mat/fw/test_fw_board.py; the firmware's real `machine` is MicroPython's.
"""

PINS = {}
TRACE = []  # (pin number, level) for every level a pin is set to, in order
I2C_BUSES = []


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1

    def __init__(self, number, mode=None, pull=None, value=None):
        self.number = number
        self.level = 1 if (pull == Pin.PULL_UP and value is None) else (value or 0)
        PINS[number] = self
        TRACE.append((number, self.level))

    def value(self, level=None):
        if level is None:
            return self.level
        self.level = level
        TRACE.append((self.number, level))
        return None


class I2C:
    """An I2C controller taking its pins (released by the pull-ups: both lines high)."""

    def __init__(self, bus_id, sda=None, scl=None, freq=0):
        self.bus_id = bus_id
        self.pins = (sda.number, scl.number)
        for number in self.pins:
            PINS[number].level = 1
            TRACE.append((number, 1))
        self.reads = []
        I2C_BUSES.append(self)

    def readfrom_mem(self, address, register, count):
        self.reads.append((address, register, count))
        raise OSError(19, "ENODEV")

    def writeto_mem(self, address, register, data):
        raise OSError(19, "ENODEV")

    def writeto(self, address, data):
        raise OSError(19, "ENODEV")


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
