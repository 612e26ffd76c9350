"""Touch -> host event latency, and how finely the table can order two touches (issue 19).

Starts `tabletop mat sim` as its own process (6 seats x 6 slots + pad, its four simulated
MPR121s read by the real driver and firmware), opens it with the host driver, lays a card in
every slot, then again and again touches two random slots `gap` ms apart (a random gap of
0-30 ms) and releases them. For each touch:

* latency: from the simulator's finger landing (its `at=`, time.monotonic()) to the host
  driver receiving the `touch` event (TouchEvent.at, the same clock on one machine);
* ordering error: the mat's timestamps' difference (t_ms B - t_ms A) minus the true gap
  between the two fingers. Its spread is the smallest time difference the table can judge.

With `--mqtt` the bridge carries the driver's events to a private Mosquitto and the arrival is
that of the `mat/event` message at a subscriber instead (the daemon's door).

With `--daemon` the rules daemon reads that table too, playing Six-Gun Showdown with the example
decks laid on seats 1 and 2 (the simulated mat's bundled tags), in the stare down; the touches
land on seat 1's bullets and the arrival is the daemon's decision on the `touch` command the
Showdown reader made of the touch (applied, or refused once a bullet is chosen): touch ->
decision, the path a race's touches take before the defender's turn settles it.

    .venv/bin/python bench/touch_latency.py                 # 200 pairs, to the host driver
    .venv/bin/python bench/touch_latency.py --mqtt          # ... to MQTT mat/event
    .venv/bin/python bench/touch_latency.py --daemon        # ... to the daemon's decision
"""

# The firmware is untyped MicroPython code (pyproject.toml); the modelled loop calls into it.
# mypy: disable-error-code="no-untyped-call"

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import queue
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tabletop.figures import percentile
from tabletop.hardware.mat import MatDriver
from tabletop.hardware.mat.events import TouchEvent
from tabletop.rules.games.cards import standard_deck

# (kind, zone, t_ms, arrival on time.monotonic()) of one touch or release
Arrival = tuple[str, str, int, float]


@contextlib.contextmanager
def driver_arrivals(driver: MatDriver) -> Iterator[queue.Queue[Arrival]]:
    """Touch events as the host driver returns them (TouchEvent.at: when it received them)."""
    arrivals: queue.Queue[Arrival] = queue.Queue()
    stop = threading.Event()
    driver.start()

    def pump() -> None:
        while not stop.is_set():
            event = driver.get_event(0.1)
            if isinstance(event, TouchEvent):
                arrivals.put((event.kind.value, event.zone, event.t_ms, event.at))

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    try:
        yield arrivals
    finally:
        stop.set()
        thread.join(2)
        driver.close()


@contextlib.contextmanager
def mqtt_arrivals(driver: MatDriver) -> Iterator[queue.Queue[Arrival]]:
    """Touch events as `mat/event` messages reach a subscriber: the bridge carries them to a
    private Mosquitto (bench/table_latency.py starts it)."""
    from bench.table_latency import start_mosquitto
    from tabletop.bridge.bridge import Bridge
    from tabletop.hardware.leds import LedConfig, SimulatedLeds
    from tabletop.wire.broker import free_port
    from tabletop.wire.mqtt import BrokerUrl
    from tabletop.wire.topics import TableTopics

    arrivals: queue.Queue[Arrival] = queue.Queue()
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        broker = start_mosquitto(port, Path(folder))
        topic = TableTopics("bench").mat_event
        subscriber = mqtt.Client(CallbackAPIVersion.VERSION2)

        def on_message(_client: Any, _userdata: Any, message: mqtt.MQTTMessage) -> None:
            at = time.monotonic()
            body = json.loads(message.payload)
            if body.get("event") in ("touch", "release"):
                arrivals.put((body["event"], body["zone"], body["t_ms"], at))

        subscriber.on_message = on_message
        subscriber.connect("127.0.0.1", port)
        subscriber.subscribe(topic, qos=1)
        subscriber.loop_start()
        leds = SimulatedLeds(LedConfig(seats=6, test_pattern_seconds=0))
        bridge = Bridge(BrokerUrl("mqtt", "127.0.0.1", port), "bench", driver, leds)
        stop = threading.Event()
        thread = threading.Thread(target=bridge.run, args=(stop,), daemon=True)
        bridge.start()  # and the driver
        thread.start()
        try:
            yield arrivals
        finally:
            stop.set()
            thread.join(5)
            bridge.close()
            subscriber.loop_stop()
            broker.terminate()
            broker.wait(10)


