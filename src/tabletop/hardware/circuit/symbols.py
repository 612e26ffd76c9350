"""Writes the circuit's one symbol library, `tabletop.kicad_sym`, and says which parts are in it.

Loading KiCad's whole libraries takes SKiDL about 45 s here (Device, Connector and 74xx are
several MB of s-expressions each), so the circuit loads one small file instead: the real KiCad
symbols it uses, copied verbatim from Debian's `kicad-symbols` package (KiCad 6.0.10, CC-BY-SA
4.0 with the KiCad libraries' design exception), and a plain symbol for each module that KiCad
6 has no symbol for (the Pico, an RC522 reader board, a TCRT5000, an MPR121 breakout, the buck
and the 5 V supply): a box with the module's pins in its own order.

Run it again after changing a module or the symbols taken (needs the Debian package):
`apt-get install kicad-symbols && .venv/bin/python -m tabletop.hardware.circuit.symbols`.
"""

from __future__ import annotations

import sys
from pathlib import Path

LIBRARY = Path(__file__).with_name("tabletop.kicad_sym")
KICAD_SYMBOLS = Path("/usr/share/kicad/symbols")

# (KiCad library, symbol) copied from KiCad: chips whose symbol is the same pinout under an
# older family name (the 74LS154 and 74LS125 symbols serve the 74HC154, 74HC125, 74AHCT125).
KICAD_PARTS = (
    ("74xx", "74LS154"),
    ("74xx", "74LS125"),
    ("74xx", "74HC595"),
    ("74xx", "CD74HC4067M"),
    ("Transistor_FET", "BSS138"),  # the symbol AO3400A extends
    ("Transistor_FET", "AO3400A"),
    ("Device", "R"),
    ("Device", "C"),
    ("Device", "LED"),
    ("LED", "WS2812B"),
    ("Connector", "Raspberry_Pi_2_3"),
    ("Connector_Generic", "Conn_01x02"),
    ("Connector_Generic", "Conn_02x07_Odd_Even"),
    ("Connector_Generic", "Conn_02x13_Odd_Even"),
    ("Jumper", "Jumper_2_Open"),
    ("Interface_Expansion", "TCA9548APWR"),  # the I2C switch of a mat with split pads
)

# Modules: name -> (reference prefix, pins as (number, name, KiCad electrical type)).
# The Pico's 40 pins in the board's own numbering.
PICO_PIN_TEXT = (
    "GP0 GP1 GND GP2 GP3 GP4 GP5 GND GP6 GP7 GP8 GP9 GND GP10 GP11 GP12 GP13 GND GP14 GP15 "
    "GP16 GP17 GND GP18 GP19 GP20 GP21 GND GP22 RUN GP26 GP27 GND GP28 ADC_VREF 3V3 3V3_EN "
    "GND VSYS VBUS"
)
PICO_PIN_NAMES = PICO_PIN_TEXT.split()
PICO_KINDS = {
    "GND": "power_in",
    "3V3": "power_out",
    "VBUS": "power_out",
    "VSYS": "power_in",
    "RUN": "input",
    "ADC_VREF": "passive",
    "3V3_EN": "input",
}
PICO_PINS = [
    (str(number), name, PICO_KINDS.get(name, "bidirectional"))
    for number, name in enumerate(PICO_PIN_NAMES, start=1)
]

MODULES: dict[str, tuple[str, list[tuple[str, str, str]]]] = {
    # Raspberry Pi Pico (SC0915): the 40 castellated pins in the board's own numbering.
    "RaspberryPi_Pico": ("U", PICO_PINS),
    # The common blue RC522 board's 8-pin header, in its printed order.
    "RC522_Module": (
        "M",
        [
            ("1", "SDA", "input"),  # the chip select (NSS) on these boards
            ("2", "SCK", "input"),
            ("3", "MOSI", "input"),
            ("4", "MISO", "output"),
            ("5", "IRQ", "output"),
            ("6", "GND", "power_in"),
            ("7", "RST", "input"),
            ("8", "3V3", "power_in"),
        ],
    ),
    # Vishay TCRT5000: emitter anode/cathode, phototransistor collector/emitter.
    "TCRT5000": (
        "S",
        [
            ("1", "C", "passive"),
            ("2", "E", "passive"),
            ("3", "A", "passive"),
            ("4", "K", "passive"),
        ],
    ),
    # An MPR121 breakout (Adafruit 1982 and its clones): REXT and decoupling on the module.
    "MPR121_Module": (
        "M",
        [
            ("1", "VIN", "power_in"),
            ("2", "3VO", "power_out"),
            ("3", "GND", "power_in"),
            ("4", "SCL", "input"),
            ("5", "SDA", "bidirectional"),
            ("6", "IRQ", "open_collector"),
            ("7", "ADDR", "input"),
        ]
        + [(str(8 + e), f"ELE{e}", "passive") for e in range(12)],
    ),
    # Pololu D24V10F3: 3.3 V 1 A step-down regulator board.
    "Buck_D24V10F3": (
        "PS",
        [
            ("1", "SHDN", "input"),
            ("2", "VIN", "power_in"),
            ("3", "GND", "power_in"),
            ("4", "VOUT", "power_out"),
        ],
    ),
    # A touch electrode: the copper-tape comb's solder point (docs/mat.md, "Touch pads").
    "Touch_Electrode": ("E", [("1", "PAD", "passive")]),
    # Mean Well GST25E05-P1J: 5 V 4 A adapter, into a DC barrel jack on the controller board.
    "PSU_5V": ("PS", [("1", "+5V", "power_out"), ("2", "GND", "power_out")]),
}


