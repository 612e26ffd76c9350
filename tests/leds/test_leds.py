"""seat LEDs: frames, the start-up pattern, the simulated backend and the RPi.GPIO backend."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tabletop.hardware.leds import (
    GpioLeds,
    LedConfig,
    LedError,
    LedFrame,
    LedState,
    SimulatedLeds,
    frame_for_counts,
    open_leds,
    startup_pattern,
)
from tabletop.servers import wait_until
from tabletop.wire.leds import FrameError

OFF, ON, BLINK = LedState.OFF, LedState.ON, LedState.BLINK


def test_one_led_per_strike_and_all_blinking_when_removed() -> None:
    frame = frame_for_counts([(0, False), (2, False), (3, True)])
    assert frame.seats == ((OFF, OFF, OFF), (ON, ON, OFF), (BLINK, BLINK, BLINK))


def test_frames_round_trip_through_json_and_bad_payloads_are_named() -> None:
    frame = frame_for_counts([(1, False), (3, True)])
    assert LedFrame.from_json(frame.to_json()) == frame
    assert frame.to_json() == {"v": 1, "seats": [["on", "off", "off"], ["blink"] * 3]}
    with pytest.raises(FrameError, match="seats\\[2\\]: expected 3 LED states"):
        LedFrame.from_json({"v": 1, "seats": [["on"] * 3, ["on"]]})
    with pytest.raises(FrameError, match="states are off, on or blink"):
        LedFrame.from_json({"v": 1, "seats": [["on", "lit", "off"]]})
    with pytest.raises(FrameError, match="version 2"):
        LedFrame.from_json({"v": 2, "seats": []})


def test_the_startup_pattern_lights_every_led_alone_then_all() -> None:
    frames = startup_pattern(2)
    assert len(frames) == 7
    lit = [
        [(s, i) for s, seat in enumerate(f.seats) for i, st in enumerate(seat) if st is ON]
        for f in frames[:6]
    ]
    assert lit == [[(0, 0)], [(0, 1)], [(0, 2)], [(1, 0)], [(1, 1)], [(1, 2)]]
    assert frames[-1] == LedFrame.all(2, ON)


def test_simulated_leds_record_only_changes_and_draw_themselves() -> None:
    ticks = iter(range(1000))
    leds = SimulatedLeds(
        LedConfig(seats=2, test_pattern_seconds=0), clock=lambda: float(next(ticks))
    )
    leds.start()
    assert leds.frames[-1] == LedFrame.all(2, OFF)
    start = len(leds.changes)
    leds.show(frame_for_counts([(1, False), (0, False)]))
    leds.show(frame_for_counts([(1, False), (0, False)]))
    leds.show(frame_for_counts([(1, False), (3, True)]))
    changes = [(c.seat, c.led, c.state) for c in leds.changes[start:]]
    assert changes == [(0, 0, ON), (1, 0, BLINK), (1, 1, BLINK), (1, 2, BLINK)]
    assert leds.render(["Ana", "Bo"]).splitlines() == ["Ana        ● ○ ○", "Bo         ◐ ◐ ◐"]


def test_a_frame_for_another_table_is_refused() -> None:
    leds = SimulatedLeds(LedConfig(seats=2))
    with pytest.raises(LedError, match="frame has 3 seats, the table has 2"):
        leds.show(LedFrame.all(3, ON))


class RecordingGpio:
    """Stands in for the RPi.GPIO module (below the lowest layer we own) and records calls."""

    BCM, OUT, HIGH, LOW = "BCM", "OUT", 1, 0

    def __init__(self) -> None:
        self.levels: dict[int, int] = {}
        self.history: list[tuple[int, int]] = []
        self.mode: str | None = None
        self.cleaned: list[int] = []
        self.lock = threading.Lock()

    def setwarnings(self, flag: bool) -> None:
        pass

    def setmode(self, mode: str) -> None:
        self.mode = mode

    def setup(self, pin: int, direction: str, initial: int) -> None:
        self.levels[pin] = initial

    def output(self, pin: int, level: int) -> None:
        with self.lock:
            self.levels[pin] = level
            self.history.append((pin, level))

    def cleanup(self, pins: list[int]) -> None:
        self.cleaned = pins


PINS = ((5, 6, 13), (19, 26, 21))


def gpio_leds(gpio: Any, **extra: Any) -> GpioLeds:
    return GpioLeds(
        LedConfig(backend="gpio", seats=2, pins=PINS, test_pattern_seconds=0, **extra), gpio=gpio
    )


def test_gpio_leds_drive_the_configured_pins() -> None:
    gpio = RecordingGpio()
    leds = gpio_leds(gpio)
    leds.start()
    assert gpio.mode == "BCM" and set(gpio.levels) == {5, 6, 13, 19, 26, 21}
    assert all(level == 0 for level in gpio.levels.values())
    leds.show(frame_for_counts([(2, False), (0, False)]))
    assert [gpio.levels[p] for p in (5, 6, 13, 19, 26, 21)] == [1, 1, 0, 0, 0, 0]
    leds.stop()
    assert sorted(gpio.cleaned) == sorted(p for seat in PINS for p in seat)


def test_gpio_leds_active_low_inverts_levels() -> None:
    gpio = RecordingGpio()
    leds = gpio_leds(gpio, active_high=False)
    leds.start()
    leds.show(frame_for_counts([(1, False), (0, False)]))
    assert gpio.levels[5] == 0 and gpio.levels[6] == 1
    leds.stop()


def test_gpio_blinking_leds_toggle_in_step() -> None:
    gpio = RecordingGpio()
    leds = gpio_leds(gpio, blink_hz=50.0)
    leds.start()
    before = len(gpio.history)
    leds.show(frame_for_counts([(0, False), (3, True)]))

    def levels_by_pin() -> dict[int, list[int]]:
        # From the frame on: the start-up pattern before it leaves each pin a history of its
        # own (the last LED was already lit when all came on), and a blink may begin on or off.
        blinks = [(pin, level) for pin, level in gpio.history[before:] if pin in PINS[1]]
        return {pin: [lv for p, lv in blinks if p == pin] for pin in PINS[1]}

    # four changes a pin: 0.08 s at 50 Hz, however long a loaded host takes to give them
    wait_until(lambda: all(len(levels) >= 4 for levels in levels_by_pin().values()), 30)
    leds.stop()
    levels = levels_by_pin()
    assert len({tuple(pin_levels[:4]) for pin_levels in levels.values()}) == 1  # in step
    assert not [pin for pin, _ in gpio.history[before:] if pin in PINS[0]]  # seat 1 untouched


def test_gpio_pins_must_match_the_seats() -> None:
    leds = GpioLeds(LedConfig(backend="gpio", seats=3, pins=PINS), gpio=RecordingGpio())
    with pytest.raises(LedError, match="leds.pins: give 3 BCM pins for each of the 3 seats"):
        leds.start()


class NoAccessGpio(RecordingGpio):
    """RPi.GPIO run by a user outside the gpio group (its own words)."""

    def setmode(self, mode: str) -> None:
        raise RuntimeError("No access to /dev/mem.  Try running as root!")


def test_gpio_pins_the_user_may_not_open_are_one_line_with_the_fix() -> None:
    leds = GpioLeds(LedConfig(backend="gpio", seats=2, pins=PINS), gpio=NoAccessGpio())
    with pytest.raises(LedError, match=r"No access to /dev/mem.*a user in the gpio group"):
        leds.start()


def test_the_factory_follows_config_and_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(open_leds(LedConfig(backend="sim")), SimulatedLeds)
    assert isinstance(open_leds(LedConfig(backend="gpio", pins=PINS, seats=2)), GpioLeds)
    monkeypatch.setenv("TABLETOP_LEDS", "sim")
    assert isinstance(open_leds(LedConfig(backend="gpio")), SimulatedLeds)
    monkeypatch.setenv("TABLETOP_LEDS", "neon")
    with pytest.raises(LedError, match="'neon' is not a backend"):
        open_leds(LedConfig())


def test_without_rpi_gpio_the_message_says_what_to_install() -> None:
    try:
        import RPi.GPIO  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("RPi.GPIO is installed here: this test is for machines without it")
    with pytest.raises(LedError, match="install python3-rpi-lgpio"):
        GpioLeds(LedConfig(backend="gpio", seats=2, pins=PINS)).start()
