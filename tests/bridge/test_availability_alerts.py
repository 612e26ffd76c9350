"""The rules daemon's side of `bridge/availability` (docs/mqtt.md): `degraded: ...` names the
bridge's missing parts, which become alerts on table/alert with the bridge's own words."""

from __future__ import annotations

import json

from tabletop.bridge.health import Health, Problem
from tabletop.daemon.table import (
    BRIDGE_GONE_ALERT,
    CAMERA_GONE_ALERT,
    MAT_GONE_ALERT,
    MAT_GONE_ALERT_SECONDS,
    PhysicalTable,
)
from tabletop.rules import games
from tabletop.wire.topics import TableTopics

TOPICS = TableTopics("health")


def _table() -> PhysicalTable:
    return PhysicalTable(TOPICS, ["Ana", "Bo"], 0.3, games.get("sixshooter", "game"))


def _said(table: PhysicalTable, payload: bytes, now: float) -> None:
    table.record(table.message(TOPICS.bridge_availability, payload, None, now))


def _availability(*problems: Problem) -> bytes:
    health = Health()
    for problem in problems:
        health.set(problem.part, problem)
    return health.availability()


CAMERA = Problem("camera", 'camera.source = "usb:0"', "stopped giving frames: check its cable")
MAT = Problem("mat", 'mat.port = "/dev/ttyACM0"', "/dev/ttyACM0 does not exist: plug it in")


def test_the_payload_names_the_missing_parts_in_order_with_their_words() -> None:
    assert _availability() == b"online"
    assert _availability(CAMERA, MAT).decode().splitlines() == [
        "degraded: mat, camera",
        'mat: mat.port = "/dev/ttyACM0": /dev/ttyACM0 does not exist: plug it in',
        'camera: camera.source = "usb:0": stopped giving frames: check its cable',
    ]


def test_a_missing_camera_is_an_alert_at_once_and_clears_when_it_is_back() -> None:
    table = _table()
    _said(table, b"offline", 1.0)
    assert BRIDGE_GONE_ALERT in table.alerts
    _said(table, _availability(CAMERA), 2.0)
    assert BRIDGE_GONE_ALERT not in table.alerts  # the bridge runs
    words = table.alerts[CAMERA_GONE_ALERT].message
    assert "the dice camera is not read" in words and "stopped giving frames" in words
    assert json.dumps(table.alert_payload())  # a table/alert payload like any other
    _said(table, b"online", 3.0)
    assert CAMERA_GONE_ALERT not in table.alerts


def test_a_missing_mat_is_said_in_the_bridges_words_after_the_grace() -> None:
    table = _table()
    _said(table, _availability(MAT), 1.0)
    assert MAT_GONE_ALERT not in table.alerts  # a cable re-seated is no alarm
    table.record(table.tick_mat(1.0 + MAT_GONE_ALERT_SECONDS))
    words = table.alerts[MAT_GONE_ALERT].message
    assert "sensor mat is not connected" in words and "/dev/ttyACM0 does not exist" in words
    _said(table, b"online", 9.0)
    table.record(table.tick_mat(9.5))
    assert MAT_GONE_ALERT in table.alerts  # only the mat's own snapshot says it is back
    snapshot = {"v": 1, "bridge": "b1", "seq": 1, "connected": True, "zones": {}}
    table.record(table.message(TOPICS.mat_snapshot, json.dumps(snapshot).encode(), None, 10.0))
    assert MAT_GONE_ALERT not in table.alerts


def test_a_payload_of_nothing_known_changes_nothing() -> None:
    table = _table()
    _said(table, _availability(CAMERA), 1.0)
    for payload in (b"", b"\xff\xfe", b"sleeping", b"degraded"):
        _said(table, payload, 2.0)
    assert CAMERA_GONE_ALERT in table.alerts
