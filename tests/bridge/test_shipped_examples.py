"""Each shipped table file runs as shipped: `tabletop rules` and `tabletop bridge` started from
it, never edited; where the file names the Pi's devices they are swapped only through the
documented environment (TABLETOP_MAT, TABLETOP_CAMERA, TABLETOP_LEDS; `tabletop bridge
--help`), and the broker's address and logins come from --broker (issue 46 item 1)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabletop.hardware.mat.sim import SimulatedMat
from tabletop.wire.broker import free_port
from tabletop.wire.mqtt import BrokerUrl, Message, MqttLink
from tabletop.wire.topics import TableTopics
from tests.daemon.daemon_helpers import Mosquitto, port_open

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEADLINE_S = 60.0  # a safety net: the waits end when what they wait for is there
# The environment a test controls: nothing of the developer's may swap a device unseen.
OVERRIDES = ("TABLETOP_MAT", "TABLETOP_CAMERA", "TABLETOP_LEDS", "TABLETOP_BROKER")


@dataclass
class Program:
    """A `tabletop` process, and what it wrote on stderr once it has ended."""

    process: subprocess.Popen[str]
    stderr: str = ""


@contextlib.contextmanager
def program(args: list[str], env: dict[str, str], folder: Path) -> Iterator[Program]:
    """`tabletop ARGS` as its own process (started in a folder that is not the file's, as
    systemd starts it in /), stopped with SIGTERM; its stderr is checked for tracebacks."""
    clean = {key: value for key, value in os.environ.items() if key not in OVERRIDES}
    process = subprocess.Popen(
        [sys.executable, "-m", "tabletop", *args],
        cwd=folder,
        env={**clean, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    running = Program(process)
    try:
        yield running
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        _, running.stderr = process.communicate(timeout=20)
        assert "Traceback" not in running.stderr, running.stderr
        assert process.returncode == 0, running.stderr


def wait_for(check: Callable[[], bool], what: str, pump: Callable[[], None]) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {DEADLINE_S} s waiting for {what}")
        pump()


class Retained:
    """The latest payload of each of a table's topics, as a display sees them."""

    def __init__(self, url: BrokerUrl, table: str) -> None:
        self.topics = TableTopics(table)
        wanted = (
            "bridge_availability",
            "rules_availability",
            "mat_snapshot",
            "table_alert",
            "dice_event",
        )
        self.link = MqttLink(
            url,
            "test-shipped-watch",
            subscriptions=[(getattr(self.topics, name), 1) for name in wanted],
        )
        self.latest: dict[str, bytes] = {}
        self.throws: list[dict[str, Any]] = []  # what the camera announced

    def pump(self) -> None:
        item = self.link.get(timeout=0.05)
        if isinstance(item, Message):
            self.latest[item.topic] = item.payload
            if item.topic == self.topics.dice_event:
                self.throws.append(json.loads(item.payload))

    def snapshot(self) -> dict[str, Any]:
        raw = self.latest.get(self.topics.mat_snapshot)
        return json.loads(raw) if raw else {}

    def running(self) -> bool:
        """The daemon and the bridge online, the bridge's mat connected."""
        return (
            self.latest.get(self.topics.rules_availability) == b"online"
            and self.latest.get(self.topics.bridge_availability) == b"online"
            and self.snapshot().get("connected") is True
        )


def test_the_laptop_example_runs_as_shipped(tmp_path: Path) -> None:
    """examples/table.toml names only simulated devices: nothing is swapped. Its `sim://` mat
    and `sim` camera used to be a mat never opened and a camera that stopped at once."""
    config = str(EXAMPLES / "table.toml")
    port = free_port()
    rules = ["rules", "--config", config, "--broker", f"embedded://127.0.0.1:{port}"]
    with program([*rules, "--db", str(tmp_path / "games.sqlite3")], {}, tmp_path):
        deadline = time.monotonic() + DEADLINE_S
        while not port_open(port):
            assert time.monotonic() < deadline, "the daemon's embedded broker never opened"
            time.sleep(0.05)
        watch = Retained(BrokerUrl("mqtt", "127.0.0.1", port), "kitchen")
        watch.link.start()
        try:
            bridge_args = ["bridge", "--config", config, "--broker", f"mqtt://127.0.0.1:{port}"]
            with program(bridge_args, {}, tmp_path) as bridge:
                wait_for(watch.running, "the table running", watch.pump)
                assert watch.latest.get(watch.topics.table_alert) is not None
                # camera = "sim" as shipped: the simulated camera's throws are read
                wait_for(lambda: bool(watch.throws), "a throw from the camera", watch.pump)
            said = bridge.stderr
            assert "bridge: camera (" not in said  # no problem with the camera
            assert 'simulated: the mat (mat.port = "sim://")' in said
            assert 'the camera (camera.source = "sim")' in said
            assert 'the seat LEDs (leds.backend = "sim")' in said
        finally:
            watch.link.stop()


def test_the_pi_example_runs_with_its_devices_swapped_by_the_environment(
    tmp_path: Path,
) -> None:
    """examples/mosquitto/table.toml: the Pi's mat port, camera and GPIO LEDs, Mosquitto with
    a user per role. The mat is a simulated one behind a pty, named by TABLETOP_MAT as a real
    one would be; a card laid on it reaches the broker from the unedited file."""
    config = str(EXAMPLES / "mosquitto" / "table.toml")
    secrets = {"rules": "rules-pw", "bridge": "bridge-pw", "gm": "gm-pw"}
    broker = Mosquitto(tmp_path, users=secrets)
    broker.start()
    mat = SimulatedMat.from_url("sim:?seats=3&slots=6")
    path = mat.start()
    try:

        def login(user: str) -> str:
            return f"mqtt://{user}:{secrets[user]}@127.0.0.1:{broker.port}"

        rules = ["rules", "--config", config, "--broker", login("rules")]
        devices = {"TABLETOP_MAT": path, "TABLETOP_CAMERA": "sim", "TABLETOP_LEDS": "sim"}
        watch = Retained(broker.url.with_login("gm", secrets["gm"]), "kitchen")
        watch.link.start()
        with (
            program([*rules, "--db", str(tmp_path / "games.sqlite3")], {}, tmp_path),
            program(
                ["bridge", "--config", config, "--broker", login("bridge")], devices, tmp_path
            ) as bridge,
        ):
            wait_for(watch.running, "the table running", watch.pump)
            mat.place("s2.3", "QS", "down")
            wait_for(
                lambda: watch.snapshot().get("zones", {}).get("s2.3", {}).get("card") == "QS",
                "the card in the snapshot",
                watch.pump,
            )
        watch.link.stop()
        said = bridge.stderr
        assert f"$TABLETOP_MAT={path}, instead of mat.port" in said
        assert 'the camera ($TABLETOP_CAMERA=sim, instead of camera.source = "picamera")' in said
        # the LEDs are named as the other devices are: by what chose them
        assert 'the seat LEDs ($TABLETOP_LEDS=sim, instead of leds.backend = "gpio")' in said
    finally:
        mat.stop()
        broker.stop()
