"""A whole game driven through game/command over real MQTT, on amqtt and on Mosquitto."""

from __future__ import annotations

import json
from pathlib import Path

from daemon_helpers import Broker, client, full_game_commands, pump_until, running_daemon

from tabletop.rules.games.replay import replay_lines


def test_a_full_game_over_mqtt_ends_in_the_state_tabletop_replay_prints(
    broker: Broker, table: str, db: Path
) -> None:
    commands = full_game_commands()
    expected = replay_lines([json.dumps(c) for c in commands]).to_json()
    assert expected["phase"] == "finished" and expected["rejected"], "the game file changed"
    with running_daemon(broker.url, table, db), client(broker.url, table, True) as gm:
        replies = [gm.send(command) for command in commands]
        pump_until(gm, lambda: gm.retained.get(gm.state_topic) == expected, 10, "final state")
        refused = [r["seq"] for r in replies if not r["ok"]]
        assert refused == [entry["line"] for entry in expected["rejected"]]
        assert [r["seq"] for r in replies] == list(range(1, len(commands) + 1))
        # every event arrives once, numbered without gaps, each with words for the table
        total = sum(r.get("events", 0) for r in replies)
        pump_until(gm, lambda: len(gm.events) == total, 10, "all events")
        assert [e["number"] for e in gm.events] == list(range(1, len(gm.events) + 1))
        assert gm.events[-1]["event"]["type"] == "game_ended"
        assert all(e["text"] for e in gm.events)
        assert gm.retained[gm.topics.prompt]["prompt"] == "the game is over"
        assert gm.retained[gm.topics.rules_availability] == "online"
