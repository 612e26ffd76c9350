"""The simulated table: every program of a real table, with simulated devices and people.

An embedded broker on a free port, the rules daemon reading the table, the bridge with the
simulated mat (real firmware behind a pty), simulated seat LEDs and the dice tray, and
simulated people who play whole games physically. The people see what players see: the
retained game state, the alerts and the LEDs.
"""

from __future__ import annotations

import contextlib
import enum
import json
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console

from tabletop.bridge.bridge import Bridge
from tabletop.daemon.client import NoReply, TableClient
from tabletop.daemon.service import RulesDaemon
from tabletop.daemon.store import CommandRecord
from tabletop.daemon.waits import patience_scaled
from tabletop.figures import percentiles
from tabletop.hardware.leds import LedConfig, LedFrame, SimulatedLeds
from tabletop.hardware.mat import MatDriver, MatError
from tabletop.hardware.mat.sim import SimulatedMat
from tabletop.rules import games as registry
from tabletop.rules.games import DEFAULT_GAME
from tabletop.rules.games.game import PeopleSettings
from tabletop.wire.broker import EmbeddedBroker, free_port
from tabletop.wire.mqtt import BrokerUrl, Message

from .dice import DiceTray, RenderedDiceTray
from .parts import TableParts
from .view import Frame, Header, LiveView

if TYPE_CHECKING:
    from .faults import Faults

NAMES = ("Ana", "Bo", "Cy", "Dee", "Eli", "Fay")
PATIENCE_S = 2.0  # how long people wait for the table to answer a move before the next
# The least they wait at any speed: the mat, the camera and the daemon answer a move in about
# this time (docs/benchmarks.md), and that is not the people's to speed up.
MIN_PATIENCE_S = 0.25
# Nothing at all moved for this many times the daemon's longest patience (never under
# STALL_MIN_S): the simulated table has stalled.
STALL_FACTOR = 3.0
# A new game no daemon acknowledged is asked for again after this long (the command was lost
# with a daemon or a broker restarting; a new id, since the first was never applied).
NEW_GAME_AGAIN_S = 2.0
STALL_MIN_S = 30.0


TOUCH_S = 0.15  # how long a finger rests on a touch pad before it goes on to turn the card
# The least time a hand takes to lift a card and lay one in the same slot, at any speed: the
# mat keeps its own time, and a slot it never saw empty holds, for it, the same card.
RELAY_S = 0.3


