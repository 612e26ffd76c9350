"""The daemon on the wire: bad input, repeated ids, retained views and availability."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from daemon_helpers import (
    ROSTER,
    AmqttBroker,
    Broker,
    Mosquitto,
    client,
    payloads,
    pump_until,
    running_daemon,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.daemon.referee import NOT_READ, Outcome
from tabletop.wire.mqtt import MqttLink, NotConnected, parse_broker_url
from tabletop.wire.payload import MAX_PAYLOAD_BYTES


def test_bad_input_gets_a_reply_naming_the_problem_and_the_daemon_goes_on(
    broker: Broker, table: str, db: Path
) -> None:
    with running_daemon(broker.url, table, db), client(broker.url, table) as gm:
        assert gm.send(ROSTER)["ok"]
        gm.sync()
        before = gm.state()
        bad = [
            {"cmd": "roll", "value": "six"},
            {"cmd": "teleport"},
            {"cmd": "reveal", "player": "Zed", "slot": 1},
            {"cmd": "reveal", "player": "Ana", "slot": 9},
            {"cmd": "roll", "value": 3, "v": 99},
        ]
        replies = [gm.send(command) for command in bad]
        assert [r["ok"] for r in replies] == [False] * len(bad)
        assert "roll.value: expected an integer" in replies[0]["error"]
        assert "unknown command 'teleport'" in replies[1]["error"]
        assert replies[2]["rule"] == "players"
        assert replies[2]["error"].startswith("there is no player named Zed at this table")
        # no id, not JSON, oversized: a reply with id null (and a warning in the log)
        gm.send_raw(b"\x00garbage")
        gm.send_raw(b"{" + b" " * MAX_PAYLOAD_BYTES + b"}")
        pump_until(gm, lambda: len(gm.replies) >= 8, 5, "the replies to payloads without id")
        assert {r["kind"] for r in gm.replies[-2:]} == {"invalid", "too_large"}
        assert all(r["id"] is None for r in gm.replies[-2:])
        assert gm.send({"cmd": "reveal", "player": "Ana", "slot": 2})["ok"], "daemon is alive"
        gm.sync()
        after = gm.state()
        assert [e["line"] for e in after["rejected"]] == list(range(2, 9))
        assert after["players"][1] == before["players"][1]


def test_a_repeated_id_gets_the_same_reply_and_is_applied_once(
    broker: Broker, table: str, db: Path
) -> None:
    with running_daemon(broker.url, table, db), client(broker.url, table, True) as gm:
        first = gm.send({**ROSTER, "id": "roster-1"})
        gm.sync()
        events = len(gm.events)
        again = gm.send({**ROSTER, "id": "roster-1"})
        gm.sync()
        assert again == {**first, "duplicate": True}
        assert len(gm.events) == events
        assert gm.state()["rejected"] == []


def test_late_subscribers_find_the_state_prompt_and_availability_retained(
    broker: Broker, table: str, db: Path
) -> None:
    with running_daemon(broker.url, table, db) as daemon:
        with client(broker.url, table) as gm:
            gm.send(ROSTER)
            gm.sync()
        with client(broker.url, table) as late:
            assert late.state() == daemon.daemon.referee.state_json()
            prompt = late.wait_for(late.topics.prompt)
            assert prompt["pending"]["type"] == "reveal"
            assert prompt["prompt"] == "Ana and Bo: turn one card of your choice face-up"
            assert late.wait_for(late.topics.rules_availability) == "online"
    with client(broker.url, table) as after:
        topic = after.topics.rules_availability
        pump_until(after, lambda: after.retained.get(topic) == "offline", 5, "offline on stop")


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(batch=st.lists(payloads, min_size=1, max_size=6))
def test_fuzzed_payloads_over_mqtt_leave_the_daemon_answering(
    fuzz_daemon: tuple[Broker, str], batch: list[bytes]
) -> None:
    broker, table = fuzz_daemon
    with client(broker.url, table) as gm:
        for payload in batch:
            gm.send_raw(payload)
        marker = f"alive-{uuid.uuid4().hex}"
        reply = gm.send({"cmd": "roll", "value": 1, "id": marker}, timeout=10)
        assert reply["id"] == marker and "ok" in reply
        state = gm.state()
        json.dumps(state)  # the retained state is still one JSON document
        assert state["phase"] in (None, "setup", "play", "between_adventures", "finished")


def test_credentials_in_the_broker_url_log_in_and_wrong_ones_say_so(
    tmp_path: Path, table: str, db: Path
) -> None:
    broker = Mosquitto(tmp_path, users={"table": "s3cret pass"})
    broker.start()
    try:
        good = parse_broker_url(f"mqtt://table:s3cret%20pass@127.0.0.1:{broker.port}")
        with running_daemon(good, table, db), client(good, table) as gm:
            assert gm.send(ROSTER)["ok"]
        bad = parse_broker_url(f"mqtt://table:wrong@127.0.0.1:{broker.port}")
        link = MqttLink(bad, "intruder")
        with pytest.raises(NotConnected, match=r"refused it .*[Nn]ot authori[sz]ed"):
            link.start(timeout=1)
        link.stop()
    finally:
        broker.stop()


def test_a_bug_in_a_batch_is_logged_and_the_table_goes_on(
    amqtt: AmqttBroker,
    table: str,
    db: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with running_daemon(amqtt.url, table, db) as daemon, client(amqtt.url, table) as gm:
        assert gm.send(ROSTER)["ok"]
        real_handle = daemon.daemon.referee.handle

        def handle(payload: bytes, read: Any = NOT_READ) -> Outcome:
            if b"boom" in payload:
                raise RuntimeError("a bug")
            return real_handle(payload, read)

        monkeypatch.setattr(daemon.daemon.referee, "handle", handle)
        gm.send_raw(b'{"cmd": "boom"}')
        reply = gm.send({"cmd": "reveal", "player": "Ana", "slot": 2})
        assert reply["ok"] and reply["seq"] == 2
    assert any("failed" in r.getMessage() and r.exc_info for r in caplog.records)
