"""The mat's wiring (docs/mat.md, "Pin map") and the real hardware behind the hal interfaces.

Device only: the one firmware module that imports `machine`.
"""

import _thread
import time

import machine
import neopixel

from .hal import Clock, FaceSensors, Leds, Link, Watchdog
from .mfrc522 import DecodedSelect, Mfrc522Bus, ResetChain, seat_board_positions, sleep_us
from .ticks import TickCounter
from .touch import build_pads, split_seat_zones

# Bus A: SPI0 and its two 74HC154 decoders (and the two 74HC4067 muxes on the same lines)
BUS_A = {"spi": 0, "sck": 2, "mosi": 3, "miso": 4, "address": (5, 6, 7, 8), "enable": (9, 14)}
# Bus B: SPI1
BUS_B = {
    "spi": 1,
    "sck": 10,
    "mosi": 11,
    "miso": 12,
    "address": (13, 18, 19, 20),
    "enable": (21, 15),
}
FACE_ADC = (26, 27)  # the muxed reflectance sensors of bus A and bus B
FACE_EMITTERS = 22  # the IR LEDs of every reflectance sensor, through a MOSFET
RESET_DATA, RESET_CLOCK, RESET_LATCH = 16, 17, 28
# The touch chips' I2C0 uses the reset chain's data and clock lines (GP16 = I2C0 SDA, GP17 =
# I2C0 SCL): every pin is taken, and the 74HC595s change their outputs only on a latch pulse
# (GP28), so the I2C traffic they clock in is never shown (docs/mat.md, "Touch pads").
TOUCH_SDA, TOUCH_SCL = RESET_DATA, RESET_CLOCK
I2C_BAUD = 400_000
TOUCH_PADS = True  # False on a mat built without the touch chips
# The seats whose slots were built with split pads (near and far half, docs/mat.md "Whose hand:
# split pads"), a bit per seat (bit 0 is seat 1): 0 for whole pads, 0b11 for seats 1 and 2,
# 0x3F for all six. It is the CONFIGURE key split_seats' value at boot.
SPLIT_SEATS = 0
LED_DATA = 0  # WS2812B chain, through a 74AHCT125 to 5 V
MAINTENANCE = 1  # a jumper to GND at power-up keeps the REPL (the scan loop does not start)
SPI_BAUD = 4_000_000
WATCHDOG_MS = 2000
LED_LEVEL = 64  # of 255: 37 LEDs at full white would draw over 2 A


class UsbLink(Link):
    """The USB CDC serial port, with the REPL's Ctrl-C turned off so binary frames pass."""

    def __init__(self):
        import select
        import sys

        import micropython

        micropython.kbd_intr(-1)
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)

    def read(self):
        data = b""
        while self._poll.poll(0) and len(data) < 256:
            data += self._in.read(1)
        return data

    def write(self, data):
        self._out.write(data)


class TicksClock(Clock):
    """time.ticks_ms() made monotonic past its wrap-around (`ticks.TickCounter`), both cores."""

    def __init__(self):
        self._counter = TickCounter(time.ticks_ms)
        self._counter.now_ms()
        self._lock = _thread.allocate_lock()

    def now_ms(self):
        with self._lock:
            return self._counter.now_ms()


class MuxedFaceSensors(FaceSensors):
    """Reflectance through the bus's mux: LED on minus LED off, so room light cancels out."""

    def __init__(self, bus_of_zone, selects, local_of_zone):
        self.adcs = [machine.ADC(machine.Pin(pin)) for pin in FACE_ADC]
        self.emitters = machine.Pin(FACE_EMITTERS, machine.Pin.OUT, value=0)
        self.bus_of_zone = bus_of_zone
        self.selects = selects
        self.local_of_zone = local_of_zone
        self._lock = _thread.allocate_lock()  # both cores share the emitter line

    def level(self, zone):
        bus = self.bus_of_zone[zone]
        local = self.local_of_zone[zone]
        select = self.selects[bus]
        select.select(local)
        try:
            with self._lock:
                dark = self.adcs[bus].read_u16()
                self.emitters.value(1)
                sleep_us(60)
                lit = self.adcs[bus].read_u16()
                self.emitters.value(0)
        finally:
            select.release(local)
        # The phototransistor pulls the line down when it sees light.
        return max(0, dark - lit)


