"""The whole mat as a SKiDL circuit: controller board, seat boards, pad board, touch, seat LEDs.

One circuit holds every board; each part carries a `board` field (`controller`, `seat 1` ...
`seat 6`, `pad`, `pi`), and a ribbon is its two headers' same-numbered pins on one net (the
cable is a wire). What goes where is `design.py`'s; the zone order is the firmware's numbering
(seat by seat, slot by slot, pad last), which the tests check against the firmware itself.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

from ._skidl import skidl
from .design import (
    FOOTPRINTS,
    PICO_NETS,
    SEAT_LED_PINS,
    SEAT_LED_RESISTOR,
    SEAT_RIBBON,
    TOUCH_ADDRESS_NETS,
    TOUCH_RIBBON,
    TOUCH_RIBBON_SPLIT,
)
from .symbols import LIBRARY

BUSES = ("A", "B")
ELECTRODES_PER_CHIP = 12
TOUCH_ADDRESSES = (0x5A, 0x5B, 0x5C, 0x5D)
# The 74HC125's four gates: (~OE, A, Y) pin numbers.
GATES = ((1, 2, 3), (4, 5, 6), (10, 9, 8), (13, 12, 11))
SHIFT_OUTPUTS = ("QA", "QB", "QC", "QD", "QE", "QF", "QG", "QH")


def zone_name(zone: int, seats: int, slots: int, pad: bool) -> str:
    """The firmware's name of zone number `zone`: s<seat>.<slot>, or pad (last)."""
    if pad and zone == seats * slots:
        return "pad"
    return f"s{zone // slots + 1}.{zone % slots + 1}"


@dataclass
class MatCircuit:
    """The built circuit and its parts by what they do, for the checks, the BOM and the docs."""

    circuit: Any
    seats: int
    slots: int
    pad: bool
    pico: Any = None
    pi: Any = None
    readers: dict[str, Any] = field(default_factory=dict)
    sensors: dict[str, Any] = field(default_factory=dict)
    leds: dict[str, Any] = field(default_factory=dict)
    electrodes: dict[str, Any] = field(default_factory=dict)
    decoders: dict[tuple[str, int], Any] = field(default_factory=dict)
    muxes: dict[tuple[str, int], Any] = field(default_factory=dict)
    miso_buffers: list[Any] = field(default_factory=list)
    shift_registers: list[Any] = field(default_factory=list)
    touch_chips: list[Any] = field(default_factory=list)
    level_shifter: Any = None
    emitter_switch: Any = None
    seat_leds: dict[tuple[int, int], tuple[Any, Any]] = field(default_factory=dict)
    # Split pads (docs/mat.md, "Whose hand"): the zones with two electrodes, the far halves'
    # electrodes (`electrodes` holds the whole pads and the near halves), the I2C switch.
    split_zones: frozenset[str] = frozenset()
    far_electrodes: dict[str, Any] = field(default_factory=dict)
    touch_switch: Any = None
    waivers: dict[str, str] = field(default_factory=dict)

    @property
    def zones(self) -> list[str]:
        count = self.seats * self.slots + (1 if self.pad else 0)
        return [zone_name(z, self.seats, self.slots, self.pad) for z in range(count)]

    def bus_zones(self) -> list[list[str]]:
        """The zones of bus A and bus B: bus A the first half of the seats (rounded up)."""
        first = (self.seats + 1) // 2 * self.slots
        return [self.zones[:first], self.zones[first:]]


_LIBRARY: list[Any] = []


def symbol_library() -> Any:
    """The circuit's symbol library, read once per process."""
    if not _LIBRARY:
        # SKiDL reads the file without closing it; the warning is about its code, not ours.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            _LIBRARY.append(skidl.SchLib(str(LIBRARY), tool=skidl.KICAD6))
    return _LIBRARY[0]