def top_level_symbols(text: str) -> dict[str, str]:
    """The top-level `(symbol ...)` blocks of a .kicad_sym file, by name (KiCad writes each
    starting at two spaces' indent, its units further in)."""
    blocks: dict[str, str] = {}
    name = ""
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith('  (symbol "'):
            if name:
                blocks[name] = "\n".join(lines)
            name = line.split('"', 2)[1]
            lines = [line]
        elif name and line.startswith("  ") and not line.startswith('  (symbol "'):
            lines.append(line)
        elif name:
            blocks[name] = "\n".join(lines)
            name, lines = "", []
    if name:
        blocks[name] = "\n".join(lines)
    return blocks


def module_symbol(name: str, prefix: str, pins: list[tuple[str, str, str]]) -> str:
    """A KiCad 6 symbol for a module: a box, pins down both sides in number order."""
    half = (len(pins) + 1) // 2
    height = half * 2.54 + 2.54
    out = [
        f'  (symbol "{name}" (in_bom yes) (on_board yes)',
        f'    (property "Reference" "{prefix}" (id 0) (at 0 {height / 2 + 1.27:.2f} 0)',
        "      (effects (font (size 1.27 1.27))))",
        f'    (property "Value" "{name}" (id 1) (at 0 {-height / 2 - 1.27:.2f} 0)',
        "      (effects (font (size 1.27 1.27))))",
        '    (property "Footprint" "" (id 2) (at 0 0 0) (effects (font (size 1.27 1.27)) hide))',
        '    (property "Datasheet" "" (id 3) (at 0 0 0) (effects (font (size 1.27 1.27)) hide))',
        f'    (symbol "{name}_0_1"',
        f"      (rectangle (start -10.16 {height / 2:.2f}) (end 10.16 {-height / 2:.2f})",
        "        (stroke (width 0.254) (type default) (color 0 0 0 0)) (fill (type background))))",
        f'    (symbol "{name}_1_1"',
    ]
    for index, (number, pin_name, kind) in enumerate(pins):
        left = index < half
        row = index if left else index - half
        y = height / 2 - 2.54 - row * 2.54
        x, angle = (-12.7, 0) if left else (12.7, 180)
        out.append(
            f"      (pin {kind} line (at {x} {y:.2f} {angle}) (length 2.54)"
            f' (name "{pin_name}" (effects (font (size 1.27 1.27))))'
            f' (number "{number}" (effects (font (size 1.27 1.27)))))'
        )
    out.append("    )")
    out.append("  )")
    return "\n".join(out)


def build_library(kicad: Path = KICAD_SYMBOLS) -> str:
    """The library's text: KiCad's symbols taken verbatim, then the modules'."""
    parts = ["(kicad_symbol_lib (version 20211014) (generator tabletop_circuit_symbols)"]
    cache: dict[str, dict[str, str]] = {}
    for library, symbol in KICAD_PARTS:
        if library not in cache:
            cache[library] = top_level_symbols((kicad / f"{library}.kicad_sym").read_text())
        parts.append(cache[library][symbol])
    for name, (prefix, pins) in MODULES.items():
        parts.append(module_symbol(name, prefix, pins))
    parts.append(")")
    return "\n".join(parts) + "\n"


def main() -> int:
    kicad = Path(sys.argv[1]) if len(sys.argv) > 1 else KICAD_SYMBOLS
    if not (kicad / "74xx.kicad_sym").exists():
        print(
            f"symbols: no KiCad symbols in {kicad}; apt-get install kicad-symbols", file=sys.stderr
        )
        return 1
    LIBRARY.write_text(build_library(kicad))
    print(f"wrote {LIBRARY}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
