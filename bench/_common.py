"""What several benchmarks need and no program does: a mat of the real firmware in modelled time
(bench/mat_sweep.py), and a whole table on this process's threads with the game master's page
open in a browser (bench/seat_action.py).

The firmware tests have their own modelled-time mat (tests/mat/fw/fwhelpers.py) because theirs
also runs under MicroPython; this one is for CPython only.
"""

# The firmware is untyped MicroPython-compatible code (as for tabletop.hardware.mat.sim in
# pyproject.toml). mypy: disallow-untyped-calls=False

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tabletop.console.server import ConsoleServer
from tabletop.daemon.client import TableClient
from tabletop.daemon.service import RulesDaemon
from tabletop.firmware.controller import MatController, ZoneTable
from tabletop.firmware.scanner import ZoneScanner
from tabletop.firmware.simhw import (
    MemoryLink,
    SimCard,
    SimFaceSensors,
    SimLeds,
    SimRfidBus,
    SimTable,
    VirtualClock,
)
from tabletop.firmware.zones import Layout
from tabletop.wire.broker import EmbeddedBroker, free_port
from tabletop.wire.mqtt import BrokerUrl
from tabletop.wire.passwords import hash_password
from tabletop.wire.roles import Role, User

CHROMIUM = "/usr/bin/chromium"


# -- a mat in modelled time ------------------------------------------------------------------


def card(n: int, face_level: int = 45000) -> SimCard:
    """A simulated card with a 7-byte UID made from `n`."""
    return SimCard(bytes([4, 0, 0, 0, 0, n >> 8, n & 0xFF]), face_level=face_level)


class _Watchdog:
    def feed(self) -> None:
        pass


class ModelledMat:
    """A whole simulated mat in modelled time: the table of cards, the readers on `buses` buses,
    the firmware's scanners and controller, all stepped in turn on this thread (so a run takes
    no real time to speak of). No touch pads."""

    def __init__(
        self,
        seats: int = 6,
        slots: int = 6,
        pad: bool = True,
        buses: int = 2,
        profile: str = "tuned",
    ) -> None:
        self.layout = Layout(seats, slots, pad)
        self.clock = VirtualClock()
        self.table = SimTable(self.layout.count)
        self.zones = ZoneTable(self.layout)
        self.scanners: list[ZoneScanner] = []
        sensors = SimFaceSensors(self.table, self.clock)
        for index, zones in enumerate(self.layout.split(buses)):
            bus = SimRfidBus(self.table, self.clock, profile, seed=index + 5)
            self.scanners.append(ZoneScanner(bus, sensors, zones, self.zones, self.clock))
        self.controller = MatController(
            self.zones,
            MemoryLink(),
            self.clock,
            0xB007,
            self.scanners,
            SimLeds(self.layout.count),
            _Watchdog(),
        )

    def _step(self) -> None:
        for scanner in self.scanners:
            scanner.step()
        self.controller.service()

    def run(self, ms: int) -> None:
        """Runs the scan loop and the controller for `ms` modelled milliseconds."""
        end = self.clock.now_ms() + ms
        while self.clock.now_ms() < end:
            self._step()

    def run_until(self, condition: Callable[[], bool], limit_ms: int = 2000) -> int:
        """Runs until `condition()` holds; the modelled milliseconds it took."""
        start = self.clock.now_ms()
        while not condition():
            if self.clock.now_ms() - start >= limit_ms:
                raise TimeoutError(f"condition not met in {limit_ms} modelled ms")
            self._step()
        return int(self.clock.now_ms() - start)


# -- a whole table on this process's threads -------------------------------------------------

TABLE = "main"
PASSWORDS = {"rules": "rules-pw", "gm": "gm-pw", "display": "display-pw"}
_ROLES = {"rules": Role.DAEMON, "gm": Role.GM, "display": Role.VIEWER}
USERS = tuple(
    User(name, _ROLES[name], ("*",), hash_password(password, iterations=10))
    for name, password in PASSWORDS.items()
)


def login(url: BrokerUrl, user: str) -> BrokerUrl:
    return dataclasses.replace(url, username=user, password=PASSWORDS[user])


class Table:
    """The embedded broker with users, a rules daemon and the console, on this process's threads,
    and the game master's own client (`send`). `daemon_options` go to the daemon (seats=[...])."""

    def __init__(self, workdir: Path, daemon_options: dict[str, Any] | None = None) -> None:
        self.broker = EmbeddedBroker("127.0.0.1", free_port(), USERS)
        self.url = BrokerUrl("mqtt", "127.0.0.1", self.broker.port)
        self.daemon = RulesDaemon(
            login(self.url, "rules"), TABLE, workdir / "games.sqlite3", **(daemon_options or {})
        )
        self.stop_daemon = threading.Event()
        self.daemon_thread = threading.Thread(target=self.daemon.run, args=(self.stop_daemon,))
        # the phones' seat joins in the run's own folder, never the user's data directory
        self.console = ConsoleServer(
            login(self.url, "display"), TABLE, users=USERS, seats_file=workdir / "seats.json"
        )
        self.gm = TableClient(login(self.url, "gm"), TABLE)

    def start(self) -> None:
        self.broker.start()
        self.daemon.start(timeout=10)
        self.daemon_thread.start()
        self.console.start()
        self.gm.start()

    def send(self, command: dict[str, Any]) -> dict[str, Any]:
        return self.gm.send(command)

    def stop(self) -> None:
        self.gm.close()
        self.console.stop()
        self.stop_daemon.set()
        self.daemon_thread.join(10)
        self.daemon.close()
        self.broker.stop()


def gm_login(page: Page, base: str) -> None:
    """Logs the game master in on `page` (the console at `base`)."""
    page.goto(base + "gm")
    page.get_by_label("User name").fill("gm")
    page.get_by_label("Password").fill(PASSWORDS["gm"])
    page.get_by_role("button", name="Log in").click()


def seat_codes(page: Page, seats: int = 2) -> dict[int, str]:
    """The seats' join codes, from the game master's page: {seat: code}."""
    # The game master's connection hears the seats' views a moment after the login: until
    # then the console says no seat views are published, and a person clicks again.
    expect(page.locator("#connection")).to_have_text("Table online")
    result = page.locator("#seat-codes-result")
    for _ in range(20):
        page.get_by_role("button", name="Give the seats codes").click()
        # the answer to this click, not the last one (the page says "Sending…" meanwhile)
        expect(result).not_to_have_text(re.compile(r"^(Sending…)?$"))
        if page.locator("#seat-codes li").count() == seats:
            break
        page.wait_for_timeout(250)
    expect(page.locator("#seat-codes li")).to_have_count(seats)
    found = {}
    for item in page.locator("#seat-codes li").all():
        found[int(str(item.get_attribute("data-seat")))] = item.locator("code").inner_text()
    return found
