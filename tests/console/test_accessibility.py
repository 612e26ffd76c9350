"""An accessibility check of every page of the console (issue 32.6): axe-core, injected into each
page in Chromium with a game on the table, finds nothing of impact serious or critical.

axe-core comes from npm (tests/console/axe/package-lock.json pins it; scripts/test.sh runs
`npm ci` there). "Colour not the only signal" is checked as far as axe checks it (its rule
link-in-text-block, and the contrast of every text), and by the pages' own tests: the seat to act
is tagged in words, an alerted slot says "(alert)" to a screen reader.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.console.accessibility import assert_accessible, join_letting_axe_in
from tests.console.conftest import Table, gm_login
from tests.console.test_seat_screens import codes, start_showdown
from tests.daemon.daemon_helpers import ROSTER


def game_on_the_table(table: Table) -> None:
    """Showdown with a bullet revealed, a throw and an alert: every part of the pages drawn."""
    start_showdown(table)
    assert table.send({"cmd": "reveal", "player": "Bo", "slot": 1})["ok"]
    table.publish_as_daemon(
        "dice/event",
        {"v": 1, "bridge": "sim", "event": "rolled", "values": [2, 6]},
        False,
        "bridge",
    )
    alert = {
        "v": 1,
        "alerts": [
            {"key": "s1.2", "message": "Ana's slot 2: lay it face-down", "seat": 0, "slot": 2}
        ],
        "instructions": ["Bo: draw a card"],
    }
    table.publish_as_daemon("table/alert", alert)


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["tv", "phone"])
def test_every_page_has_no_serious_accessibility_finding(
    seated: Table, browser: Browser, axe_source: str, size: tuple[int, int]
) -> None:
    base = seated.console.url
    game_on_the_table(seated)
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
    try:
        page = context.new_page()
        # the login page, empty and with a refusal
        page.goto(base + "gm")
        assert_accessible(page, axe_source, "the login page")
        gm_login(page, base, password="wrong")
        expect(page.locator("#login-error")).to_be_visible()
        assert_accessible(page, axe_source, "the login page with a refusal")
        # the game master's page, logged in, with the seats' codes given
        gm_login(page, base)
        expect(page.locator("#connection")).to_have_text("Table online")
        expect(page.locator("#seats .seat")).to_have_count(2)
        expect(page.locator("#actions form").first).to_be_visible()
        given = codes(page)
        assert_accessible(page, axe_source, "the game master's page")
        # the room, the overlay
        room = context.new_page()
        for path, name in (("", "the room view"), ("overlay", "the overlay")):
            room.goto(base + path)
            expect(room.locator("#connection")).to_have_text("Table online")
            expect(room.locator("#alerts-box")).to_be_visible()
            expect(room.locator("#dice .die")).to_have_count(2)
            assert_accessible(room, axe_source, name)
        # a seat's join page, empty and with a refusal, then its screen
        phone = browser.new_context(
            viewport={"width": 390, "height": 844}, bypass_csp=True
        ).new_page()
        try:
            phone.goto(f"{base}seat/2")
            assert_accessible(phone, axe_source, "the join page")
            phone.get_by_label("Seat 2's code").fill("WRONG1")
            phone.get_by_role("button", name="Join").click()
            expect(phone.locator("#join-error")).to_be_visible()
            assert_accessible(phone, axe_source, "the join page with a refusal")
        finally:
            phone.context.close()
        seat = join_letting_axe_in(browser, base, 1, given[1])
        try:
            expect(seat.locator(".seat.mine .card.known-down")).to_have_count(6)
            assert_accessible(seat, axe_source, "seat 1's screen")
        finally:
            seat.context.close()
    finally:
        context.close()


# The other games' drawings, on the two public pages (Showdown's are checked above).
OTHER_GAMES: dict[str, list[dict[str, Any]]] = {
    "sixshooter": [ROSTER, {"cmd": "reveal", "player": "Ana", "slot": 1}],
    "ossix": [
        {"cmd": "new_game", "game": "ossix", "players": ["Jack", "Kate"]},
        {"cmd": "action", "player": "Jack", "attribute": "agility", "score": 2, "skill": True},
        {"cmd": "roll", "values": [1, 4, 6]},
    ],
    "steamfunkateers": [
        {
            "cmd": "new_game",
            "game": "steamfunkateers",
            "players": ["Ana", "Bo"],
            "options": {"starting_vigor": 2, "gm_vigor": 1},
        },
        {
            "cmd": "check",
            "task": "stop the stagecoach",
            "pools": [{"player": "Bo", "skill": "Athletics", "rank": 4, "extra_die": True}],
        },
        {"cmd": "roll", "values": [6, 6, 1, 2, 3]},
    ],
}


@pytest.mark.parametrize("game", sorted(OTHER_GAMES))
def test_the_public_pages_of_every_game_have_no_serious_finding(
    table: Table, axe_page: Page, axe_source: str, game: str
) -> None:
    page = axe_page
    for command in OTHER_GAMES[game]:
        assert table.send(command)["ok"], command
    for path, name in (("", "the room view"), ("overlay", "the overlay")):
        page.goto(table.console.url + path)
        expect(page.locator("#connection")).to_have_text("Table online")
        expect(page.locator("#seats .seat").first).to_be_visible()
        expect(page.locator("pre.generic")).to_have_count(0)  # the game's own drawing
        assert_accessible(page, axe_source, f"{name} ({game})")
