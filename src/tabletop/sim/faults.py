"""Faults injected into the simulated table at random moments, while its people play.

`Faults` is handed to `SimulatedTable(faults=...)`; from its own thread it waits a random
time (exponential, `every` seconds on average), picks a fault of the kinds the table has, and
injects it, one at a time (the first at a uniform moment in its first `first` seconds):

- `daemon killed`: the rules daemon stops abruptly and a fresh `RulesDaemon` rebuilds the game
  from the same SQLite log. In-process, not a real `kill -9`: the daemon's loop is stopped
  between two rounds (a thread cannot be killed), then its MQTT socket is closed with no
  DISCONNECT (the broker publishes its last will, as after a kill) and its log and lease are
  closed as the kernel closes them for a killed process. What a real kill adds, a death between
  the log's commit and the replies, is not reached this way.
- `broker restarted`: the embedded broker stops (every connection dropped, every retained
  message forgotten) and a new one listens on the same port after a pause.
- `mat unplugged`: `SimulatedMat.unplug()` (the firmware stops, the pty and its path go), and
  `replug()` after a pause (a new pty behind the same path, a fresh boot).
- `camera frozen` / `camera frames dropped`: the next frames the simulated camera takes reach
  the dice watcher as the last frame again, or not at all (only with the camera).
- `bridge restarted`: the bridge is closed as a service stop closes it and a new one opens the
  mat's device path, the LEDs and the dice tray again.
- `console restarted`: the web console stops and starts again on the same port, and must
  answer its room page again (only with the console).

Every fault but the daemon's is the real thing for the part concerned: the same calls a
restart, an unplugged cable or a stuck camera make.
"""

from __future__ import annotations

import dataclasses
import enum
import random
import threading
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tabletop.wire.broker import BrokerStartError, EmbeddedBroker

from .dice import RenderedDiceTray
from .parts import RestartsParts, TableParts

if TYPE_CHECKING:
    from tabletop.hardware.camera.base import Frame


class FaultKind(enum.Enum):
    """What a fault does to the table."""

    DAEMON_KILLED = "daemon killed"
    BROKER_RESTARTED = "broker restarted"
    MAT_UNPLUGGED = "mat unplugged"
    CAMERA_FROZEN = "camera frozen"
    CAMERA_DROPPED = "camera frames dropped"
    BRIDGE_RESTARTED = "bridge restarted"
    CONSOLE_RESTARTED = "console restarted"


CAMERA_KINDS = frozenset({FaultKind.CAMERA_FROZEN, FaultKind.CAMERA_DROPPED})


@dataclass(frozen=True, slots=True)
class InjectedFault:
    """One fault injected: what, when (seconds into the run) and how long the part was out."""

    kind: FaultKind
    at_s: float
    out_s: float


class FaultError(Exception):
    """A part the fault stopped did not come back (its message says which and why)."""


@dataclass(slots=True)
class CameraFault:
    """What the dice camera's next frames become: frozen (the last frame again) or dropped."""

    frozen: int = 0  # frames still to be replaced by the last frame seen
    dropped: int = 0  # frames still to be lost
    last: Frame | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, frame: Frame) -> Sequence[Frame]:
        with self.lock:
            if self.dropped > 0:
                self.dropped -= 1
                return []
            if self.frozen > 0 and self.last is not None:
                self.frozen -= 1
                # A stuck camera: the same picture, stamped as the camera goes on being read.
                return [
                    dataclasses.replace(self.last, index=frame.index, timestamp=frame.timestamp)
                ]
            self.frozen = 0
            self.last = frame
            return [frame]


