"""The NXP MPR121 capacitive touch controller: set-up, baseline filter and touch status reads.

Talks through any object with machine.I2C's `readfrom_mem(addr, reg, n)` and
`writeto_mem(addr, reg, data)`: the real I2C bus on the mat (`board`), a simulated chip
(`simhw.SimMpr121Bus`) in the simulator and the tests. Register values follow the datasheet
(MPR121 rev. 4) and NXP's quick start note AN3944; docs/mat.md ("Touch pads") says why each.
"""

ADDRESSES = (0x5A, 0x5B, 0x5C, 0x5D)  # ADDR pin to GND, VDD, SDA, SCL
ELECTRODES = 12

# Registers
TOUCH_STATUS = 0x00  # 2 bytes: ELE0-7, then ELE8-11 | ELEPROX << 4 | OVCF << 7
FILTERED_DATA = 0x04  # 2 bytes per electrode, 10 bits
BASELINE = 0x1E  # 1 byte per electrode: the upper 8 of the 10-bit baseline
MHD_RISING = 0x2B  # baseline filter, 0x2B-0x35 (rising, falling, touched)
TOUCH_THRESHOLD = 0x41  # ELE0 touch; 0x42 ELE0 release; then 2 per electrode
DEBOUNCE = 0x5B
CONFIG1 = 0x5C  # FFI, global CDC
CONFIG2 = 0x5D  # CDT, SFI, ESI
ECR = 0x5E  # electrode configuration: non-zero starts Run mode
AUTO_CONFIG0 = 0x7B
AUTO_CONFIG_USL = 0x7D
SOFT_RESET = 0x80
RESET_VALUE = 0x63
OVCF = 0x80  # in the status's high byte: over-current on REXT, the chip stopped measuring

# Baseline filter (AN3944 / AN3891): follow slow drifts (humidity, a card lying on the slot)
# quickly when the reading falls, slowly when it rises, not at all while touched.
BASELINE_FILTER = (
    0x01, 0x01, 0x00, 0x00,  # rising: MHD, NHD, NCL, FDL
    0x01, 0x01, 0xFF, 0x02,  # falling: MHD, NHD, NCL, FDL
    0x00, 0x00, 0x00,  # touched: NHD, NCL, FDL
)  # fmt: skip
TOUCH_LEVEL = 12  # counts above baseline that mean a touch (AN3944 uses 15 bare; 12 through
RELEASE_LEVEL = 6  # a card and a 2 mm playmat), and below which it is released again
# No debounce in the chip: the firmware debounces and keeps the time of the first sample.
DEBOUNCE_VALUE = 0x00
CONFIG1_VALUE = 0x10  # FFI 6 samples, CDC 16 uA (auto-configuration refines it)
# CDT 0.5 us, SFI 4 samples, ESI 1 ms: a new status every millisecond, reacting about
# SFI x ESI = 4 ms after the finger arrives, the same for every electrode.
CONFIG2_VALUE = 0x20
ESI_MS = 1
SFI_SAMPLES = 4
# Auto-configuration: ARE and ACE on, retry on failure, FFI as CONFIG1; 3.3 V limits (AN3889).
AUTO_CONFIG0_VALUE = 0x0B
AUTO_CONFIG_LIMITS = (200, 130, 180)  # USL, LSL, TL for VDD 3.3 V
ECR_RUN = 0x80  # CL = 10: baseline tracking on, loaded with the first 5 bits of the data


class TouchChipFault(Exception):
    """An MPR121 that does not answer, or stopped measuring (over-current)."""

    def __init__(self, address, text):
        super().__init__("touch chip 0x%02x: %s" % (address, text))
        self.address = address


class Mpr121:
    """One MPR121 at `address` on `i2c`, using its first `electrodes` electrodes."""

    def __init__(self, i2c, address, electrodes=ELECTRODES):
        if address not in ADDRESSES:
            raise ValueError("an MPR121 sits at 0x5a-0x5d, not 0x%02x" % address)
        if not 1 <= electrodes <= ELECTRODES:
            raise ValueError("an MPR121 has 1-12 electrodes, not %d" % electrodes)
        self.i2c = i2c
        self.address = address
        self.electrodes = electrodes

    def _write(self, register, *values):
        try:
            self.i2c.writeto_mem(self.address, register, bytes(values))
        except OSError as error:
            raise TouchChipFault(self.address, "no answer on I2C (%s)" % error) from None

    def _read(self, register, count):
        try:
            return self.i2c.readfrom_mem(self.address, register, count)
        except OSError as error:
            raise TouchChipFault(self.address, "no answer on I2C (%s)" % error) from None

    def start(self):
        """Resets the chip, writes the filter and thresholds in Stop mode, then starts it."""
        self._write(SOFT_RESET, RESET_VALUE)
        # After a soft reset CONFIG2 reads 0x24; anything else is not an MPR121.
        if self._read(CONFIG2, 1)[0] != 0x24:
            raise TouchChipFault(self.address, "not an MPR121 (CONFIG2 after reset is not 0x24)")
        self._write(ECR, 0x00)  # Stop mode: the only mode in which settings may be written
        self._write(MHD_RISING, *BASELINE_FILTER)
        thresholds = []
        for _ in range(ELECTRODES):
            thresholds += [TOUCH_LEVEL, RELEASE_LEVEL]
        self._write(TOUCH_THRESHOLD, *thresholds)
        self._write(DEBOUNCE, DEBOUNCE_VALUE)
        self._write(CONFIG1, CONFIG1_VALUE)
        self._write(CONFIG2, CONFIG2_VALUE)
        self._write(AUTO_CONFIG0, AUTO_CONFIG0_VALUE)
        self._write(AUTO_CONFIG_USL, *AUTO_CONFIG_LIMITS)
        self._write(ECR, ECR_RUN | self.electrodes)

    def touched(self):
        """Returns the bit mask of touched electrodes (bit 0 = ELE0); one 2-byte read."""
        low, high = self._read(TOUCH_STATUS, 2)
        if high & OVCF:
            raise TouchChipFault(self.address, "over-current on REXT: check the 75 kohm resistor")
        return (low | (high << 8)) & ((1 << self.electrodes) - 1)

    def readings(self, electrode):
        """Returns (filtered data, baseline) of one electrode, both 10-bit, for calibration."""
        data = self._read(FILTERED_DATA + 2 * electrode, 2)
        baseline = self._read(BASELINE + electrode, 1)[0] << 2
        return (data[0] | (data[1] << 8)) & 0x3FF, baseline
