"""The bridge's dice source: the configured camera read by the vision pipeline."""

from __future__ import annotations

import threading

from bridge.dice import camera_throws


def test_rendered_throws_come_out_as_rolled_events() -> None:
    throws = camera_throws("sim:?throws=2&seed=3&hand=0", None)
    events = list(throws(threading.Event()))
    rolled = [event for event in events if event["event"] == "rolled"]
    assert len(rolled) == 2
    assert all(event["v"] == 1 and len(event["values"]) == 1 for event in rolled)
    assert all(1 <= event["values"][0] <= 6 for event in rolled)


def test_a_stopped_bridge_stops_reading_the_camera() -> None:
    stop = threading.Event()
    stop.set()
    assert list(camera_throws("sim:?throws=2&seed=3", None)(stop)) == []
