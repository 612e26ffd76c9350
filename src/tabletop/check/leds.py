"""The seat LEDs part: each seat in turn shows one pattern, and the person says if it does.

The pattern (LED 1 steady, LED 2 blinking, LED 3 off, every other seat dark) tells a seat
wired to another seat's pins, two LEDs swapped, and a dead LED apart. The simulated LEDs have
nothing to look at: their frames are read back.
"""

from __future__ import annotations

from typing import Final

from tabletop.hardware.leds import (
    LEDS_PER_SEAT,
    LedError,
    LedFrame,
    LedState,
    SimulatedLeds,
    open_leds,
)

from .context import Context
from .person import PersonGone

PART: Final = "leds"
PATTERN: Final = (LedState.ON, LedState.BLINK, LedState.OFF)
WORDS: Final = "LED 1 steady, LED 2 blinking, LED 3 off"


def pattern_for(seats: int, seat: int) -> LedFrame:
    """Seat `seat` (from 0) shows the pattern, every other seat is dark."""
    dark = (LedState.OFF,) * LEDS_PER_SEAT
    return LedFrame(tuple(PATTERN if index == seat else dark for index in range(seats)))


def check(context: Context) -> None:
    config = context.config
    leds = open_leds(config.leds)
    try:
        leds.start()  # the start-up test pattern the bridge plays too
    except LedError as error:
        context.checklist.failed(
            PART,
            "open",
            str(error),
            "on the Pi install python3-rpi-lgpio (Pi 5) or python3-rpi.gpio and run as a user "
            'in the gpio group; elsewhere set [leds] backend = "sim" (or TABLETOP_LEDS=sim)',
        )
        return
    try:
        backend = "simulated" if isinstance(leds, SimulatedLeds) else "GPIO"
        context.checklist.passed(PART, "open", f"{backend} LEDs for {len(config.seats)} seats")
        for index, seat in enumerate(config.seats):
            name = f"seat {index + 1} ({seat.name})"
            frame = pattern_for(len(config.seats), index)
            leds.show(frame)
            pins = f" on pins {', '.join(map(str, seat.leds))}" if seat.leds else ""
            if isinstance(leds, SimulatedLeds):
                if leds.frame == frame:
                    context.checklist.passed(
                        PART, name, f"{WORDS} (read back: simulated LEDs have nothing to see)"
                    )
                else:
                    context.checklist.failed(
                        PART, name, "the simulated LEDs show another frame", "report this bug"
                    )
                continue
            if not context.person.present:
                context.checklist.skipped(
                    PART,
                    name,
                    f"showed {WORDS}{pins}; nobody to look ({context.person.absent})",
                    f"run `{context.command} --part leds` on a terminal at the table",
                )
                continue
            try:
                seen = context.person.confirm(
                    f"Does {name} show {WORDS}, and every other seat dark?"
                )
            except PersonGone as error:
                context.checklist.skipped(PART, name, str(error))
                continue
            if seen:
                context.checklist.passed(PART, name, f"{WORDS}, as confirmed")
            else:
                context.checklist.failed(
                    PART,
                    name,
                    f"asked for {WORDS}{pins}; the person saw otherwise",
                    f"dark: check seats[{index + 1}].leds' pins, each LED's resistor and its "
                    "polarity (leds.active_high); lit in the wrong order or at another seat: "
                    f"put the pins in seats[{index + 1}].leds in the LEDs' order (1, 2, 3)",
                )
    finally:
        leds.stop()
