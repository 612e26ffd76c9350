"""The circuit against the firmware: every pin, every zone's wires, the chains, the touch chips."""

from __future__ import annotations

import copy
from types import ModuleType

import pytest

from tabletop.hardware.circuit.erc import run_erc
from tabletop.hardware.circuit.mat import MatCircuit, build_mat

from . import wiring


def test_every_pin_the_firmware_uses_is_on_the_net_of_its_function_and_back(
    mat: MatCircuit,
) -> None:
    assert wiring.check_pin_map(mat) == []
    # Both directions hold something: 26 GPIOs used, 26 wired.
    used = wiring.firmware_pin_functions()
    wired = [p for p in mat.pico.pins if p.name.startswith("GP") and wiring.net_of(p) is not None]
    assert len(used) == len(wired) == 26


def test_the_zones_are_the_firmwares_in_its_order_and_on_its_buses(mat: MatCircuit) -> None:
    assert wiring.check_zones(mat) == []
    assert len(mat.readers) == 37 and list(mat.readers)[:2] == ["s1.1", "s1.2"]
    assert list(mat.readers)[-1] == "pad"


def test_each_reader_is_selected_buffered_and_sensed_where_the_firmware_looks(
    mat: MatCircuit,
) -> None:
    assert wiring.check_chip_selects(mat) == []


def test_the_reset_chain_reaches_each_reader_at_the_firmwares_position(mat: MatCircuit) -> None:
    assert wiring.check_reset_chain(mat) == []


def test_the_led_chain_runs_in_zone_order(mat: MatCircuit) -> None:
    assert wiring.check_led_chain(mat) == []


def test_each_electrode_is_on_the_touch_input_the_firmware_reads(mat: MatCircuit) -> None:
    assert wiring.check_touch(mat) == []


def test_the_emitter_pin_switches_every_face_sensor(mat: MatCircuit) -> None:
    assert wiring.check_emitters(mat) == []


def _firmware_with(**changes: object) -> ModuleType:
    """The firmware's board module with some pins changed, as a maker's edit would."""
    board = ModuleType("board")
    pins = {
        k: v
        for k, v in vars(wiring.firmware_board).items()
        if k.isupper() and isinstance(v, (int, tuple, dict))
    }
    board.__dict__.update(copy.deepcopy(pins))
    for name, value in changes.items():
        target, _, key = name.partition("__")
        if key:
            board.__dict__[target][key] = value
        else:
            board.__dict__[target] = value
    return board


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (
            {"BUS_A__sck": 3, "BUS_A__mosi": 2},
            "GP3: firmware board.BUS_A['sck'] needs net BUS_A_SCK",
        ),
        (
            {"FACE_EMITTERS": 23},
            "GP23: firmware board.FACE_EMITTERS drives a pin the Pico's header lacks",
        ),
        ({"LED_DATA": 1}, "GP1: the firmware gives it two jobs"),
        (
            {"RESET_LATCH": 22, "FACE_EMITTERS": 28},
            "GP22: firmware board.RESET_LATCH needs net RESET_LATCH",
        ),
        (
            {"BUS_B__address": (13, 18, 20, 19)},
            "GP20: firmware board.BUS_B['address'][2] needs net BUS_B_ADDR2",
        ),
    ],
)
def test_a_pin_moved_in_the_firmware_fails_naming_it(
    mat: MatCircuit, change: dict[str, object], named: str
) -> None:
    problems = wiring.every_check(mat, _firmware_with(**change))
    assert any(named in line for line in problems), problems


def test_the_firmwares_own_pin_map_is_what_the_checks_read() -> None:
    # The stand-in module starts as the firmware's: an unchanged copy passes as the real one.
    assert wiring.firmware_pin_functions(_firmware_with()) == wiring.firmware_pin_functions()


@pytest.mark.parametrize(
    ("part", "pin", "other", "named"),
    [
        (("readers", "s2.3"), "SDA", ("readers", "s2.4", "SDA"), "s2.3: reader"),
        (("readers", "s5.1"), "RST", ("readers", "s5.2", "RST"), "s5.1: reader"),
        (("leds", "s3.6"), "DOUT", None, "LED chain"),
        (("electrodes", "s6.2"), "PAD", ("electrodes", "s6.3", "PAD"), "s6.2: electrode"),
        (("sensors", "s1.4"), "C", ("sensors", "s1.5", "C"), "s1.4: face sensor"),
        (("sensors", "pad"), "K", None, "pad: face sensor"),
    ],
)
def test_a_wire_broken_in_the_circuit_fails_naming_it(
    mat: MatCircuit, part: tuple[str, str], pin: str, other: tuple[str, str, str] | None, named: str
) -> None:
    target = getattr(mat, part[0])[part[1]][pin]
    was = target.net
    target.disconnect()
    try:
        if other is not None:
            joined = getattr(mat, other[0])[other[1]][other[2]].net
            joined += target
        problems = wiring.every_check(mat)
    finally:
        target.disconnect()
        was += target
    assert any(line.startswith(named) for line in problems), problems
    assert wiring.every_check(mat) == []  # the wire put back, all is well again


def test_a_mat_with_split_pads_is_wired_as_the_firmware_reads_it() -> None:
    # All six seats split (board.SPLIT_SEATS = 0x3F): 73 electrodes on seven chips, behind the
    # TCA9548A (docs/mat.md, "Whose hand: split pads").
    split = build_mat(split_seats=0x3F)
    assert wiring.every_check(split) == []
    assert len(split.touch_chips) == 7 and split.touch_switch is not None
    assert len(split.far_electrodes) == 36
    far = split.far_electrodes["s4.2"]["PAD"]
    was = far.net
    far.disconnect()
    try:
        problems = wiring.check_touch(split)
    finally:
        was += far
    assert "s4.2: electrode far half not on chip 0x5D ELE3" in problems, problems
    assert run_erc(split).errors == ()