class MatHands:
    """People's hands on the simulated mat (seats from 0, slots from 1) and the dice tray."""

    def __init__(self, mat: SimulatedMat, dice: DiceTray, moved: Callable[[str], None]) -> None:
        self.mat = mat
        self.dice = dice
        self.moved = moved
        self.touches: list[tuple[str, float]] = []  # (zone, when), for tests and figures
        self._lifted: dict[str, float] = {}  # zone -> when a hand last lifted its card

    def lay(self, seat: int, slot: int, card: str, face_up: bool) -> None:
        zone = f"s{seat + 1}.{slot}"
        lifted = self._lifted.pop(zone, None)
        if lifted is not None:
            time.sleep(max(0.0, lifted + RELAY_S - time.monotonic()))
        self.mat.place(zone, card, "up" if face_up else "down")
        self.moved("card")

    def lift(self, seat: int, slot: int) -> None:
        zone = f"s{seat + 1}.{slot}"
        self.mat.remove(zone)
        self._lifted[zone] = time.monotonic()
        self.moved("card")

    def flip(self, seat: int, slot: int) -> None:
        self.mat.flip(f"s{seat + 1}.{slot}")
        self.moved("card")

    def touch(self, seat: int, slot: int, hand: int | None = None) -> None:
        """A finger of seat `hand` (None: the slot's owner) on the slot's touch pad, arriving
        from that seat's side (the mat dates it), lifted a moment later."""
        zone = f"s{seat + 1}.{slot}"
        self.mat.touch(zone, hand)
        self.touches.append((zone, time.monotonic()))
        lift = threading.Timer(TOUCH_S, self._release, args=(zone,))
        lift.daemon = True
        lift.start()

    def _release(self, zone: str) -> None:
        # The finger stays until the mat's firmware has polled its pads a few times with it
        # down (its debounce, then the send): on a starved host TOUCH_S of real time can pass
        # before the firmware's loop runs once, and a touch lifted then went unfelt.
        with contextlib.suppress(MatError):  # no pads running (unplugged): nothing to feel it
            self.mat.wait_polled()
        with contextlib.suppress(MatError):  # the mat was put away with the finger on it
            self.mat.release(zone)

    def lay_on_pad(self, card: str) -> None:
        self.mat.place("pad", card, "up")
        time.sleep(0.3)  # long enough for the mat to read it before it goes to the discard pile
        self.mat.remove("pad")
        time.sleep(0.2)

    def throw(self, values: Sequence[int]) -> None:
        self.dice.throw(values)  # the tray calls back when the dice are at rest and read

    def reroll(self, keep: Sequence[int], thrown: Sequence[int]) -> None:
        self.dice.reroll(
            keep, thrown
        )  # the kept dice stay where they lie (tabletop.rules.games.game.RerollHands)


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
    # The alerts still standing when the table last looked: key -> message.
    alerts_left: dict[str, str] = field(default_factory=dict)
    mistakes_made: int = 0
    mistakes_caught: int = 0
    card_to_state_ms: list[float] = field(default_factory=list)
    die_to_state_ms: list[float] = field(default_factory=list)
    indicator_to_led_ms: list[float] = field(default_factory=list)
    host_card_ms: list[float] = field(default_factory=list)
    deal_to_state_ms: list[float] = field(default_factory=list)
    host_die_ms: list[float] = field(default_factory=list)
    # Each time nothing moved at all for `SimulatedTable.stall_after` (the run ends there):
    # the game, how long, what the table waited for (the prompt) and the state it stood in.
    stalls: list[dict[str, Any]] = field(default_factory=list)
    # New games asked for again because the first call went unanswered (a daemon restarting).
    new_games_asked_again: int = 0
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
            "alerts_left": self.alerts_left,
            "mistakes_made": self.mistakes_made,
            "mistakes_caught": self.mistakes_caught,
            "new_games_asked_again": self.new_games_asked_again,
            "stalls": [
                {key: value for key, value in stall.items() if key != "state"}
                for stall in self.stalls
            ],
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
    return percentiles(values)


