"""The faults the soak injects into the simulated table (`src/tabletop/sim/faults.py`), and the soak
itself in short (`bench/soak.py`, issue 30 item 4)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tabletop.hardware.camera.base import Frame
from tabletop.sim.dice import DiceTray
from tabletop.sim.faults import CameraFault, Faults
from tabletop.sim.parts import TableParts
from tabletop.sim.runner import SimulatedTable
from tabletop.wire.broker import EmbeddedBroker, free_port
from tabletop.wire.mqtt import Message, MqttLink, Will

ROOT = Path(__file__).resolve().parents[2]


def frames(count: int) -> list[Frame]:
    return [
        Frame(np.full((4, 4, 3), index, dtype=np.uint8), index, index / 30.0)
        for index in range(count)
    ]


def test_dropped_camera_frames_never_reach_the_watcher_then_the_camera_goes_on() -> None:
    fault = CameraFault(dropped=3)
    seen = [shown.index for frame in frames(6) for shown in fault(frame)]
    assert seen == [3, 4, 5]


def test_a_frozen_camera_shows_its_last_picture_stamped_as_it_is_read() -> None:
    fault = CameraFault()
    taken = frames(6)
    assert list(fault(taken[0])) == [taken[0]]
    fault.frozen = 3
    shown = [s for frame in taken[1:] for s in fault(frame)]
    assert [s.index for s in shown] == [1, 2, 3, 4, 5]
    assert [s.timestamp for s in shown] == [f.timestamp for f in taken[1:]]
    # frames 1 to 3 show frame 0's picture; then the camera moves again
    assert [int(s.image[0, 0, 0]) for s in shown] == [0, 0, 0, 4, 5]


def test_a_throw_lost_with_a_stopped_bridge_is_not_waited_for() -> None:
    """Found by the soak: the bridge restarted with a throw in hand (taken from the tray, not
    yet published); the tray kept it as still being read, so the people waited for it for ever
    instead of throwing again when the table said it waited."""
    tray = DiceTray()
    tray.throw([4])
    assert tray.busy
    source = tray.events(threading.Event())
    assert next(source) == {"event": "rolled", "values": [4]}
    source.close()  # the bridge stopped before it published the throw
    assert not tray.busy


def test_faults_need_a_positive_mean_time_between_them() -> None:
    with pytest.raises(ValueError, match="every: expected a positive number"):
        Faults(random.Random(1), every=0)


def test_a_dropped_link_leaves_its_will_as_a_crashed_program_would() -> None:
    """The daemon's `kill`: no DISCONNECT, so the broker publishes the will (`offline`)."""
    broker = EmbeddedBroker("127.0.0.1", free_port())
    broker.start()
    try:
        watcher = MqttLink(broker.url, "watcher", subscriptions=[("t/availability", 1)])
        watcher.start(timeout=5)
        crashing = MqttLink(
            broker.url, "crashing", will=Will("t/availability", b"offline", clean=b"stopped")
        )
        crashing.start(timeout=5)
        crashing.get(timeout=5)  # connected: subscriptions and retained messages restored
        crashing.publish_retained("t/availability", b"online")
        heard: list[bytes] = []
        deadline = time.monotonic() + 5
        while b"online" not in heard and time.monotonic() < deadline:
            item = watcher.get(timeout=0.1)
            if isinstance(item, Message):
                heard.append(item.payload)
        crashing.drop()
        assert not crashing.is_connected
        while b"offline" not in heard and time.monotonic() < deadline + 5:
            item = watcher.get(timeout=0.1)
            if isinstance(item, Message):
                heard.append(item.payload)
        # the will, not the clean stop's payload: the broker saw the connection die
        assert heard[-1] == b"offline" and b"stopped" not in heard
        watcher.stop()
    finally:
        broker.stop()


