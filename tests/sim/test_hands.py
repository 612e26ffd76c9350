"""The simulated people's hands on the simulated mat, through a real pty: a finger on a touch
pad is felt however busy the host is (issue 52: under heavy load a whole simulated Showdown
could lose a touch, lifted on the real clock before the mat's firmware had polled once)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabletop.hardware.mat import MatDriver, MatLayout
from tabletop.hardware.mat.events import EventKind, LinkEvent, TouchEvent
from tabletop.hardware.mat.sim import SimulatedMat
from tabletop.sim.runner import TOUCH_S, MatHands


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[SimulatedMat, MatDriver]]:
    mat = SimulatedMat(MatLayout(2, 3, True), link_dir=str(tmp_path), miss_rate=0.0)
    driver = MatDriver(mat.start())
    driver.start()
    try:
        assert isinstance(next_event(driver, LinkEvent), LinkEvent)
        yield mat, driver
    finally:
        driver.close()
        mat.stop()


def next_event(driver: MatDriver, kind: type[Any], timeout: float = 30.0) -> Any:
    """The driver's next event of `kind`; the timeout is only a safety net."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = driver.get_event(0.05)
        if isinstance(event, kind):
            return event
    raise AssertionError(f"no {kind.__name__} in {timeout} s")


def test_a_finger_stays_on_the_pad_until_the_mats_firmware_has_polled_it(
    rig: tuple[SimulatedMat, MatDriver],
) -> None:
    mat, driver = rig
    assert mat.controller is not None and mat.controller.touch is not None
    pads = mat.controller.touch
    running = threading.Event()  # clear: the host is too busy for the firmware's loop to run
    poll = pads.poll

    def starved(now: int) -> None:
        running.wait()
        poll(mat.touch_ms())

    pads.poll = starved  # the firmware's loop stops in its next poll, as on a starved host
    hands = MatHands(mat, dice=None, moved=lambda kind: None)  # type: ignore[arg-type]
    hands.touch(0, 1)
    time.sleep(4 * TOUCH_S)  # the starved spell: longer than a finger rests on a pad
    running.set()
    touched = next_event(driver, TouchEvent)
    assert (touched.kind, touched.zone) == (EventKind.TOUCH, "s1.1")
    released = next_event(driver, TouchEvent)
    assert (released.kind, released.zone) == (EventKind.RELEASE, "s1.1")
    assert released.t_ms > touched.t_ms
