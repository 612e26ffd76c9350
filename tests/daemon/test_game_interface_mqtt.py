"""A second game (tests/games/highroll.py) served over MQTT by the unchanged daemon: the physical
table's dice, `tabletop gm` with the game's own verbs, the prompt, the seat views and the LEDs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from daemon_helpers import Broker, DaemonThread, client, pump_until

from tabletop.cli import main

pytestmark = pytest.mark.usefixtures("high_roll")


def _body(raw: Any) -> Any:
    return json.loads(raw) if isinstance(raw, str) else raw


def test_high_roll_is_played_over_mqtt_from_the_dice_tray(
    broker: Broker, table: str, db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    daemon = DaemonThread(broker.url, table, db, seats=["Ana", "Bo"], grace=0.3, game="highroll")
    daemon.start()
    try:
        with client(broker.url, table) as gm:
            root = gm.topics.root
            for topic in ("leds/frame", "seat/+/state", "table/alert"):
                gm.link.subscribe(f"{root}/{topic}")
            url = f"mqtt://127.0.0.1:{broker.url.port}"
            words = ["gm", "--game", "highroll", "new", "Ana", "Bo"]
            assert main([*words, "--broker", url, "--table", table]) == 0
            assert "High Roll starts: Ana, Bo" in capsys.readouterr().out
            gm.wait_for(gm.topics.prompt)
            pump_until(gm, lambda: _body(gm.retained[gm.topics.prompt])["waiting"] == "dice")
            prompt = _body(gm.retained[gm.topics.prompt])
            assert prompt["game"] == "highroll" and prompt["who"] == ["Ana"]
            assert prompt["dice"]["count"] == 1

            dice = f"{root}/dice/event"
            alert_topic = f"{root}/table/alert"

            def throw(seq: int, values: list[int]) -> None:
                body = {"v": 1, "bridge": "b1", "seq": seq, "event": "rolled", "values": values}
                gm.link.publish(dice, json.dumps(body).encode())

            def alerts() -> list[str]:
                raw = gm.retained.get(alert_topic)
                return [a["message"] for a in _body(raw)["alerts"]] if raw else []

            throw(1, [5])
            throw(2, [2, 3])  # a die too many: an alert, and the round waits
            pump_until(gm, lambda: alerts() == ["Bo: throw one die, not 2"], 10, "the alert")
            throw(3, [2])  # thrown again right: the alert goes and Ana wins the round
            pump_until(
                gm,
                lambda: gm.state().get("players", [{}])[0].get("wins") == 1,
                10,
                "Ana's round read from the tray",
            )
            pump_until(gm, lambda: alerts() == [], 10, "the alert cleared")
            frame = f"{root}/leds/frame"
            pump_until(gm, lambda: frame in gm.retained, 5, "the LED frame")
            leds = _body(gm.retained[frame])
            assert leds["meaning"] == "rounds won"
            assert leds["seats"] == [["on", "off", "off"], ["off", "off", "off"]]
            seat_topic = f"{root}/seat/2/state"
            pump_until(
                gm,
                lambda: (
                    _body(gm.retained.get(seat_topic) or "{}").get("players", [{}])[0].get("wins")
                    == 1
                ),
                5,
                "Bo's view of the round",
            )
            assert _body(gm.retained[seat_topic])["seat"] == "Bo"
    finally:
        daemon.stop()