class _Builder:
    """Places parts and nets in one SKiDL circuit; `MatCircuit` is what it leaves."""

    def __init__(self, seats: int, slots: int, pad: bool, split_seats: int = 0) -> None:
        self.circuit = skidl.Circuit()
        self.circuit.no_files = True
        split = frozenset(
            f"s{seat}.{slot}"
            for seat in range(1, seats + 1)
            if split_seats & (1 << (seat - 1))
            for slot in range(1, slots + 1)
        )
        self.mat = MatCircuit(self.circuit, seats, slots, pad, split_zones=split)
        self.nets: dict[str, Any] = {}
        self.templates: dict[str, Any] = {}
        self.counts: dict[str, int] = {}
        self.library = symbol_library()

    # -- helpers

    def net(self, name: str) -> Any:
        """The net named `name`, made on first use."""
        if name not in self.nets:
            self.nets[name] = skidl.Net(name, circuit=self.circuit)
        return self.nets[name]

    def part(self, symbol: str, footprint: str, board: str, value: str = "", **fields: str) -> Any:
        if symbol not in self.templates:
            self.templates[symbol] = skidl.Part(self.library, symbol, dest=skidl.TEMPLATE)
        made = self.templates[symbol](circuit=self.circuit, footprint=FOOTPRINTS[footprint])
        if value:
            made.value = value
        made.fields["board"] = board
        # A stable tag per part (board and place in it) keeps a KiCad PCB's footprints tied
        # to their symbols when the netlist is read again after a change.
        self.counts[board] = self.counts.get(board, 0) + 1
        made.tag = f"{board.replace(' ', '_')}/{symbol}/{self.counts[board]}"
        for key, text in fields.items():
            made.fields[key] = text
        return made

    def no_connect(self, pin: Any, reason: str) -> None:
        """Marks a pin not connected on purpose: the ERC waiver, with its reason kept."""
        pin += self.circuit.NC
        label = f" ({pin.name})" if pin.name and pin.name != "~" else ""
        self.mat.waivers[f"{pin.part.ref} pin {pin.num}{label}"] = reason

    def decouple(self, board: str, rail: str, value: str = "100nF", bom: str = "c100n") -> None:
        cap = self.part("C", "capacitor", board, value, bom=bom)
        self.net(rail).connect(cap[1])
        self.net("GND").connect(cap[2])

    def resistor(self, board: str, value: str, a: Any, b: Any, bom: str) -> Any:
        r = self.part("R", "resistor", board, value, bom=bom)
        a += r[1]
        b += r[2]
        return r

    # -- the boards

    def build(self) -> MatCircuit:
        self.power()
        self.controller()
        for seat in range(1, self.mat.seats + 1):
            self.zone_board(f"seat {seat}", seat, self.mat.slots)
        if self.mat.pad:
            self.zone_board("pad", 0, 1)
        self.chains()
        self.touch()
        self.pi_seat_leds()
        return self.mat

    def power(self) -> None:
        psu = self.part("PSU_5V", "psu", "controller", "GST25E05-P1J", bom="psu")
        self.net("+5V").connect(psu["+5V"])
        self.net("GND").connect(psu["GND"])
        buck = self.part("Buck_D24V10F3", "buck", "controller", "D24V10F3", bom="buck")
        self.net("+5V").connect(buck["VIN"])
        self.net("GND").connect(buck["GND"])
        self.net("+3V3").connect(buck["VOUT"])
        self.no_connect(buck["SHDN"], "the module pulls SHDN up itself: always on")

    def controller(self) -> None:
        pico = self.part("RaspberryPi_Pico", "pico", "controller", "Raspberry Pi Pico", bom="pico")
        self.mat.pico = pico
        for pin in pico.pins:
            if pin.name in PICO_NETS:
                self.net(PICO_NETS[pin.name]).connect(pin)
            elif pin.name == "GND":
                self.net("GND").connect(pin)
        for name, reason in (
            ("VBUS", "the Pico runs from the Pi's USB; its VBUS feeds nothing here"),
            ("VSYS", "powered through VBUS from USB, so unplugging restarts it (docs/mat.md)"),
            ("3V3", "the Pico's own regulator; the mat's 3.3 V comes from the buck"),
            ("3V3_EN", "left to the Pico's pull-up: its regulator stays on"),
            ("RUN", "left to the Pico's pull-up: no reset button"),
            ("ADC_VREF", "the ADC uses the Pico's filtered 3.3 V reference"),
        ):
            self.no_connect(pico[name], reason)
        jumper = self.part("Jumper_2_Open", "jumper", "controller", "maintenance", bom="jumper")
        self.net("MAINTENANCE").connect(jumper[1])
        self.net("GND").connect(jumper[2])

        # Per bus: two 74HC154 decoders for the chip selects and two 74HC4067 muxes for the
        # face sensors on the same address lines and enables.
        for bus in BUSES:
            for index in range(2):
                enable = self.net(f"BUS_{bus}_EN{index + 1}")
                decoder = self.part("74LS154", "dip24_wide", "controller", "74HC154", bom="hc154")
                for bit in range(4):
                    self.net(f"BUS_{bus}_ADDR{bit}").connect(decoder[f"A{bit}"])
                enable += decoder["E0"]
                self.net("GND").connect(decoder["E1"])
                self.net("+3V3").connect(decoder["VCC"])
                self.net("GND").connect(decoder["GND"])
                self.decouple("controller", "+3V3")
                self.mat.decoders[(bus, index)] = decoder
                mux = self.part("CD74HC4067M", "dip24_wide", "controller", "74HC4067", bom="hc4067")
                for bit in range(4):
                    self.net(f"BUS_{bus}_ADDR{bit}").connect(mux[f"S{bit}"])
                enable += mux["~{E}"]
                self.net(f"BUS_{bus}_SENSE").connect(mux["COM"])
                self.net("+3V3").connect(mux["VCC"])
                self.net("GND").connect(mux["GND"])
                self.decouple("controller", "+3V3")
                self.mat.muxes[(bus, index)] = mux

        # The WS2812B data, from 3.3 V to 5 V logic through one 74AHCT125 gate.
        shifter = self.part("74LS125", "dip14", "controller", "74AHCT125", bom="ahct125")
        self.mat.level_shifter = shifter
        oe, a, y = GATES[0]
        self.net("GND").connect(shifter[oe])
        self.net("LED_DATA").connect(shifter[a])
        self.net("LED_CHAIN_0").connect(shifter[y])
        for oe, a, y in GATES[1:]:
            self.net("+5V").connect(shifter[oe])  # unused gates: disabled, input held low
            self.net("GND").connect(shifter[a])
            self.no_connect(shifter[y], "an unused gate, disabled by its ~OE")
        self.net("+5V").connect(shifter["VCC"])
        self.net("GND").connect(shifter["GND"])
        self.decouple("controller", "+5V")

        # The IR emitters' low side, switched by one MOSFET; 100 k keeps it off at boot.
        fet = self.part("AO3400A", "sot23", "controller", "AO3400A", bom="mosfet")
        self.mat.emitter_switch = fet
        self.net("IR_EN").connect(fet["G"])
        self.net("IR_K").connect(fet["D"])
        self.net("GND").connect(fet["S"])
        self.resistor("controller", "100k", self.net("IR_EN"), self.net("GND"), "r")

        # I2C pull-ups for the touch chips (the modules' own are removed, docs/mat.md).
        self.resistor("controller", "4.7k", self.net("SDA_RESET_DATA"), self.net("+3V3"), "r")
        self.resistor("controller", "4.7k", self.net("SCL_RESET_CLOCK"), self.net("+3V3"), "r")

    def zone_board(self, board: str, seat: int, slots: int) -> None:
        """A seat board (six slots) or the pad board (one): readers, their MISO buffers, face
        sensors, guidance LEDs, the reset register, and the ribbon to the controller."""
        mat = self.mat
        zones = [f"s{seat}.{slot}" for slot in range(1, slots + 1)] if seat else ["pad"]
        bus_of = {z: BUSES[i] for i, zs in enumerate(mat.bus_zones()) for z in zs}
        bus = bus_of[zones[0]]
        local_of = {z: i for zs in mat.bus_zones() for i, z in enumerate(zs)}
        tag = zones[0].split(".")[0].upper()  # S1 ... S6, PAD: a board's local nets
        controller_header = self.part(
            "Conn_02x13_Odd_Even", "ribbon26", "controller", "26-way", bom="ribbon26", cable=board
        )
        board_header = self.part(
            "Conn_02x13_Odd_Even", "ribbon26", board, "26-way", bom="ribbon26", cable=board
        )
        # Each ribbon lead is one net from the controller's part to the board's part: the bus
        # lines, rails and chain links by their own names, the rest by zone or by board.
        chain = len(mat.shift_registers)  # this board's place in the reset and LED chains
        shared = {
            "3V3": "+3V3",
            "5V": "+5V",
            "GND": "GND",
            "SCK": f"BUS_{bus}_SCK",
            "MOSI": f"BUS_{bus}_MOSI",
            "MISO": f"BUS_{bus}_MISO",
            "IR_K": "IR_K",
            "RST_CLK": "SCL_RESET_CLOCK",
            "RST_LATCH": "RESET_LATCH",
            "RST_IN": "SDA_RESET_DATA" if chain == 0 else f"RESET_CHAIN_{chain}",
            "RST_OUT": f"RESET_CHAIN_{chain + 1}",
            "LED_IN": f"LED_CHAIN_{chain}",
            "LED_OUT": f"LED_CHAIN_{chain + 1}",
        }
        for slot in range(6):
            name = zones[slot] if slot < len(zones) else f"{tag}_{slot + 1}"
            shared[f"CS{slot + 1}"] = f"CS_{name}"
            shared[f"SENSE{slot + 1}"] = f"SENSE_{name}"
        cable: dict[str, Any] = {}
        for number, signal in enumerate(SEAT_RIBBON, start=1):
            wire = self.net(shared[signal])
            wire += controller_header[number]
            wire += board_header[number]
            cable[signal] = wire
        register = self.part("74HC595", "dip16", board, "74HC595", bom="hc595")
        mat.shift_registers.append(register)
        register["SER"] += cable["RST_IN"]
        register[9] += cable["RST_OUT"]  # QH' (SKiDL cannot name it: the quote)
        register["SRCLK"] += cable["RST_CLK"]
        register["RCLK"] += cable["RST_LATCH"]
        self.net("GND").connect(register["~{OE}"])
        self.net("+3V3").connect(register["~{SRCLR}"])
        self.net("+3V3").connect(register["VCC"])
        self.net("GND").connect(register["GND"])
        self.decouple(board, "+3V3")
        buffers = []
        for _ in range((len(zones) + 3) // 4):
            buffer = self.part("74LS125", "dip14", board, "74HC125", bom="hc125")
            self.net("+3V3").connect(buffer["VCC"])
            self.net("GND").connect(buffer["GND"])
            self.decouple(board, "+3V3")
            buffers.append(buffer)
            mat.miso_buffers.append(buffer)
        led_in = cable["LED_IN"]
        for slot, zone in enumerate(zones):
            reader = self.part("RC522_Module", "rc522", board, "RC522", bom="rc522", zone=zone)
            mat.readers[zone] = reader
            cs = cable[f"CS{slot + 1}"]
            cs += reader["SDA"]
            cable["SCK"] += reader["SCK"]
            cable["MOSI"] += reader["MOSI"]
            self.net("+3V3").connect(reader["3V3"])
            self.net("GND").connect(reader["GND"])
            self.no_connect(reader["IRQ"], "the firmware polls; the IRQ line is not used")
            self.decouple(board, "+3V3", "10uF", "c10u")
            oe, a, y = GATES[slot % 4]
            buffer = buffers[slot // 4]
            cs += buffer[oe]  # the gate drives MISO only while its reader is selected
            self.net(f"MISO_{zone}").connect(reader["MISO"])
            self.net(f"MISO_{zone}").connect(buffer[a])
            cable["MISO"] += buffer[y]
            self.net(f"RST_{zone}").connect(reader["RST"])
            self.net(f"RST_{zone}").connect(register[SHIFT_OUTPUTS[slot]])
            # The face sensor: emitter from 5 V through 180 ohm, switched low by the MOSFET;
            # the phototransistor pulls its sense line (10 k to 3.3 V) down in light.
            sensor = self.part("TCRT5000", "tcrt5000", board, "TCRT5000", bom="tcrt5000", zone=zone)
            mat.sensors[zone] = sensor
            self.resistor(board, "180", self.net("+5V"), self.net(f"IR_A_{zone}"), "r")
            self.net(f"IR_A_{zone}").connect(sensor["A"])
            cable["IR_K"] += sensor["K"]
            sense = cable[f"SENSE{slot + 1}"]
            sense += sensor["C"]
            self.net("GND").connect(sensor["E"])
            self.resistor(board, "10k", sense, self.net("+3V3"), "r")
            # The guidance LED, next in the chain.
            led = self.part("WS2812B", "ws2812b", board, "WS2812B", bom="ws2812b", zone=zone)
            mat.leds[zone] = led
            led_in += led["DIN"]
            out = cable["LED_OUT"] if slot == len(zones) - 1 else self.net(f"LED_{zone}_OUT")
            out += led["DOUT"]
            led_in = out
            self.net("+5V").connect(led["VDD"])
            self.net("GND").connect(led["VSS"])
            self.decouple(board, "+5V")
        for slot in range(len(zones), len(buffers) * 4):
            oe, a, y = GATES[slot % 4]
            self.net("+3V3").connect(buffers[slot // 4][oe])
            self.net("GND").connect(buffers[slot // 4][a])
            self.no_connect(buffers[slot // 4][y], "a spare gate, disabled by its ~OE")
        for slot in range(len(zones), 8):
            self.no_connect(register[SHIFT_OUTPUTS[slot]], "a spare reset output")
        for slot in range(len(zones), 6):
            for signal in (f"CS{slot + 1}", f"SENSE{slot + 1}"):
                cable[signal].do_erc = False
                self.mat.waivers[cable[signal].name] = "a lead the pad board does not use"
        # The controller's ends of the chip selects and sense lines: decoder and mux outputs.
        for slot, zone in enumerate(zones):
            local = local_of[zone]
            decoder = mat.decoders[(bus, local >> 4)]
            cable[f"CS{slot + 1}"] += decoder[f"S{local & 15}"]
            mux = mat.muxes[(bus, local >> 4)]
            cable[f"SENSE{slot + 1}"] += mux[f"I{local & 15}"]

    def chains(self) -> None:
        """The ends of the reset and LED chains, and the decoder and mux outputs with no zone."""
        mat = self.mat
        last = f"RESET_CHAIN_{len(mat.shift_registers)}"
        self.nets[last].do_erc = False
        mat.waivers[last] = "the end of the reset chain: nothing after the last board"
        last = f"LED_CHAIN_{len(mat.shift_registers)}"
        self.nets[last].do_erc = False
        mat.waivers[last] = "the end of the LED chain: nothing after the last LED"
        used = {
            (b, i >> 4, i & 15)
            for b, zs in zip(BUSES, mat.bus_zones(), strict=True)
            for i in range(len(zs))
        }
        for (bus, index), decoder in mat.decoders.items():
            for output in range(16):
                if (bus, index, output) not in used:
                    self.no_connect(decoder[f"S{output}"], "no reader on this decoder output")
                    self.no_connect(mat.muxes[(bus, index)][f"I{output}"], "no face sensor here")

    def touch(self) -> None:
        """The MPR121 modules on the controller board, 12 electrodes each in zone order (a
        split pad takes two, its near half first); more than four chips sit behind a TCA9548A
        switch (chips 0-3 on its channel 0, 4-7 on channel 1). Each board's electrodes come on
        a ribbon of their own: 14-way for whole pads, 26-way for a split seat's."""
        mat = self.mat
        leads: list[str] = []  # the electrode nets in the chips' order
        for zone in mat.zones:
            if zone in mat.split_zones:
                leads += [f"TOUCH_{zone}_NEAR", f"TOUCH_{zone}_FAR"]
            else:
                leads.append(f"TOUCH_{zone}")
        chips = [
            leads[start : start + ELECTRODES_PER_CHIP]
            for start in range(0, len(leads), ELECTRODES_PER_CHIP)
        ]
        buses = [("SDA_RESET_DATA", "SCL_RESET_CLOCK")]
        if len(chips) > len(TOUCH_ADDRESSES):
            buses = self.touch_switch()
        for index, electrodes in enumerate(chips):
            address = TOUCH_ADDRESSES[index % len(TOUCH_ADDRESSES)]
            sda, scl = buses[index // len(TOUCH_ADDRESSES)]
            module = self.part(
                "MPR121_Module",
                "mpr121",
                "controller",
                "MPR121",
                bom="mpr121",
                address=hex(address),
            )
            mat.touch_chips.append(module)
            self.net("+3V3").connect(module["VIN"])
            self.net("GND").connect(module["GND"])
            self.net(sda).connect(module["SDA"])
            self.net(scl).connect(module["SCL"])
            tie = {"SDA_RESET_DATA": sda, "SCL_RESET_CLOCK": scl}
            self.net(tie.get(TOUCH_ADDRESS_NETS[address], TOUCH_ADDRESS_NETS[address])).connect(
                module["ADDR"]
            )
            self.no_connect(module["3VO"], "the module's regulator output, not needed")
            self.no_connect(module["IRQ"], "the firmware polls the touch status")
            for electrode in range(ELECTRODES_PER_CHIP):
                pin = module[f"ELE{electrode}"]
                if electrode < len(electrodes):
                    self.net(electrodes[electrode]).connect(pin)
                else:
                    self.no_connect(pin, "no zone on this electrode input")
        boards = [
            (f"seat {s}", [f"s{s}.{t}" for t in range(1, mat.slots + 1)])
            for s in range(1, mat.seats + 1)
        ]
        if mat.pad:
            boards.append(("pad", ["pad"]))
        for board, board_zones in boards:
            split = any(zone in mat.split_zones for zone in board_zones)
            wires = [
                lead
                for zone in board_zones
                for lead in (
                    [f"TOUCH_{zone}_NEAR", f"TOUCH_{zone}_FAR"] if split else [f"TOUCH_{zone}"]
                )
            ]
            ribbon = TOUCH_RIBBON_SPLIT if split else TOUCH_RIBBON
            symbol, kind, value = (
                ("Conn_02x13_Odd_Even", "ribbon26", "26-way")
                if split
                else ("Conn_02x07_Odd_Even", "ribbon14", "14-way")
            )
            ends = [
                self.part(symbol, kind, where, value, bom=kind, cable=f"{board} touch")
                for where in ("controller", board)
            ]
            for number, signal in enumerate(ribbon, start=1):
                lead = int(signal[1:]) if signal[1:].isdigit() else 0
                if signal == "GND":
                    wire = self.net("GND")
                elif 1 <= lead <= len(wires):
                    wire = self.net(wires[lead - 1])
                else:
                    for end in ends:
                        self.no_connect(end[number], "a spare lead of the touch ribbon")
                    continue
                for end in ends:
                    wire += end[number]
            for zone in board_zones:
                halves = ("NEAR", "FAR") if zone in mat.split_zones else ("",)
                for half in halves:
                    pad = self.part(
                        "Touch_Electrode",
                        "electrode",
                        board,
                        f"electrode {half.lower()}".strip(),
                        bom="electrode" if half != "FAR" else "electrode_half",
                        zone=zone,
                    )
                    if half == "FAR":
                        mat.far_electrodes[zone] = pad
                    else:
                        mat.electrodes[zone] = pad
                    self.net(f"TOUCH_{zone}_{half}" if half else f"TOUCH_{zone}").connect(
                        pad["PAD"]
                    )

    def touch_switch(self) -> list[tuple[str, str]]:
        """The TCA9548A at 0x70 (A0-A2 low) on the shared lines; returns the (SDA, SCL) nets
        of its channels 0 and 1, each with its own pull-ups (the rest are unused)."""
        switch = self.part("TCA9548APWR", "tssop24", "controller", "TCA9548A", bom="tca9548a")
        self.mat.touch_switch = switch
        self.net("SDA_RESET_DATA").connect(switch["SDA"])
        self.net("SCL_RESET_CLOCK").connect(switch["SCL"])
        for pin in ("A0", "A1", "A2"):
            self.net("GND").connect(switch[pin])
        self.net("+3V3").connect(switch["~{RESET}"])
        self.net("+3V3").connect(switch["VCC"])
        self.net("GND").connect(switch["GND"])
        self.decouple("controller", "+3V3")
        buses = []
        for channel in range(8):
            sd, sc = switch[f"SD{channel}"], switch[f"SC{channel}"]
            if channel < 2:
                sda, scl = f"TOUCH_SDA{channel}", f"TOUCH_SCL{channel}"
                self.net(sda).connect(sd)
                self.net(scl).connect(sc)
                for line in (sda, scl):
                    self.resistor("controller", "4.7k", self.net(line), self.net("+3V3"), "r")
                buses.append((sda, scl))
            else:
                self.no_connect(sd, "a switch channel no touch chip uses")
                self.no_connect(sc, "a switch channel no touch chip uses")
        return buses

    def pi_seat_leds(self) -> None:
        """The seat LEDs on the Raspberry Pi's header: GPIO, 1 kohm, LED, ground (active high,
        as examples/table.toml's `active_high = true`)."""
        mat = self.mat
        pi = self.part(
            "Raspberry_Pi_2_3", "pi_header", "pi", "Raspberry Pi header", bom="pi_socket"
        )
        mat.pi = pi
        ground = self.net("PI_GND")
        # The Pi's own supply powers its header; SKiDL cannot see it, so the net says so.
        ground.drive = skidl.POWER
        mat.waivers["PI_GND"] = "driven by the Pi's own supply (joined to the mat's GND by USB)"
        for pin in pi.pins:
            if pin.name == "GND":
                ground += pin
        by_bcm = {}
        for pin in pi.pins:
            for word in pin.name.split("/"):
                if word.startswith("GPIO"):
                    by_bcm[int(word[4:])] = pin
        used = set()
        for seat, pins in enumerate(SEAT_LED_PINS[: mat.seats], start=1):
            for led_number, bcm in enumerate(pins, start=1):
                used.add(bcm)
                board = f"seat {seat} leds"
                signal = self.net(f"SEAT{seat}_LED{led_number}")
                signal += by_bcm[bcm]
                anode = self.net(f"SEAT{seat}_LED{led_number}_A")
                resistor = self.resistor(board, SEAT_LED_RESISTOR, signal, anode, "r")
                led = self.part("LED", "led5", board, "LED 5 mm", bom="seat_led")
                anode += led["A"]
                ground += led["K"]
                mat.seat_leds[(seat, led_number)] = (resistor, led)
        for bcm, pin in by_bcm.items():
            if bcm not in used:
                self.no_connect(pin, "a GPIO the table leaves free")
        for pin in pi.pins:
            if pin.name in ("3V3", "5V"):
                self.no_connect(pin, "the LEDs run from GPIOs, not from the header's rails")


def build_mat(seats: int = 6, slots: int = 6, pad: bool = True, split_seats: int = 0) -> MatCircuit:
    """Builds the mat's circuit (a full mat with whole pads by default) in a circuit of its
    own; `split_seats` (a bit per seat, as `board.SPLIT_SEATS`) gives those seats split pads."""
    if split_seats >> seats:
        raise ValueError(f"split_seats 0x{split_seats:02x} names a seat past {seats}")
    return _Builder(seats, slots, pad, split_seats).build()
