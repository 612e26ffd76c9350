"""The mat's wiring as facts: which net each controller pin carries, the ribbons, the seat LEDs.

Plain data with no circuit library behind it, so the pin plan can be read (and the tests and
the docs can name it) without SKiDL. `tabletop.hardware.circuit.mat` wires the parts from it. None
of it is read from the firmware: the tests hold the two against each other (tests/circuit/).
"""

from __future__ import annotations

# The Pico's GPIOs and the net each one carries (docs/mat.md, "Pin map"). Bus A is SPI0 on the
# first core, bus B SPI1 on the second; the reset chain's data and clock double as I2C0.
PICO_NETS: dict[str, str] = {
    "GP0": "LED_DATA",
    "GP1": "MAINTENANCE",
    "GP2": "BUS_A_SCK",
    "GP3": "BUS_A_MOSI",
    "GP4": "BUS_A_MISO",
    "GP5": "BUS_A_ADDR0",
    "GP6": "BUS_A_ADDR1",
    "GP7": "BUS_A_ADDR2",
    "GP8": "BUS_A_ADDR3",
    "GP9": "BUS_A_EN1",
    "GP10": "BUS_B_SCK",
    "GP11": "BUS_B_MOSI",
    "GP12": "BUS_B_MISO",
    "GP13": "BUS_B_ADDR0",
    "GP14": "BUS_A_EN2",
    "GP15": "BUS_B_EN2",
    "GP16": "SDA_RESET_DATA",
    "GP17": "SCL_RESET_CLOCK",
    "GP18": "BUS_B_ADDR1",
    "GP19": "BUS_B_ADDR2",
    "GP20": "BUS_B_ADDR3",
    "GP21": "BUS_B_EN1",
    "GP22": "IR_EN",
    "GP26": "BUS_A_SENSE",
    "GP27": "BUS_B_SENSE",
    "GP28": "RESET_LATCH",
}

# The seat LEDs, on the Raspberry Pi's header (BCM numbers), seat 1 first, LED 1-3 each. The
# first three seats are examples/table.toml's; the other three take free pins that no HAT
# function the table uses needs (the camera is on CSI, the mat on USB).
SEAT_LED_PINS: tuple[tuple[int, int, int], ...] = (
    (5, 6, 13),
    (19, 26, 21),
    (20, 16, 12),
    (17, 27, 22),
    (23, 24, 25),
    (4, 18, 7),
)
# A 1 kohm series resistor gives a red or green 5 mm LED about 1.4 mA at 3.3 V: visible under
# a table, and 18 of them stay inside the Pi's 50 mA for all GPIOs together (see the budget).
SEAT_LED_RESISTOR = "1k"

# Each seat's 26-way ribbon (docs/mat.md, "Wiring"), pin 1 first: a signal's name on the
# cable; the seat board's header uses the same numbers.
SEAT_RIBBON: tuple[str, ...] = (
    "3V3",
    "5V",
    "GND",
    "SCK",
    "MOSI",
    "GND",
    "MISO",
    "CS1",
    "CS2",
    "CS3",
    "CS4",
    "CS5",
    "CS6",
    "SENSE1",
    "SENSE2",
    "SENSE3",
    "SENSE4",
    "SENSE5",
    "SENSE6",
    "IR_K",
    "LED_IN",
    "LED_OUT",
    "RST_IN",
    "RST_CLK",
    "RST_LATCH",
    "RST_OUT",
)
# Each seat's 14-way touch ribbon: a ground between every two electrode leads.
TOUCH_RIBBON: tuple[str, ...] = (
    "GND",
    "T1",
    "GND",
    "T2",
    "GND",
    "T3",
    "GND",
    "T4",
    "GND",
    "T5",
    "GND",
    "T6",
    "GND",
    "SPARE",
)

# A split seat's 26-way touch ribbon: twelve leads (slot 1 near, slot 1 far, ...), a ground
# between every two (docs/mat.md, "Whose hand: split pads").
TOUCH_RIBBON_SPLIT: tuple[str, ...] = (
    *(item for lead in range(1, 13) for item in ("GND", f"T{lead}")),
    "GND",
    "SPARE",
)

# The MPR121s' ADDR pin for each address (docs/mat.md, "Touch pads").
TOUCH_ADDRESS_NETS: dict[int, str] = {
    0x5A: "GND",
    0x5B: "+3V3",
    0x5C: "SDA_RESET_DATA",
    0x5D: "SCL_RESET_CLOCK",
}

# Footprints from KiCad's standard library (kicad-footprints 6.0.11, each name checked against
# the Debian package), except the Pico's, from Raspberry Pi's own KiCad files (KiCad 6 has no
# Pico). Modules and the parts that sit under the slots (readers, face sensors) are wired to
# the board through headers, so their footprint is the header they plug into.
FOOTPRINTS: dict[str, str] = {
    "pico": "RPi_Pico:RPi_Pico_SMD_TH",
    "rc522": "Connector_PinHeader_2.54mm:PinHeader_1x08_P2.54mm_Vertical",
    "tcrt5000": "Connector_PinHeader_2.54mm:PinHeader_1x04_P2.54mm_Vertical",
    "mpr121": "Connector_PinHeader_2.54mm:PinHeader_1x19_P2.54mm_Vertical",
    "buck": "Connector_PinHeader_2.54mm:PinHeader_1x04_P2.54mm_Vertical",
    "psu": "Connector_BarrelJack:BarrelJack_Horizontal",
    "dip14": "Package_DIP:DIP-14_W7.62mm_Socket",
    "dip16": "Package_DIP:DIP-16_W7.62mm_Socket",
    "dip24_wide": "Package_DIP:DIP-24_W15.24mm_Socket",
    "sot23": "Package_TO_SOT_SMD:SOT-23",
    "resistor": "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal",
    "capacitor": "Capacitor_THT:C_Disc_D5.0mm_W2.5mm_P5.00mm",
    "led5": "LED_THT:LED_D5.0mm",
    "ws2812b": "LED_SMD:LED_WS2812B_PLCC4_5.0x5.0mm_P3.2mm",
    "ribbon26": "Connector_IDC:IDC-Header_2x13_P2.54mm_Vertical",
    "ribbon14": "Connector_IDC:IDC-Header_2x07_P2.54mm_Vertical",
    "pi_header": "Connector_PinSocket_2.54mm:PinSocket_2x20_P2.54mm_Vertical",
    "jumper": "Connector_PinHeader_2.54mm:PinHeader_1x02_P2.54mm_Vertical",
    "electrode": "TestPoint:TestPoint_Pad_D2.0mm",
    "tssop24": "Package_SO:TSSOP-24_4.4x7.8mm_P0.65mm",
}
