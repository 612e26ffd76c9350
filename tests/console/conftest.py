"""A real table for the console's browser tests: the embedded broker with the four roles, the
rules daemon on a thread, the console in-process, and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tabletop.bridge.bridge import Bridge
from tabletop.console.server import ConsoleServer
from tabletop.daemon.client import TableClient
from tabletop.hardware.leds import LedConfig, SimulatedLeds
from tabletop.hardware.mat import open_mat
from tabletop.wire.broker import EmbeddedBroker, free_port
from tabletop.wire.mqtt import BrokerUrl
from tabletop.wire.passwords import hash_password
from tabletop.wire.roles import Role, User
from tests.daemon.daemon_helpers import DaemonThread

CHROMIUM = "/usr/bin/chromium"
TABLE = "main"
PASSWORDS = {"rules": "rules-pw", "gm": "gm-pw", "display": "display-pw", "bridge": "bridge-pw"}
ROLES = {"rules": Role.DAEMON, "gm": Role.GM, "display": Role.VIEWER, "bridge": Role.BRIDGE}
USERS = tuple(
    User(name, ROLES[name], ("*",), hash_password(password, iterations=10))
    for name, password in PASSWORDS.items()
)


def login(url: BrokerUrl, user: str) -> BrokerUrl:
    return dataclasses.replace(url, username=user, password=PASSWORDS[user])


@contextlib.contextmanager
def bridge_on(
    table: Table, dice: Callable[[threading.Event], Iterator[dict[str, Any]]]
) -> Iterator[Bridge]:
    """A bridge for `table` on a thread of its own: a simulated mat of two seats and LEDs, and
    `dice` as its camera's throws."""
    running = Bridge(
        login(table.url, "bridge"),
        TABLE,
        open_mat("sim:?seats=2&slots=6&pad=1"),
        SimulatedLeds(LedConfig(seats=2, test_pattern_seconds=0)),
        dice=dice,
    )
    stop = threading.Event()
    thread = threading.Thread(target=running.run, args=(stop,))
    running.start()
    thread.start()
    try:
        yield running
    finally:
        stop.set()
        thread.join(5)
        running.close()


class Table:
    """A broker with users, a rules daemon, and the console, all on this process's threads."""

    def __init__(
        self, workdir: Path, daemon_options: dict[str, Any] | None = None, **console_options: Any
    ) -> None:
        self.workdir = workdir
        self.daemon_options = daemon_options or {}  # seats=[...]: the daemon reads a mat
        self.broker = EmbeddedBroker("127.0.0.1", free_port(), USERS)
        self.url = BrokerUrl("mqtt", "127.0.0.1", self.broker.port)
        self.db = workdir / "games.sqlite3"
        self.daemon: DaemonThread | None = None
        # the phones' seat joins in the test's own folder, never the user's data directory
        options = {"users": USERS, "seats_file": workdir / "seats.json", **console_options}
        self.console = ConsoleServer(login(self.url, "display"), TABLE, **options)
        self.gm: TableClient | None = None

    def start(self) -> None:
        self.broker.start()
        self.start_daemon()
        self.console.start()
        self.gm = TableClient(login(self.url, "gm"), TABLE)
        self.gm.start()

    def start_daemon(self) -> None:
        self.daemon = DaemonThread(login(self.url, "rules"), TABLE, self.db, **self.daemon_options)
        self.daemon.start()

    def stop_daemon(self) -> None:
        if self.daemon is not None:
            self.daemon.stop()
            self.daemon = None

    def send(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self.gm is not None
        return self.gm.send(command)

    def publish_as_daemon(
        self, topic: str, body: dict[str, Any], retain: bool = True, user: str = "rules"
    ) -> None:
        """Publishes one of the daemon's payloads as the daemon's user (or `user`) would."""
        client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{time.monotonic_ns()}")
        client.username_pw_set(user, PASSWORDS[user])
        client.connect("127.0.0.1", self.broker.port)
        client.loop_start()
        try:
            info = client.publish(
                f"tabletop/v1/{TABLE}/{topic}", json.dumps(body).encode(), qos=1, retain=retain
            )
            info.wait_for_publish(5)
            assert info.is_published(), f"{topic}: not published"
        finally:
            client.disconnect()
            client.loop_stop()

    def stop(self) -> None:
        if self.gm is not None:
            self.gm.close()
        self.console.stop()
        self.stop_daemon()
        self.broker.stop()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    running = Table(tmp_path)
    running.start()
    try:
        yield running
    finally:
        running.stop()


# Package scope, not session: Playwright's sync API keeps an event loop running on the main
# thread while it is open, which would break later tests that call asyncio.run().
@pytest.fixture
def seated(tmp_path: Path) -> Iterator[Table]:
    """A table whose daemon reads two seats (Ana, Bo): it publishes each seat's own view."""
    running = Table(tmp_path, daemon_options={"seats": ["Ana", "Bo"]})
    running.start()
    try:
        yield running
    finally:
        running.stop()


# Every expectation waits for its condition; this is the safety net, not a speed figure: a
# page on a loaded 2-core host may take seconds to draw (Playwright's own default is 5 s).
expect.set_options(timeout=20_000)


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"{CHROMIUM} is missing: scripts/test.sh installs it (apt-get install chromium)"
        )
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    opened = context.new_page()
    try:
        yield opened
    finally:
        context.close()


