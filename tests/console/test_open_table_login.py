"""The game master's login on a table without passwords says so (issue 46, small points).

A table whose file lists no broker users (the simulated table, a laptop) runs an embedded
broker that takes any login from this machine: the login page and each answer to the form say
that any name opens the game master's view, and a table with users says nothing of the kind.
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from email.message import Message
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tabletop.console.server import ConsoleServer
from tabletop.wire.broker import EmbeddedBroker, free_port
from tabletop.wire.mqtt import BrokerUrl
from tests.console.conftest import TABLE, Table, shoot

NOTE = "This table has no passwords: any name opens the game master's view."


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Keeps a 303 as the answer, so the test sees what the login answered."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def post_login(base: str, **form: str) -> tuple[int, str, Message]:
    """POSTs the login form as the page does; the status, the page and the headers."""
    data = urllib.parse.urlencode(form).encode()
    request = urllib.request.Request(base + "gm/login", data=data, method="POST")
    request.add_header("Content-Type", "application/x-www-form-urlencoded")
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=20) as answer:
            return answer.status, answer.read().decode(), answer.headers
    except urllib.error.HTTPError as refused:
        with refused:
            return refused.code, refused.read().decode(), refused.headers


def get(base: str, path: str, cookie: str = "") -> tuple[int, str]:
    request = urllib.request.Request(base + path, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        with refused:
            return refused.code, refused.read().decode()


@pytest.fixture
def open_table(tmp_path: Path) -> Iterator[ConsoleServer]:
    """The console of a table with no users: an embedded broker that takes anyone from here."""
    broker = EmbeddedBroker("127.0.0.1", free_port(), ())
    console = ConsoleServer(
        BrokerUrl("mqtt", "127.0.0.1", broker.port), TABLE, corrections=tmp_path / "corrections"
    )
    broker.start()
    try:
        console.start()
        try:
            yield console
        finally:
            console.stop()
    finally:
        broker.stop()


def test_the_login_page_of_a_table_without_passwords_says_any_name_opens_it(
    open_table: ConsoleServer,
) -> None:
    status, page = get(open_table.url, "gm")
    assert status == 200
    assert NOTE in page
    status, page, _ = post_login(open_table.url, username="", password="")
    assert status == 400
    assert "Give any name." in page and "no passwords" in page


def test_any_name_and_password_open_the_game_masters_view(open_table: ConsoleServer) -> None:
    status, _, headers = post_login(open_table.url, username="anyone", password="whatever")
    assert status == 303, "the login was refused"
    assert headers["Location"] == "/gm"
    cookie = headers["Set-Cookie"].split(";", 1)[0]
    status, page = get(open_table.url, "gm", cookie)
    assert status == 200
    assert 'action="/gm/login"' not in page, "still the login form after logging in"


def test_a_table_with_users_says_nothing_of_the_kind(table: Table) -> None:
    status, page = get(table.console.url, "gm")
    assert status == 200 and 'action="/gm/login"' in page
    assert "no passwords" not in page
    status, page, _ = post_login(table.console.url, username="", password="")
    assert status == 400
    assert "Give a user name and a password." in page and "no passwords" not in page


def test_the_note_is_what_the_browser_shows(open_table: ConsoleServer, page: Page) -> None:
    page.goto(open_table.url + "gm")
    expect(page.locator("#login-open")).to_contain_text(NOTE)
    expect(page.get_by_label("User name")).to_be_visible()
    shoot(page, "console-login-open-table")
