"""The bridge tells the camera what throw the table awaits: it follows the retained game/prompt
(over a real Mosquitto) and the watcher says when the tray does not hold that throw."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tabletop.bridge.bridge import Bridge
from tabletop.bridge.dice import AwaitedThrow, PromptError, camera_throws, expectation_from_prompt
from tabletop.hardware.leds import LedConfig, SimulatedLeds
from tabletop.hardware.mat import open_mat
from tabletop.sim.dice import RenderedDiceTray
from tabletop.vision.reading import Expectation
from tabletop.wire.mqtt import MqttLink
from tabletop.wire.topics import TableTopics
from tests.daemon.daemon_helpers import DaemonThread, Mosquitto, client, pump_until


def _prompt(dice: dict[str, Any] | None, waiting: str = "dice") -> dict[str, Any]:
    return {"v": 1, "game": "g", "prompt": "...", "waiting": waiting, "who": [], "dice": dice}


def _dice(count: int, who: str | None = "Ana", **more: Any) -> dict[str, Any]:
    return {"who": who, "count": count, "scoring": "each", "rerollable": False, **more}


def test_a_prompt_awaiting_dice_becomes_what_the_watcher_expects() -> None:
    assert expectation_from_prompt(_prompt(_dice(3))) == Expectation(3, "Ana")
    assert expectation_from_prompt(_prompt(_dice(10, None))) == Expectation(10)
    # Steamfunkateers' Vigor reroll: 5 dice in the tray, the 3 non-sixes thrown again.
    reroll = _prompt(_dice(5, rerollable=True, rethrow=3))
    assert expectation_from_prompt(reroll) == Expectation(5, "Ana", rethrown=3)
    # A fresh throw the thrower may reroll later: every die thrown now.
    fresh = _prompt(_dice(5, rerollable=True, rethrow=5))
    assert expectation_from_prompt(fresh) == Expectation(5, "Ana")
    # A poker draw: the player chooses how many stay.
    draw = _prompt(_dice(5, rerollable=True))
    assert expectation_from_prompt(draw) == Expectation(5, "Ana", may_keep=True)
    assert expectation_from_prompt(_prompt(None, "game_master")) is None
    assert expectation_from_prompt(_prompt(_dice(2), "card")) is None


@pytest.mark.parametrize(
    ("prompt", "named"),
    [
        ([1, 2], "expected a JSON object"),
        ({**_prompt(_dice(2)), "v": 2}, "v: payload version 2"),
        (_prompt(_dice(0)), "dice.count"),
        (_prompt(_dice(41)), "dice.count"),
        (_prompt({**_dice(2), "count": "2"}), "dice.count"),
        (_prompt({**_dice(2), "count": True}), "dice.count"),
        (_prompt(_dice(2, who=7)), "dice.who"),
        (_prompt(_dice(2, rerollable="yes")), "dice.rerollable"),
        (_prompt(_dice(2, rethrow=3)), "dice.rethrow"),
        (_prompt(_dice(2, rethrow=0)), "dice.rethrow"),
        (_prompt("two dice"), "dice: expected an object"),  # type: ignore[arg-type]
    ],
)
def test_a_bad_prompt_is_refused_naming_what_is_wrong(prompt: Any, named: str) -> None:
    with pytest.raises(PromptError, match=named):
        expectation_from_prompt(prompt)


def test_a_used_expectation_is_expected_again_until_the_prompt_changes() -> None:
    class Watcher:
        expectation: Expectation | None = None

        def expect(self, expectation: Expectation | None) -> None:
            self.expectation = expectation

    awaited, watcher = AwaitedThrow(), Watcher()
    awaited.set(Expectation(2, "Ana"))
    awaited.arm(watcher)  # type: ignore[arg-type]
    assert watcher.expectation == Expectation(2, "Ana")
    watcher.expectation = None  # an announcement used it up; the prompt still stands
    awaited.arm(watcher)  # type: ignore[arg-type]
    assert watcher.expectation == Expectation(2, "Ana")
    awaited.set(None)  # the game moved on: no throw awaited
    awaited.arm(watcher)  # type: ignore[arg-type]
    assert watcher.expectation is None


def _bridge(
    broker: Mosquitto, table: str, **dice: Any
) -> tuple[Bridge, threading.Event, threading.Thread]:
    leds = SimulatedLeds(LedConfig(seats=2, test_pattern_seconds=0))
    bridge = Bridge(broker.url, table, open_mat("sim:?seats=2&slots=1"), leds, **dice)
    stop = threading.Event()
    thread = threading.Thread(target=bridge.run, args=(stop,))
    bridge.start()
    thread.start()
    return bridge, stop, thread


def _publisher(broker: Mosquitto, name: str) -> MqttLink:
    """A link that stands in for the rules daemon: it publishes the retained prompt."""
    link = MqttLink(broker.url, name)
    link.start()
    link.get(timeout=5)  # takes the Connected: from now on retained messages go out at once
    return link


def _stop(bridge: Bridge, stop: threading.Event, thread: threading.Thread) -> None:
    stop.set()
    thread.join(5)
    bridge.close()


def _wait(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


def test_the_bridge_follows_the_prompt_and_drops_bad_ones_with_a_log_line(
    mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    topics = TableTopics("prompts")
    told: list[Expectation | None] = []
    bridge, stop, thread = _bridge(mosquitto, "prompts", expect=told.append)
    publisher = _publisher(mosquitto, "test-daemon-prompts")
    try:
        with caplog.at_level(logging.WARNING, logger="tabletop.bridge.bridge"):
            publisher.publish_retained(topics.prompt, json.dumps(_prompt(_dice(3))).encode())
            _wait(lambda: len(told) == 1, "the retained prompt")  # the bridge has subscribed
            for payload in (
                b"{not json",
                json.dumps(_prompt(_dice(2, rethrow=9))).encode(),
                json.dumps(_prompt(None, "game_master")).encode(),
                json.dumps(_prompt(_dice(4, "Bo", rerollable=True, rethrow=1))).encode(),
            ):
                publisher.publish_retained(topics.prompt, payload)
            _wait(lambda: len(told) == 5, "five prompts followed")
        assert told == [Expectation(3, "Ana"), None, None, None, Expectation(4, "Bo", 1)]
        assert bridge.stats.bad_prompts == 2 and bridge.stats.prompts == 3
        warned = [r.getMessage() for r in caplog.records if "game/prompt" in r.getMessage()]
        assert len(warned) == 2 and "dice.rethrow" in warned[1]
        assert thread.is_alive()  # bad input never stops the bridge
    finally:
        publisher.publish_retained(topics.prompt, b"")
        publisher.stop()
        _stop(bridge, stop, thread)


def test_the_camera_says_when_the_tray_is_not_the_awaited_throw(mosquitto: Mosquitto) -> None:
    """Over MQTT with the simulated camera: the prompt awaits 3 dice; the first throw has 3, the
    second leaves one of them lying (the hand took only two): "still in the tray"."""
    topics = TableTopics("stale")
    awaited = AwaitedThrow()
    camera = camera_throws("sim:?seed=4&throws=2&dice=3&keep=1", None, awaited)

    def dice(stop: threading.Event) -> Iterator[dict[str, Any]]:
        _wait(lambda: awaited.expectation is not None, "the prompt")  # then the film starts
        yield from camera(stop)

    watcher = MqttLink(mosquitto.url, "test-display", subscriptions=[(topics.dice_event, 1)])
    watcher.start()
    watcher.get(timeout=5)  # connected: it subscribes
    publisher = _publisher(mosquitto, "test-daemon-stale")
    publisher.publish_retained(topics.prompt, json.dumps(_prompt(_dice(3))).encode())
    bridge, stop, thread = _bridge(mosquitto, "stale", dice=dice, expect=awaited.set)
    try:
        settled: list[dict[str, Any]] = []
        deadline = time.monotonic() + 120
        while len(settled) < 2 and time.monotonic() < deadline:
            item = watcher.get(timeout=0.5)
            body = json.loads(getattr(item, "payload", b"{}") or b"{}")
            if body.get("event") in ("rolled", "unclear", "cocked", "unreadable"):
                settled.append(body)
        assert [s["event"] for s in settled] == ["rolled", "unclear"], settled
        assert settled[0]["who"] == "Ana" and len(settled[0]["values"]) == 3
        assert settled[1]["reason"] == "1 die of the last throw is still in the tray"
    finally:
        publisher.publish_retained(topics.prompt, b"")
        publisher.stop()
        watcher.stop()
        _stop(bridge, stop, thread)


def test_a_steamfunkateers_vigor_reroll_read_from_the_simulated_tray(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The whole chain: daemon -> game/prompt -> bridge -> the sim's rendered tray and its
    watcher -> dice/event -> the game's reader. The sixes stay where they lie in the reroll; a
    fresh throw with a die of the last one left lying is an alert, not a roll."""
    table = "vigor"
    daemon = DaemonThread(
        mosquitto.url, table, tmp_path / "games.sqlite3", seats=["Ana", "Bo"], grace=0.3
    )
    daemon.start()
    tray = RenderedDiceTray(seed=3)
    bridge, stop, thread = _bridge(mosquitto, table, dice=tray.events, expect=tray.expect)
    try:
        with client(mosquitto.url, table) as gm:
            alert_topic = f"{gm.topics.root}/table/alert"
            gm.link.subscribe(alert_topic)
            new = {"cmd": "new_game", "game": "steamfunkateers", "players": ["Ana", "Bo"]}
            assert gm.send({**new, "options": {"starting_vigor": 1}})["ok"]
            check = {"cmd": "check", "pools": [{"player": "Ana", "rank": 3}]}
            assert gm.send(check)["ok"]
            _wait(lambda: tray._awaited is not None, "the prompt at the tray")
            _wait(lambda: _expects(tray) == Expectation(3, "Ana"), "3 dice for Ana")
            tray.throw([6, 2, 3])

            def pool() -> dict[str, Any]:
                state = gm.retained.get(gm.state_topic)
                round_ = state.get("round") if isinstance(state, dict) else None
                pools = round_["pools"] if round_ else []
                return pools[0] if pools else {}

            pump_until(gm, lambda: sorted(pool().get("values", [])) == [2, 3, 6], 60, "a throw")
            _wait(lambda: _expects(tray) == Expectation(3, "Ana", 2), "the reroll of 2 dice")
            tray.reroll([6], [5, 1])

            def result() -> Any:
                state = gm.retained.get(gm.state_topic)
                return state.get("last_result") if isinstance(state, dict) else None

            # The check resolves on the rerolled tray (1 5 6: one six); the GM gains the Vigor.
            pump_until(gm, lambda: result() is not None, 60, "the Vigor reroll")
            assert result()["sixes"] == {"Ana": 1} and gm.state()["gm_vigor"] == 1

            # A new check: a fresh throw, but one die of the last stays in the tray.
            assert gm.send({"cmd": "check", "pools": [{"player": "Bo", "rank": 3}]})["ok"]
            _wait(lambda: _expects(tray) == Expectation(3, "Bo"), "3 dice for Bo")
            tray.reroll([6], [4, 4])

            def alert() -> str:
                raw = gm.retained.get(alert_topic)
                body = json.loads(raw) if isinstance(raw, str) else raw
                return " ".join(a["message"] for a in (body or {}).get("alerts", []))

            pump_until(gm, lambda: "still in the tray" in alert(), 60, "the alert")
            assert alert() == "1 die of the last throw is still in the tray: throw again"
            assert pool().get("values") in ([], None)  # nothing counted
            tray.throw([4, 4, 2])
            pump_until(
                gm, lambda: sorted(pool().get("values", [])) == [2, 4, 4], 60, "the throw again"
            )
            pump_until(gm, lambda: alert() == "", 30, "the alert cleared")
    finally:
        _stop(bridge, stop, thread)
        daemon.stop()


def _expects(tray: RenderedDiceTray) -> Expectation | None:
    awaited = tray._awaited
    return awaited.expectation if awaited is not None else None