class SimulatedTable:
    """Runs the whole simulated table: `run()` plays the games and returns the summary."""

    def __init__(
        self,
        *,
        seats: int = 4,
        games: int = 1,
        seed: int = 1,
        mistake_rate: float = 0.03,
        view: Console | TextIO | None = None,
        broker: BrokerUrl | None = None,
        challenges_per_adventure: int = 10,
        camera: bool = True,
        game: str = DEFAULT_GAME,
        speed: float = 1.0,
        console: bool = False,
        linger: bool = False,
        stall_after: float | None = None,
        faults: Faults | None = None,
    ) -> None:
        if not speed > 0:
            raise ValueError(f"speed: expected a positive number, got {speed!r}")
        # People think and act `speed` times faster; the devices and the daemon keep their
        # own time (docs/sim.md, "Speed").
        self.speed = speed
        # The daemon says when it has waited long for someone (its `wait` alert), as quickly
        # as the people are quick; when nothing at all moves for `stall_after` seconds the run
        # stops and says what the table waited for.
        self.wait_patience = patience_scaled(speed)
        self.stall_after = (
            stall_after
            if stall_after is not None
            else max(STALL_MIN_S, STALL_FACTOR * max(self.wait_patience.values()))
        )
        self.console = console  # serve the web console too (tabletop console), on a free port
        self.console_url: str | None = None
        # With `linger` the table (and its web console) stays up after the last game until
        # Ctrl-C or `stop_lingering` is set, so the people can still look at the final table.
        self.linger = linger
        self.lingering = threading.Event()  # set once the games are over and the table waits
        self.stop_lingering = threading.Event()
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
        self.log_records: list[CommandRecord] = []  # the whole log, refusals included
        self.final_state: dict[str, Any] | None = None
        self.frame_history: list[LedFrame] = []
        self.led_frames: list[Any] = []
        self._moved_at: tuple[str, float] | None = None
        self._alert_keys: set[str] = set()
        self._last_state: Any = None
        self._shown: Any = None  # the (state, prompt, alerts) last drawn
        self._view: LiveView | None = None
        self._mat_connected: Callable[[], bool] = lambda: False
        self.mat_simulator: SimulatedMat | None = None  # while the table runs
        # Faults injected at random moments while the games are played (bench/soak.py).
        self.faults = faults
        self.parts: TableParts | None = None  # while the table runs
        self._embedded: EmbeddedBroker | None = None
        # The replies the people's commands got that said ok (each must be in the log, whatever
        # restarted), and every command whose events the people saw.
        self.acknowledged: list[dict[str, Any]] = []
        self.seqs_seen: list[int] = []

    def people_settings(self) -> PeopleSettings:
        """How the people play: their mistakes, the game's length, and their pauses (a
        pause of s seconds at a real table lasts s / speed). A reaction the mat times (a
        race's touches) lasts its human time at any speed: the mat dates touches with its own
        real clock, so a sped-up reaction would put two hands a few ms apart."""
        speed = self.speed
        return PeopleSettings(
            self.mistake_rate,
            self.challenges_per_adventure,
            lambda s: time.sleep(s / speed),
            react=time.sleep,
        )

    @property
    def patience(self) -> float:
        """How long the people wait for the table to answer an act before the next one
        (`PATIENCE_S` at real time, scaled by the speed, never under `MIN_PATIENCE_S`)."""
        return max(PATIENCE_S / self.speed, MIN_PATIENCE_S)

    def run(self) -> Summary:
        """Plays the games and returns the summary."""
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="tabletop-sim-") as folder:
            if self.broker is not None:
                self._run(self.broker, Path(folder))
            else:
                self._embedded = EmbeddedBroker("127.0.0.1", free_port())
                self._embedded.start()
                try:
                    self._run(self._embedded.url, Path(folder))
                finally:
                    # A fault may have restarted the broker: stop the one running now.
                    running = self.parts.broker if self.parts is not None else None
                    (running or self._embedded).stop()
        self.summary.seconds = time.monotonic() - started
        return self.summary

    def start_daemon(self, parts: TableParts) -> None:
        """Starts a rules daemon on the table's log and its thread (at the start, and after a
        fault stopped the last one: it rebuilds the game from the log)."""
        daemon = RulesDaemon(
            parts.url,
            self.table,
            parts.folder / "games.sqlite3",
            seats=self.names,
            grace=0.6,
            game=self.rules.name,
            patience=self.wait_patience,
        )
        daemon.start(timeout=10)
        parts.daemon, parts.daemon_stop = daemon, threading.Event()
        parts.daemon_thread = threading.Thread(
            target=daemon.run, args=(parts.daemon_stop,), name="sim-rules"
        )
        parts.daemon_thread.start()

    def start_bridge(self, parts: TableParts) -> None:
        """Starts a bridge on the mat's device path, the LEDs and the dice tray, and its thread
        (at the start, and after a fault stopped the last one)."""
        mat = MatDriver(parts.simulator.path)
        dice = parts.dice
        bridge = Bridge(
            parts.url, self.table, mat, parts.leds, dice=dice.events, expect=dice.expect
        )
        bridge.reported = self._reported
        bridge.start(timeout=10)
        parts.bridge, parts.bridge_stop = bridge, threading.Event()
        parts.bridge_thread = threading.Thread(
            target=bridge.run, args=(parts.bridge_stop,), name="sim-bridge"
        )
        parts.bridge_thread.start()

    def start_console(self, parts: TableParts, port: int = 0) -> None:
        """Starts the web console (at the start, and on the same port after a fault)."""
        from tabletop.console.server import ConsoleServer

        parts.console = ConsoleServer(parts.url, self.table, game=self.rules.name, port=port)
        parts.console.start()
        self.console_url = parts.console.url

    def _run(self, url: BrokerUrl, folder: Path) -> None:
        leds = SimulatedLeds(LedConfig(seats=len(self.names), test_pattern_seconds=0.3))
        layout = self.rules.mat_layout({})
        slots = max(layout.slots_per_seat, 1)  # a game without cards still has a mat to read
        # The table owns the mat (its power and its pty): a bridge restarted by a fault opens
        # the same device path again, as a restarted bridge does on a Pi. Split touch pads on
        # every seat (docs/mat.md, "Whose hand: split pads").
        simulator = SimulatedMat.from_url(
            f"sim:?seats={len(self.names)}&slots={slots}&pad={int(layout.pad)}&split=all"
        )
        simulator.start()
        dice = RenderedDiceTray(self.seed) if self.camera else DiceTray()
        parts = TableParts(url, folder, self._embedded, simulator, leds, dice)
        self.parts = parts
        try:
            self._serve(parts)
        finally:
            simulator.stop()

    def _serve(self, parts: TableParts) -> None:
        url = parts.url
        self.start_daemon(parts)
        if self.console:
            self.start_console(parts)
            print(
                f"the table's web console: {self.console_url} (game master: {self.console_url}gm)"
                + ("; Ctrl-C ends the table" if self.linger else ""),
                file=sys.stderr,
                flush=True,
            )
        self.start_bridge(parts)
        # The people read the referee's state (they know the cards they laid face down, as
        # people at a table do); the view draws the public one.
        client = _Client(url, self.table, follow_events=True)
        client.start(timeout=10)
        for topic in (
            client.topics.table_alert,
            client.topics.leds_frame,
            client.topics.state,
            client.topics.event,
        ):
            client.link.subscribe(topic)
        simulator, leds, dice = parts.simulator, parts.leds, parts.dice
        self.mat_simulator = simulator  # for faults injected from outside (tests, bench/soak.py)
        self._mat_connected = lambda: parts.bridge is not None and parts.bridge.mat.connected
        self._view = self._live_view(url, simulator.path)
        if self._view is not None:
            self._view.start()
        if self.faults is not None:
            self.faults.start(self, parts)
        try:
            self._play(client, simulator, dice, leds)
            if self.linger and parts.console is not None:
                self._linger(parts.console.url)
        finally:
            if self.faults is not None:
                self.faults.stop()  # a fault under way ends first (a mat unplugged is plugged back)
            if parts.console is not None:
                parts.console.stop()
            self.led_frames = list(leds.frames)  # before the bridge turns them off
            self._time_leds(leds)
            self.seqs_seen = sorted({e["seq"] for e in client.events if isinstance(e["seq"], int)})
            client.close()
            parts.bridge_stop.set()
            if parts.bridge_thread is not None:
                parts.bridge_thread.join(10)
            if parts.bridge is not None:
                parts.bridge.close()
            parts.daemon_stop.set()
            if parts.daemon_thread is not None:
                parts.daemon_thread.join(10)
            daemon = parts.daemon
            assert daemon is not None
            records = self.log_records = list(daemon.referee.log.records())
            self.applied = [json.loads(record.payload) for record in records if record.ok]
            self.final_state = daemon.referee.state_json()
            daemon.close()
            if self._view is not None:  # last: a failing terminal must not keep the table up
                self._view.stop()
        # Every game's, from the log: the state's list of refusals holds the last game's.
        refusals = [str(record.reply.get("error")) for record in records if not record.ok]
        self.summary.commands_applied = len(self.applied)
        self.summary.commands_refused = len(refusals)
        self.summary.refusals = refusals

    def _play(
        self, client: _Client, mat: SimulatedMat, dice: DiceTray, leds: SimulatedLeds
    ) -> None:
        rng = random.Random(self.seed)

        request = _NewGame()

        def send(command: dict[str, Any]) -> None:
            try:
                reply = client.send(command)
            except NoReply as error:
                # No daemon answered in time (restarting, the broker away): as a person whose
                # call went unanswered, they carry on and call again when it still matters.
                reply = {"ok": False, "error": str(error)}
            ok = bool(reply.get("ok"))
            if command.get("cmd") == "new_game":
                request.replied(ok, "waiting" in reply, client)
            if ok:
                self.acknowledged.append(reply)
            if ok and reply.get("events") and isinstance(reply.get("seq"), int):
                # The reply leaves the daemon before the command's events and views: a person
                # sees the table answer their call before they do the next thing.
                client.wait_for_state(reply["seq"])
            people.replied(ok)

        def moved(kind: str) -> None:
            self._moved_at = (kind, time.monotonic())

        dice.announce = lambda: moved("die")
        patience = self.patience
        people = self.rules.simulated_people(
            self.names, MatHands(mat, dice, moved), rng, send, self.people_settings()
        )

        def start_game(seed: int) -> None:
            """The people start a game: they ask for it and deal what the table needs."""
            people.start_game(seed=seed)
            request.asked_at = time.monotonic()

        games = 0
        start_game(self.seed)
        # The state the people last acted on, and when.
        acted_on: Any = None
        acted_at: float | None = None
        synced_throws = 0  # the tray's throw count when the table last answered them all
        deadline = time.monotonic() + 600 * self.games
        last_seen: Any = None
        moved_at = time.monotonic()
        next_tick = moved_at
        while games < self.games and time.monotonic() < deadline:
            self._drain(client)
            seen = self._visible(client)
            if self._view is not None and time.monotonic() >= next_tick:
                next_tick = time.monotonic() + 1.0
                self._view.tick()  # the clocks run on while the table waits
            # The game moves when its state or its prompt does: alerts that come and go while
            # it stands still (a part that restarts again and again) are no progress.
            if seen[:2] != last_seen:
                last_seen, moved_at = seen[:2], time.monotonic()
            elif time.monotonic() - moved_at >= self.stall_after:
                self._stalled(games + 1, time.monotonic() - moved_at, seen)
                break
            awaited = request.awaited(client, time.monotonic())
            if awaited is not _Awaited.NOTHING:
                if awaited is _Awaited.ASK_AGAIN:
                    self.summary.new_games_asked_again += 1
                    start_game(self.seed + games)
                continue  # there is no game to play yet
            if not client.in_step():
                continue  # the public state or the prompt of this state is still on its way
            if self._observe(seen, leds, client):
                games += 1
                self.summary.games_finished = games
                self.on_game_finished(self.summary)
                if games < self.games:
                    start_game(self.seed + games)
                acted_on, acted_at = None, None
                continue
            now = time.monotonic()
            if acted_at is not None and seen[0] == acted_on:
                # The state has not answered the people's last act yet: they wait for it (a
                # throw still rolling or being read is not answered yet, whatever the speed);
                # after `patience` they do the next thing anyway (a card the rules had
                # already moved changes nothing, a slip only raises an alert).
                if dice.busy:
                    acted_at = now
                    continue
                if synced_throws != dice.thrown:
                    # A throw the bridge has handed on is always answered (a new state or an
                    # alert), but the daemon may take longer than `patience` to do it on a
                    # busy host: a sync files the answer first, so a person who slipped hears
                    # the table say so before they throw again.
                    synced_throws = dice.thrown
                    with contextlib.suppress(NoReply):  # no daemon now: patience decides
                        client.sync()
                    continue
                if now - acted_at < patience:
                    continue
            state, prompt, alerts = seen
            fixes = {a["key"]: a["message"] for a in alerts["alerts"]}
            # A move that changed nothing (a mistake, a card the rules had already moved) has
            # no latency to measure.
            self._moved_at = None
            acted = people.step(state if isinstance(state, dict) else None, prompt, fixes)
            acted_on, acted_at = state, (time.monotonic() if acted else None)
        self.summary.mistakes_made = people.mistakes_made
        self.summary.mistakes_caught = people.mistakes_caught
        self._settle(client, leds)

    def _settle(self, client: _Client, leds: SimulatedLeds) -> None:
        """The games are over: the table's last alerts and LED frame are let reach us."""
        # The games are over: no new fault from here (one injected while the table settles
        # would raise an alert nobody is left to see resolved; CI caught two so), and one under
        # way ends first, its part coming back.
        if self.faults is not None:
            self.faults.stop()
        # A finished game clears the table's alerts, and a part back online its own; let that
        # reach us before counting (it returns as soon as they are clear; a loaded 2-core host
        # took over 3 s at times, and a restarted daemon or broker takes a few more).
        # A table that stalled settles no more: what it waited for is said, and its alerts stay.
        settle = time.monotonic() + (0.0 if self.summary.stalls else 20.0)
        while time.monotonic() < settle:
            self._drain(client)
            seen = self._visible(client)
            if client.in_step():
                self._observe(seen, leds, client)  # the last picture, prompt and board in step
                if not seen[2]["alerts"]:
                    break
        # Let the last LED frame reach the LEDs before the table is put away.
        if self.frame_history:
            final = self.frame_history[-1]
            settle = time.monotonic() + 3.0
            while leds.frame != final and time.monotonic() < settle:
                client.pump(0.02)

    def _linger(self, url: str) -> None:
        """The games are over: says so, and keeps the table and its console up until Ctrl-C
        (or `stop_lingering`), since a console that vanished with the last game would leave
        the people nothing to look at."""
        if self._view is not None:  # its header shows the console's address
            self._view.notice = "the games are over; the web console stays up until Ctrl-C"
            self._view.refresh()
        else:
            print(
                f"the games are over; the web console stays up at {url} (game master: "
                f"{url}gm) until Ctrl-C",
                file=sys.stderr,
                flush=True,
            )
        self.lingering.set()
        try:
            while not self.stop_lingering.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass  # Ctrl-C: put the table away and print the summary

    def _stalled(self, game: int, waited: float, seen: tuple[Any, Any, dict[str, Any]]) -> None:
        """Nothing moved at all: says so on stderr with the prompt and the state, and keeps it
        in the summary (the command exits non-zero)."""
        state, prompt, alerts = seen
        prompt = prompt if isinstance(prompt, dict) else {}
        stall = {
            "game": game,
            "waited_s": round(waited, 1),
            "phase": state.get("phase") if isinstance(state, dict) else None,
            "waiting": prompt.get("waiting"),
            "who": prompt.get("who"),
            "prompt": prompt.get("prompt"),
            "alerts": [alert.get("message") for alert in alerts.get("alerts", [])],
            "state": state,
        }
        self.summary.stalls.append(stall)
        print(
            f"the table stalled in game {game}: nothing moved for {waited:.0f} s; it waits "
            f"for {', '.join(stall['who'] or []) or 'nobody'} ({stall['waiting']}): "
            f"{stall['prompt']}\n  alerts: {stall['alerts'] or 'none'}\n  last state: "
            f"{json.dumps(state, separators=(',', ':'))}",
            file=sys.stderr,
            flush=True,
        )

    def _drain(self, client: TableClient) -> None:
        """Files every message that has arrived (waiting a little for the first): the state
        and the prompt of one batch are taken together whenever both are here."""
        timeout = 0.01
        while (message := client.pump(timeout)) is not None:
            timeout = 0.0
            if message.topic == client.topics.table_alert:
                # Each alert message is counted as it comes: an alert raised and cleared
                # within one batch (the people threw again before it came) was missed.
                alerts = _json(client.retained.get(client.topics.table_alert))
                self._count_alerts(alerts if isinstance(alerts, dict) else {"alerts": []})
        self._watch_frames(client)

    def _visible(self, client: TableClient) -> tuple[Any, Any, dict[str, Any]]:
        """The state, the prompt and the alerts as filed now."""
        state = client.retained.get(client.state_topic)
        prompt = _json(client.retained.get(client.topics.prompt))
        alerts = _json(client.retained.get(client.topics.table_alert))
        if not isinstance(alerts, dict):
            alerts = {"alerts": [], "instructions": []}
        return state, prompt, alerts

    def _observe(
        self, seen: tuple[Any, Any, dict[str, Any]], leds: SimulatedLeds, client: _Client
    ) -> bool:
        """Keeps count of what the table shows and draws it; True when it shows a game that
        just finished."""
        state, prompt, alerts = seen
        self._count_alerts(alerts)
        if seen == self._shown:
            return False
        self._shown = seen
        finished = False
        if state != self._last_state:
            previous_phase = self._last_phase
            self._last_state = state
            self._state_changed(state)
            finished = isinstance(state, dict) and state.get("phase") == "finished"
            finished = finished and previous_phase != "finished"
        self._show(state, prompt, alerts, leds, client)
        return finished

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
        standing = {a["key"]: str(a.get("message", "")) for a in alerts.get("alerts", [])}
        keys = set(standing)
        self.summary.alerts_raised += len(keys - self._alert_keys)
        self.summary.alerts_resolved += len(self._alert_keys - keys)
        self._alert_keys = keys
        self.summary.alerts_left = standing

    def _live_view(self, url: BrokerUrl, mat_path: str) -> LiveView | None:
        if self.view is None:
            return None
        console = self.view
        if not isinstance(console, Console):
            # A file (a test's StringIO, a pipe): rich draws the last frame when it stops.
            console = Console(file=console, width=120, height=48)
        layout = self.rules.mat_layout({})
        cards = layout.slots_per_seat > 0
        mat = (
            f"{len(self.names)} seats x {layout.slots_per_seat} slots"
            + (" + pad" if layout.pad else "")
            if cards
            else "idle (no cards in this game)"
        )
        header = Header(
            table=self.table,
            game=self.rules.info.title,
            broker=str(url),
            mat=f"simulated, {mat}, on {mat_path}",
            camera="simulated, read by the dice vision"
            if self.camera
            else "off: the values go straight to the bridge",
            speed=self.speed,
            console_url=self.console_url,
        )
        return LiveView(console, header, self.rules, self.names, cards=cards)

    def _show(
        self,
        state: Any,
        prompt: Any,
        alerts: dict[str, Any],
        leds: SimulatedLeds,
        client: _Client,
    ) -> None:
        if self._view is None:
            return
        frame = _json(client.retained.get(client.topics.leds_frame))
        meaning = frame.get("meaning") if isinstance(frame, dict) else None
        public = client.retained.get(client.topics.state)  # what the room sees
        self._view.show(
            Frame(
                state=public if isinstance(public, dict) else None,
                prompt=prompt if isinstance(prompt, dict) else None,
                alerts=alerts,
                leds=leds.render(self.names),
                led_meaning=str(meaning) if meaning else None,
                events=[str(event.get("text")) for event in client.public_events[-20:]],
                mat_status="connected" if self._mat_connected() else "NOT CONNECTED",
            )
        )


