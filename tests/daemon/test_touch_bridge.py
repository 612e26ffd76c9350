"""Touches on the simulated mat (real firmware behind a pty) -> bridge -> MQTT `mat/event`."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from daemon_helpers import Broker, client

from tabletop.bridge.bridge import Bridge
from tabletop.hardware.leds import LedConfig, SimulatedLeds
from tabletop.hardware.mat import open_mat
from tabletop.hardware.mat.sim import SimulatedMat


def test_touches_are_published_on_mat_event_with_the_mats_time(broker: Broker, table: str) -> None:
    with client(broker.url, table) as watcher:
        topic = watcher.topics.mat_event
        probe = f"{watcher.topics.root}/test/probe"
        watcher.link.subscribe(topic)
        watcher.link.subscribe(probe)
        seen: list[dict[str, Any]] = []

        def wait_for(kind: str, timeout: float = 10.0) -> dict[str, Any]:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                for body in seen:
                    if body.get("event") == kind:
                        seen.remove(body)
                        return body
                message = watcher.pump(0.05)
                if message is not None and message.topic in (topic, probe):
                    seen.append(json.loads(message.payload))
            raise AssertionError(f"no {kind} on {topic} in {timeout} s; saw {seen}")

        # The broker takes subscriptions in order: once the probe comes back, mat/event's is on,
        # so the bridge's link_up cannot pass before it.
        watcher.link.publish(probe, b'{"event": "probe"}')
        wait_for("probe")
        mat = open_mat("sim:?seats=2&slots=6&pad=1")
        leds = SimulatedLeds(LedConfig(seats=2, test_pattern_seconds=0))
        bridge = Bridge(broker.url, table, mat, leds)
        stop = threading.Event()
        thread = threading.Thread(target=bridge.run, args=(stop,))
        bridge.start()
        thread.start()
        try:
            up = wait_for("link_up")
            assert up["touch_zones"] == 13  # 2 seats x 6 slots and the pad
            sim = mat.simulator
            assert isinstance(sim, SimulatedMat)
            before = sim.touch_ms()
            sim.touch("s2.5")
            touch = wait_for("touch")
            assert touch["zone"] == "s2.5" and touch["v"] == 1 and touch["bridge"]
            assert touch["boot_id"] == up["boot_id"] and touch["t_ms"] >= before
            sim.release("s2.5")
            release = wait_for("release")
            assert release["zone"] == "s2.5" and release["t_ms"] > touch["t_ms"]
            assert release["seq"] > touch["seq"]
        finally:
            stop.set()
            thread.join(5)
            bridge.close()
