"""The stream overlay stays a band (issue 48 item 8), in Chromium: whatever the table holds
(six seats, six characters with seven gamblers at poker, Showdown, Steamfunkateers' pools)
every part of it lies in the bottom fifth of the frame, at OBS's 1920x1080 and at 1280x720;
and the streamer picks its parts (?show=seats,dice,prompt)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.console.conftest import Table, resized, shoot, wait_for
from tests.console.test_room_fits import GAME_OF, TABLES

# The painted parts of the overlay: every visible element of its band, as boxes.
BAND = """() => {
  const boxes = [...document.querySelectorAll("main *")]
    .filter((n) => n.getClientRects().length && !n.closest(".visually-hidden"))
    .map((n) => n.getBoundingClientRect()).filter((r) => r.width > 1 && r.height > 1);
  const top = Math.min(...boxes.map((r) => r.top)), bottom = Math.max(...boxes.map((r) => r.bottom));
  const band = document.querySelector("main").getBoundingClientRect();
  return { top, bottom, innerHeight, innerWidth, bandTop: band.top, bandHeight: band.height,
           count: boxes.length, scrollWidth: document.scrollingElement.scrollWidth,
           right: Math.max(...boxes.map((r) => r.right)) };
}"""


def band(page: Page) -> dict[str, Any]:
    value: dict[str, Any] = page.evaluate(BAND)
    return value


@pytest.mark.parametrize("holds", ["ossix-poker", "sixshooter", "showdown", "steamfunkateers"])
def test_the_overlay_is_a_band_of_a_fifth_of_the_frame(
    table: Table, page: Page, holds: str
) -> None:
    page.goto(table.console.url + "overlay")
    expect(page.locator("#connection")).to_have_text("Table online")
    TABLES[holds](table)
    game = GAME_OF.get(holds, "ossix")
    wait_for(page, lambda data: (data.get("prompt") or {}).get("game") == game)
    wait_for(page, lambda data: bool(data.get("picture")))
    expect(page.locator("#dice .die").first).to_be_visible()
    for width, height in ((1920, 1080), (1280, 720)):
        resized(page, width, height)
        found = band(page)
        assert found["count"] > 5, found
        # everything painted lies in the bottom fifth: the video above it stays clear
        assert found["top"] >= height * 0.8 - 0.5, (holds, width, found)
        assert found["bottom"] <= height + 0.5, (holds, width, found)
        assert found["right"] <= width + 0.5 and found["scrollWidth"] <= width, found
        if width == 1920:
            shoot(page, f"console-overlay-band-{holds}")
    if holds == "ossix-poker":  # the seven gamblers in the strip, each with their dice
        expect(page.locator("#seats .gambler")).to_have_count(7)
        for gambler in page.locator("#seats .gambler").all():
            expect(gambler.locator(".die")).to_have_count(5)
            expect(gambler).to_be_in_viewport()
    if holds == "sixshooter":
        expect(page.locator("#seats > .seat")).to_have_count(6)
        for seat in page.locator("#seats > .seat").all():
            expect(seat.locator(".slot").last).to_be_in_viewport()


def test_the_streamer_picks_the_overlays_parts(table: Table, page: Page) -> None:
    page.set_viewport_size({"width": 1920, "height": 1080})
    TABLES["sixshooter"](table)
    page.goto(table.console.url + "overlay?show=seats,dice,prompt")
    expect(page.locator("#connection")).to_have_text("Table online")
    expect(page.locator("#seats > .seat")).to_have_count(6)
    expect(page.locator("#dice .die")).to_have_count(2)
    expect(page.locator("#prompt")).to_be_visible()
    # the parts not asked for are not shown, though the alert and the events are there
    expect(page.locator("#alerts .alert")).to_have_count(1)
    expect(page.locator("#alerts-box")).to_be_hidden()
    expect(page.locator("#events li").first).to_be_attached()
    expect(page.locator("#events")).to_be_hidden()
    # only the last throw
    page.goto(table.console.url + "overlay?show=dice")
    expect(page.locator("#dice .die")).to_have_count(2)
    expect(page.locator("#seats > .seat")).to_have_count(6)
    expect(page.locator("#seats")).to_be_hidden()
    expect(page.locator("#prompt")).to_be_hidden()
    found = band(page)
    assert found["top"] >= 1080 * 0.8 and found["bottom"] - found["top"] < 100, found
    # every part by default
    page.goto(table.console.url + "overlay")
    for part in ("#seats", "#dice", "#prompt", "#events", "#alerts-box"):
        expect(page.locator(part)).to_be_visible()


def test_the_overlay_ends_a_game_with_its_winner_in_the_band(table: Table, page: Page) -> None:
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(table.console.url + "overlay")
    expect(page.locator("#connection")).to_have_text("Table online")
    TABLES["sixshooter"](table)
    expect(page.locator("#seats > .seat")).to_have_count(6)
    expect(page.locator("#final")).to_be_hidden()
    assert table.send({"cmd": "end_game"})["ok"]
    final = page.locator("#final")
    expect(final).to_be_visible()
    expect(final.locator("h2")).to_have_text("The campaign is over")
    expect(final.locator(".standing li")).to_have_count(6)
    expect(page.locator(".overlay-strip")).to_be_hidden()  # the standing in place of the seats
    found = band(page)
    assert found["top"] >= 1080 * 0.8 - 0.5 and found["bottom"] <= 1080.5, found
    # a streamer who left the end out sees none
    page.goto(table.console.url + "overlay?show=dice,prompt")
    expect(page.locator("#connection")).to_have_text("Table online")
    expect(page.locator("#prompt")).to_have_text("The game is over")
    expect(page.locator("#final h2")).to_have_text("The campaign is over")  # drawn, not shown
    expect(page.locator("#final")).to_be_hidden()
