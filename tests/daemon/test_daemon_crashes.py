"""kill -9 of the daemon and restarts of the broker, mid-game: nothing lost, nothing twice."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from daemon_helpers import (
    AmqttBroker,
    Broker,
    DaemonThread,
    Mosquitto,
    client,
    daemon_process,
    full_game_commands,
    kill_hard,
    pump_until,
    running_daemon,
)

from tabletop.rules.games.replay import replay_lines


def _with_ids(prefix: str) -> list[dict[str, object]]:
    # multi_stage's id is its stage's name: it keeps it
    return [
        command if command["cmd"] == "multi_stage" else {**command, "id": f"{prefix}-{n}"}
        for n, command in enumerate(full_game_commands())
    ]


@pytest.mark.parametrize("kill_after", [1, 25])
def test_kill_9_mid_game_loses_nothing_acknowledged_and_applies_nothing_twice(
    broker: Broker, table: str, db: Path, kill_after: int
) -> None:
    commands = _with_ids("k9")
    expected = replay_lines([json.dumps(c) for c in commands]).to_json()
    first = daemon_process(broker.url, table, db)
    try:
        with client(broker.url, table) as gm:
            availability = gm.topics.rules_availability
            pump_until(gm, lambda: gm.retained.get(availability) == "online", 15, "daemon up")
            # Stream commands without waiting, and kill the daemon while they pour in.
            for command in commands[:60]:
                gm.send_raw(json.dumps(command).encode())
            pump_until(gm, lambda: len(gm.replies) >= kill_after, 10, "the first replies")
            kill_hard(first)
            acknowledged = {r["id"]: r for r in gm.replies}
            # the broker announces the death through the last will
            pump_until(gm, lambda: gm.retained.get(availability) == "offline", 10, "the will")

            second = daemon_process(broker.url, table, db)
            try:
                pump_until(gm, lambda: gm.retained.get(availability) == "online", 15, "restart")
                replies = [gm.send(command) for command in commands]
                for reply in replies:
                    if reply["id"] in acknowledged:
                        assert reply.get("duplicate"), f"{reply['id']} was applied twice"
                        assert reply["seq"] == acknowledged[reply["id"]]["seq"]
                assert [r["seq"] for r in replies] == list(range(1, len(commands) + 1))
                gm.sync()
                assert gm.state() == expected
            finally:
                second.send_signal(signal.SIGTERM)
                assert second.wait(10) == 0
            pump_until(gm, lambda: gm.retained.get(availability) == "offline", 10, "clean stop")
    finally:
        if first.poll() is None:
            kill_hard(first)


@pytest.mark.parametrize("kind", ["amqtt", "mosquitto"])
def test_a_broker_restart_mid_game_and_the_game_goes_on(
    kind: str, tmp_path: Path, table: str, db: Path
) -> None:
    broker: Broker = Mosquitto(tmp_path) if kind == "mosquitto" else AmqttBroker()
    broker.start()
    commands = _with_ids("br")
    half = len(commands) // 2
    expected_half = replay_lines([json.dumps(c) for c in commands[:half]]).to_json()
    expected = replay_lines([json.dumps(c) for c in commands]).to_json()
    try:
        with running_daemon(broker.url, table, db), client(broker.url, table) as gm:
            for command in commands[:half]:
                gm.send(command)
            broker.stop()
            broker.start()
            # The new broker remembers nothing; the daemon republishes its retained views.
            with client(broker.url, table) as fresh:
                pump_until(
                    fresh,
                    lambda: fresh.retained.get(fresh.state_topic) == expected_half,
                    15,
                    "the state republished after the restart",
                )
            replies = [gm.send(command, timeout=20) for command in commands[half:]]
            assert [r["seq"] for r in replies] == list(range(half + 1, len(commands) + 1))
            pump_until(gm, lambda: gm.retained.get(gm.state_topic) == expected, 10, "the end")
    finally:
        broker.stop()


def test_a_daemon_started_before_its_broker_connects_when_the_broker_comes(
    tmp_path: Path, table: str, db: Path
) -> None:
    broker = Mosquitto(tmp_path)
    daemon = DaemonThread(broker.url, table, db)
    daemon.daemon.start(timeout=0.2)  # nothing listens yet: it keeps trying
    assert not daemon.daemon.link.is_connected
    daemon.thread.start()
    broker.start()
    try:
        with client(broker.url, table) as gm:
            assert gm.send({"cmd": "roll", "value": 2}, timeout=15)["kind"] == "illegal"
            assert gm.wait_for(gm.topics.rules_availability) == "online"
    finally:
        daemon.stop()
        broker.stop()