SHOWDOWN_SEATS = ["Ana", "Bo"]


@contextlib.contextmanager
def daemon_decisions(driver: MatDriver) -> Iterator[queue.Queue[Arrival]]:
    """The rules daemon's decisions on the touch commands its Showdown reader makes of the
    mat's touches: the bridge carries them over a private Mosquitto to a RulesDaemon in this
    process; each decision is timed when the referee has decided it (applied or refused)."""
    from bench.table_latency import start_mosquitto
    from tabletop.bridge.bridge import Bridge
    from tabletop.daemon.service import RulesDaemon
    from tabletop.hardware.leds import LedConfig, SimulatedLeds
    from tabletop.wire.broker import free_port
    from tabletop.wire.mqtt import BrokerUrl

    arrivals: queue.Queue[Arrival] = queue.Queue()
    port = free_port()
    url = BrokerUrl("mqtt", "127.0.0.1", port)
    _GAME["url"] = url
    with tempfile.TemporaryDirectory() as folder:
        broker = start_mosquitto(port, Path(folder))
        daemon = RulesDaemon(
            url,
            "bench",
            Path(folder) / "games.sqlite3",
            seats=SHOWDOWN_SEATS,
            grace=0.3,
            game="showdown",
        )
        handle = daemon.referee.handle

        def timed(payload: bytes) -> Any:
            outcome = handle(payload)
            at = time.monotonic()
            command = json.loads(payload)
            if command.get("cmd") == "touch" and isinstance(command.get("at_ms"), int):
                seat = SHOWDOWN_SEATS.index(command["player"]) + 1
                zone = f"s{seat}.{command['slot']}"
                arrivals.put(("touch", zone, command["at_ms"], at))
            return outcome

        daemon.referee.handle = timed  # type: ignore[method-assign]
        daemon.start(timeout=10)
        leds = SimulatedLeds(LedConfig(seats=len(SHOWDOWN_SEATS), test_pattern_seconds=0))
        bridge = Bridge(url, "bench", driver, leds)
        stop = threading.Event()
        threads = [
            threading.Thread(target=daemon.run, args=(stop,), daemon=True),
            threading.Thread(target=bridge.run, args=(stop,), daemon=True),
        ]
        bridge.start()
        for thread in threads:
            thread.start()
        try:
            yield arrivals
        finally:
            if "client" in _GAME:
                _GAME.pop("client").close()
            stop.set()
            for thread in threads:
                thread.join(5)
            bridge.close()
            daemon.close()
            broker.terminate()
            broker.wait(10)


def example_deck(name: str) -> dict[str, Any]:
    """An example Showdown deck file as parsed TOML: what a `new_game` carries as the deck."""
    import tomllib

    path = Path(__file__).resolve().parents[1] / "examples" / "decks" / f"{name}.toml"
    deck: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    return deck


def showdown_bullets() -> list[str]:
    """Six bullets for each seat: Ana's of the example Cowboy deck, Bo's of the Desperado."""
    out = []
    for name in ("cowboy", "desperado"):
        deck = example_deck(name)
        out += [f"{deck['name']}/{card['id']}" for card in deck["cards"][:6]]
    return out


_GAME: dict[str, Any] = {}


def new_showdown() -> None:
    """The game master starts a showdown with the example decks (before the bullets are laid)."""
    from tabletop.daemon.client import TableClient

    client = TableClient(_GAME["url"], "bench")
    client.start(timeout=10)
    players = [
        {"name": name, "deck": example_deck(deck)}
        for name, deck in zip(SHOWDOWN_SEATS, ("cowboy", "desperado"), strict=True)
    ]
    reply = client.send({"cmd": "new_game", "game": "showdown", "players": players})
    if not reply.get("ok"):
        raise SystemExit(f"the daemon refused the new game: {reply}")
    _GAME["client"] = client


