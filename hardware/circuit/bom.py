"""The bill of materials and the power budget, from the circuit's parts and `parts.toml`."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .mat import MatCircuit

PARTS_FILE = Path(__file__).with_name("parts.toml")
RAIL_VOLTS = {"+5V": 5.0, "+3V3": 3.3}
RAIL_OF_NET = {"+5V": "5V", "+3V3": "3V3"}
PI_GPIO_VOLTS = 3.3


class PartsError(Exception):
    """A part the circuit uses has no entry in parts.toml, or an entry lacks a field."""


def load_parts(path: Path = PARTS_FILE) -> dict[str, Any]:
    with path.open("rb") as handle:
        return tomllib.load(handle)


@dataclass(frozen=True)
class BomRow:
    """One line of the bill of materials."""

    name: str
    number: str
    qty: int
    each: float | None
    total: float
    in_circuit: bool


def ohms(value: str) -> float:
    """A resistor's value as written in the circuit ("180", "4.7k", "100k") in ohms."""
    text = value.strip().lower()
    scale = {"k": 1e3, "m": 1e6}.get(text[-1:], 1.0)
    return float(text[:-1] if scale != 1.0 else text) * scale


def _fields(part: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in part.fields.items()}


def bom_rows(mat: MatCircuit, data: dict[str, Any] | None = None) -> list[BomRow]:
    """The circuit's parts counted by what they are bought as (resistors and capacitors by
    value), in parts.toml's order, then the things bought that are not in the circuit."""
    data = data or load_parts()
    catalogue: dict[str, Any] = data["parts"]
    counts: dict[tuple[str, str], int] = {}
    for part in mat.circuit.parts:
        key = _fields(part).get("bom", "")
        if key not in catalogue:
            raise PartsError(
                f"parts.toml: part {part.ref} ({part.name}) is bought as {key!r}, "
                "which has no [parts.KEY]: add it with a name, part number and price"
            )
        by_value = key in ("r", "c100n", "c10u")
        counts[(key, str(part.value) if by_value else "")] = (
            counts.get((key, str(part.value) if by_value else ""), 0) + 1
        )
    order = list(catalogue)
    rows = []
    for (key, value), count in sorted(
        counts.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])
    ):
        entry = catalogue[key]
        qty = math.ceil(count / int(entry.get("per", 1)))
        name = f"{entry['name']} {value}" if value else str(entry["name"])
        each = float(entry["each"])
        rows.append(BomRow(name, str(entry["number"]), qty, each, round(qty * each, 2), True))
    for entry in data.get("extras", {}).values():
        qty = int(entry["qty"])
        price = float(entry["each"]) if "each" in entry else None
        total = float(entry["total"]) if "total" in entry else qty * float(entry["each"])
        rows.append(
            BomRow(str(entry["name"]), str(entry["number"]), qty, price, round(total, 2), False)
        )
    return rows


def bom_markdown(rows: list[BomRow]) -> str:
    """The bill of materials as the Markdown table docs/mat.md carries."""
    lines = ["| part | part number | qty | each | total |", "| --- | --- | --- | --- | --- |"]
    for row in rows:
        each = f"{row.each:.2f}" if row.each is not None else ""
        lines.append(f"| {row.name} | {row.number} | {row.qty} | {each} | {row.total:.2f} |")
    total = sum(row.total for row in rows)
    lines.append(f"| **total** | | | | **{total:.2f}** |")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class RailBudget:
    """The current a supply gives at rest and at most, against what it can give."""

    rail: str
    supply: str
    idle_ma: float
    peak_ma: float
    limit_ma: float

    @property
    def ok(self) -> bool:
        return self.peak_ma <= self.limit_ma


def _other_end(resistor: Any, net: Any) -> Any:
    pins = [p for p in resistor.pins if p.net is not net]
    return pins[0].net if pins else None


def power_budget(
    mat: MatCircuit, led_level: int, data: dict[str, Any] | None = None
) -> list[RailBudget]:
    """Each rail's idle and peak current, from the circuit's parts: chips and modules by their
    datasheet figures, resistors by Ohm's law with the load they feed, the guidance LEDs at
    `led_level` of 255 (the firmware's `LED_LEVEL`), at most `at_once` readers active."""
    data = data or load_parts()
    catalogue: dict[str, Any] = data["parts"]
    idle: dict[str, float] = {}
    peak: dict[str, float] = {}
    kinds: dict[str, list[Any]] = {}
    for part in mat.circuit.parts:
        kinds.setdefault(_fields(part).get("bom", ""), []).append(part)

    def add(rail: str, at_rest: float, at_most: float) -> None:
        idle[rail] = idle.get(rail, 0.0) + at_rest
        peak[rail] = peak.get(rail, 0.0) + at_most

    for key, parts in kinds.items():
        entry = catalogue[key]
        if key == "ws2812b":
            lit = 3 * float(entry["channel"]) * led_level / 255
            add("5V", len(parts) * float(entry["idle"]), len(parts) * (float(entry["idle"]) + lit))
        elif "peak" in entry:
            count = len(parts)
            active = min(count, int(entry.get("at_once", count)))
            at_rest = count * float(entry["idle"])
            add(
                str(entry["rail"]),
                at_rest,
                at_rest + active * (float(entry["peak"]) - float(entry["idle"])),
            )
    # Resistors from a rail: the current they pass with their far end pulled low, less the
    # forward voltage of an LED they feed (the face sensors' emitters, the seat LEDs).
    for resistor in kinds.get("r", []):
        for pin in resistor.pins:
            rail_net = pin.net
            if rail_net is None or rail_net.name not in RAIL_VOLTS:
                continue
            far = _other_end(resistor, rail_net)
            volts = RAIL_VOLTS[rail_net.name] - _forward_volts(far, catalogue)
            add(RAIL_OF_NET[rail_net.name], 0.0, 1000 * volts / ohms(str(resistor.value)))
    seat_leds = [r for r, _ in mat.seat_leds.values()]
    vf = float(catalogue["seat_led"]["forward_voltage"])
    for resistor in seat_leds:
        add("pi_gpio", 0.0, 1000 * (PI_GPIO_VOLTS - vf) / ohms(str(resistor.value)))
    # The buck draws its 3.3 V output's power from 5 V, less its losses.
    efficiency = float(catalogue["buck"]["efficiency"])
    for table in (idle, peak):
        table["5V"] = table.get("5V", 0.0) + table.get("3V3", 0.0) * 3.3 / (5.0 * efficiency)
    supplies: dict[str, Any] = data["supplies"]
    return [
        RailBudget(
            rail,
            str(s["name"]),
            round(idle.get(rail, 0.0), 1),
            round(peak.get(rail, 0.0), 1),
            float(s["limit"]),
        )
        for rail, s in supplies.items()
    ]


def _forward_volts(net: Any, catalogue: dict[str, Any]) -> float:
    if net is None:
        return 0.0
    for pin in net.pins:
        if pin.name != "A":  # only an LED's anode drops its forward voltage
            continue
        key = _fields(pin.part).get("bom", "")
        if key in catalogue and "forward_voltage" in catalogue[key]:
            return float(catalogue[key]["forward_voltage"])
    return 0.0