class _Awaited(enum.Enum):
    """What the people wait for before they play on (`_NewGame.awaited`)."""

    NOTHING = "nothing"  # a game is on (or being dealt): play
    ANSWER = "answer"  # the daemon's answer to the new game asked for
    ASK_AGAIN = "ask again"  # the game asked for is lost: ask for it again now


@dataclass(slots=True)
class _NewGame:
    """The people's new game, from their asking to its start.

    Until a daemon acknowledges it they play nothing (there is no game to play) and ask again
    after NEW_GAME_AGAIN_S (one acknowledged may wait for the mat to read a deal: it is never
    asked again for that). A new game the daemon held for the mat (its ok reply `waiting` for
    the deal) lives in that daemon's memory: when it has gone offline since (its will), the game
    master, who sees the table come back with no game, asks again (the 400-game soak, Six
    Shooter seed 303083)."""

    answered: bool = True  # whether the last new game asked for was acknowledged
    asked_at: float = 0.0
    held_seq: int | None = None  # held for the mat: the state's seq then (started once past it)
    held_offline: int = 0  # held: how often the daemon had gone offline then

    def replied(self, ok: bool, held: bool, client: _Client) -> None:
        self.answered = ok
        if ok and held:
            self.held_seq, self.held_offline = client.state_seq, client.daemon_offline_seen
        else:
            self.held_seq, self.held_offline = None, 0

    def awaited(self, client: _Client, now: float) -> _Awaited:
        if not self.answered:
            again = now - self.asked_at >= NEW_GAME_AGAIN_S
            return _Awaited.ASK_AGAIN if again else _Awaited.ANSWER
        if self.held_seq is not None:
            if client.state_seq > self.held_seq:
                self.held_seq, self.held_offline = None, 0  # the held game started
            elif client.daemon_offline_seen > self.held_offline:
                return _Awaited.ASK_AGAIN
        return _Awaited.NOTHING


