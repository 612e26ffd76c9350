"""LED frames: what every seat LED should show, as immutable values with a versioned JSON form.

The format the rules daemon publishes on `leds/frame` and the bridge shows (docs/mqtt.md), so
it lives with the wire; the drivers that light the LEDs are `tabletop.hardware.leds`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

LEDS_PER_SEAT = 3
FRAME_FORMAT_VERSION = 1


class LedState(Enum):
    """What one LED shows."""

    OFF = "off"
    ON = "on"
    BLINK = "blink"


class FrameError(ValueError):
    """A frame payload that cannot be read; the message names the field."""


@dataclass(frozen=True, slots=True)
class LedFrame:
    """Every seat's three LEDs, seat 1 first (what they count is the game's)."""

    seats: tuple[tuple[LedState, ...], ...]

    def to_json(self) -> dict[str, Any]:
        """The frame as published on `leds/frame`."""
        return {
            "v": FRAME_FORMAT_VERSION,
            "seats": [[s.value for s in seat] for seat in self.seats],
        }

    @classmethod
    def from_json(cls, raw: object) -> LedFrame:
        """Reads a frame payload, naming what is wrong."""
        if not isinstance(raw, dict):
            raise FrameError("an LED frame is a JSON object with 'v' and 'seats'")
        if raw.get("v") != FRAME_FORMAT_VERSION:
            raise FrameError(f"LED frame version {raw.get('v')!r} is not {FRAME_FORMAT_VERSION}")
        seats = raw.get("seats")
        if not isinstance(seats, list):
            raise FrameError("seats: expected a list of seats")
        out = []
        for index, seat in enumerate(seats, start=1):
            if not isinstance(seat, list) or len(seat) != LEDS_PER_SEAT:
                raise FrameError(f"seats[{index}]: expected {LEDS_PER_SEAT} LED states")
            try:
                out.append(tuple(LedState(value) for value in seat))
            except ValueError:
                raise FrameError(
                    f"seats[{index}]: states are off, on or blink, got {seat}"
                ) from None
        return cls(tuple(out))

    @classmethod
    def all(cls, seats: int, state: LedState) -> LedFrame:
        """Every LED of every seat in one state."""
        return cls(tuple((state,) * LEDS_PER_SEAT for _ in range(seats)))


def frame_for_counts(seats: Sequence[tuple[int, bool]]) -> LedFrame:
    """The frame for each seat's (count, blinking): one LED lit per unit of the count (Strikes
    in Six Shooter; each game says what its count means), all of the seat's LEDs blinking
    when `blinking` (a player out of play)."""
    out = []
    for count, blinking in seats:
        if blinking:
            out.append((LedState.BLINK,) * LEDS_PER_SEAT)
        else:
            lit = max(0, min(count, LEDS_PER_SEAT))
            out.append((LedState.ON,) * lit + (LedState.OFF,) * (LEDS_PER_SEAT - lit))
    return LedFrame(tuple(out))


def startup_pattern(seats: int) -> list[LedFrame]:
    """The start-up pattern: each LED of each seat in turn, then all on; a maker sees at once an
    LED that is dead or wired to the wrong pin."""
    frames = []
    for seat in range(seats):
        for led in range(LEDS_PER_SEAT):
            rows = [[LedState.OFF] * LEDS_PER_SEAT for _ in range(seats)]
            rows[seat][led] = LedState.ON
            frames.append(LedFrame(tuple(tuple(row) for row in rows)))
    frames.append(LedFrame.all(seats, LedState.ON))
    return frames
