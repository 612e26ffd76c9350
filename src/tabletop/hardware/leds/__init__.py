"""Seat LEDs: three per seat, driven by declarative frames through a real or simulated backend.

leds = open_leds(LedConfig(backend="sim", seats=4))
leds.start()                       # short test pattern, then all off
leds.show(frame_for_counts([(1, False), (3, True)]))
leds.stop()
"""

from tabletop.wire.leds import (
    LEDS_PER_SEAT,
    LedFrame,
    LedState,
    frame_for_counts,
    startup_pattern,
)

from .backends import GpioLeds, LedError, SeatLeds, SimulatedLeds, open_leds
from .config import LedConfig

__all__ = [
    "LEDS_PER_SEAT",
    "GpioLeds",
    "LedConfig",
    "LedError",
    "LedFrame",
    "LedState",
    "SeatLeds",
    "SimulatedLeds",
    "frame_for_counts",
    "open_leds",
    "startup_pattern",
]
