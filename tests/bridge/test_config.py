"""The table configuration: the example loads, and every mistake names its key."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from tabletop.config.table import ConfigError, load_config, parse_config

EXAMPLE = Path(__file__).parents[2] / "examples" / "table.toml"


def example() -> dict[str, Any]:
    return tomllib.loads(EXAMPLE.read_text())


def test_the_commented_example_loads() -> None:
    config = load_config(EXAMPLE)
    assert config.table == "kitchen" and config.seat_names == ["Ana", "Bo", "Cy"]
    assert config.leds.seats == 3 and config.leds.backend == "sim"
    assert config.rules.options["ace_high"] is True and config.broker.url is None


def test_gpio_leds_take_the_pins_of_every_seat() -> None:
    raw = example()
    raw["leds"]["backend"] = "gpio"
    config = parse_config(raw)
    assert config.leds.pins == ((5, 6, 13), (19, 26, 21), (20, 16, 12))


def change(path: str, value: Any) -> dict[str, Any]:
    raw = example()
    *parents, key = path.split(".")
    node = raw
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    if value is KeyError:
        del node[key]
    else:
        node[key] = value
    return raw


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("mat.prot", "x", "mat.prot: unknown key; known keys are port, cards, draw_pad"),
        ("mat.port", 3, "mat.port: expected text, got 3"),
        ("table.id", "my table", "table.id: table id 'my table': use 1-64 letters"),
        ("table.id", "t" * 65, "use 1-64 letters"),
        ("table.id", KeyError, "table.id: missing"),
        ("leds.backend", "neon", "leds.backend: 'neon' is not a backend"),
        ("camera.fps", 0, "camera.fps: must be 1.0 to 120.0, got 0"),
        ("broker.url", "http://x", "broker.url: 'http://x' must start with mqtt://"),
        ("rules.options.ace_hi", True, "rules.options.ace_hi: unknown option"),
        ("rules.options.deal", "fan", "rules.options.deal: expected one of 'round_robin', 'block'"),
        ("seats.1.name", "ana", "seats\\[2\\].name: 'ana' sits twice"),
        ("seats.0.colour", "red", "seats\\[1\\].colour: unknown key"),
        ("surprise", 1, "surprise: unknown key"),
    ],
)
def test_mistakes_name_the_key(path: str, value: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(change(path, value))


def test_gpio_pin_mistakes_name_the_seat() -> None:
    raw = change("leds.backend", "gpio")
    raw["seats"][1]["leds"] = [19, 26]
    with pytest.raises(ConfigError, match="seats\\[2\\].leds: give 3 BCM pins"):
        parse_config(raw)
    raw["seats"][1]["leds"] = [19, 26, 5]
    with pytest.raises(
        ConfigError, match="seats\\[2\\].leds: pin 5 is already used by seats\\[1\\]"
    ):
        parse_config(raw)


def test_a_broken_file_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text("[table\nid = 1")
    with pytest.raises(ConfigError, match="table.toml: not valid TOML"):
        load_config(bad)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml")