# One game a test, so that pytest-xdist spreads the soak over its workers: the four games in
# one test (93 s on a slow host) kept one worker busy while the other had run out of tests.
@pytest.mark.slow
@pytest.mark.parametrize("game", ["sixshooter", "ossix", "steamfunkateers", "showdown"])
def test_a_short_soak_plays_every_game_through_faults_and_loses_nothing(game: str) -> None:
    # At speed 20 a Steamfunkateers game can be over in about a second on a quick host, before
    # its first fault (drawn within the first 1.5 s): 0 faults, once in a full run. At speed 5
    # it lasts about 4 s.
    speed = "5" if game == "steamfunkateers" else "20"
    # A Showdown at a fault every 2 s spent 40 s recovering (13 faults, the game lengthening
    # as they came); every 3 s it meets 3 in 14 s. The other three games take the daemon kills.
    every = "3" if game == "showdown" else "2"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "soak.py"),
            *("--games", "1", "--only", game, "--every", every, "--seed", "5", "--json"),
            *("--camera", "0", "--console", "0", "--speed", speed),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    figures = json.loads(done.stdout)
    # Issue 30's aims: the game finished, no stall, every alert resolved, nothing
    # acknowledged lost. A refusal beyond the people's mistakes (a throw read twice across a
    # camera fault, say) is a figure the soak reports, not one of the aims.
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert figures["games_started"] == figures["games_finished"] == 1, figures["failed"]
    assert list(figures["per_game"]) == [game]
    assert figures["stalls"] == 0
    assert figures["alerts_resolved"] == figures["alerts_raised"], figures["failed"]
    assert figures["replays_equal"] == 1
    assert figures["acknowledged_commands"] > 0 and figures["acknowledged_lost"] == 0
    # The first fault comes in the game's first 1.5 s, before even the shortest game is over.
    assert figures["faults_injected"] >= 1, figures["faults"]
    # progress on stderr, one line a game
    assert done.stderr.count("soak games: ") == 1


class LateDaemonTable(SimulatedTable):
    """A simulated table whose rules daemon comes up 8 s late (a rules host still booting
    when the game master asks for a game): the first new game goes unanswered.

    The game master gives up on a new game after 3 s here, not the client's 10 s, so the
    daemon need come up only 8 s late, 5 s after that (it came 14 s late, most of this
    test's time, to leave 4 s after the 10)."""

    late = False

    def start_daemon(self, parts: TableParts) -> None:
        if not self.late:
            self.late = True
            timer = threading.Timer(8.0, super().start_daemon, args=(parts,))
            timer.daemon = True
            timer.start()
            return
        super().start_daemon(parts)

    def _play(self, client: Any, mat: Any, dice: Any, leds: Any) -> None:
        real = client.send

        def send(command: dict[str, Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
            if command.get("cmd") == "new_game":
                kwargs["timeout"] = 3.0
            return dict(real(command, *args, **kwargs))

        client.send = send
        super()._play(client, mat, dice, leds)


@pytest.mark.slow
def test_a_new_game_no_daemon_answered_is_asked_for_again() -> None:
    """Found by the soak (Six Shooter seed 636945): a new game lost with a restarting daemon
    was never asked for again and the table stood at 'no game yet'."""
    table = LateDaemonTable(game="ossix", seats=2, games=1, seed=3, camera=False, speed=20)
    summary = table.run()
    assert summary.stalls == [], summary.to_json()
    assert summary.games_finished == 1
    assert summary.new_games_asked_again >= 1


class HeldDealLostTable(SimulatedTable):
    """A simulated table whose rules daemon is killed and restarted just after it held the
    first new game for the mat's deal: the new daemon knows nothing of it, and the people,
    who got an ok, deal into no game."""

    parts: TableParts | None = None

    def start_daemon(self, parts: TableParts) -> None:
        self.parts = parts
        super().start_daemon(parts)

    def _play(self, client: Any, mat: Any, dice: Any, leds: Any) -> None:
        real = client.send
        held: list[dict[str, Any]] = []

        def send(command: dict[str, Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
            reply = dict(real(command, *args, **kwargs))
            if command.get("cmd") == "new_game" and "waiting" in reply and not held:
                held.append(reply)
                assert self.parts is not None
                Faults._kill_daemon(self.parts)
                self.start_daemon(self.parts)
            return reply

        client.send = send
        super()._play(client, mat, dice, leds)


@pytest.mark.slow
def test_a_held_new_game_that_never_starts_is_asked_for_again() -> None:
    """Found by the 400-game soak (Six Shooter seed 303083): a new game the daemon held for the
    mat's deal was lost when the daemon restarted; the game master, who had an ok, never asked
    again and the table stood at 'no game yet'."""
    table = HeldDealLostTable(game="sixshooter", seats=2, games=1, seed=3, camera=False, speed=20)
    summary = table.run()
    assert summary.stalls == [], summary.to_json()
    assert summary.games_finished == 1
    assert summary.new_games_asked_again >= 1