class Faults:
    """Injects faults into a running simulated table at random moments (see the module)."""

    def __init__(
        self,
        rng: random.Random,
        *,
        every: float = 6.0,
        kinds: Sequence[FaultKind] = tuple(FaultKind),
        pause: tuple[float, float] = (0.2, 2.0),
        frames: tuple[int, int] = (5, 60),
        first: float | None = None,
    ) -> None:
        if not every > 0:
            raise ValueError(f"every: expected a positive number of seconds, got {every!r}")
        self.rng = rng
        self.every = every
        # The first fault comes at a uniform moment in the first `first` seconds (default
        # `every`), so a short game gets one too; then one every `every` s on average.
        self.first = every if first is None else first
        self.kinds = tuple(kinds)
        self.pause = pause  # how long a part stays out (unplugged, stopped)
        self.frames = frames  # how many camera frames a camera fault spoils
        self.injected: list[InjectedFault] = []
        self.failures: list[str] = []  # parts that did not come back, in words
        self.camera = CameraFault()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = 0.0

    def start(self, table: RestartsParts, parts: TableParts) -> None:
        """Starts injecting into the running table `table` (SimulatedTable calls this)."""
        kinds = [kind for kind in self.kinds if self._applies(kind, table, parts)]
        if isinstance(parts.dice, RenderedDiceTray):
            parts.dice.frame_fault = self.camera
        self._stop.clear()
        self._started = time.monotonic()
        self._thread = threading.Thread(
            target=self._inject, args=(table, parts, kinds), name="sim-faults", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stops injecting; a fault under way is finished first (the part comes back)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(60)
            self._thread = None

    @staticmethod
    def _applies(kind: FaultKind, table: RestartsParts, parts: TableParts) -> bool:
        if kind in CAMERA_KINDS:
            return isinstance(parts.dice, RenderedDiceTray)
        if kind is FaultKind.CONSOLE_RESTARTED:
            return table.console
        if kind is FaultKind.BROKER_RESTARTED:
            return parts.broker is not None
        return True

    def _inject(self, table: RestartsParts, parts: TableParts, kinds: list[FaultKind]) -> None:
        wait = self.rng.uniform(0, self.first)
        while kinds and not self._stop.wait(wait):
            wait = self.rng.expovariate(1 / self.every)
            kind = self.rng.choice(kinds)
            at = time.monotonic()
            try:
                self._one(kind, table, parts)
            except Exception as error:
                self.failures.append(f"{kind.value}: {type(error).__name__}: {error}")
            self.injected.append(InjectedFault(kind, at - self._started, time.monotonic() - at))

    def _one(self, kind: FaultKind, table: RestartsParts, parts: TableParts) -> None:
        out = self.rng.uniform(*self.pause)
        if kind is FaultKind.MAT_UNPLUGGED:
            parts.simulator.unplug()
            time.sleep(out)
            parts.simulator.replug()
        elif kind is FaultKind.DAEMON_KILLED:
            self._kill_daemon(parts)
            time.sleep(out)
            table.start_daemon(parts)
        elif kind is FaultKind.BROKER_RESTARTED:
            self._restart_broker(parts, out)
        elif kind is FaultKind.BRIDGE_RESTARTED:
            parts.bridge_stop.set()
            if parts.bridge_thread is not None:
                parts.bridge_thread.join(10)
            if parts.bridge is not None:
                parts.bridge.close()
            time.sleep(out)
            table.start_bridge(parts)
        elif kind is FaultKind.CONSOLE_RESTARTED:
            self._restart_console(table, parts, out)
        else:
            spoiled = self.rng.randint(*self.frames)
            with self.camera.lock:
                if kind is FaultKind.CAMERA_FROZEN:
                    self.camera.frozen = spoiled
                else:
                    self.camera.dropped = spoiled

    @staticmethod
    def _kill_daemon(parts: TableParts) -> None:
        daemon = parts.daemon
        parts.daemon_stop.set()
        if parts.daemon_thread is not None:
            parts.daemon_thread.join(10)
        if daemon is not None:
            daemon.link.drop()  # no DISCONNECT: the broker publishes the daemon's will
            daemon.database.close()  # what the kernel closes for a killed process

    @staticmethod
    def _restart_broker(parts: TableParts, out: float) -> None:
        old = parts.broker
        if old is None:
            return
        old.stop()
        time.sleep(out)
        deadline = time.monotonic() + 10
        while True:
            new = EmbeddedBroker(old.host, old.port, old.users)
            try:
                new.start()
            except BrokerStartError as error:
                if not error.address_in_use or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)  # the old listener's socket is still closing
                continue
            parts.broker = new
            return

    @staticmethod
    def _restart_console(table: RestartsParts, parts: TableParts, out: float) -> None:
        old = parts.console
        if old is None:
            return
        port = old.port
        old.stop()
        time.sleep(out)
        table.start_console(parts, port=port)
        assert parts.console is not None
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(parts.console.url, timeout=2) as page:
                    if page.status == 200:
                        return
            except OSError as error:
                if time.monotonic() > deadline:
                    raise FaultError(
                        f"the console at {parts.console.url} did not answer: {error}"
                    ) from error
            time.sleep(0.2)
