"""How the seat LEDs are driven: the `[leds]` part of the table's file, as the drivers read it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class LedConfig:
    """How the seat LEDs are driven: `backend` "gpio" or "sim"; `pins` the BCM pin numbers,
    three per seat, seat 1 first."""

    backend: str = "sim"
    seats: int = 6
    pins: tuple[tuple[int, ...], ...] = field(default_factory=tuple)
    blink_hz: float = 2.0
    active_high: bool = True
    test_pattern_seconds: float = 0.6
