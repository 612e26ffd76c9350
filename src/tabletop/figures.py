"""Percentiles of measured times, as the simulated table and the benchmarks report them.

One way of taking them, so that a p99 in docs/benchmarks.md and one in `tabletop sim`'s summary
mean the same thing: the nearest rank, no interpolation. Of n sorted values the one at index
`round(share * (n - 1))` (Python's round: a half goes to the even index); so p0 is the least
value, p100 the largest, and every percentile is a value that was measured.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any


def percentile(values: Iterable[float], share: float) -> float:
    """The value at `share` (0 to 1: 0.99 for p99) of `values`, by nearest rank."""
    if not 0 <= share <= 1:
        raise ValueError(f"a percentile's share is from 0 to 1 (0.99 for p99), not {share}")
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values to take a percentile of")
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def percentiles(values: Iterable[float], digits: int = 1) -> dict[str, Any]:
    """{"count", "p50", "p99"} of `values`, rounded to `digits`: p50 is the median (the mean of
    the middle two of an even count), p99 `percentile(values, 0.99)`; None for no values."""
    ordered = sorted(values)
    if not ordered:
        return {"count": 0, "p50": None, "p99": None}
    return {
        "count": len(ordered),
        "p50": round(statistics.median(ordered), digits),
        "p99": round(percentile(ordered, 0.99), digits),
    }
