"""The circuit's own checks: ERC, the parts list in docs/mat.md, the power budget, the seat LEDs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from tabletop.hardware.circuit import design
from tabletop.hardware.circuit.bom import BOM_END, BOM_START, bom_markdown, bom_rows, power_budget
from tabletop.hardware.circuit.erc import run_erc
from tabletop.hardware.circuit.mat import MatCircuit

from .wiring import firmware_board, net_of, pin

ROOT = Path(__file__).resolve().parents[2]


def test_the_erc_finds_no_error_and_no_warning_and_every_waiver_says_why(mat: MatCircuit) -> None:
    result = run_erc(mat)
    assert result.errors == ()
    assert result.warnings == ()
    assert mat.waivers and all(reason.strip() for reason in mat.waivers.values())
    # Every pin marked not connected has its own waiver (none overwritten by another's).
    marked = [p for part in mat.circuit.parts for p in part.pins if p.net is mat.circuit.NC]
    assert len([k for k in mat.waivers if " pin " in k]) == len(marked)


def test_the_erc_reports_a_pin_left_open(mat: MatCircuit) -> None:
    irq = pin(mat.readers["s4.2"], "IRQ")
    was = irq.net
    irq.disconnect()
    try:
        result = run_erc(mat)
    finally:
        was += irq
    assert any("IRQ" in line and mat.readers["s4.2"].ref in line for line in result.warnings)


def test_the_bill_of_materials_in_docs_mat_md_is_the_circuits(mat: MatCircuit) -> None:
    text = (ROOT / "docs" / "mat.md").read_text()
    assert BOM_START in text and BOM_END in text, "docs/mat.md lost its generated BOM markers"
    shown = text.split(BOM_START, 1)[1].split(BOM_END, 1)[0].strip()
    assert shown == bom_markdown(bom_rows(mat)).strip(), (
        "docs/mat.md's bill of materials is not the circuit's: run "
        "`.venv/bin/python -m tabletop.hardware.circuit bom --write`"
    )


def test_the_parts_are_counted_from_the_circuit(mat: MatCircuit) -> None:
    rows = {row.name: row for row in bom_rows(mat)}
    assert rows["RFID reader module"].qty == len(mat.readers) == 37
    assert rows["Tri-state buffer"].qty == 13  # two a seat board, one on the pad board
    assert rows["Shift register"].qty == 7
    assert rows["Ribbon cable and IDC connectors"].qty == 7  # 14 headers, two a cable
    assert rows["Capacitor 10uF"].qty == 37  # one at every reader


def test_every_supply_carries_its_peak_with_the_firmwares_led_level(mat: MatCircuit) -> None:
    budget = {rail.rail: rail for rail in power_budget(mat, firmware_board.LED_LEVEL)}
    assert all(rail.ok for rail in budget.values()), budget
    # 37 idle readers are about 400 mA (docs/mat.md); two active ones (a bus each) add 200.
    assert 400 <= budget["3V3"].idle_ma <= 420 and 600 <= budget["3V3"].peak_ma <= 650
    # Full white would draw over 2 A from the LEDs alone: the firmware's cap is what fits.
    full = {rail.rail: rail for rail in power_budget(mat, 255)}
    assert full["5V"].peak_ma - budget["5V"].peak_ma > 1500


def test_the_seat_leds_stay_inside_the_pis_gpio_current(mat: MatCircuit) -> None:
    data = tomllib.loads(
        (ROOT / "src" / "tabletop" / "hardware" / "circuit" / "parts.toml").read_text()
    )
    per_pin = data["supplies"]["pi_gpio"]["pin_limit"]
    budget = {rail.rail: rail for rail in power_budget(mat, firmware_board.LED_LEVEL)}
    assert budget["pi_gpio"].ok and budget["pi_gpio"].peak_ma / len(mat.seat_leds) < per_pin


def test_the_example_tables_seat_led_pins_are_the_circuits(mat: MatCircuit) -> None:
    for path in (ROOT / "examples" / "table.toml", ROOT / "examples" / "mosquitto" / "table.toml"):
        seats = tomllib.loads(path.read_text())["seats"]
        for number, seat in enumerate(seats, start=1):
            assert tuple(seat["leds"]) == design.SEAT_LED_PINS[number - 1], f"{path} seat {number}"
            for led, bcm in enumerate(seat["leds"], start=1):
                resistor, lamp = mat.seat_leds[(number, led)]
                gpio = [p for p in mat.pi.pins if re.search(rf"\bGPIO{bcm}\b", p.name)]
                assert len(gpio) == 1 and net_of(gpio[0]) is net_of(pin(resistor, 1))
                assert net_of(pin(resistor, 2)) is net_of(pin(lamp, "A"))
                assert net_of(pin(lamp, "K")).name == "PI_GND"


def test_the_kicad_netlist_holds_every_part_with_its_footprint_and_every_net(
    mat: MatCircuit,
) -> None:
    from tabletop.hardware.circuit._skidl import skidl

    netlist = str(mat.circuit.generate_netlist(tool=skidl.KICAD6, do_backup=False))
    refs = re.findall(r'\(comp\s*\(ref "([^"]+)"\)', netlist)
    assert sorted(refs) == sorted(part.ref for part in mat.circuit.parts)
    footprints = re.findall(r'\(footprint "([^"]+)"\)', netlist)
    assert len(footprints) == len(refs) and all(":" in name for name in footprints)
    for name in ("BUS_A_SCK", "CS_s2.4", "TOUCH_pad", "SEAT6_LED3", "RESET_CHAIN_6"):
        assert f'(name "{name}")' in netlist, name