def wait_stare_down() -> None:
    """Waits for both players' bullets to be read as loaded (the stare down begins)."""
    client = _GAME["client"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        client.pump(0.05)
        state = client.retained.get(client.state_topic)
        if isinstance(state, dict) and state.get("phase") == "stare_down":
            return
    raise SystemExit("the daemon did not read the bullets as loaded within 30 s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200, help="pairs of touches")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--mqtt", action="store_true", help="time to MQTT mat/event instead")
    parser.add_argument(
        "--daemon", action="store_true", help="time to the rules daemon's decision instead"
    )
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

    def wait_touches(
        arrivals: queue.Queue[Arrival], kind: str, zones: set[str]
    ) -> dict[str, tuple[int, float]]:
        found: dict[str, tuple[int, float]] = {}
        deadline = time.monotonic() + 20
        while set(found) != zones and time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                got, zone, t_ms, at = arrivals.get(timeout=0.5)
                if got == kind and zone in zones:
                    found[zone] = (t_ms, at)
        if set(found) != zones:
            raise SystemExit(f"no {kind} event on {zones - set(found)} within 20 s")
        return found

    def cards_seen(driver: MatDriver) -> int:
        snapshot = driver.session.snapshot
        return sum(z.present for z in snapshot.zones) if snapshot is not None else 0

    path = stdout.readline().strip()
    driver = MatDriver(path)
    latency: list[float] = []
    errors: list[float] = []
    swapped: list[float] = []  # true gaps of the pairs judged tied or in the wrong order
    try:
        cards = [c.code for c in standard_deck(jokers=False)]
        zones = [f"s{seat}.{slot}" for seat in range(1, 7) for slot in range(1, 7)]
        source = mqtt_arrivals(driver) if args.mqtt else driver_arrivals(driver)
        if args.daemon:
            source = daemon_decisions(driver)
            cards = showdown_bullets()
        with source as arrivals:
            if args.daemon:
                new_showdown()
            for zone, card in zip(zones, cards, strict=False):
                command(f"place {zone} {card} down")
            deadline = time.monotonic() + 30
            while cards_seen(driver) < len(cards) and time.monotonic() < deadline:
                time.sleep(0.1)
            if args.daemon:
                zones = zones[:6]  # seat 1's bullets: each touch is Ana's in the stare down
                wait_stare_down()
            print(f"{len(cards)} face-down cards seen; sampling", file=sys.stderr)
            for sample in range(args.samples):
                first, second = rng.sample(zones, 2)
                time.sleep(rng.uniform(0.0, 0.05))  # land at a random point of the scan loop
                at_first = command(f"touch {first}")
                time.sleep(rng.uniform(0.0, 0.03))
                at_second = command(f"touch {second}")
                got = wait_touches(arrivals, "touch", {first, second})
                latency.append((got[first][1] - at_first) * 1000)
                latency.append((got[second][1] - at_second) * 1000)
                judged = got[second][0] - got[first][0]
                true_gap = (at_second - at_first) * 1000
                errors.append(judged - true_gap)
                if judged < 0 or (judged == 0 and true_gap >= 1):
                    swapped.append(true_gap)
                command(f"release {first}")
                command(f"release {second}")
                if args.daemon:
                    time.sleep(0.05)  # a release is no command: let the mat see it
                else:
                    wait_touches(arrivals, "release", {first, second})
                if (sample + 1) % 50 == 0:
                    print(f"  {sample + 1}/{args.samples}", file=sys.stderr)
        stats = driver.stats
    finally:
        driver.close()  # (again, in case the sampling failed)
        stdin.write("quit\n")
        stdin.close()
        sim.wait(timeout=10)
    where = "MQTT mat/event" if args.mqtt else "host driver event"
    where = "the daemon's decision" if args.daemon else where
    print(
        f"touch -> {where}  "
        f"n={len(latency):4} p50={percentile(latency, 0.5):6.1f} ms "
        f"p99={percentile(latency, 0.99):6.1f} ms max={max(latency):6.1f} ms"
    )
    absolute = [abs(e) for e in errors]
    print(
        f"ordering error (judged gap - true gap)  n={len(errors):4} "
        f"min={min(errors):+6.1f} ms p50|e|={percentile(absolute, 0.5):5.1f} ms "
        f"p99|e|={percentile(absolute, 0.99):5.1f} ms max|e|={max(absolute):5.1f} ms; "
        f"tied or swapped: {len(swapped)}, the widest {max(swapped, default=0):.1f} ms apart"
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
    errors_m, misjudged = modelled_ordering(2000, args.seed)
    absolute_m = [float(abs(e)) for e in errors_m]
    print(
        f"modelled ordering error (2000 pairs, 0-30 ms apart): p50|e|="
        f"{percentile(absolute_m, 0.5):.0f} ms p99|e|={percentile(absolute_m, 0.99):.0f} ms "
        f"max|e|={max(absolute_m):.0f} ms; tied or swapped: {len(misjudged)}, the widest "
        f"{max(misjudged, default=0)} ms apart"
    )
    return 0


def modelled_mat() -> tuple[Any, Any, Any, Any]:
    """A full mat (36 cards) in the timing model's virtual time: (clock, table, pads, loop step)."""
    from tabletop.firmware.controller import MatController, ZoneTable
    from tabletop.firmware.mpr121 import ADDRESSES, Mpr121
    from tabletop.firmware.scanner import ZoneScanner
    from tabletop.firmware.simhw import (
        MemoryLink,
        SimCard,
        SimFaceSensors,
        SimMpr121Bus,
        SimRfidBus,
        SimTable,
        VirtualClock,
    )
    from tabletop.firmware.touch import TouchPads, zones_per_chip
    from tabletop.firmware.zones import Layout

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

    def step() -> None:
        # Core 0 scans bus A, then serves the host and polls the pads; bus B runs on core 1
        # in parallel on the device, so only bus A's steps stand between two polls.
        scanners[0].step()
        controller.service()

    return clock, table, pads, step


def modelled_poll_gaps(duration_ms: int) -> list[float]:
    """The gaps between touch polls on core 0 of a full mat, in the timing model's virtual time
    (no host scheduling noise): the firmware's loop as the RP2040 would run it."""
    clock, _table, pads, step = modelled_mat()
    polls: list[float] = []
    original = pads.poll

    def timed_poll(now: int) -> None:
        polls.append(clock.us / 1000)
        original(now)

    pads.poll = timed_poll
    while clock.us < duration_ms * 1000:
        step()
    return [b - a for a, b in itertools.pairwise(polls)][10:]


def modelled_ordering(pairs: int, seed: int) -> tuple[list[int], list[int]]:
    """Two fingers `gap` ms apart (0-30 ms, landing at any millisecond) on a full mat in virtual
    time: returns (errors of the judged gap, true gaps of the pairs judged tied or swapped)."""
    clock, table, pads, step = modelled_mat()
    rng = random.Random(seed)
    collected: list[tuple[int, int, int]] = []
    original = pads.take_events

    def take_events() -> list[tuple[int, int, int]]:
        events: list[tuple[int, int, int]] = original()
        collected.extend(events)
        return events

    pads.take_events = take_events
    errors: list[int] = []
    misjudged: list[int] = []
    for _ in range(pairs):
        first, second = rng.sample(range(36), 2)
        landed = clock.now_ms() + rng.randrange(2, 12)
        gap = rng.randrange(0, 31)
        table.touch(first, True, landed)  # the simulated chip shows it from `landed` + 4 ms
        table.touch(second, True, landed + gap)
        del collected[:]
        while len([e for e in collected if e[1] == 1]) < 2:
            step()
        times = {zone: t_ms for zone, state, t_ms in collected if state == 1}
        judged = times[second] - times[first]
        errors.append(judged - gap)
        if gap > 0 and judged <= 0:
            misjudged.append(gap)
        released = clock.now_ms()
        table.touch(first, False, released)
        table.touch(second, False, released)
        while len([e for e in collected if e[1] == 0]) < 2:
            step()
    return errors, misjudged


if __name__ == "__main__":
    sys.exit(main())
