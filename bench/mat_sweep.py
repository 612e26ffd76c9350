"""Sweep time of the mat's scan loop in the reader timing model (modelled time: runs at once).

Runs the real firmware scanner on simulated readers for each reader profile, bus count and
fill of a 37-zone mat, and reports the modelled time of one sweep over every zone (per bus,
as the buses run in parallel on the RP2040's two cores) and the modelled time from a card
laid to its settled state (the firmware's share of the latency; the link adds the rest).

    .venv/bin/python bench/mat_sweep.py
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "mat" / "fw"))

from fwhelpers import Mat, card  # the firmware tests' modelled-time mat


def sweep_ms(profile: str, buses: int, cards: int) -> float:
    mat = Mat(seats=6, slots=6, pad=True, buses=1, profile=profile)
    if profile == "plain":
        mat.zones.config.presence_checks = 0
    for zone in range(cards):
        mat.table.place(zone, card(zone))
    scanner = mat.scanners[0]
    mat.run_until(lambda: scanner.sweeps >= 3, 60_000)
    start, first = mat.clock.us, scanner.sweeps
    mat.run_until(lambda: scanner.sweeps >= first + 5, 120_000)
    # One bus scans all 37 zones here; with two buses each scans half, side by side.
    return (mat.clock.us - start) / 5 / 1000 / buses


def settle_ms(profile: str, buses: int, samples: int = 60) -> list[float]:
    """Modelled ms from a card laid (at a random moment) to its settled state, one bus per run."""
    rng = random.Random(5)
    results = []
    for _ in range(samples):
        mat = Mat(seats=6, slots=6, pad=True, buses=buses, profile=profile)
        if profile == "plain":
            mat.zones.config.presence_checks = 0
        target = rng.randrange(36)
        for zone in range(36):
            if zone != target:
                mat.table.place(zone, card(zone))
        mat.run_until(mat.controller.is_ready, 60_000)
        mat.run(rng.randrange(0, 200))
        mat.table.place(target, card(99))
        states = mat.zones.states
        took = mat.run_until(lambda s=states, t=target: s[t].uid is not None, 60_000)
        # In one thread the buses take turns; on the mat they run at once.
        results.append(took / buses)
    return sorted(results)


def main() -> int:
    print("profile  buses  cards  sweep ms (per bus, in parallel)")
    for profile in ("plain", "tuned"):
        for buses in (1, 2):
            for cards in (0, 36):
                print(f"{profile:7} {buses:5} {cards:6}  {sweep_ms(profile, buses, cards):8.1f}")
    print()
    print("profile  buses  laid -> settled in the firmware: p50 / p99 / max ms (modelled)")
    for profile, buses, samples in (("plain", 1, 20), ("tuned", 1, 60), ("tuned", 2, 60)):
        values = settle_ms(profile, buses, samples)
        p50 = values[len(values) // 2]
        p99 = values[min(len(values) - 1, round(0.99 * (len(values) - 1)))]
        print(f"{profile:7} {buses:5}  {p50:7.1f} / {p99:7.1f} / {values[-1]:7.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
