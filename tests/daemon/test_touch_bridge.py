"""Touches on the simulated mat (real firmware behind a pty) -> bridge -> MQTT `mat/event`."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from daemon_helpers import Broker, client

from bridge.bridge import Bridge
from hardware.leds import LedConfig, SimulatedLeds
from hardware.mat import open_mat
from hardware.mat.sim import SimulatedMat


def test_touches_are_published_on_mat_event_with_the_mats_time(broker: Broker, table: str) -> None:
    mat = open_mat("sim:?seats=2&slots=6&pad=1")
    bridge = Bridge(
        broker.url, table, mat, SimulatedLeds(LedConfig(seats=2, test_pattern_seconds=0))
    )
    stop = threading.Event()
    thread = threading.Thread(target=bridge.run, args=(stop,))
    bridge.start()
    thread.start()
    try:
        with client(broker.url, table) as watcher:
            topic = watcher.topics.mat_event
            watcher.link.subscribe(topic)
            seen: list[dict[str, Any]] = []

            def wait_for(kind: str, timeout: float = 10.0) -> dict[str, Any]:
                deadline = time.monotonic() + timeout
                while time.monotonic() < deadline:
                    for body in seen:
                        if body.get("event") == kind:
                            seen.remove(body)
                            return body
                    message = watcher.pump(0.05)
                    if message is not None and message.topic == topic:
                        seen.append(json.loads(message.payload))
                raise AssertionError(f"no {kind} on {topic} in {timeout} s; saw {seen}")

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
