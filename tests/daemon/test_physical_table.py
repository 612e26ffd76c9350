"""The whole chain with no hardware: the simulated mat (real firmware behind a pty) -> bridge ->
MQTT -> rules daemon reading the table -> state, alerts and seat LED frames back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from daemon_helpers import Broker, DaemonThread, MatTable, client, pump_until

from tabletop.hardware.leds import LedState

SEATS = ["Ana", "Bo"]
HANDS = {"Ana": ["JS", "3H", "QD", "7S", "KC", "AS"], "Bo": ["2C", "JC", "4H", "5D", "6S", "3C"]}
ROSTER = {
    "cmd": "new_game",
    "players": [
        {"name": "Ana", "descriptor": "sly", "archetype": "Thief", "lucky": [7]},
        {"name": "Bo", "descriptor": "dangerous", "archetype": "Brute", "lucky": [3]},
    ],
    "seed": 9,
}


class RunningTable(MatTable):
    def __init__(self, broker: Broker, table: str, db: Path) -> None:
        super().__init__(broker.url, table, db, "sim:?seats=2&slots=6&pad=1")


@pytest.fixture
def running(broker: Broker, table: str, db: Path) -> Iterator[RunningTable]:
    table_ = RunningTable(broker, table, db)
    table_.start()
    try:
        yield table_
    finally:
        table_.close()


def phase(gm: Any) -> Any:
    state = gm.retained.get(gm.state_topic)
    return state.get("phase") if isinstance(state, dict) else None


def test_a_game_read_from_the_simulated_mat(
    running: RunningTable, broker: Broker, table: str
) -> None:
    with client(broker.url, table) as gm:
        alert_topic = f"{gm.topics.root}/table/alert"
        referee_alert = f"{gm.topics.root}/referee/alert"
        gm.link.subscribe(alert_topic)
        gm.link.subscribe(referee_alert)
        reply = gm.send(dict(ROSTER))
        assert reply["ok"] and reply["waiting"] == "the deal on the mat"

        for slot in range(1, 7):  # the game master deals, one card at a time round the table
            for seat, name in enumerate(SEATS, start=1):
                running.sim.place(f"s{seat}.{slot}", HANDS[name][slot - 1], "down")
        pump_until(gm, lambda: phase(gm) == "setup", 10, "the deal read from the mat")
        state = gm.state()
        assert [s["card"] for s in state["players"][1]["slots"]] == HANDS["Bo"]

        running.sim.flip("s1.4")  # Ana turns up 7S, Bo his 2C: the setup reveals
        running.sim.flip("s2.1")
        pump_until(gm, lambda: phase(gm) == "play", 10, "the reveals")

        # A mistake: Bo turns up a card that must stay face-down. It is never applied, and
        # after the grace period the table is told which slot to fix.
        running.sim.flip("s2.3")

        def alerted(topic: str = alert_topic) -> bool:
            raw = gm.retained.get(topic)
            body = json.loads(raw) if isinstance(raw, str) else raw
            return bool(body and body["alerts"])

        pump_until(gm, alerted, 10, "the alert")
        raw = gm.retained[alert_topic]
        body = json.loads(raw) if isinstance(raw, str) else raw
        # 4H should be face-down: the room's alert does not name it, the game master's does
        assert body["alerts"][0]["message"] == "Bo's slot 3: turn the card face-down"
        pump_until(gm, lambda: alerted(referee_alert), 10, "the referee's alert")
        raw = gm.retained[referee_alert]
        body = json.loads(raw) if isinstance(raw, str) else raw
        assert body["alerts"][0]["message"] == "Bo's slot 3: turn 4H face-down"
        assert gm.state()["players"][1]["slots"][2]["state"] == "face_down"
        # The mat's guidance LED on that slot blinks red (the mat's own LEDs, via the bridge).
        zone = running.sim.layout.index("s2.3")
        pump_until(gm, lambda: running.sim.leds.colours[zone][:3] == (255, 0, 0), 10, "guidance")
        assert running.sim.leds.colours[running.sim.layout.index("s2.2")][:3] == (0, 0, 0)
        running.sim.flip("s2.3")
        pump_until(gm, lambda: not alerted(), 10, "the alert cleared")

        # Ana goes All Or Nothing and fails: three Strikes light, then all blink (removed).
        assert gm.send(
            {"cmd": "challenge", "player": "Ana", "method": "charm", "critical": 7, "wager": 3}
        )["ok"]
        assert gm.send({"cmd": "roll", "value": 1})["ok"]  # the game master enters the die
        pump_until(
            gm,
            lambda: running.leds.frame.seats[0] == (LedState.BLINK,) * 3,
            10,
            "the removed Operator's LEDs blinking",
        )
        assert running.leds.frame.seats[1] == (LedState.OFF,) * 3
        assert running.bridge.stats.frames_shown >= 1
        # Her cards must leave the mat: an instruction, not an alert.
        raw = gm.retained[alert_topic]
        body = json.loads(raw) if isinstance(raw, str) else raw
        assert "Ana's slot 1: discard JS (the slot should be empty)" in body["instructions"]


def test_a_new_game_the_rules_refuse_is_answered_at_once_not_held_for_the_deal(
    broker: Broker, table: str, db: Path
) -> None:
    daemon = DaemonThread(broker.url, table, db, seats=SEATS, grace=0.3)
    daemon.start()
    try:
        with client(broker.url, table) as gm:
            refused = gm.send({"cmd": "new_game", "players": []})
            assert not refused["ok"] and "waiting" not in refused
            assert gm.send(dict(ROSTER))["waiting"] == "the deal on the mat"
    finally:
        daemon.stop()