class _Client(TableClient):
    """The table's client that knows which command the state it holds reflects.

    Per batch the daemon publishes the replies, then the events (with the command's `seq`),
    then the state and the prompt, in that order on one connection: a state filed after the
    events of `seq` reflects that command."""

    def __init__(self, url: BrokerUrl, table: str, **kwargs: Any) -> None:
        super().__init__(url, table, **kwargs)
        self.events_seq = 0  # the last command whose events were filed
        self.state_seq = 0  # ... when the state was last filed
        self.public_seq = 0  # ... when the public state was last filed
        self.public_events: list[dict[str, Any]] = []  # `game/event`'s, as anyone sees them
        self.daemon_offline_seen = 0  # how often the daemon said it went offline (its will)

    def pump(self, timeout: float) -> Message | None:
        message = super().pump(timeout)
        if message is None:
            return None
        if message.topic == self.topics.rules_availability and message.payload == b"offline":
            self.daemon_offline_seen += 1
        elif message.topic == self.event_topic:
            seq = _json(message.payload.decode("utf-8", errors="replace"))
            seq = seq.get("seq") if isinstance(seq, dict) else None
            if isinstance(seq, int):
                self.events_seq = max(self.events_seq, seq)
        elif message.topic == self.state_topic:
            self.state_seq = self.events_seq
        elif message.topic == self.topics.state:
            self.public_seq = self.events_seq
        elif message.topic == self.topics.event:
            body = self.retained.pop(message.topic, None)
            if isinstance(body, dict) and isinstance(body.get("events"), list):
                self.public_events += [e for e in body["events"] if isinstance(e, dict)]
        return message

    def in_step(self) -> bool:
        """Whether the state, the public state and the prompt filed now are of one moment."""
        public = self.retained.get(self.topics.state)
        prompt = self.retained.get(self.topics.prompt)
        return self.state_seq == self.public_seq and in_step(public, prompt)

    def wait_for_state(self, seq: int, timeout: float = 10.0) -> None:
        """Files messages until the state reflects command `seq` (or `timeout` passed)."""
        deadline = time.monotonic() + timeout
        while self.state_seq < seq and (left := deadline - time.monotonic()) > 0:
            self.pump(min(left, 0.05))


def in_step(state: Any, prompt: Any) -> bool:
    """Whether a public state and a prompt belong to the same moment of the game.

    The daemon publishes a batch's state and then its prompt (only when the prompt changed),
    so a client can hold a new state with the last batch's prompt. The public state names the
    prompt that goes with it (`prompt_seq`, the `seq` that prompt carries; docs/mqtt.md)."""
    if not isinstance(state, dict) or not isinstance(prompt, dict):
        return state is None  # no game yet: nothing to act on, nothing to disagree
    seq = prompt.get("seq")
    return isinstance(seq, int) and state.get("prompt_seq") == seq


def _json(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return None
    return raw
