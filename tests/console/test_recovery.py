"""Issue 30 item 5: the game master's page recovers by itself, in Chromium.

Before, a page whose session was gone (the console restarted, the session ended, a log-out in
another tab) said "Console unreachable — reconnecting…" for ever; now it asks the console
whether its login is live and shows the login form, saying why, with no reload by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import APIResponse, Browser, Page, Route, expect

from tabletop.console.server import ConsoleServer
from tests.console.conftest import TABLE, USERS, Table, gm_login, login

ENDED = "Your session ended"


def pumped_until(page: Page, check: Callable[[], bool], timeout_ms: float = 20_000) -> None:
    """Waits for `check`, letting Playwright deliver the page's events meanwhile (the sync API
    hands them over only inside its own calls, so a plain sleep would wait for ever)."""
    waited = 0.0
    while not check():
        assert waited < timeout_ms, "the page did not get there"
        page.wait_for_timeout(50)
        waited += 50


def test_after_a_console_restart_the_page_shows_the_login(table: Table, page: Page) -> None:
    gm_login(page, table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    port = table.console.port
    table.console.stop()
    table.console = ConsoleServer(login(table.url, "display"), TABLE, port=port, users=USERS)
    table.console.start()
    # the sessions were the old console's: the page goes to the login by itself
    expect(page.locator("#login-error")).to_contain_text(ENDED, timeout=30_000)
    gm_login(page, table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")


def test_an_expired_session_shows_the_login(tmp_path: Path, page: Page) -> None:
    table = Table(tmp_path, session_lifetime=3)
    table.start()
    try:
        gm_login(page, table.console.url)
        expect(page.locator("#connection")).to_have_text("Table online")
        expect(page.locator("#login-error")).to_contain_text(ENDED, timeout=30_000)
        expect(page.get_by_label("User name")).to_be_visible()
    finally:
        table.stop()


def test_a_log_out_in_another_tab_shows_the_login_here(table: Table, browser: Browser) -> None:
    context = browser.new_context()
    try:
        first = context.new_page()
        gm_login(first, table.console.url)
        expect(first.locator("#connection")).to_have_text("Table online")
        second = context.new_page()
        second.goto(table.console.url + "gm")
        expect(second.locator("#connection")).to_have_text("Table online")
        second.get_by_role("button", name="Log out").click()
        expect(first.locator("#login-error")).to_contain_text(ENDED, timeout=30_000)
    finally:
        context.close()


def test_an_unreachable_console_is_retried_not_taken_for_a_log_out(
    table: Table, page: Page
) -> None:
    gm_login(page, table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    # the venue's Wi-Fi drops: nothing the page sends reaches the console
    refused: list[str] = []

    def unreachable(route: Route) -> None:
        refused.append(route.request.url)
        route.abort()

    page.route("**/gm/**", unreachable)
    table.console.sessions.close_all()  # ends the stream; the page cannot learn why
    expect(page.locator("#connection")).to_have_text("Console unreachable — reconnecting…")
    # several tries (each a question about its session and a new stream), all unanswered:
    # still the game master's page, still trying
    pumped_until(page, lambda: sum("/session" in url for url in refused) >= 3)
    assert page.url.endswith("/gm")
    expect(page.locator("#connection")).to_have_text("Console unreachable — reconnecting…")
    page.unroute("**/gm/**")
    # reachable again: the console says the session is gone, and the page shows the login
    expect(page.locator("#login-error")).to_contain_text(ENDED, timeout=30_000)


def test_logging_out_here_is_not_taken_for_a_session_that_ended(table: Table, page: Page) -> None:
    """The console ends the page's stream while the log-out's answer is on its way; the page
    that logged out must not read that as its session running out (it went to "Your session
    ended" at times, and cut the next page's navigation short: CI's red run of 2026-12-02)."""
    gm_login(page, table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    held: list[tuple[Route, APIResponse]] = []
    page.route("**/gm/logout", lambda route: held.append((route, route.fetch(max_redirects=0))))
    checks: list[str] = []
    page.on(
        "request",
        lambda request: checks.append(request.url) if "/gm/session" in request.url else None,
    )
    ended: list[str] = []
    page.on("requestfinished", lambda request: ended.append(request.url))
    page.on("requestfailed", lambda request: ended.append(request.url))
    page.get_by_role("button", name="Log out").click(no_wait_after=True)
    # the console has logged the session out and the page's stream is over; only then does
    # the log-out's answer reach the page
    pumped_until(page, lambda: bool(held) and table.console.sessions.count == 0)
    pumped_until(page, lambda: any(url.endswith("/gm/events") for url in ended))
    route, answer = held[0]
    route.fulfill(response=answer)
    expect(page.get_by_label("User name")).to_be_visible()
    assert page.url == table.console.url + "gm"
    expect(page.locator("main")).not_to_contain_text(ENDED)
    assert checks == []  # the page never asked whether its login was live: it knew
