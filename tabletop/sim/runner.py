"""The simulated table: every program of a real table, with simulated devices and people.

An embedded broker on a free port, the rules daemon reading the table, the bridge with the
simulated mat (real firmware behind a pty), simulated seat LEDs and the dice tray, and
simulated people who play whole games physically. The people see what players see: the
retained game state, the alerts and the LEDs.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from bridge.bridge import Bridge
from hardware.leds import LedConfig, LedFrame, SimulatedLeds
from hardware.mat import MatError, open_mat
from hardware.mat.sim import SimulatedMat
from rules import games as registry
from rules.daemon.client import TableClient
from rules.daemon.service import RulesDaemon
from rules.game import PeopleSettings
from rules.games import DEFAULT_GAME
from wire.broker import EmbeddedBroker
from wire.mqtt import BrokerUrl

from .dice import DiceTray, RenderedDiceTray

NAMES = ("Ana", "Bo", "Cy", "Dee", "Eli", "Fay")
PATIENCE_S = 2.0  # how long people wait for the table to answer a move before the next
# The least they wait at any speed: the mat, the camera and the daemon answer a move in about
# this time (docs/benchmarks.md), and that is not the people's to speed up.
MIN_PATIENCE_S = 0.25


def free_port() -> int:
    """A TCP port nothing listens on now (port 1883 is often taken, on a Pi too)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


TOUCH_S = 0.15  # how long a finger rests on a touch pad before it goes on to turn the card


class MatHands:
    """People's hands on the simulated mat (seats from 0, slots from 1) and the dice tray."""

    def __init__(self, mat: SimulatedMat, dice: DiceTray, moved: Callable[[str], None]) -> None:
        self.mat = mat
        self.dice = dice
        self.moved = moved
        self.touches: list[tuple[str, float]] = []  # (zone, when), for tests and figures

    def lay(self, seat: int, slot: int, card: str, face_up: bool) -> None:
        self.mat.place(f"s{seat + 1}.{slot}", card, "up" if face_up else "down")
        self.moved("card")

    def lift(self, seat: int, slot: int) -> None:
        self.mat.remove(f"s{seat + 1}.{slot}")
        self.moved("card")

    def flip(self, seat: int, slot: int) -> None:
        self.mat.flip(f"s{seat + 1}.{slot}")
        self.moved("card")

    def touch(self, seat: int, slot: int) -> None:
        """A finger on the slot's touch pad (the mat dates it), lifted a moment later."""
        zone = f"s{seat + 1}.{slot}"
        self.mat.touch(zone)
        self.touches.append((zone, time.monotonic()))
        lift = threading.Timer(TOUCH_S, self._release, args=(zone,))
        lift.daemon = True
        lift.start()

    def _release(self, zone: str) -> None:
        with contextlib.suppress(MatError):  # the mat was put away with the finger on it
            self.mat.release(zone)

    def lay_on_pad(self, card: str) -> None:
        self.mat.place("pad", card, "up")
        time.sleep(0.3)  # long enough for the mat to read it before it goes to the discard pile
        self.mat.remove("pad")
        time.sleep(0.2)

    def throw(self, values: Sequence[int]) -> None:
        self.dice.throw(values)  # the tray calls back when the dice are at rest and read


@dataclass(slots=True)
class Summary:
    """What `tabletop sim --headless` prints at the end."""

    games_requested: int
    games_finished: int = 0
    commands_applied: int = 0
    commands_refused: int = 0
    refusals: list[str] = field(default_factory=list)
    alerts_raised: int = 0
    alerts_resolved: int = 0
    mistakes_made: int = 0
    mistakes_caught: int = 0
    card_to_state_ms: list[float] = field(default_factory=list)
    die_to_state_ms: list[float] = field(default_factory=list)
    indicator_to_led_ms: list[float] = field(default_factory=list)
    host_card_ms: list[float] = field(default_factory=list)
    deal_to_state_ms: list[float] = field(default_factory=list)
    host_die_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "games_requested": self.games_requested,
            "games_finished": self.games_finished,
            "commands_applied": self.commands_applied,
            "commands_refused": self.commands_refused,
            "refusals": self.refusals[:10],
            "alerts_raised": self.alerts_raised,
            "alerts_resolved": self.alerts_resolved,
            "mistakes_made": self.mistakes_made,
            "mistakes_caught": self.mistakes_caught,
            "latency_ms": {
                "card_laid_to_state": _percentiles(self.card_to_state_ms),
                "last_card_of_a_deal_to_state": _percentiles(self.deal_to_state_ms),
                "die_at_rest_to_state": _percentiles(self.die_to_state_ms),
                "indicators_to_led": _percentiles(self.indicator_to_led_ms),
                "host_share_card_reported_to_state": _percentiles(self.host_card_ms),
                "host_share_die_reported_to_state": _percentiles(self.host_die_ms),
            },
            "seconds": round(self.seconds, 1),
        }


