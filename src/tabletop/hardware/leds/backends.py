"""Seat LED backends: RPi.GPIO on a Pi, and a simulated one that records every change.

Both take the same declarative frames; `open_leds` picks one from the configuration, or from
the environment variable TABLETOP_LEDS ("sim" or "gpio"), which wins so a developer can run a
real table's configuration on a laptop.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from tabletop.hardware import LEDS_ENV
from tabletop.wire.leds import LEDS_PER_SEAT, LedFrame, LedState, startup_pattern

from .config import LedConfig


class LedError(Exception):
    """An LED backend that cannot start or a frame it cannot show."""


class SeatLeds:
    """Shows LED frames; subclasses set physical LEDs in `_set`."""

    def __init__(self, config: LedConfig, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.clock = clock
        self.frame = LedFrame.all(config.seats, LedState.OFF)
        self._lock = threading.Lock()

    def start(self) -> None:
        """Opens the device and plays the start-up test pattern, ending with all off."""
        self._open()
        for frame in startup_pattern(self.config.seats):
            self.show(frame)
            time.sleep(self.config.test_pattern_seconds / (self.config.seats * LEDS_PER_SEAT + 1))
        self.show(LedFrame.all(self.config.seats, LedState.OFF))

    def show(self, frame: LedFrame) -> None:
        """Makes the LEDs show `frame`; only LEDs whose state changes are touched."""
        if len(frame.seats) != self.config.seats:
            raise LedError(f"frame has {len(frame.seats)} seats, the table has {self.config.seats}")
        with self._lock:
            for seat, (old, new) in enumerate(zip(self.frame.seats, frame.seats, strict=True)):
                for led, (was, now) in enumerate(zip(old, new, strict=True)):
                    if was is not now:
                        self._set(seat, led, now)
            self.frame = frame

    def stop(self) -> None:
        """Turns every LED off and releases the device."""
        self.show(LedFrame.all(self.config.seats, LedState.OFF))
        self._close()

    def _open(self) -> None:
        pass

    def _close(self) -> None:
        pass

    def _set(self, seat: int, led: int, state: LedState) -> None:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class LedChange:
    """One recorded change of one LED (seat and led count from 0)."""

    at: float
    seat: int
    led: int
    state: LedState


class SimulatedLeds(SeatLeds):
    """LEDs that exist only in memory: every change is recorded for tests and drawn on request."""

    def __init__(self, config: LedConfig, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(config, clock)
        self.changes: list[LedChange] = []
        self.frames: list[LedFrame] = []

    def show(self, frame: LedFrame) -> None:
        """Shows and records the frame."""
        super().show(frame)
        self.frames.append(frame)

    def _set(self, seat: int, led: int, state: LedState) -> None:
        self.changes.append(LedChange(self.clock(), seat, led, state))

    def render(self, names: list[str] | None = None) -> str:
        """The LEDs as text, one seat a line: ● on, ○ off, ◐ blinking."""
        marks = {LedState.ON: "●", LedState.OFF: "○", LedState.BLINK: "◐"}
        lines = []
        for index, seat in enumerate(self.frame.seats):
            label = names[index] if names and index < len(names) else f"seat {index + 1}"
            lines.append(f"{label:<10} {' '.join(marks[s] for s in seat)}")
        return "\n".join(lines)


class GpioLeds(SeatLeds):
    """LEDs on Raspberry Pi pins through the RPi.GPIO API (rpi-lgpio provides it on a Pi 5).

    Blinking LEDs are toggled by one thread at `blink_hz`, so every blinking LED is in step."""

    def __init__(
        self,
        config: LedConfig,
        clock: Callable[[], float] = time.monotonic,
        gpio: ModuleType | Any | None = None,
    ) -> None:
        super().__init__(config, clock)
        self._gpio = gpio
        self._blinking: set[tuple[int, int]] = set()
        self._stopping = threading.Event()
        self._blinker: threading.Thread | None = None

    def _open(self) -> None:
        if len(self.config.pins) != self.config.seats or any(
            len(pins) != LEDS_PER_SEAT for pins in self.config.pins
        ):
            raise LedError(
                f"leds.pins: give {LEDS_PER_SEAT} BCM pins for each of the "
                f"{self.config.seats} seats"
            )
        try:
            if self._gpio is None:
                self._gpio = importlib.import_module("RPi.GPIO")
            gpio = self._gpio
            gpio.setwarnings(False)
            gpio.setmode(gpio.BCM)
            for pins in self.config.pins:
                for pin in pins:
                    gpio.setup(pin, gpio.OUT, initial=self._level(False))
        except ImportError as error:
            raise LedError(
                "RPi.GPIO is not installed: on a Pi install python3-rpi-lgpio (Pi 5) or "
                "python3-rpi.gpio, or run with TABLETOP_LEDS=sim"
            ) from error
        except Exception as error:
            # The GPIO libraries say "no access" in their own types (RPi.GPIO a RuntimeError
            # "No access to /dev/mem", rpi-lgpio lgpio.error "can not open gpiochip"): a set-up
            # a person fixes, so one line with the fix, never a traceback.
            raise LedError(
                f"leds.pins: the GPIO pins cannot be opened ({error}): run the bridge as a user "
                "in the gpio group (sudo usermod -aG gpio tabletop, then restart it), or with "
                "TABLETOP_LEDS=sim"
            ) from error
        self._stopping.clear()
        self._blinker = threading.Thread(target=self._blink, name="seat-led-blink", daemon=True)
        self._blinker.start()

    def _close(self) -> None:
        self._stopping.set()
        if self._blinker is not None:
            self._blinker.join(timeout=2)
        if self._gpio is not None:
            self._gpio.cleanup([pin for pins in self.config.pins for pin in pins])

    def _level(self, lit: bool) -> Any:
        assert self._gpio is not None
        high = lit if self.config.active_high else not lit
        return self._gpio.HIGH if high else self._gpio.LOW

    def _set(self, seat: int, led: int, state: LedState) -> None:
        assert self._gpio is not None
        if state is LedState.BLINK:
            self._blinking.add((seat, led))
            return
        self._blinking.discard((seat, led))
        self._gpio.output(self.config.pins[seat][led], self._level(state is LedState.ON))

    def _blink(self) -> None:
        lit = False
        while not self._stopping.wait(0.5 / self.config.blink_hz):
            lit = not lit
            with self._lock:
                for seat, led in list(self._blinking):
                    assert self._gpio is not None
                    self._gpio.output(self.config.pins[seat][led], self._level(lit))


def open_leds(config: LedConfig, clock: Callable[[], float] = time.monotonic) -> SeatLeds:
    """The backend the configuration (or $TABLETOP_LEDS) asks for; nothing is opened yet."""
    backend = os.environ.get(LEDS_ENV, config.backend)
    if backend == "sim":
        return SimulatedLeds(config, clock)
    if backend == "gpio":
        return GpioLeds(config, clock)
    raise LedError(f"leds.backend: {backend!r} is not a backend; use 'gpio' or 'sim'")
