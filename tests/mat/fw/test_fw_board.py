"""The device-only modules (board, mfrc522) wired to stand-ins for `machine` and `neopixel`.

The stand-ins (tests/mat/fw/fakes) sit below the lowest layer we own: pins that remember their
levels and SPI buses that find the selected reader from the decoder pins, as the 74HC154s do.
"""

import sys

_FAKES = __file__.replace("\\", "/").rsplit("/", 1)[0] + "/fakes"
if _FAKES not in sys.path:
    sys.path.append(_FAKES)

import machine  # noqa: E402  (the stand-in, found through the path above)

from tabletop.firmware import board  # noqa: E402
from tabletop.firmware.mfrc522 import SOFT_RESET, T_RELOAD_L, TX_CONTROL  # noqa: E402
from tabletop.firmware.zones import Layout  # noqa: E402


def _build():
    layout = Layout(6, 6, True)
    zones = layout.split(2)
    buses, sensors, leds = board.build(layout, zones)
    for bus, pins in zip(buses, (board.BUS_A, board.BUS_B)):
        bus.spi.wire(pins["address"], pins["enable"])
    return layout, zones, buses, sensors, leds


def test_every_reader_is_set_up_through_its_own_chip_select():
    layout, zones, buses, _, _ = _build()
    for bus, bus_zones in zip(buses, zones):
        for zone in bus_zones:
            bus.init(zone)
    for bus, bus_zones in zip(buses, zones):
        resets = [local for local, reg, value in bus.spi.log if reg == 1 and value == SOFT_RESET]
        assert resets == list(range(len(bus_zones)))
        for local in range(len(bus_zones)):
            registers = bus.spi.registers[local]
            assert registers[T_RELOAD_L] == 40  # a 1 ms timeout, not the library's 25 ms
            assert registers[TX_CONTROL] & 0x03 == 0  # antenna off when idle
    assert len(zones[1]) == 19 and zones[1][-1] == layout.index("pad")


def test_an_empty_slot_times_out_and_its_antenna_goes_off_again():
    _, zones, buses, _, _ = _build()
    bus = buses[1]
    zone = zones[1][17]  # the second decoder's second output
    bus.init(zone)
    assert bus.wake(zone) is False
    on = [v for local, reg, v in bus.spi.log if local == 17 and reg == TX_CONTROL]
    assert on[-1] & 0x03 == 0x03
    bus.idle(zone)
    assert bus.spi.registers[17][TX_CONTROL] & 0x03 == 0
    # No other reader was ever addressed.
    assert {local for local, _, _ in bus.spi.log} == {17}


def test_face_sensors_read_lit_minus_dark_through_the_zones_mux():
    _, zones, _buses, sensors, _ = _build()
    assert sensors.level(zones[0][3]) == 40000
    assert machine.PINS[board.FACE_EMITTERS].level == 0  # emitters off between reads
    enables = board.BUS_A["enable"]
    assert all(machine.PINS[n].level == 1 for n in enables)  # nothing left selected


def test_leds_are_dimmed_to_the_board_limit():
    _, _, _, _, leds = _build()
    leds.set(2, 255, 0, 128, 0)
    leds.show()
    assert leds.strip.pixels[2] == (board.LED_LEVEL, 0, board.LED_LEVEL * 128 // 255)
    assert leds.strip.writes == 1


def test_the_reset_chain_lends_its_lines_to_the_touch_chips_without_a_start_condition():
    _layout, zones, buses, _, _ = _build()
    assert machine.I2C_BUSES and machine.I2C_BUSES[-1].pins == (16, 17)
    del machine.TRACE[:]
    buses[1].resets.pulse(zones[1][0])
    sda, scl = 1, 1
    for number, level in machine.TRACE:
        if number == board.TOUCH_SDA:
            # SDA falling while SCL is high would be an I2C START for the touch chips.
            assert not (sda == 1 and level == 0 and scl == 1), "a START in the reset shifting"
            sda = level
        elif number == board.TOUCH_SCL:
            scl = level
    assert (sda, scl) == (1, 1)  # given back to the I2C, both lines released
    assert machine.I2C_BUSES[-1].pins == (16, 17)


def test_touch_chips_that_do_not_answer_are_logged_not_fatal():
    layout = Layout(6, 6, True)
    board.build(layout, layout.split(2))
    logs = []
    pads = board.build_touch(layout, lambda level, text: logs.append(text))
    assert pads.count == 37 and [c.address for c in pads.chips] == [0x5A, 0x5B, 0x5C, 0x5D]
    pads.start(0)
    pads.poll(5)
    assert len(logs) == 4 and "0x5d" in logs[-1]
    assert pads.take_events() == []


def test_a_mat_built_with_split_pads_reads_its_chips_through_the_switch():
    layout = Layout(6, 6, True)
    board.build(layout, layout.split(2))
    logs = []
    pads = board.build_touch(layout, lambda level, text: logs.append(text), 0x3F)
    assert pads.count == 37 and len(pads.electrodes) == 73 and len(pads.chips) == 7
    assert [c.i2c.channel for c in pads.chips] == [0, 0, 0, 0, 1, 1, 1]
    assert all(c.i2c.i2c is board.SHARED for c in pads.chips)
    pads.start(0)
    assert len(logs) == 7 and "0x5c" in logs[-1]  # no switch answers on the stand-in bus
    whole = board.build_touch(layout, None)  # board.SPLIT_SEATS: whole pads, no switch
    assert board.SPLIT_SEATS == 0 and [c.i2c for c in whole.chips] == [board.SHARED] * 4
