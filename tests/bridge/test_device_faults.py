"""The bridge says what is wrong with a part, in one line, and keeps trying it (issue 46 item 2,
issue 51 item 3): a mat port that is not there, a camera that runs dry, a broker that is not
up or refuses the login. Real parts: the simulated mat's pty, a folder camera, Mosquitto, the
rules daemon that turns the bridge's availability into an alert on table/alert."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tabletop.bridge import dice as bridge_dice
from tabletop.bridge.bridge import Bridge
from tabletop.bridge.dice import camera_throws
from tabletop.bridge.health import CameraStatus
from tabletop.daemon.table import CAMERA_GONE_ALERT, MAT_GONE_ALERT
from tabletop.hardware.leds import LedConfig, SimulatedLeds
from tabletop.hardware.mat import open_mat
from tabletop.hardware.mat.sim import SimulatedMat
from tabletop.wire.broker import free_port
from tabletop.wire.mqtt import BrokerUrl, Message, MqttLink
from tabletop.wire.topics import TableTopics
from tests.daemon.daemon_helpers import DaemonThread, Mosquitto

DEADLINE_S = 40.0  # a safety net: every wait ends when its condition holds


@pytest.fixture
def quick_reopen(monkeypatch: pytest.MonkeyPatch) -> None:
    """A camera opened again every 0.2 s, not from 1 s backing off to 30 s."""
    monkeypatch.setattr(bridge_dice, "REOPEN_S", 0.2)
    monkeypatch.setattr(bridge_dice, "REOPEN_MOST_S", 0.2)


def wait_for(check: Callable[[], bool], what: str, pump: Callable[[], None] | None = None) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {DEADLINE_S} s waiting for {what}")
        if pump is not None:
            pump()
        else:
            time.sleep(0.02)


@dataclass
class TableWatch:
    """What a display sees: every bridge/availability and table/alert payload, in order."""

    link: MqttLink
    topics: TableTopics
    availability: list[bytes] = field(default_factory=list)
    alerts: list[dict[str, Any]] = field(default_factory=list)

    def pump(self) -> None:
        item = self.link.get(timeout=0.05)
        if isinstance(item, Message):
            if item.topic == self.topics.bridge_availability:
                self.availability.append(item.payload)
            elif item.topic == self.topics.table_alert and item.payload:
                self.alerts.append(json.loads(item.payload))

    def alert(self, key: str) -> str | None:
        """The words of alert `key` in the latest table/alert, if it is up."""
        if not self.alerts:
            return None
        found = [a["message"] for a in self.alerts[-1]["alerts"] if a["key"] == key]
        return found[0] if found else None


@pytest.fixture
def watch(mosquitto: Mosquitto, request: pytest.FixtureRequest) -> Iterator[TableWatch]:
    topics = TableTopics(request.node.name.replace("test_", "")[:40].replace("_", "-"))
    link = MqttLink(
        mosquitto.url,
        f"test-watch-{topics.table}",
        subscriptions=[(topics.bridge_availability, 1), (topics.table_alert, 1)],
    )
    link.start()
    yield TableWatch(link, topics)
    link.stop()


@contextlib.contextmanager
def running(url: BrokerUrl, table: str, mat: Any, **options: Any) -> Iterator[Bridge]:
    leds = SimulatedLeds(LedConfig(seats=2, test_pattern_seconds=0))
    running_bridge = Bridge(url, table, mat, leds, **options)
    stop = threading.Event()
    thread = threading.Thread(target=running_bridge.run, args=(stop,), name="test-bridge")
    running_bridge.start(timeout=None)
    thread.start()
    try:
        yield running_bridge
    finally:
        stop.set()
        thread.join(10)
        running_bridge.close()


def said(caplog: pytest.LogCaptureFixture, *words: str) -> list[str]:
    """The bridge's log lines holding every one of `words`."""
    lines = [r.getMessage() for r in caplog.records if r.name == "tabletop.bridge.bridge"]
    return [line for line in lines if all(word in line for word in words)]


