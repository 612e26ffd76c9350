"""The bridge's dice source: the configured camera read by the vision pipeline."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import numpy as np
import pytest

from tabletop.bridge.dice import camera_throws
from tabletop.vision.calibration import calibrate


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
    from tabletop.bridge.dice import PICTURE

    events = list(camera_throws("sim:?throws=1&seed=3&hand=0", None)(threading.Event()))
    rolled = [event for event in events if event["event"] == "rolled"]
    assert rolled and all(event[PICTURE].startswith(b"\xff\xd8\xff") for event in rolled)
    assert all(PICTURE not in event for event in events if event["event"] == "rolling")


def test_a_calibration_of_other_frames_reads_uncalibrated_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A camera set to another resolution since it was calibrated: the camera reads on, and
    the log says why it reads uncalibrated and what to do (it used to stop the camera)."""
    small = np.full((240, 320, 3), 150, np.uint8)
    path = tmp_path / "dice-calibration.json"
    calibrate([small]).save(path)
    with caplog.at_level(logging.WARNING, logger="tabletop.bridge.dice"):
        events = list(camera_throws("sim:?throws=2&seed=3&hand=0", str(path))(threading.Event()))
    assert len([event for event in events if event["event"] == "rolled"]) == 2
    said = [r.getMessage() for r in caplog.records if "uncalibrated" in r.getMessage()]
    assert len(said) == 1 and "640x480" in said[0] and "320x240" in said[0]


def test_a_broken_calibration_file_reads_uncalibrated_and_names_the_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "dice-calibration.json"
    path.write_text('{"version": 2, "width": 640}')
    with caplog.at_level(logging.WARNING, logger="tabletop.bridge.dice"):
        events = list(camera_throws("sim:?throws=1&seed=3&hand=0", str(path))(threading.Event()))
    assert [event["event"] for event in events].count("rolled") == 1
    said = " ".join(r.getMessage() for r in caplog.records)
    assert str(path) in said and "missing key 'height'" in said and "uncalibrated" in said