class StripLeds(Leds):
    def __init__(self, count):
        self.strip = neopixel.NeoPixel(machine.Pin(LED_DATA), count)

    def set(self, zone, red, green, blue, mode):
        scale = LED_LEVEL
        self.strip[zone] = (red * scale // 255, green * scale // 255, blue * scale // 255)

    def show(self):
        self.strip.write()


class HardwareWatchdog(Watchdog):
    def __init__(self):
        self.wdt = machine.WDT(timeout=WATCHDOG_MS)

    def feed(self):
        self.wdt.feed()


class SharedLines:
    """GP16/GP17, lent in turn to the touch chips' I2C and to the reset chain (both cores)."""

    def __init__(self):
        self.lock = _thread.allocate_lock()
        self.i2c = None

    def to_i2c(self):
        self.i2c = machine.I2C(
            0, sda=machine.Pin(TOUCH_SDA), scl=machine.Pin(TOUCH_SCL), freq=I2C_BAUD
        )

    def readfrom_mem(self, address, register, count):
        with self.lock:
            return self.i2c.readfrom_mem(address, register, count)

    def writeto_mem(self, address, register, data):
        with self.lock:
            self.i2c.writeto_mem(address, register, data)

    def writeto(self, address, data):
        """A plain write: the TCA9548A switch's channel byte, on a mat with split pads."""
        with self.lock:
            self.i2c.writeto(address, data)


class SharedResetChain(ResetChain):
    """The reset chain on lines it shares with I2C: takes them, shifts, gives them back.

    The data line changes only while the clock is low, and is left high before the I2C takes
    the lines again, so the touch chips never see a START condition in the shifting.
    """

    def __init__(self, lines, latch, positions, length):
        self.lines = lines
        super().__init__(None, None, latch, positions, length)

    def _shift(self, low_zone):
        with self.lines.lock:
            self.data = machine.Pin(RESET_DATA, machine.Pin.OUT, value=1)
            self.clock = machine.Pin(RESET_CLOCK, machine.Pin.OUT, value=0)
            super()._shift(low_zone)
            self.data.value(1)
            self.lines.to_i2c()


def build_touch(layout, log, split_seats=SPLIT_SEATS):
    """Returns the touch pads on the shared I2C, not started: four MPR121s at 0x5A-0x5D for
    whole pads, behind the TCA9548A switch when the seats in `split_seats` need more."""
    split = split_seat_zones(layout.seats, layout.slots, split_seats)
    return build_pads(SHARED, layout.count, split, log)


SHARED = SharedLines()


def maintenance_jumper():
    """True when the maintenance jumper is fitted: leave the USB port to the REPL."""
    return machine.Pin(MAINTENANCE, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0


def build(layout, zones_per_bus):
    """Returns (buses, face sensors, leds) for the real mat, readers not yet initialised."""
    positions, length = seat_board_positions(layout)
    resets = SharedResetChain(
        SHARED, machine.Pin(RESET_LATCH, machine.Pin.OUT, value=1), positions, length
    )
    resets.release_all()  # and leaves GP16/GP17 to the I2C
    buses = []
    selects = []
    bus_of_zone = {}
    local_of_zone = {}
    for index, (pins, zones) in enumerate(zip((BUS_A, BUS_B), zones_per_bus)):
        spi = machine.SPI(
            pins["spi"],
            baudrate=SPI_BAUD,
            polarity=0,
            phase=0,
            sck=machine.Pin(pins["sck"]),
            mosi=machine.Pin(pins["mosi"]),
            miso=machine.Pin(pins["miso"]),
        )
        select = DecodedSelect(
            [machine.Pin(p, machine.Pin.OUT, value=0) for p in pins["address"]],
            [machine.Pin(p, machine.Pin.OUT, value=1) for p in pins["enable"]],
        )
        bus = Mfrc522Bus(spi, select, resets, zones)
        for local, zone in enumerate(zones):
            bus_of_zone[zone] = index
            local_of_zone[zone] = local
        buses.append(bus)
        selects.append(select)
    sensors = MuxedFaceSensors(bus_of_zone, selects, local_of_zone)
    return buses, sensors, StripLeds(layout.count)
