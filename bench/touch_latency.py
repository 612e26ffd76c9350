"""Touch -> host event latency, and how finely the table can order two touches (issue 19).

Starts `tabletop mat sim` as its own process (6 seats x 6 slots + pad, its four simulated
MPR121s read by the real driver and firmware), opens it with the host driver, lays a card in
every slot, then again and again touches two random slots `gap` ms apart (a random gap of
0-30 ms) and releases them. For each touch:

* latency: from the simulator's finger landing (its `at=`, time.monotonic()) to the host
  driver receiving the `touch` event (TouchEvent.at, the same clock on one machine);
* ordering error: the mat's timestamps' difference (t_ms B - t_ms A) minus the true gap
  between the two fingers. Its spread is the smallest time difference the table can judge.

    .venv/bin/python bench/touch_latency.py                 # 200 pairs
    .venv/bin/python bench/touch_latency.py --samples 50
"""

# The firmware is untyped MicroPython code (pyproject.toml); the modelled loop calls into it.
# mypy: disable-error-code="no-untyped-call"

from __future__ import annotations

import argparse
import itertools
import random
import subprocess
import sys
import time

from hardware.mat import MatDriver
from hardware.mat.events import CardEvent, EventKind, TouchEvent
from rules.cards import standard_deck


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200, help="pairs of touches")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sim = subprocess.Popen(
        [sys.executable, "-m", "tabletop", "mat", "sim"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    stdin, stdout = sim.stdin, sim.stdout
    assert stdin is not None and stdout is not None

    def command(line: str) -> float:
        stdin.write(line + "\n")
        stdin.flush()
        reply = stdout.readline().strip()
        if not reply.startswith("ok"):
            raise SystemExit(f"simulator refused {line!r}: {reply}")
        return float(reply.rpartition("at=")[2])

    def wait_touches(driver: MatDriver, kind: EventKind, zones: set[str]) -> dict[str, TouchEvent]:
        found: dict[str, TouchEvent] = {}
        deadline = time.monotonic() + 20
        while set(found) != zones and time.monotonic() < deadline:
            event = driver.get_event(0.5)
            if isinstance(event, TouchEvent) and event.kind is kind and event.zone in zones:
                found[event.zone] = event
        if set(found) != zones:
            raise SystemExit(f"no {kind.value} event on {zones - set(found)} within 20 s")
        return found

    path = stdout.readline().strip()
    driver = MatDriver(path)
    driver.start()
    latency: list[float] = []
    errors: list[float] = []
    swapped = 0
    try:
        cards = [c.code for c in standard_deck(jokers=False)]
        zones = [f"s{seat}.{slot}" for seat in range(1, 7) for slot in range(1, 7)]
        for zone, card in zip(zones, cards, strict=False):
            command(f"place {zone} {card} down")
        placed = 0
        deadline = time.monotonic() + 30
        while placed < len(zones) and time.monotonic() < deadline:
            event = driver.get_event(0.5)
            placed += isinstance(event, CardEvent) and event.kind is EventKind.PLACED
        print("full mat of 36 face-down cards seen; sampling", file=sys.stderr)
        for sample in range(args.samples):
            first, second = rng.sample(zones, 2)
            time.sleep(rng.uniform(0.0, 0.05))  # land at a random point of the scan loop
            at_first = command(f"touch {first}")
            time.sleep(rng.uniform(0.0, 0.03))
            at_second = command(f"touch {second}")
            events = wait_touches(driver, EventKind.TOUCH, {first, second})
            latency.append((events[first].at - at_first) * 1000)
            latency.append((events[second].at - at_second) * 1000)
            judged = events[second].t_ms - events[first].t_ms
            true_gap = (at_second - at_first) * 1000
            errors.append(judged - true_gap)
            if judged < 0 or (judged == 0 and true_gap >= 1):
                swapped += 1
            command(f"release {first}")
            command(f"release {second}")
            wait_touches(driver, EventKind.RELEASE, {first, second})
            if (sample + 1) % 50 == 0:
                print(f"  {sample + 1}/{args.samples}", file=sys.stderr)
        stats = driver.stats
    finally:
        driver.close()
        stdin.write("quit\n")
        stdin.close()
        sim.wait(timeout=10)
    print(
        f"touch -> host driver event  n={len(latency):4} p50={percentile(latency, 0.5):6.1f} ms "
        f"p99={percentile(latency, 0.99):6.1f} ms max={max(latency):6.1f} ms"
    )
    absolute = [abs(e) for e in errors]
    print(
        f"ordering error (judged gap - true gap)  n={len(errors):4} "
        f"min={min(errors):+6.1f} ms p50|e|={percentile(absolute, 0.5):5.1f} ms "
        f"p99|e|={percentile(absolute, 0.99):5.1f} ms max|e|={max(absolute):5.1f} ms; "
        f"pairs judged in the wrong order or tied: {swapped}"
    )
    print(
        f"touches={stats.touches} touch frames lost={stats.touch_gaps} malformed={stats.malformed}"
    )
    gaps = modelled_poll_gaps(10_000)
    print(
        f"modelled RP2040 loop (virtual time, full mat, 10 s): touch poll every "
        f"p50={percentile(gaps, 0.5):.2f} ms p99={percentile(gaps, 0.99):.2f} ms "
        f"max={max(gaps):.2f} ms (n={len(gaps)})"
    )
    return 0


def modelled_poll_gaps(duration_ms: int) -> list[float]:
    """The gaps between touch polls on core 0 of a full mat, in the timing model's virtual time
    (no host scheduling noise): the firmware's loop as the RP2040 would run it."""
    from firmware.controller import MatController, ZoneTable
    from firmware.mpr121 import ADDRESSES, Mpr121
    from firmware.scanner import ZoneScanner
    from firmware.simhw import (
        MemoryLink,
        SimCard,
        SimFaceSensors,
        SimMpr121Bus,
        SimRfidBus,
        SimTable,
        VirtualClock,
    )
    from firmware.touch import TouchPads, zones_per_chip
    from firmware.zones import Layout

    layout = Layout(6, 6, True)
    clock = VirtualClock()
    table = SimTable(layout.count, miss_rate=0.002)
    for zone in range(36):
        table.place(zone, SimCard(bytes([4, 0, 0, 0, 0, 0, zone])), "down")
    zones = ZoneTable(layout)
    sensors = SimFaceSensors(table, clock)
    scanners = [
        ZoneScanner(SimRfidBus(table, clock, "tuned", seed=i + 5), sensors, z, zones, clock)
        for i, z in enumerate(layout.split(2))
    ]
    wiring = zones_per_chip(layout.count)
    i2c = SimMpr121Bus(table, wiring, clock, clock)
    chips = [Mpr121(i2c, ADDRESSES[i], len(z)) for i, z in enumerate(wiring)]
    pads = TouchPads(chips, wiring)
    controller = MatController(zones, MemoryLink(), clock, 1, scanners, touch=pads)
    controller.start()
    polls: list[float] = []
    original = pads.poll

    def timed_poll(now: int) -> None:
        polls.append(clock.us / 1000)
        original(now)

    pads.poll = timed_poll  # type: ignore[method-assign]
    # Core 0 scans bus A, then serves the host and polls the pads; bus B runs on core 1 in
    # parallel on the device, so only bus A's steps stand between two polls.
    while clock.us < duration_ms * 1000:
        scanners[0].step()
        controller.service()
    return [b - a for a, b in itertools.pairwise(polls)][10:]


if __name__ == "__main__":
    sys.exit(main())
