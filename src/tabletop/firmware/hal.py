"""The small interfaces between the firmware's logic and the mat's hardware.

The real implementations are in `mfrc522` and `board` (device only); the simulated ones in
`simhw`. The logic modules use nothing else, so they run unchanged in both places.
"""


class ReaderFault(Exception):
    """A reader that does not answer on SPI, or answers nonsense: reset it, do not trust it."""

    def __init__(self, zone, text):
        super().__init__(text)
        self.zone = zone


class RfidBus:
    """One SPI bus and the RFID readers on it, addressed by zone number, one at a time."""

    def wake(self, zone):
        """Turns the zone's antenna on and asks for a card (REQA); True if one answered."""
        raise NotImplementedError

    def read_uid(self, zone):
        """Reads the UID of the card that answered `wake` (anticollision and select); bytes or
        None when the read failed (two cards, a card moving); raises ReaderFault."""
        raise NotImplementedError

    def idle(self, zone):
        """Turns the zone's antenna off so it cannot disturb its neighbours."""
        raise NotImplementedError

    def reset(self, zone):
        """Pulses the zone's reset line and sets the reader up again."""
        raise NotImplementedError


class FaceSensors:
    """The reflectance sensors under the slots: how much light the card's lower side returns."""

    def level(self, zone):
        """Returns the zone's reflectance, 0 (black) to 65535 (mirror)."""
        raise NotImplementedError


class Leds:
    """The optional guidance LEDs, one per zone."""

    def set(self, zone, red, green, blue, mode):
        """Sets one zone's LED colour; mode 0 steady, 1 blinking."""

    def show(self):
        """Sends the colours set so far to the LEDs."""


class Link:
    """The byte pipe to the host (USB CDC on the device, a pty in the simulator)."""

    def read(self):
        """Returns the bytes received since the last call (b"" if none); never blocks."""
        raise NotImplementedError

    def write(self, data):
        """Sends bytes; drops them when no host is listening rather than blocking the scan."""
        raise NotImplementedError


class Clock:
    """Milliseconds since boot, never wrapping."""

    def now_ms(self):
        raise NotImplementedError


class Watchdog:
    """Resets the controller unless fed in time."""

    def feed(self):
        pass


class NullLock:
    """Stands in for a _thread lock where there is one thread (tests under MicroPython/wasm)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
