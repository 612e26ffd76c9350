"""Milliseconds since boot from MicroPython's `time.ticks_ms()`, which wraps around.

On the RP2040 `ticks_ms()` counts modulo 2**30 (about 12.4 days); `TickCounter` adds up the
differences between readings, so the firmware's clock never goes backwards while the mat stays
on. On the wire times travel modulo 2**32 (`wire.encode_touch`); the host unwraps them.
"""

TICKS_PERIOD = 1 << 30


def ticks_diff(new, old, period=TICKS_PERIOD):
    """`new - old` on a counter that wraps at `period`, as time.ticks_diff computes it."""
    half = period // 2
    return ((new - old + half) % period) - half


class TickCounter:
    """A wrapping tick source (such as time.ticks_ms) read as a count that never wraps.

    It must be read at least once per half period (6 days), which the scan loop does
    thousands of times a second.
    """

    def __init__(self, read_ticks, period=TICKS_PERIOD):
        self.read_ticks = read_ticks
        self.period = period
        self._last = None
        self._total = 0

    def now_ms(self):
        now = self.read_ticks()
        if self._last is not None:
            self._total += ticks_diff(now, self._last, self.period)
        self._last = now
        return self._total