@pytest.fixture
def axe_page(browser: Browser) -> Iterator[Page]:
    """A tablet's page that lets axe in (tests/console/accessibility.py): axe is an inline
    script, which the console's Content-Security-Policy refuses."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    opened = context.new_page()
    try:
        yield opened
    finally:
        context.close()


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe-core's source, read once a module."""
    from tests.console.accessibility import axe_script

    return axe_script()


def snapshot(page: Page) -> dict[str, Any]:
    """The data the page drew last (what the server sent it)."""
    value: dict[str, Any] = page.evaluate("() => window.tableSnapshot || {}")
    return value


def wait_for(page: Page, check: Callable[[dict[str, Any]], bool], timeout: float = 20) -> None:
    """Waits until the data the page drew passes `check` (20 s, as every expectation here)."""
    deadline = time.monotonic() + timeout
    while not check(snapshot(page)):
        if time.monotonic() > deadline:
            raise AssertionError(f"the page never showed it; it shows {snapshot(page)}")
        page.wait_for_timeout(50)


def drawn_as_the_table_is(table: Table, page: Page) -> None:
    """Waits until the page has drawn the prompt the daemon published last, after every
    command already answered: a layout measured before then may be of an earlier prompt,
    which the next one replaces between two measurements (CI's red run of 2026-12-03)."""
    assert table.gm is not None
    table.gm.sync()  # the barrier: the prompts of the commands answered are filed
    prompt = table.gm.retained.get(table.gm.topics.prompt)
    wait_for(page, lambda data: data.get("prompt") == prompt)


def resized(page: Page, width: int, height: int) -> None:
    """Sets the viewport and has the page fit itself to it before anything is measured: the
    browser tells the page of a new size on a frame of its own, later than the call returns,
    and the page's resize handler (its fit to the screen) runs in one go when called."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function(
        "([width, height]) => innerWidth === width && innerHeight === height", arg=[width, height]
    )
    page.evaluate("() => window.dispatchEvent(new Event('resize'))")


def boxes(page: Page, *selectors: str) -> list[dict[str, float]]:
    """The boxes of the first element of each selector, measured in one frame, so no
    drawing comes between them (two bounding_box calls are two round trips)."""
    found: list[dict[str, float] | None] = page.evaluate(
        """(selectors) => selectors.map((selector) => {
            const node = document.querySelector(selector);
            if (!node) return null;
            const box = node.getBoundingClientRect();
            return {x: box.x, y: box.y, width: box.width, height: box.height};
        })""",
        list(selectors),
    )
    missing = [selector for selector, box in zip(selectors, found, strict=True) if box is None]
    assert not missing, f"nothing on the page matches {missing}"
    return [box for box in found if box is not None]


def gm_login(page: Page, base: str, user: str = "gm", password: str | None = None) -> None:
    page.goto(base + "gm")
    page.get_by_label("User name").fill(user)
    page.get_by_label("Password").fill(PASSWORDS[user] if password is None else password)
    page.get_by_role("button", name="Log in").click()


def shoot(page: Page, name: str, full_page: bool = False) -> None:
    """Saves a screenshot for docs/console.md when $CONSOLE_SCREENSHOTS names a folder
    (CONSOLE_SCREENSHOTS=docs/images .venv/bin/pytest tests/console); otherwise nothing."""
    folder = os.environ.get("CONSOLE_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=full_page)
