"""Card laid -> host event latency on the simulated mat (6 seats x 6 slots + pad, 37 zones).

Starts `tabletop mat sim` as its own process (the mat is another computer at the table), opens
it with the host driver, fills all 36 slots, then again and again lifts a random card and lays
it back at a random moment, timing the host's `removed` and `placed` events from the moment
the simulator changed the table (it reports time.monotonic(), the same clock on one machine).

    .venv/bin/python bench/mat_latency.py                  # tuned firmware, 200 samples
    .venv/bin/python bench/mat_latency.py --profile plain --samples 30
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time

from tabletop.figures import percentile
from tabletop.hardware.mat import MatDriver
from tabletop.hardware.mat.events import CardEvent, EventKind
from tabletop.rules.games.cards import standard_deck


def histogram(ms: list[float], width: int = 40) -> list[str]:
    """A text histogram of latencies (10 bins), for people who would rather see than read."""
    low, high = min(ms), max(ms)
    step = max((high - low) / 10, 1.0)
    counts = [0] * 10
    for value in ms:
        counts[min(9, int((value - low) / step))] += 1
    most = max(counts)
    lines = []
    for i, count in enumerate(counts):
        bar = "#" * round(width * count / most)
        lines.append(
            f"  {low + i * step:6.0f}-{low + (i + 1) * step:<6.0f} ms {bar:<{width}} {count}"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=("tuned", "plain"), default="tuned")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument(
        "--spread",
        type=float,
        help="seconds over which to spread each lift and lay, so they fall at a random point "
        "of the sweep (default: 0.12 tuned, 2.0 plain: about one sweep)",
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)
    spread = args.spread if args.spread is not None else (0.12 if args.profile == "tuned" else 2.0)
    sim = subprocess.Popen(
        [sys.executable, "-m", "tabletop", "mat", "sim", "--profile", args.profile],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert sim.stdin is not None and sim.stdout is not None

    def command(line: str) -> float:
        sim.stdin.write(line + "\n")
        sim.stdin.flush()
        reply = sim.stdout.readline().strip()
        if not reply.startswith("ok"):
            raise SystemExit(f"simulator refused {line!r}: {reply}")
        return float(reply.rpartition("at=")[2])

    def wait(driver: MatDriver, kind: EventKind, zone: str) -> float:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            event = driver.get_event(0.5)
            if isinstance(event, CardEvent) and event.kind is kind and event.zone == zone:
                return time.monotonic()
        raise SystemExit(f"no {kind.value} event on {zone} within 20 s")

    path = sim.stdout.readline().strip()
    driver = MatDriver(path)
    driver.start()
    laid: list[float] = []
    lifted: list[float] = []
    try:
        cards = [c.code for c in standard_deck(jokers=False)]
        zones = [f"s{seat}.{slot}" for seat in range(1, 7) for slot in range(1, 7)]
        for zone, card in zip(zones, cards, strict=False):
            command(f"place {zone} {card} {rng.choice(['up', 'down'])}")
        for zone in zones:
            wait(driver, EventKind.PLACED, zone)
        print(f"{args.profile}: full mat of 36 cards seen; sampling", file=sys.stderr)
        for sample in range(args.samples):
            index = rng.randrange(len(zones))
            zone = zones[index]
            time.sleep(rng.uniform(0.0, spread))
            at = command(f"remove {zone}")
            lifted.append(wait(driver, EventKind.REMOVED, zone) - at)
            time.sleep(rng.uniform(0.0, spread))
            at = command(f"place {zone} {cards[index]} up")
            laid.append(wait(driver, EventKind.PLACED, zone) - at)
            if (sample + 1) % 25 == 0:
                print(f"  {sample + 1}/{args.samples}", file=sys.stderr)
        stats = driver.stats
    finally:
        driver.close()
        sim.stdin.write("quit\n")
        sim.stdin.close()
        sim.wait(timeout=10)
    for name, values in (("card laid -> placed", laid), ("card lifted -> removed", lifted)):
        ms = [v * 1000 for v in values]
        print(
            f"{args.profile:6} {name:24} n={len(ms):4} p50={percentile(ms, 0.5):6.1f} ms "
            f"p99={percentile(ms, 0.99):6.1f} ms max={max(ms):6.1f} ms "
            f"mean={statistics.fmean(ms):6.1f} ms"
        )
        if name.startswith("card laid"):
            print("\n".join(histogram(ms)))
    print(f"link: {stats.snapshots} snapshots, {stats.gaps} gaps, {stats.requests} resyncs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
