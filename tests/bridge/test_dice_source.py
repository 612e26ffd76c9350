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


def test_a_settled_throw_comes_with_its_annotated_picture() -> None:
    from bridge.dice import PICTURE

    events = list(camera_throws("sim:?throws=1&seed=3&hand=0", None)(threading.Event()))
    rolled = [event for event in events if event["event"] == "rolled"]
    assert rolled and all(event[PICTURE].startswith(b"\xff\xd8\xff") for event in rolled)
    assert all(PICTURE not in event for event in events if event["event"] == "rolling")