def _percentiles(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"count": 0, "p50": None, "p99": None}
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {
        "count": len(ordered),
        "p50": round(statistics.median(ordered), 1),
        "p99": round(p99, 1),
    }


class SimulatedTable:
    """Runs the whole simulated table: `run()` plays the games and returns the summary."""

    def __init__(
        self,
        *,
        seats: int = 4,
        games: int = 1,
        seed: int = 1,
        mistake_rate: float = 0.03,
        view: TextIO | None = None,
        broker: BrokerUrl | None = None,
        challenges_per_adventure: int = 10,
        camera: bool = True,
        game: str = DEFAULT_GAME,
        speed: float = 1.0,
        console: bool = False,
    ) -> None:
        if not speed > 0:
            raise ValueError(f"speed: expected a positive number, got {speed!r}")
        # People think and act `speed` times faster; the devices and the daemon keep their
        # own time (docs/sim.md, "Speed").
        self.speed = speed
        self.console = console  # serve the web console too (tabletop console), on a free port
        self.console_url: str | None = None
        self.rules = registry.get(game)
        self.names = list(NAMES[:seats])
        self.games = games
        self.seed = seed
        self.mistake_rate = mistake_rate
        self.view = view
        self.challenges_per_adventure = challenges_per_adventure
        self.camera = camera
        self.broker = broker
        # Called with the summary so far each time a game finishes (progress on stderr).
        self.on_game_finished: Callable[[Summary], None] = lambda summary: None
        self._reported_at: tuple[str, float] | None = None
        self._last_phase: str | None = None
        # (seat, when the daemon's LED frame for it reached the table's client)
        self._frames_seen: list[tuple[int, float]] = []
        self.table = "sim"
        self.summary = Summary(games)
        # For tests and reports: what was applied, the final state, and every LED frame the
        # daemon published (the game's indicators), next to what the LEDs showed.
        self.applied: list[dict[str, Any]] = []
        self.final_state: dict[str, Any] | None = None
        self.frame_history: list[LedFrame] = []
        self.led_frames: list[Any] = []
        self._moved_at: tuple[str, float] | None = None
        self._alert_keys: set[str] = set()

    def run(self) -> Summary:
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="tabletop-sim-") as folder:
            if self.broker is not None:
                self._run(self.broker, Path(folder))
            else:
                broker = EmbeddedBroker("127.0.0.1", free_port())
                broker.start()
                try:
                    self._run(broker.url, Path(folder))
                finally:
                    broker.stop()
        self.summary.seconds = time.monotonic() - started
        return self.summary

    def _run(self, url: BrokerUrl, folder: Path) -> None:
        daemon = RulesDaemon(
            url,
            self.table,
            folder / "games.sqlite3",
            seats=self.names,
            grace=0.6,
            game=self.rules.name,
        )
        daemon.start(timeout=10)
        console = None
        if self.console:
            from console.server import ConsoleServer

            console = ConsoleServer(url, self.table, game=self.rules.name)
            console.start()
            self.console_url = console.url
            print(
                f"the table's web console: {console.url} (game master: {console.url}gm)",
                file=sys.stderr,
                flush=True,
            )
        stop = threading.Event()
        daemon_thread = threading.Thread(target=daemon.run, args=(stop,), name="sim-rules")
        daemon_thread.start()
        leds = SimulatedLeds(LedConfig(seats=len(self.names), test_pattern_seconds=0.3))
        layout = self.rules.mat_layout({})
        slots = max(layout.slots_per_seat, 1)  # a game without cards still has a mat to read
        mat = open_mat(f"sim:?seats={len(self.names)}&slots={slots}&pad={int(layout.pad)}")
        dice = RenderedDiceTray(self.seed) if self.camera else DiceTray()
        bridge = Bridge(url, self.table, mat, leds, dice=dice.events)
        bridge.reported = self._reported
        bridge.start(timeout=10)
        bridge_thread = threading.Thread(target=bridge.run, args=(stop,), name="sim-bridge")
        bridge_thread.start()
        client = TableClient(url, self.table, follow_events=True)
        client.start(timeout=10)
        for topic in (client.topics.table_alert, client.topics.leds_frame):
            client.link.subscribe(topic)
        simulator = mat.simulator
        assert simulator is not None
        try:
            self._play(client, simulator, dice, leds)
        finally:
            if console is not None:
                console.stop()
            self.led_frames = list(leds.frames)  # before the bridge turns them off
            self._time_leds(leds)
            client.close()
            stop.set()
            bridge_thread.join(10)
            bridge.close()
            daemon_thread.join(10)
            records = list(daemon.referee.log.records())
            self.applied = [json.loads(record.payload) for record in records if record.ok]
            self.final_state = daemon.referee.state_json()
            daemon.close()
        # Every game's, from the log: the state's list of refusals holds the last game's.
        refusals = [str(record.reply.get("error")) for record in records if not record.ok]
        self.summary.commands_applied = len(self.applied)
        self.summary.commands_refused = len(refusals)
        self.summary.refusals = refusals

    def _play(
        self, client: TableClient, mat: SimulatedMat, dice: DiceTray, leds: SimulatedLeds
    ) -> None:
        rng = random.Random(self.seed)

        def send(command: dict[str, Any]) -> None:
            reply = client.send(command)
            people.replied(bool(reply.get("ok")))

        def moved(kind: str) -> None:
            self._moved_at = (kind, time.monotonic())

        dice.announce = lambda: moved("die")
        speed = self.speed
        settings = PeopleSettings(
            self.mistake_rate, self.challenges_per_adventure, lambda s: time.sleep(s / speed)
        )
        patience = max(PATIENCE_S / speed, MIN_PATIENCE_S)
        people = self.rules.simulated_people(
            self.names, MatHands(mat, dice, moved), rng, send, settings
        )
        alert_topic = f"{client.topics.root}/table/alert"
        games = 0
        people.start_game(seed=self.seed)
        last_state: Any = None
        waiting_since: float | None = None
        deadline = time.monotonic() + 600 * self.games
        while games < self.games and time.monotonic() < deadline:
            client.pump(0.01)
            self._watch_frames(client)
            state = client.retained.get(client.state_topic)
            alerts = _json(client.retained.get(alert_topic)) or {"alerts": [], "instructions": []}
            self._count_alerts(alerts)
            if state != last_state:
                previous_phase = self._last_phase
                self._state_changed(state)
                last_state = state
                waiting_since = None
                self._show(state, alerts, leds, client)
                finished = isinstance(state, dict) and state.get("phase") == "finished"
                if finished and previous_phase != "finished":
                    games += 1
                    self.summary.games_finished = games
                    self.on_game_finished(self.summary)
                    if games < self.games:
                        people.start_game(seed=self.seed + games)
                    continue
            if waiting_since is not None and time.monotonic() - waiting_since < patience:
                continue
            fixes = {a["key"]: a["message"] for a in alerts["alerts"]}
            # A move that changed nothing (a mistake, a card the rules had already moved) has
            # no latency to measure.
            self._moved_at = None
            prompt = _json(client.retained.get(client.topics.prompt))
            if people.step(state if isinstance(state, dict) else None, prompt, fixes):
                waiting_since = time.monotonic()
        self.summary.mistakes_made = people.mistakes_made
        self.summary.mistakes_caught = people.mistakes_caught
        # A finished game clears the table's alerts; let that reach us before counting.
        settle = time.monotonic() + 3.0
        while time.monotonic() < settle:
            alerts = _json(client.retained.get(alert_topic)) or {"alerts": []}
            self._count_alerts(alerts)
            if not alerts["alerts"]:
                break
            client.pump(0.02)
        # Let the last LED frame reach the LEDs before the table is put away.
        if self.frame_history:
            final = self.frame_history[-1]
            settle = time.monotonic() + 3.0
            while leds.frame != final and time.monotonic() < settle:
                client.pump(0.02)

    def _reported(self, kind: str) -> None:
        self._reported_at = (kind, time.monotonic())

    def _state_changed(self, state: Any) -> None:
        try:
            self._measure(state)
        finally:
            self._last_phase = state.get("phase") if isinstance(state, dict) else None

    def _measure(self, state: Any) -> None:
        reported, self._reported_at = self._reported_at, None
        if reported is not None and self._moved_at is not None:
            kind, at = reported
            elapsed = (time.monotonic() - at) * 1000
            (self.summary.host_card_ms if kind == "card" else self.summary.host_die_ms).append(
                elapsed
            )
        if self._moved_at is None:
            return
        kind, at = self._moved_at
        elapsed = (time.monotonic() - at) * 1000
        dealt = (
            isinstance(state, dict)
            and state.get("phase") == "setup"
            and self._last_phase != "setup"
        )
        if dealt:
            # A whole deal lands at once: the mat reads every slot anew, so it is its own figure.
            self.summary.deal_to_state_ms.append(elapsed)
        elif kind == "card":
            self.summary.card_to_state_ms.append(elapsed)
        else:
            self.summary.die_to_state_ms.append(elapsed)
        self._moved_at = None

    def _watch_frames(self, client: TableClient) -> None:
        """Keeps each new LED frame the daemon publishes (`leds/frame`, the game's
        indicators), and when each seat's picture changed, for the LED latency."""
        raw = _json(client.retained.get(client.topics.leds_frame))
        if raw is None:
            return
        try:
            frame = LedFrame.from_json(raw)
        except ValueError:
            return
        last = self.frame_history[-1] if self.frame_history else None
        if frame == last:
            return
        self.frame_history.append(frame)
        now = time.monotonic()
        for seat, lights in enumerate(frame.seats):
            if last is None or seat >= len(last.seats) or last.seats[seat] != lights:
                self._frames_seen.append((seat, now))

    def _time_leds(self, leds: SimulatedLeds) -> None:
        """Frame -> LED: each seat's new picture as the table's client saw it published, to
        that seat's next LED change (the simulated LEDs record their changes with the same
        monotonic clock)."""
        for seat, seen in self._frames_seen:
            later = [c.at for c in leds.changes if c.seat == seat and c.at >= seen - 0.5]
            if later and later[0] - seen < 2.0:
                self.summary.indicator_to_led_ms.append(max(0.0, (later[0] - seen) * 1000))

    def _count_alerts(self, alerts: dict[str, Any]) -> None:
        keys = {a["key"] for a in alerts.get("alerts", [])}
        self.summary.alerts_raised += len(keys - self._alert_keys)
        self.summary.alerts_resolved += len(self._alert_keys - keys)
        self._alert_keys = keys

    def _show(
        self, state: Any, alerts: dict[str, Any], leds: SimulatedLeds, client: TableClient
    ) -> None:
        if self.view is None or not isinstance(state, dict):
            return
        from rules.daemon.gm import render_state

        prompt = client.retained.get(client.topics.prompt)
        lines = ["\x1b[2J\x1b[H" + render_state(state, prompt), "", "seat LEDs:"]
        if self.console_url is not None:
            lines.insert(1, f"  web console: {self.console_url}")
        lines.append(leds.render(self.names))
        for alert in alerts.get("alerts", []):
            lines.append(f"ALERT: {alert['message']}")
        for step in alerts.get("instructions", []):
            lines.append(f"to do: {step}")
        if client.events:
            lines.append("")
            lines += [f"  {event.get('text')}" for event in client.events[-8:]]
        self.view.write("\n".join(lines) + "\n")
        self.view.flush()


def _json(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return None
    return raw
