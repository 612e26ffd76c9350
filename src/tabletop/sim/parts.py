"""The programs of a running simulated table, which a fault may stop and replace.

Apart from the runner (`runner.SimulatedTable` fills them in) so that the faults
(`faults.Faults`) can name them without importing the runner that imports them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tabletop.hardware.leds import SimulatedLeds
from tabletop.hardware.mat.sim import SimulatedMat
from tabletop.wire.broker import EmbeddedBroker
from tabletop.wire.mqtt import BrokerUrl

from .dice import DiceTray

if TYPE_CHECKING:
    from tabletop.bridge.bridge import Bridge
    from tabletop.console.server import ConsoleServer
    from tabletop.daemon.service import RulesDaemon


@dataclass(slots=True)
class TableParts:
    """The programs of a running simulated table, each of which a fault may stop and replace
    (`src/tabletop/sim/faults.py`); the devices (mat, LEDs, dice tray) stay."""

    url: BrokerUrl
    folder: Path
    broker: EmbeddedBroker | None  # None when the table runs on a broker it was given
    simulator: SimulatedMat
    leds: SimulatedLeds
    dice: DiceTray
    daemon: RulesDaemon | None = None
    daemon_stop: threading.Event = field(default_factory=threading.Event)
    daemon_thread: threading.Thread | None = None
    bridge: Bridge | None = None
    bridge_stop: threading.Event = field(default_factory=threading.Event)
    bridge_thread: threading.Thread | None = None
    console: ConsoleServer | None = None


class RestartsParts(Protocol):
    """What a fault needs of the table it is injected into: whether it serves a console, and
    how to start the daemon, the bridge and the console again (`runner.SimulatedTable` is one)."""

    @property
    def console(self) -> bool: ...

    def start_daemon(self, parts: TableParts) -> None: ...

    def start_bridge(self, parts: TableParts) -> None: ...

    def start_console(self, parts: TableParts, port: int = 0) -> None: ...
