"""The table on a second broker implementation: RabbitMQ's MQTT plugin, beside Mosquitto and
amqtt. The tests start their own RabbitMQ node (scripts/test.sh installs rabbitmq-server)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from daemon_helpers import (
    ROSTER,
    client,
    daemon_process,
    full_game_commands,
    kill_hard,
    pump_until,
    running_daemon,
)

from tabletop.daemon.service import RoomDaemon
from tabletop.rules.games.replay import replay_lines
from tabletop.servers import RabbitMQ, rabbitmq_server


@pytest.fixture(scope="module")
def rabbitmq() -> Iterator[RabbitMQ]:
    if rabbitmq_server() is None:
        pytest.skip(
            "rabbitmq-server is not installed and could not be: scripts/test.sh installs the "
            "Debian package rabbitmq-server"
        )
    broker = RabbitMQ()
    broker.start()
    yield broker
    broker.stop()


def test_a_game_bad_input_and_the_retained_views_on_rabbitmq(
    rabbitmq: RabbitMQ, table: str, db: Path
) -> None:
    commands = [
        {**c, "id": f"r-{n}"} if c["cmd"] != "multi_stage" else c
        for n, c in enumerate(full_game_commands())
    ]
    expected = replay_lines([json.dumps(c) for c in commands]).to_json()
    with running_daemon(rabbitmq.url, table, db), client(rabbitmq.url, table) as gm:
        assert gm.wait_for(gm.topics.rules_availability, 10) == "online"
        replies = [gm.send(command) for command in commands]
        assert [r["seq"] for r in replies] == list(range(1, len(commands) + 1))
        assert gm.send(commands[0])["duplicate"]
        pump_until(gm, lambda: gm.retained.get(gm.state_topic) == expected, 10, "the state")
        refused = gm.send({"cmd": "teleport"})
        assert not refused["ok"] and refused["kind"] == "invalid"
        gm.sync()
        final = gm.state()
        assert final["rejected"][-1]["error"] == refused["error"]
    # retained: a client that comes later gets the state from the broker
    with client(rabbitmq.url, table) as late:
        assert late.state() == final
        assert late.wait_for(late.topics.rules_availability) == "offline"


def test_the_last_will_on_rabbitmq_says_offline_after_kill_9(
    rabbitmq: RabbitMQ, table: str, db: Path
) -> None:
    process = daemon_process(rabbitmq.url, table, db)
    try:
        with client(rabbitmq.url, table) as gm:
            online = gm.topics.rules_availability
            pump_until(gm, lambda: gm.retained.get(online) == "online", 30, "the daemon")
            assert gm.send({**ROSTER, "id": "before"})["ok"]
            kill_hard(process)
            pump_until(gm, lambda: gm.retained.get(online) == "offline", 30, "the will")
    finally:
        if process.poll() is None:
            kill_hard(process)


def test_a_room_daemon_on_rabbitmq_finds_tables_through_wildcards(
    rabbitmq: RabbitMQ, table: str, db: Path
) -> None:
    import threading

    daemon = RoomDaemon(rabbitmq.url, None, db, name=f"room-{table}")
    daemon.start(timeout=10)
    stop = threading.Event()
    thread = threading.Thread(target=daemon.run, args=(stop,))
    thread.start()
    try:
        for name in (f"{table}-a", f"{table}-b"):
            with client(rabbitmq.url, name) as gm:
                assert gm.send({**ROSTER, "id": f"{name}-1"}, timeout=20)["ok"]
                pump_until(gm, lambda gm=gm: gm.state()["phase"] == "setup", 10, "the state")
        assert {f"{table}-a", f"{table}-b"} <= set(daemon.servers)
    finally:
        stop.set()
        thread.join(10)
        daemon.close()
