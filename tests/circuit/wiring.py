"""The circuit held against the firmware: each check returns what disagrees, one line each.

The firmware's side is its own modules, imported as the simulated mat imports them: the pin
map from `tabletop.firmware.board` (with the stand-ins for `machine` and `neopixel` that its own tests
use, tests/mat/fw/fakes), the zone order from `tabletop.firmware.zones`, the reset chain's positions
from `tabletop.firmware.mfrc522`, the touch wiring from `tabletop.firmware.touch` and `tabletop.firmware.mpr121`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import Any

_FAKES = str(Path(__file__).resolve().parents[1] / "mat" / "fw" / "fakes")
if _FAKES not in sys.path:
    sys.path.append(_FAKES)

from tabletop.firmware import board as firmware_board  # noqa: E402
from tabletop.firmware.mfrc522 import seat_board_positions  # noqa: E402
from tabletop.firmware.mpr121 import ADDRESSES  # noqa: E402
from tabletop.firmware.touch import (  # noqa: E402
    MAX_CHIPS,
    SIDE_FAR,
    SIDE_NEAR,
    split_seat_zones,
    split_zones_per_chip,
)
from tabletop.firmware.zones import Layout  # noqa: E402
from tabletop.hardware.circuit.mat import GATES, SHIFT_OUTPUTS, MatCircuit  # noqa: E402

BUS_NAMES = ("A", "B")


def firmware_pin_functions(board: ModuleType = firmware_board) -> dict[int, dict[str, str]]:
    """Each GPIO the firmware drives or reads: {gpio: {firmware name: the circuit's net}}."""
    uses: dict[int, dict[str, str]] = {}

    def use(gpio: int, name: str, net: str) -> None:
        uses.setdefault(gpio, {})[name] = net

    for bus, pins in zip(BUS_NAMES, (board.BUS_A, board.BUS_B), strict=True):
        label = f"BUS_{bus}"
        for line in ("sck", "mosi", "miso"):
            use(pins[line], f"board.{label}[{line!r}]", f"BUS_{bus}_{line.upper()}")
        for bit, gpio in enumerate(pins["address"]):
            use(gpio, f"board.{label}['address'][{bit}]", f"BUS_{bus}_ADDR{bit}")
        for index, gpio in enumerate(pins["enable"]):
            use(gpio, f"board.{label}['enable'][{index}]", f"BUS_{bus}_EN{index + 1}")
    for index, gpio in enumerate(board.FACE_ADC):
        use(gpio, f"board.FACE_ADC[{index}]", f"BUS_{BUS_NAMES[index]}_SENSE")
    use(board.FACE_EMITTERS, "board.FACE_EMITTERS", "IR_EN")
    use(board.RESET_DATA, "board.RESET_DATA", "SDA_RESET_DATA")
    use(board.RESET_CLOCK, "board.RESET_CLOCK", "SCL_RESET_CLOCK")
    use(board.RESET_LATCH, "board.RESET_LATCH", "RESET_LATCH")
    use(board.TOUCH_SDA, "board.TOUCH_SDA", "SDA_RESET_DATA")
    use(board.TOUCH_SCL, "board.TOUCH_SCL", "SCL_RESET_CLOCK")
    use(board.LED_DATA, "board.LED_DATA", "LED_DATA")
    use(board.MAINTENANCE, "board.MAINTENANCE", "MAINTENANCE")
    return uses


_PINS: dict[int, dict[str, Any]] = {}


def pin(part: Any, key: str | int) -> Any:
    """A part's pin by name or number: SKiDL's `part[key]` matches patterns and is slow."""
    index = _PINS.get(id(part))
    if index is None:
        index = {}
        for each in part.pins:
            index.setdefault(str(each.num), each)
            index.setdefault(str(each.name), each)
        _PINS[id(part)] = index
    return index[str(key)]


def net_of(pin: Any) -> Any:
    """The pin's net, or None when it is open or marked not connected."""
    net = pin.net
    if net is None or net.name == "__NOCONNECT":  # SKiDL's no-connect net
        return None
    return net


def net_name(pin: Any) -> str:
    net = net_of(pin)
    return "nothing" if net is None else str(net.name)


def on_net(pin: Any, net: Any) -> bool:
    return net is not None and net_of(pin) is net


def pico_net(mat: MatCircuit, gpio: int) -> Any:
    """The net on the Pico's GPIO `gpio`, None when the header has no such pin."""
    if f"GP{gpio}" not in {each.name for each in mat.pico.pins}:
        return None
    return net_of(pin(mat.pico, f"GP{gpio}"))


def check_pin_map(mat: MatCircuit, board: ModuleType = firmware_board) -> list[str]:
    """Every pin the firmware uses is on the net of its function, and every Pico GPIO the
    circuit wires is one the firmware uses."""
    problems = []
    uses = firmware_pin_functions(board)
    header = {each.name for each in mat.pico.pins}
    for gpio, names in sorted(uses.items()):
        if f"GP{gpio}" not in header:
            for name in names:
                problems.append(f"GP{gpio}: firmware {name} drives a pin the Pico's header lacks")
            continue
        wired = net_name(pin(mat.pico, f"GP{gpio}"))
        wanted = set(names.values())
        if len(wanted) > 1:
            problems.append(f"GP{gpio}: the firmware gives it two jobs: {', '.join(names)}")
            continue
        if wired not in wanted:
            for name, net in names.items():
                problems.append(
                    f"GP{gpio}: firmware {name} needs net {net}; the circuit has {wired}"
                )
    for each in mat.pico.pins:
        if (
            each.name.startswith("GP")
            and net_of(each) is not None
            and int(each.name[2:]) not in uses
        ):
            problems.append(
                f"{each.name}: wired to {net_name(each)}, which the firmware never uses"
            )
    return problems


def _layout(mat: MatCircuit) -> Any:
    return Layout(mat.seats, mat.slots, mat.pad)


def check_zones(mat: MatCircuit) -> list[str]:
    """The circuit's zones are the firmware's, in its order and on its buses."""
    layout = _layout(mat)
    problems = []
    names = [layout.name(zone) for zone in range(layout.count)]
    for kind, parts in (
        ("reader", mat.readers),
        ("face sensor", mat.sensors),
        ("guidance LED", mat.leds),
        ("touch electrode", mat.electrodes),
    ):
        if list(parts) != names:
            problems.append(f"{kind}s for zones {list(parts)}; the firmware has {names}")
    for bus, (ours, theirs) in enumerate(zip(mat.bus_zones(), layout.split(2), strict=True)):
        if ours != [layout.name(z) for z in theirs]:
            problems.append(f"bus {BUS_NAMES[bus]}: the circuit serves {ours}")
    return problems


def _select_parts(mat: MatCircuit, parts: dict[tuple[str, int], Any], pins: dict[str, Any]) -> Any:
    """The decoders (or muxes) of each bus, found by the enables the firmware drives."""
    found = {}
    for bus, firmware_pins in zip(BUS_NAMES, (pins["A"], pins["B"]), strict=True):
        for index, gpio in enumerate(firmware_pins["enable"]):
            enable = pico_net(mat, gpio)
            for part in parts.values():
                enable_pin = (
                    pin(part, "E0") if "E0" in [p.name for p in part.pins] else pin(part, "~{E}")
                )
                if on_net(enable_pin, enable):
                    found[(bus, index)] = part
    return found


def check_chip_selects(mat: MatCircuit, board: ModuleType = firmware_board) -> list[str]:
    """Each zone's reader is selected by the decoder output the firmware's DecodedSelect picks
    (enable `local >> 4`, address bits `local & 15`), its MISO through a buffer gate enabled by
    that select, its face sensor on the same output of the bus's mux."""
    layout = _layout(mat)
    pins = {"A": board.BUS_A, "B": board.BUS_B}
    decoders = _select_parts(mat, mat.decoders, pins)
    muxes = _select_parts(mat, mat.muxes, pins)
    problems = []
    for bus_index, zones in enumerate(layout.split(2)):
        bus = BUS_NAMES[bus_index]
        bus_pins = pins[bus]
        addresses = [pico_net(mat, gpio) for gpio in bus_pins["address"]]
        for key, part in [(k, d) for k, d in decoders.items() if k[0] == bus]:
            for bit, net in enumerate(addresses):
                if not on_net(pin(part, f"A{bit}"), net):
                    problems.append(
                        f"decoder {key} ({part.ref}): A{bit} on {net_name(pin(part, f'A{bit}'))}"
                    )
        for key, part in [(k, m) for k, m in muxes.items() if k[0] == bus]:
            for bit, net in enumerate(addresses):
                if not on_net(pin(part, f"S{bit}"), net):
                    problems.append(
                        f"mux {key} ({part.ref}): S{bit} on {net_name(pin(part, f'S{bit}'))}"
                    )
        miso = pico_net(mat, bus_pins["miso"])
        sense = pico_net(mat, board.FACE_ADC[bus_index])
        for local, zone in enumerate(zones):
            name = layout.name(zone)
            reader = mat.readers.get(name)
            decoder = decoders.get((bus, local >> 4))
            mux = muxes.get((bus, local >> 4))
            if reader is None or decoder is None or mux is None:
                problems.append(f"{name}: no reader, decoder or mux for bus {bus} output {local}")
                continue
            select = net_of(pin(reader, "SDA"))
            if not on_net(pin(decoder, f"S{local & 15}"), select):
                problems.append(
                    f"{name}: reader {reader.ref} SDA (chip select) is on {net_name(pin(reader, 'SDA'))}, "
                    f"not decoder {decoder.ref} output S{local & 15}"
                )
            for pin_name, line in (("SCK", "sck"), ("MOSI", "mosi")):
                if not on_net(pin(reader, pin_name), pico_net(mat, bus_pins[line])):
                    problems.append(
                        f"{name}: reader {reader.ref} {pin_name} on {net_name(pin(reader, pin_name))}"
                    )
            if not _miso_buffered(mat, reader, select, miso):
                problems.append(
                    f"{name}: reader {reader.ref} MISO does not reach bus {bus} through a gate its select enables"
                )
            sensor = mat.sensors.get(name)
            if sensor is None or not on_net(pin(mux, f"I{local & 15}"), net_of(pin(sensor, "C"))):
                problems.append(f"{name}: face sensor not on mux {mux.ref} input I{local & 15}")
            if not on_net(pin(mux, "COM"), sense):
                problems.append(f"{name}: mux {mux.ref} COM is not on the firmware's ADC pin")
    return problems


def _miso_buffered(mat: MatCircuit, reader: Any, select: Any, miso: Any) -> bool:
    own = net_of(pin(reader, "MISO"))
    for buffer in mat.miso_buffers:
        for oe, a, y in GATES:
            if (
                on_net(pin(buffer, a), own)
                and on_net(pin(buffer, oe), select)
                and on_net(pin(buffer, y), miso)
            ):
                return True
    return False


def check_reset_chain(mat: MatCircuit, board: ModuleType = firmware_board) -> list[str]:
    """The 74HC595 chain, followed from the firmware's data pin, puts each reader's reset on
    the output `seat_board_positions` gives it, clocked and latched by the firmware's pins."""
    layout = _layout(mat)
    positions, length = seat_board_positions(layout)
    problems = []
    chain = []
    net = pico_net(mat, board.RESET_DATA)
    while net is not None:
        following = [r for r in mat.shift_registers if on_net(pin(r, "SER"), net)]
        if not following:
            break
        register = following[0]
        chain.append(register)
        net = net_of(pin(register, 9))  # QH', the serial output
    if len(chain) * 8 != length:
        problems.append(
            f"reset chain: {len(chain)} registers from GP{board.RESET_DATA}; the firmware shifts {length} bits"
        )
    for register in chain:
        if not on_net(pin(register, "SRCLK"), pico_net(mat, board.RESET_CLOCK)):
            problems.append(
                f"reset chain: {register.ref} SRCLK on {net_name(pin(register, 'SRCLK'))}"
            )
        if not on_net(pin(register, "RCLK"), pico_net(mat, board.RESET_LATCH)):
            problems.append(
                f"reset chain: {register.ref} RCLK on {net_name(pin(register, 'RCLK'))}"
            )
    for zone, position in enumerate(positions):
        name = layout.name(zone)
        if position // 8 >= len(chain):
            problems.append(f"{name}: reset position {position} is past the chain")
            continue
        register = chain[position // 8]
        output = SHIFT_OUTPUTS[position % 8]
        if not on_net(pin(register, output), net_of(pin(mat.readers[name], "RST"))):
            problems.append(
                f"{name}: reader {mat.readers[name].ref} RST is not on {register.ref} {output}"
            )
    return problems


def check_led_chain(mat: MatCircuit, board: ModuleType = firmware_board) -> list[str]:
    """The WS2812B chain, followed from the firmware's LED pin through the level shifter, has
    one LED per zone in zone order (the firmware writes `strip[zone]`)."""
    layout = _layout(mat)
    shifter = mat.level_shifter
    start = None
    for oe, a, y in GATES:
        if on_net(pin(shifter, a), pico_net(mat, board.LED_DATA)):
            start = net_of(pin(shifter, y)) if net_name(pin(shifter, oe)) == "GND" else None
    order = []
    net = start
    while net is not None:
        following = [(z, led) for z, led in mat.leds.items() if on_net(pin(led, "DIN"), net)]
        if not following:
            break
        zone, led = following[0]
        order.append(zone)
        net = net_of(pin(led, "DOUT"))
    names = [layout.name(zone) for zone in range(layout.count)]
    if order != names:
        return [f"LED chain from GP{board.LED_DATA}: {order}; the firmware lights {names}"]
    return []


def check_touch(mat: MatCircuit, board: ModuleType = firmware_board) -> list[str]:
    """Each zone's electrode (each half of a split pad) is on the MPR121 input the firmware
    reads it from (`split_zones_per_chip`): chip c at ADDRESSES[c % 4], set by its ADDR pin,
    on the shared I2C or, past four chips, on channel c // 4 of the TCA9548A at 0x70."""
    layout = _layout(mat)
    split = split_seat_zones(layout.seats, layout.slots, _split_seats(mat))
    wiring = split_zones_per_chip(layout.count, split)
    sda, scl = pico_net(mat, board.TOUCH_SDA), pico_net(mat, board.TOUCH_SCL)
    problems = []
    buses = [(sda, scl)]
    if len(wiring) > MAX_CHIPS:
        switch = mat.touch_switch
        if switch is None:
            return [f"touch: {len(wiring)} chips need the TCA9548A; the circuit has none"]
        if not (on_net(pin(switch, "SDA"), sda) and on_net(pin(switch, "SCL"), scl)):
            problems.append(f"touch switch {switch.ref}: not on the firmware's I2C pins")
        if any(net_name(pin(switch, a)) != "GND" for a in ("A0", "A1", "A2")):
            problems.append(f"touch switch {switch.ref}: A0-A2 not low, so not at 0x70")
        buses = [(net_of(pin(switch, f"SD{c}")), net_of(pin(switch, f"SC{c}"))) for c in range(2)]
    found = {}
    for chip in mat.touch_chips:
        tie = net_of(pin(chip, "ADDR"))
        for channel, (bus_sda, bus_scl) in enumerate(buses):
            if not (on_net(pin(chip, "SDA"), bus_sda) and on_net(pin(chip, "SCL"), bus_scl)):
                continue
            ties = {"GND": 0x5A, "+3V3": 0x5B}
            address = ties.get(tie.name) if tie is not None else None
            if tie is not None and tie is bus_sda:
                address = 0x5C
            if tie is not None and tie is bus_scl:
                address = 0x5D
            found[(channel, address)] = chip
    for index, electrodes in enumerate(wiring):
        channel = index // MAX_CHIPS if len(wiring) > MAX_CHIPS else 0
        address = ADDRESSES[index % MAX_CHIPS]
        chip = found.get((channel, address))
        if chip is None:
            problems.append(f"touch: no chip at 0x{address:02X} on channel {channel}")
            continue
        for electrode, entry in enumerate(electrodes):
            zone, side = entry if isinstance(entry, tuple) else (entry, None)
            name = layout.name(zone)
            pad = (mat.far_electrodes if side == SIDE_FAR else mat.electrodes).get(name)
            half = {None: "", SIDE_NEAR: " near half", SIDE_FAR: " far half"}[side]
            if pad is None or not on_net(pin(chip, f"ELE{electrode}"), net_of(pin(pad, "PAD"))):
                problems.append(
                    f"{name}: electrode{half} not on chip 0x{address:02X} ELE{electrode}"
                )
    return problems


def _split_seats(mat: MatCircuit) -> int:
    return sum(
        1 << (seat - 1) for seat in range(1, mat.seats + 1) if f"s{seat}.1" in mat.split_zones
    )


def check_emitters(mat: MatCircuit, board: ModuleType = firmware_board) -> list[str]:
    """The firmware's emitter pin switches every face sensor's IR LED through the MOSFET."""
    fet = mat.emitter_switch
    problems = []
    if not on_net(pin(fet, "G"), pico_net(mat, board.FACE_EMITTERS)):
        problems.append(f"IR emitters: MOSFET {fet.ref} gate on {net_name(pin(fet, 'G'))}")
    for name, sensor in mat.sensors.items():
        if not on_net(pin(sensor, "K"), net_of(pin(fet, "D"))):
            problems.append(f"{name}: face sensor {sensor.ref} cathode not switched by {fet.ref}")
    return problems


def every_check(mat: MatCircuit, board: ModuleType = firmware_board) -> list[str]:
    return (
        check_pin_map(mat, board)
        + check_zones(mat)
        + check_chip_selects(mat, board)
        + check_reset_chain(mat, board)
        + check_led_chain(mat, board)
        + check_touch(mat, board)
        + check_emitters(mat, board)
    )
