"""No silent wait: a table that has waited too long for someone says so, and who (issue 30)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from daemon_helpers import QuietLink

from tabletop.daemon.server import TableOptions, TableServer
from tabletop.daemon.store import LogDatabase
from tabletop.daemon.table import BRIDGE_GONE_ALERT, MAT_GONE_ALERT
from tabletop.daemon.waits import (
    DEFAULT_PATIENCE_S,
    WAIT_ALERT,
    WaitWatch,
    patience_scaled,
    wait_words,
)
from tabletop.rules.games.game import WaitKind
from tabletop.rules.games.reading import Alert, AlertCleared
from tabletop.wire.mqtt import Message
from tests.showdown.helpers import new_game as showdown_new_game

PROMPT = {
    "waiting": "card",
    "who": ["Ana"],
    "prompt": "round 1: Ana, lay 6 bullets face down in your slots",
}


def test_the_wait_alert_names_who_and_what_once_the_patience_runs_out() -> None:
    watch = WaitWatch({WaitKind.CARD: 60.0})
    assert watch.check(PROMPT, 5, 100.0) == []
    assert watch.check(PROMPT, 5, 159.0) == []
    [alert] = watch.check(PROMPT, 5, 160.0)
    assert isinstance(alert, Alert) and alert.key == WAIT_ALERT
    assert alert.message.startswith("the table has waited over 60 s for Ana (a card laid")
    assert "round 1: Ana, lay 6 bullets face down in your slots" in alert.message
    assert "lift the card and lay it again" in alert.message
    # Not every second (screens would keep redrawing), but again each whole minute more.
    assert watch.check(PROMPT, 5, 219.0) == []
    [again] = watch.check(PROMPT, 5, 220.0)
    assert isinstance(again, Alert) and "waited over 2 min for Ana" in again.message
    assert watch.check(PROMPT, 5, 221.0) == []
    assert watch.raised


def test_any_applied_command_or_a_new_prompt_clears_the_wait() -> None:
    watch = WaitWatch({WaitKind.CARD: 60.0})
    watch.check(PROMPT, 5, 0.0)
    assert watch.check(PROMPT, 5, 61.0) != []
    assert watch.check(PROMPT, 6, 62.0) == [AlertCleared(WAIT_ALERT)]  # someone moved
    assert watch.check(PROMPT, 6, 100.0) == []  # and the clock starts again
    assert watch.check(PROMPT, 6, 122.0) != []
    moved_on = {**PROMPT, "who": ["Bo"]}
    assert watch.check(moved_on, 6, 123.0) == [AlertCleared(WAIT_ALERT)]


def test_nothing_awaited_is_never_a_wait() -> None:
    watch = WaitWatch()
    nothing = {"waiting": "nothing", "who": [], "prompt": "no game"}
    watch.check(nothing, 0, 0.0)
    assert watch.check(nothing, 0, 10_000.0) == []
    assert watch.check({"waiting": "bogus"}, 0, 10_000.0) == []  # an unknown kind: no guess


def test_the_words_fit_each_kind() -> None:
    dice = wait_words({"waiting": "dice", "who": ["Bo"], "prompt": "Bo throws"}, 90)
    assert dice.startswith("the table has waited over 90 s for Bo (a throw of the dice)")
    assert "the camera did not read them" in dice
    gm = wait_words({"waiting": "game_master", "who": [], "prompt": ""}, 300)
    assert gm.startswith("the table has waited over 5 min for the game master")


def test_the_simulated_tables_patience_is_scaled_but_never_under_ten_seconds() -> None:
    scaled = patience_scaled(10)
    assert scaled[WaitKind.CARD] == DEFAULT_PATIENCE_S[WaitKind.CARD] / 10
    assert scaled[WaitKind.DICE] == 10.0
    with pytest.raises(ValueError, match="scale"):
        patience_scaled(0)


def _server(tmp_path: Path, patience: dict[WaitKind, float]) -> TableServer:
    database = LogDatabase(tmp_path / "log.db")
    database.open()
    options = TableOptions(("Ana", "Bo"), 0.3, "showdown", None, patience)
    server = TableServer("t1", QuietLink(), database, "full", options)  # type: ignore[arg-type]
    server.load()
    return server


def test_a_table_waiting_for_a_load_raises_the_wait_alert_on_table_alert(tmp_path: Path) -> None:
    server = _server(tmp_path, {WaitKind.CARD: 30.0})
    new_game = {"v": 1, "id": "g1", "game": "showdown", **showdown_new_game()}
    server.decide([Message(server.topics.command, json.dumps(new_game).encode())], 1.0)
    assert server.outcomes and server.outcomes[0].ok, server.outcomes[0].reply
    server.decide([], 2.0)
    assert server.physical is not None
    assert WAIT_ALERT not in server.physical.alerts
    server.decide([], 40.0)
    alert = server.physical.alerts[WAIT_ALERT]
    assert alert.message.startswith("the table has waited over 30 s for Ana and Bo (a card")
    payload = server.physical.alert_payload()
    assert [a["key"] for a in payload["alerts"]] == [WAIT_ALERT]


def test_a_bridge_gone_or_a_mat_unplugged_is_said_until_it_is_back(tmp_path: Path) -> None:
    server = _server(tmp_path, {})
    table = server.physical
    assert table is not None
    topics = server.topics
    server.decide([Message(topics.bridge_availability, b"offline")], 1.0)
    assert "bridge went offline" in table.alerts[BRIDGE_GONE_ALERT].message
    snapshot = {"v": 1, "bridge": "b1", "seq": 1, "connected": False, "zones": {}}
    server.decide([Message(topics.mat_snapshot, json.dumps(snapshot).encode())], 2.0)
    assert BRIDGE_GONE_ALERT not in table.alerts  # the bridge speaks again
    assert MAT_GONE_ALERT not in table.alerts  # a bridge starting, a cable re-seated: no alarm
    server.decide([], 6.0)
    assert "sensor mat is not connected" in table.alerts[MAT_GONE_ALERT].message
    snapshot = {**snapshot, "seq": 2, "connected": True}
    server.decide([Message(topics.mat_snapshot, json.dumps(snapshot).encode())], 3.0)
    assert MAT_GONE_ALERT not in table.alerts
