"""A screen per seat (issue 32.3) in Chromium: a seat joins with the code the game master's page
shows, and sees what its player alone may see, never another seat's hidden information."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.console.conftest import Table, gm_login, shoot, snapshot, wait_for

DECKS = Path(__file__).resolve().parents[2] / "examples" / "decks"


def start_showdown(table: Table) -> dict[str, list[str]]:
    """A Showdown game with six bullets loaded face-down per gunslinger: their card ids."""
    from tabletop.rules.games.showdown.decks import deck_to_json, load_deck

    players = [
        {"name": "Ana", "deck": deck_to_json(load_deck(DECKS / "cowboy.toml"))},
        {"name": "Bo", "deck": deck_to_json(load_deck(DECKS / "desperado.toml"))},
    ]
    assert table.send({"cmd": "new_game", "game": "showdown", "players": players})["ok"]
    loaded: dict[str, list[str]] = {}
    for player in players:
        ids = [card["id"] for card in player["deck"]["cards"]][:6]
        assert table.send({"cmd": "load", "player": player["name"], "bullets": ids})["ok"]
        loaded[str(player["name"])] = ids
    return loaded


def codes(page: Page) -> dict[int, str]:
    # The game master's connection hears the seats' views a moment after the login: until
    # then the console says no seat views are published, and a person clicks again.
    expect(page.locator("#connection")).to_have_text("Table online")  # the page is live
    result = page.locator("#seat-codes-result")
    for _ in range(20):
        page.get_by_role("button", name="Give the seats codes").click()
        # the answer to this click, not the last one (the page says "Sending…" meanwhile)
        expect(result).not_to_have_text(re.compile(r"^(Sending…)?$"))
        if page.locator("#seat-codes li").count() == 2:
            break
        page.wait_for_timeout(250)
    expect(page.locator("#seat-codes li")).to_have_count(2)
    found = {}
    for item in page.locator("#seat-codes li").all():
        found[int(str(item.get_attribute("data-seat")))] = item.locator("code").inner_text()
    return found


def join(browser: Browser, base: str, seat: int, code: str) -> Page:
    phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    phone.goto(f"{base}seat/{seat}")
    phone.get_by_label(f"Seat {seat}'s code").fill(code.lower())  # typed as it comes
    phone.get_by_role("button", name="Join").click()
    expect(phone.locator("#connection")).to_have_text("Table online")
    return phone


def test_each_seat_sees_its_own_bullets_and_never_the_other_seats(
    seated: Table, page: Page, browser: Browser
) -> None:
    base = seated.console.url
    loaded = start_showdown(seated)
    gm_login(page, base)
    expect(page.locator("#connection")).to_have_text("Table online")
    given = codes(page)
    assert sorted(given) == [1, 2] and all(len(code) == 6 for code in given.values())
    expect(page.locator('#seat-codes li[data-seat="1"]')).to_contain_text("Seat 1 (Ana)")

    phones = {seat: join(browser, base, seat, given[seat]) for seat in (1, 2)}
    try:
        for seat, own, other in ((1, "Ana", "Bo"), (2, "Bo", "Ana")):
            phone = phones[seat]
            wait_for(phone, lambda data: bool(data.get("state")))
            expect(phone.locator("#seat-name")).to_have_text(f"({own})")
            mine = phone.locator(f'.seat.mine[data-name="{own}"] .card.known-down')
            expect(mine).to_have_count(6)  # the player knows the bullets they loaded
            players = {p["name"]: p for p in snapshot(phone)["state"]["players"]}
            assert [b.get("card") for b in players[own]["bullets"]] == [
                f"{'cowboy' if own == 'Ana' else 'desperado'}/{card}" for card in loaded[own]
            ]
            for bullet in players[other]["bullets"]:  # never the other seat's face-down bullets
                assert bullet["state"] == "face_down"
                assert not ({"card", "title", "speed", "accuracy"} & set(bullet)), (seat, bullet)
            theirs = phone.locator(f'.seat[data-name="{other}"]')
            expect(theirs.locator(".card.back")).to_have_count(6)
            assert "data-card" not in theirs.inner_html()
        # a revealed bullet is public: both seats see it
        assert seated.send({"cmd": "reveal", "player": "Bo", "slot": 1})["ok"]
        for phone in phones.values():
            revealed = phone.locator('.seat[data-name="Bo"] .slot[data-slot="1"] .card.bullet')
            expect(revealed).to_have_attribute("data-card", f"desperado/{loaded['Bo'][0]}")
        expect(phones[1].locator('.seat[data-name="Bo"] .card.back')).to_have_count(5)
        mine = phones[1].locator('.seat.mine .slot[data-slot="2"] .card.bullet.known-down')
        expect(mine).to_have_attribute(
            "aria-label", re.compile(r"^\S.*, speed [\u2212+0-9]+, accuracy ")
        )
        shoot(phones[1], "console-seat", full_page=True)
        shoot(page, "console-gm-codes")
    finally:
        for phone in phones.values():
            phone.context.close()


def test_a_seat_opens_only_with_its_own_code_and_outlives_the_gm_login(
    seated: Table, page: Page, browser: Browser
) -> None:
    base = seated.console.url
    start_showdown(seated)
    gm_login(page, base)
    given = codes(page)
    phone = browser.new_context().new_page()
    try:
        phone.goto(f"{base}seat/1")
        phone.get_by_label("Seat 1's code").fill(given[2])  # seat 2's code at seat 1
        phone.get_by_role("button", name="Join").click()
        expect(phone.locator("#join-error")).to_have_text(
            "That is not seat 1's code. The game master's page shows each seat's."
        )
        # without joining, the seat's stream answers 401
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{base}seat/1/events", timeout=5)
        with refused.value as answer:  # an HTTPError holds its connection open until closed
            assert answer.code == 401
        phone.get_by_label("Seat 1's code").fill(given[1])
        phone.get_by_role("button", name="Join").click()
        expect(phone.locator("#connection")).to_have_text("Table online")
        # the phone's cookie opens seat 1 only
        phone.goto(f"{base}seat/2")
        expect(phone.get_by_label("Seat 2's code")).to_be_visible()
        phone.goto(f"{base}seat/1")
        expect(phone.locator("#seat-name")).to_have_text("(Ana)")
        # new codes: the old ones no longer open a seat, the joined phone stays
        again = codes(page)
        assert again[1] != given[1]
        # the game master logs out: the phone stays joined (issue 48 item 7), showing the
        # room's view and saying it waits for a game master, and its seat's view comes back
        # with the next login
        page.get_by_role("button", name="Log out").click()
        expect(page.get_by_label("User name")).to_be_visible()
        expect(phone.locator("#no-gm")).to_be_visible(timeout=20_000)
        gm_login(page, base)
        expect(phone.locator("#no-gm")).to_be_hidden(timeout=20_000)
        expect(phone.locator("#seat-name")).to_have_text("(Ana)")
    finally:
        phone.context.close()


def test_no_seat_views_no_codes(table: Table, page: Page) -> None:
    """A daemon without seats publishes no seat views: the page says why, gives no code."""
    base = table.console.url
    gm_login(page, base)
    expect(page.locator("#connection")).to_have_text("Table online")  # the page is live
    page.get_by_role("button", name="Give the seats codes").click()
    expect(page.locator("#seat-codes-result")).to_contain_text("publishes no seat views")
    assert "seat_views" not in snapshot(page)  # the seats' views stay out of every snapshot