def test_a_mat_port_that_is_not_there_is_named_and_waited_for(
    mosquitto: Mosquitto, watch: TableWatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The mat's device is gone (unplugged before the bridge starts): one line naming the port
    as missing, `degraded: mat` on the availability, the alert at the table with the same
    words; plugged in, the bridge opens it and says it is back."""
    table = watch.topics.table
    simulator = SimulatedMat.from_url("sim:?seats=2&slots=1")
    path = simulator.start()
    simulator.unplug()  # the path is gone
    daemon = DaemonThread(mosquitto.url, table, tmp_path / "db", seats=["Ana", "Bo"], grace=0.3)
    daemon.start()
    try:
        with (
            caplog.at_level(logging.WARNING, logger="tabletop.bridge.bridge"),
            running(mosquitto.url, table, open_mat(path)),
        ):
            wait_for(lambda: bool(said(caplog, "mat (", "does not exist")), "the mat's line")
            line = said(caplog, "mat (", "does not exist")[0]
            assert f'mat.port = "{path}"' in line and "trying again" in line
            wait_for(
                lambda: any(p.startswith(b"degraded: mat") for p in watch.availability),
                "degraded: mat",
                watch.pump,
            )
            wait_for(lambda: watch.alert(MAT_GONE_ALERT) is not None, "the alert", watch.pump)
            assert f"{path}: it does not exist" in (watch.alert(MAT_GONE_ALERT) or "")
            simulator.replug()
            wait_for(lambda: watch.availability[-1] == b"online", "online again", watch.pump)
            wait_for(lambda: watch.alert(MAT_GONE_ALERT) is None, "the alert cleared", watch.pump)
            assert said(caplog, "mat is back")
            assert len(said(caplog, "does not exist")) == 1  # said once, not at every retry
    finally:
        daemon.stop()
        simulator.stop()


def _pictures(folder: Path, names: list[str]) -> None:
    """An empty tray, as a camera pointed at it sees it."""
    for name in names:
        cv2.imwrite(str(folder / name), np.full((120, 160, 3), 110, np.uint8))


def test_a_camera_that_stops_giving_frames_is_said_and_opened_again(
    mosquitto: Mosquitto,
    watch: TableWatch,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    quick_reopen: None,
) -> None:
    """A folder camera that runs dry stands for a bumped USB cable: the line, `degraded:
    camera`, the alert; new pictures in the folder are a camera back, said and read."""
    table = watch.topics.table
    shots = tmp_path / "shots"
    shots.mkdir()
    _pictures(shots, ["a.png", "b.png", "c.png"])
    status = CameraStatus()
    setting = f'camera.source = "folder:{shots}"'
    dice = camera_throws(f"folder:{shots}", None, status=status, setting=setting)
    daemon = DaemonThread(mosquitto.url, table, tmp_path / "db", seats=["Ana", "Bo"], grace=0.3)
    daemon.start()
    mat = open_mat("sim:?seats=2&slots=1")
    try:
        with (
            caplog.at_level(logging.WARNING, logger="tabletop.bridge.bridge"),
            running(mosquitto.url, table, mat, dice=dice, camera=status),
        ):
            wait_for(lambda: bool(said(caplog, "stopped giving frames")), "the camera's line")
            assert setting in said(caplog, "stopped giving frames")[0]
            wait_for(
                lambda: any(p.startswith(b"degraded: camera") for p in watch.availability),
                "degraded: camera",
                watch.pump,
            )
            wait_for(lambda: watch.alert(CAMERA_GONE_ALERT) is not None, "alert", watch.pump)
            assert "the dice camera is not read" in (watch.alert(CAMERA_GONE_ALERT) or "")
            seen = len(watch.availability)
            _pictures(shots, ["d.png", "e.png"])  # the cable is back in
            wait_for(lambda: bool(said(caplog, "camera is back")), "the camera back")
            wait_for(lambda: b"online" in watch.availability[seen:], "online again", watch.pump)
    finally:
        daemon.stop()


def test_a_broker_that_is_not_up_is_said_and_waited_for(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    port = free_port()
    url = BrokerUrl("mqtt", "127.0.0.1", port)
    with (
        caplog.at_level(logging.WARNING, logger="tabletop.bridge.bridge"),
        running(url, "nobroker", open_mat("sim:?seats=2&slots=1")) as bridge,
    ):
        wait_for(lambda: bool(said(caplog, f"nothing listens on 127.0.0.1:{port}")), "the line")
        assert said(caplog, "broker (broker mqtt://127.0.0.1", "start the broker")
        broker = Mosquitto(tmp_path, port=port)
        broker.start()
        try:
            wait_for(lambda: bool(said(caplog, "broker is back")), "the broker back")
            assert bridge.link.is_connected
        finally:
            broker.stop()


def test_a_refused_login_is_said_with_where_to_fix_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broker = Mosquitto(tmp_path, users={"bridge": "right"})
    broker.start()
    try:
        url = broker.url.with_login("bridge", "wrong")
        with (
            caplog.at_level(logging.WARNING, logger="tabletop.bridge.bridge"),
            running(url, "refused", open_mat("sim:?seats=2&slots=1")),
        ):
            wait_for(lambda: bool(said(caplog, "refused the bridge's login")), "the line")
            line = said(caplog, "refused the bridge's login")[0]
            assert "[broker.bridge]" in line and "password_file" in line
            assert "wrong" not in line  # no password in the log
    finally:
        broker.stop()


def test_a_mat_unplugged_while_running_is_said_and_found_again(
    mosquitto: Mosquitto, watch: TableWatch, caplog: pytest.LogCaptureFixture
) -> None:
    simulator = SimulatedMat.from_url("sim:?seats=2&slots=1")
    path = simulator.start()
    try:
        with (
            caplog.at_level(logging.WARNING, logger="tabletop.bridge.bridge"),
            running(mosquitto.url, watch.topics.table, open_mat(path)) as bridge,
        ):
            wait_for(lambda: bridge.mat.connected, "the mat up")
            simulator.unplug()  # the cable is pulled
            wait_for(
                lambda: any(p.startswith(b"degraded: mat") for p in watch.availability),
                "degraded: mat",
                watch.pump,
            )
            assert said(caplog, "mat (", path)
            simulator.replug()
            wait_for(lambda: bool(said(caplog, "mat is back")), "the mat back")
            wait_for(lambda: watch.availability[-1] == b"online", "online again", watch.pump)
    finally:
        simulator.stop()


def test_a_port_where_no_mat_answers_is_told_apart_from_a_missing_one(
    mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    """A pty with nothing behind it stands for a Pico without the firmware, or another
    device's port: it opens, but no HELLO comes."""
    controller, device = os.openpty()
    try:
        path = os.ttyname(device)
        with (
            caplog.at_level(logging.WARNING, logger="tabletop.bridge.bridge"),
            running(mosquitto.url, "silent", open_mat(path)),
        ):
            wait_for(lambda: bool(said(caplog, "no mat answers")), "the line")
            line = said(caplog, "no mat answers")[0]
            assert path in line and "firmware" in line and "does not exist" not in line
    finally:
        os.close(controller)
        os.close(device)


def test_a_webcam_that_is_not_there_is_said_and_tried_again(quick_reopen: None) -> None:
    status = CameraStatus()
    stop = threading.Event()
    dice = camera_throws("usb:/dev/video-not-here", None, status=status, setting="camera.source")
    thread = threading.Thread(target=lambda: list(dice(stop)), name="test-camera")
    thread.start()
    try:
        changes: list[Any] = []

        def told() -> bool:
            changes.extend(status.changes())
            return bool(changes)

        wait_for(told, "the camera's line")
        assert changes[0].part == "camera" and "cannot open camera" in changes[0].what
        assert "plug the webcam in" in changes[0].what and status.live
    finally:
        stop.set()
        thread.join(10)
    assert not thread.is_alive()


def test_a_live_camera_that_hangs_is_said_to_have_stopped() -> None:
    now = [100.0]
    status = CameraStatus(clock=lambda: now[0])
    status.live = True
    status.frame()
    now[0] += 5
    status.stalled(10.0, "camera.source")
    assert status.changes() == []  # 5 s without a frame: a busy reader, not a dead camera
    now[0] += 6
    status.stalled(10.0, "camera.source")
    (change,) = status.changes()
    assert change is not None and "no frame for 11 s" in change.what
    status.frame()
    assert status.changes() == [None]  # it gave a frame: back
