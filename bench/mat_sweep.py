"""Sweep time of the mat's scan loop in the reader timing model (modelled time: runs at once).

Runs the real firmware scanner on simulated readers for each reader profile, bus count and
fill of a 37-zone mat, and reports the modelled time of one sweep over every zone (per bus,
as the buses run in parallel on the RP2040's two cores) and the modelled time from a card
laid to its settled state (the firmware's share of the latency; the link adds the rest).

With --misses it injects missed reads instead (SimTable's miss_rate: each read of a lying card
misses with that chance, as with a worn sticker or a card lying off-centre) and reports, for
each miss rate, the false card events (a removed or placed the host would see while no card
moved) on a full mat of 36 lying cards over --minutes of modelled time from power-up, and the
modelled time from a card lifted to the firmware dropping it (the cost of waiting for more
misses in a row).

    .venv/bin/python bench/mat_sweep.py
    .venv/bin/python bench/mat_sweep.py --misses [--minutes 10]
    .venv/bin/python bench/mat_sweep.py --misses --pty 60   # through `tabletop mat sim` instead

--pty SECONDS counts the same false card events end to end, in real time: `tabletop mat sim
--miss-rate R` in its own process, the host driver reading it through the pty.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import ModelledMat, card
from tabletop.figures import percentile


def sweep_ms(profile: str, buses: int, cards: int) -> float:
    mat = ModelledMat(seats=6, slots=6, pad=True, buses=1, profile=profile)
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
        mat = ModelledMat(seats=6, slots=6, pad=True, buses=buses, profile=profile)
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


def false_events(rate: float, minutes: float, seed: int) -> tuple[int, int]:
    """(false card events, false drops) on a full mat of 36 lying cards, from power-up."""
    mat = ModelledMat(seats=6, slots=6, pad=True, buses=2)
    mat.table.miss_rate = rate
    mat.table.rng.state = seed
    for zone in range(36):
        mat.table.place(zone, card(zone))
    changes = [0]
    drops = [0]
    mark_changed = mat.zones.mark_changed
    states = mat.zones.states

    def counted(zone: int) -> None:
        changes[0] += 1
        if states[zone].uid is None:
            drops[0] += 1
        mark_changed(zone)

    mat.zones.mark_changed = counted  # type: ignore[method-assign]
    mat.run_until(lambda: all(s.uid is not None for s in states[:36]), 60_000)
    changes[0] = drops[0] = 0  # the 36 cards settling at power-up are real events
    # One thread runs both buses in turn: modelled time on the mat is half the clock's.
    mat.run(int(minutes * 60_000 * 2))
    return changes[0], drops[0]


def removal_ms(rate: float, samples: int) -> list[float]:
    """Modelled ms from a card lifted (at a random moment, 3 s after power-up) to its drop."""
    rng = random.Random(11)
    results = []
    for sample in range(samples):
        mat = ModelledMat(seats=6, slots=6, pad=True, buses=2)
        mat.table.miss_rate = rate
        mat.table.rng.state = 1000 + sample
        for zone in range(36):
            mat.table.place(zone, card(zone))
        mat.run_until(mat.controller.is_ready, 60_000)
        mat.run(6000 + rng.randrange(0, 400))
        target = rng.randrange(36)
        states = mat.zones.states
        mat.run_until(lambda s=states, t=target: s[t].uid is not None, 60_000)
        mat.table.remove(target)
        took = mat.run_until(lambda s=states, t=target: s[t].uid is None, 60_000)
        results.append(took / 2)
    return sorted(results)


def pty_false_events(rate: float, seconds: float) -> dict[str, int]:
    """Card events the host driver reports in `seconds` from `tabletop mat sim --miss-rate`
    with 36 cards lying (after all 36 were placed), by kind."""
    from tabletop.hardware.mat import MatDriver
    from tabletop.hardware.mat.events import CardEvent, EventKind
    from tabletop.rules.games.cards import standard_deck

    command = [sys.executable, "-m", "tabletop", "mat", "sim", "--miss-rate", str(rate)]
    sim = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert sim.stdin is not None and sim.stdout is not None
    driver = MatDriver(sim.stdout.readline().strip())
    driver.start()
    kinds: dict[str, int] = {}
    try:
        codes = [c.code for c in standard_deck(jokers=False)]
        zones = [f"s{seat}.{slot}" for seat in range(1, 7) for slot in range(1, 7)]
        for zone, code in zip(zones, codes, strict=False):
            sim.stdin.write(f"place {zone} {code} up\n")
            sim.stdin.flush()
            sim.stdout.readline()
        placed: set[str] = set()
        deadline = time.monotonic() + 60
        while len(placed) < len(zones):
            if time.monotonic() > deadline:
                raise SystemExit("the 36 cards were not all placed within 60 s")
            event = driver.get_event(0.5)
            if isinstance(event, CardEvent) and event.kind is EventKind.PLACED:
                placed.add(event.zone)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            event = driver.get_event(0.2)
            if isinstance(event, CardEvent):
                kinds[event.kind.value] = kinds.get(event.kind.value, 0) + 1
    finally:
        driver.close()
        sim.stdin.write("quit\n")
        sim.stdin.close()
        sim.wait(timeout=10)
    return kinds


def misses(minutes: float, seeds: int) -> int:
    hours = 36 * minutes * seeds / 60
    print(
        f"miss rate  false card events in {hours:g} card-hours  false drops  "
        "lifted -> dropped p50 / p99 / max ms (modelled)"
    )
    for rate in (0.0, 0.1, 0.2, 0.3, 0.4):
        events = drops = 0
        for seed in range(seeds):
            found = false_events(rate, minutes, seed=7 + seed)
            events, drops = events + found[0], drops + found[1]
        values = removal_ms(rate, 60)
        p50, p99 = percentile(values, 0.5), percentile(values, 0.99)
        print(
            f"{rate:9.1f}  {events:34d}  {drops:11d}  {p50:7.1f} / {p99:7.1f} / {values[-1]:7.1f}"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="the miss-rate sweep instead")
    parser.add_argument("--minutes", type=float, default=10, help="modelled minutes per run")
    parser.add_argument("--seeds", type=int, default=3, help="runs per miss rate (seeds)")
    parser.add_argument(
        "--pty", type=float, metavar="SECONDS", help="with --misses: end to end, in real time"
    )
    args = parser.parse_args()
    if args.misses and args.pty:
        print(f"miss rate  card events at the host driver in {args.pty:g} s (36 cards lying)")
        for rate in (0.0, 0.1, 0.2, 0.3, 0.4):
            kinds = pty_false_events(rate, args.pty)
            print(f"{rate:9.1f}  {sum(kinds.values()):5d}  {kinds}", flush=True)
        return 0
    if args.misses:
        return misses(args.minutes, args.seeds)
    print("profile  buses  cards  sweep ms (per bus, in parallel)")
    for profile in ("plain", "tuned"):
        for buses in (1, 2):
            for cards in (0, 36):
                print(f"{profile:7} {buses:5} {cards:6}  {sweep_ms(profile, buses, cards):8.1f}")
    print()
    print("profile  buses  laid -> settled in the firmware: p50 / p99 / max ms (modelled)")
    for profile, buses, samples in (("plain", 1, 20), ("tuned", 1, 60), ("tuned", 2, 60)):
        values = settle_ms(profile, buses, samples)
        p50, p99 = percentile(values, 0.5), percentile(values, 0.99)
        print(f"{profile:7} {buses:5}  {p50:7.1f} / {p99:7.1f} / {values[-1]:7.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
