"""The table's configuration: one TOML file per table, checked at start.

Every error names the key and the problem (`mat.port: expected text, got 3`), so a maker can
fix the file without reading code. `examples/table.toml` is the commented reference.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hardware.leds import LEDS_PER_SEAT, LedConfig
from rules.errors import InvalidCommand
from rules.sixshooter import Options

MAX_SEATS = 6
SLOTS_PER_SEAT = 6
TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class ConfigError(Exception):
    """A configuration file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat at the table: who sits there and the BCM pins of their three Strike LEDs."""

    name: str
    leds: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class MatConfig:
    """The sensor mat: its port URL (a device path, or sim:// for the simulated mat)."""

    port: str = "sim://"
    cards: str | None = None  # the UID -> card map written by `tabletop cards enrol`
    draw_pad: bool = True


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """The dice camera: a source (sim, usb:N, picamera, a video file or a folder of images)."""

    source: str = "sim"
    calibration: str | None = None
    fps: float = 30.0


@dataclass(frozen=True, slots=True)
class BrokerConfig:
    """The MQTT broker: None for the embedded broker, else mqtt://user:pass@host:port."""

    url: str | None = None
    username: str | None = None
    password: str | None = None


@dataclass(frozen=True, slots=True)
class RulesConfig:
    """How the rules daemon reads the table: house-rule options and the grace for bumps."""

    options: Options = field(default_factory=Options)
    grace_seconds: float = 1.5


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Everything one table needs."""

    table: str
    seats: tuple[Seat, ...]
    mat: MatConfig = field(default_factory=MatConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    leds: LedConfig = field(default_factory=LedConfig)
    broker: BrokerConfig = field(default_factory=BrokerConfig)
    rules: RulesConfig = field(default_factory=RulesConfig)

    @property
    def seat_names(self) -> list[str]:
        """The players' names, seat 1 first."""
        return [seat.name for seat in self.seats]


def load_config(path: str | Path) -> TableConfig:
    """Reads and checks a table's TOML file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from error
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from error
    try:
        return parse_config(raw)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


class _Section:
    """Reads one TOML table, naming `section.key` in every error and refusing unknown keys."""

    def __init__(self, raw: Any, name: str, known: tuple[str, ...]) -> None:
        if not isinstance(raw, dict):
            raise ConfigError(f"{name}: expected a table of keys")
        unknown = sorted(set(raw) - set(known))
        if unknown:
            raise ConfigError(
                f"{name}.{unknown[0]}: unknown key; known keys are {', '.join(known)}"
            )
        self.raw = raw
        self.name = name

    def where(self, key: str) -> str:
        return f"{self.name}.{key}" if self.name else key

    def text(self, key: str, default: str | None) -> str | None:
        value = self.raw.get(key, default)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ConfigError(f"{self.where(key)}: expected text, got {value!r}")
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.raw.get(key, default)
        if not isinstance(value, bool):
            raise ConfigError(f"{self.where(key)}: expected true or false, got {value!r}")
        return value

    def number(self, key: str, default: float, low: float, high: float) -> float:
        value = self.raw.get(key, default)
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ConfigError(f"{self.where(key)}: expected a number, got {value!r}")
        if not low <= value <= high:
            raise ConfigError(f"{self.where(key)}: must be {low} to {high}, got {value}")
        return float(value)


def parse_config(raw: dict[str, Any]) -> TableConfig:
    """Checks an already-parsed TOML document."""
    top = _Section(raw, "", ("table", "seats", "mat", "camera", "leds", "broker", "rules"))
    table = _Section(raw.get("table", {}), "table", ("id",))
    table_id = table.text("id", None)
    if table_id is None:
        raise ConfigError('table.id: missing; give the table a short name such as "kitchen"')
    if not TABLE_ID.match(table_id):
        raise ConfigError(
            f"table.id: {table_id!r} must be 1-32 letters, digits, '-' or '_' "
            "(it is an MQTT topic level)"
        )
    seats = _seats(top.raw.get("seats"))
    mat = _Section(raw.get("mat", {}), "mat", ("port", "cards", "draw_pad"))
    camera = _Section(raw.get("camera", {}), "camera", ("source", "calibration", "fps"))
    leds = _Section(raw.get("leds", {}), "leds", ("backend", "blink_hz", "active_high"))
    broker = _Section(raw.get("broker", {}), "broker", ("url", "username", "password"))
    rules = _Section(raw.get("rules", {}), "rules", ("options", "grace_seconds"))

    backend = leds.text("backend", "sim")
    if backend not in ("sim", "gpio"):
        raise ConfigError(f'leds.backend: {backend!r} is not a backend; use "gpio" or "sim"')
    pins = tuple(seat.leds for seat in seats)
    if backend == "gpio":
        _check_pins(seats)
    url = broker.text("url", None)
    if url is not None and not re.match(r"^mqtts?://", url):
        raise ConfigError(f"broker.url: {url!r} must start with mqtt:// or mqtts://")
    try:
        options = Options.from_json(rules.raw.get("options"), "rules.options")
    except InvalidCommand as error:
        raise ConfigError(str(error)) from None

    return TableConfig(
        table=table_id,
        seats=seats,
        mat=MatConfig(
            port=mat.text("port", "sim://") or "sim://",
            cards=mat.text("cards", None),
            draw_pad=mat.flag("draw_pad", True),
        ),
        camera=CameraConfig(
            source=camera.text("source", "sim") or "sim",
            calibration=camera.text("calibration", None),
            fps=camera.number("fps", 30.0, 1.0, 120.0),
        ),
        leds=LedConfig(
            backend=backend or "sim",
            seats=len(seats),
            pins=pins if backend == "gpio" else (),
            blink_hz=leds.number("blink_hz", 2.0, 0.2, 20.0),
            active_high=leds.flag("active_high", True),
        ),
        broker=BrokerConfig(url, broker.text("username", None), broker.text("password", None)),
        rules=RulesConfig(options, rules.number("grace_seconds", 1.5, 0.0, 30.0)),
    )


def _seats(raw: Any) -> tuple[Seat, ...]:
    if not isinstance(raw, list) or not raw:
        raise ConfigError("seats: missing; add one [[seats]] table per player, seat 1 first")
    if len(raw) > MAX_SEATS:
        raise ConfigError(f"seats: the mat has {MAX_SEATS} seats, the file lists {len(raw)}")
    seats = []
    for index, entry in enumerate(raw, start=1):
        section = _Section(entry, f"seats[{index}]", ("name", "leds"))
        name = section.text("name", None)
        if name is None:
            raise ConfigError(f"seats[{index}].name: missing")
        leds = entry.get("leds", [])
        if not isinstance(leds, list) or not all(
            isinstance(pin, int) and not isinstance(pin, bool) for pin in leds
        ):
            raise ConfigError(f"seats[{index}].leds: expected a list of BCM pin numbers")
        seats.append(Seat(name, tuple(leds)))
    names = [seat.name.casefold() for seat in seats]
    for index, name in enumerate(names, start=1):
        if names.index(name) != index - 1:
            raise ConfigError(f"seats[{index}].name: {seats[index - 1].name!r} sits twice")
    return tuple(seats)


def _check_pins(seats: tuple[Seat, ...]) -> None:
    used: dict[int, str] = {}
    for index, seat in enumerate(seats, start=1):
        if len(seat.leds) != LEDS_PER_SEAT:
            raise ConfigError(
                f"seats[{index}].leds: give {LEDS_PER_SEAT} BCM pins (Strike 1, 2, 3), "
                f"got {len(seat.leds)}"
            )
        for pin in seat.leds:
            if not 2 <= pin <= 27:
                raise ConfigError(f"seats[{index}].leds: BCM pin {pin} is not a GPIO pin (2-27)")
            if pin in used:
                raise ConfigError(f"seats[{index}].leds: pin {pin} is already used by {used[pin]}")
            used[pin] = f"seats[{index}]"
