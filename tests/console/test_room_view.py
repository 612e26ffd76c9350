"""The room view in Chromium: it follows a game live, and its data never holds a hidden card."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Page, expect

from tests.console.conftest import Table, snapshot, wait_for
from tests.daemon.daemon_helpers import ROSTER


def face_down_cards(referee_state: dict[str, Any]) -> set[str]:
    return {
        slot["card"]
        for player in referee_state["players"]
        for slot in player["slots"]
        if slot["state"] == "face_down"
    }


def test_room_view_follows_a_game_live(table: Table, page: Page) -> None:
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    expect(page.locator("#prompt")).to_contain_text("No game yet")

    assert table.send(ROSTER)["ok"]
    # the deal appears without a reload: twelve cards, every one a back
    expect(page.locator(".card.back")).to_have_count(12)
    expect(page.locator("#prompt")).to_contain_text("turn one card of your choice face-up")

    assert table.send({"cmd": "reveal", "player": "Ana", "slot": 1})["ok"]
    ana_first = page.locator('.seat[data-seat="0"] .slot[data-slot="1"] .card')
    expect(ana_first).to_have_class("card face")
    expect(page.locator(".card.back")).to_have_count(11)
    expect(page.locator("#events li").first).to_contain_text("Ana turns slot 1 face-up")

    alert = {
        "v": 1,
        "alerts": [
            {"key": "s2.3", "message": "Bo's slot 3: lay it face-down", "seat": 1, "slot": 3}
        ],
        "instructions": [],
    }
    table.publish_as_daemon("table/alert", alert)
    expect(page.locator("#alerts .alert")).to_have_text("Bo's slot 3: lay it face-down")
    expect(page.locator('.seat[data-seat="1"] .slot[data-slot="3"]')).to_have_class("slot alerted")
    table.publish_as_daemon("table/alert", {"v": 1, "alerts": [], "instructions": []})
    expect(page.locator("#alerts-box")).to_be_hidden()
    expect(page.locator(".slot.alerted")).to_have_count(0)

    table.publish_as_daemon(
        "leds/frame",
        {"v": 1, "seats": [["on", "off", "off"], ["off", "off", "off"]], "meaning": "Strikes"},
    )
    expect(page.locator('.seat[data-seat="0"] .leds')).to_have_attribute(
        "aria-label", "Strikes: 1 of 3 lit"
    )


def test_the_room_pages_data_never_holds_a_face_down_card(table: Table, page: Page) -> None:
    page.goto(table.console.url)
    assert table.send(ROSTER)["ok"]
    assert table.send({"cmd": "reveal", "player": "Ana", "slot": 2})["ok"]
    assert table.gm is not None
    wait_for(page, lambda data: "Ana turns slot 2" in json.dumps(data.get("events")))
    table.gm.sync()
    hidden = face_down_cards(table.gm.state())
    assert len(hidden) == 11

    data = snapshot(page)
    slots = [slot for player in data["state"]["players"] for slot in player["slots"]]
    assert [slot["card"] for slot in slots if slot["state"] == "face_down"] == [None] * 11
    shown = set(page.locator("[data-card]").evaluate_all("nodes => nodes.map(n => n.dataset.card)"))
    assert shown and not shown & hidden
    # nothing in the page's data or its text names a hidden card
    text = json.dumps(data) + page.content()
    assert not [card for card in hidden if f'"{card}"' in text or f">{card}<" in text]


def test_the_page_says_when_the_table_is_offline_and_comes_back(table: Table, page: Page) -> None:
    page.goto(table.console.url)
    assert table.send(ROSTER)["ok"]
    expect(page.locator(".card.back")).to_have_count(12)

    table.stop_daemon()
    expect(page.locator("#connection")).to_have_text(
        "Table offline: the rules daemon is not running", timeout=30_000
    )
    table.start_daemon()
    expect(page.locator("#connection")).to_have_text("Table online", timeout=30_000)
    assert table.send({"cmd": "reveal", "player": "Bo", "slot": 4})["ok"]
    expect(page.locator(".card.back")).to_have_count(11)


def test_the_page_reconnects_after_the_console_restarts(table: Table, page: Page) -> None:
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    port = table.console.port
    table.console.stop()
    expect(page.locator("#connection")).to_have_text("Console unreachable — reconnecting…")
    from tabletop.console.server import ConsoleServer
    from tests.console.conftest import login

    table.console = ConsoleServer(login(table.url, "display"), "main", port=port)
    table.console.start()
    assert table.send(ROSTER)["ok"]
    expect(page.locator(".card.back")).to_have_count(12, timeout=40_000)  # a safety net
    expect(page.locator("#connection")).to_have_text("Table online")


def test_the_page_comes_back_with_the_table_after_the_broker_restarts(
    table: Table, page: Page
) -> None:
    page.goto(table.console.url)
    assert table.send(ROSTER)["ok"]
    expect(page.locator(".card.back")).to_have_count(12)

    port = table.broker.port
    table.broker.stop()
    expect(page.locator("#connection")).to_have_text(
        "Table offline: no connection to the broker", timeout=30_000
    )
    from tabletop.wire.broker import EmbeddedBroker
    from tests.console.conftest import USERS

    # A broker that kept nothing: the daemon republishes its retained views when it reconnects.
    table.broker = EmbeddedBroker("127.0.0.1", port, USERS)
    table.broker.start()
    expect(page.locator("#connection")).to_have_text("Table online", timeout=30_000)
    expect(page.locator(".card.back")).to_have_count(12, timeout=40_000)  # a safety net
    assert table.send({"cmd": "reveal", "player": "Bo", "slot": 4})["ok"]
    expect(page.locator(".card.back")).to_have_count(11)


def test_the_room_view_fits_a_phone_without_sideways_scrolling(table: Table, page: Page) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(table.console.url)
    assert table.send(ROSTER)["ok"]
    expect(page.locator(".card.back")).to_have_count(12)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow} px wider than a phone"
    # both seats' cards are on the page, one seat above the other
    first = page.locator('.seat[data-seat="0"]').bounding_box()
    second = page.locator('.seat[data-seat="1"]').bounding_box()
    assert first and second and second["y"] >= first["y"] + first["height"]


def test_a_refused_console_login_is_not_called_no_connection(table: Table, page: Page) -> None:
    """Issue 33 finding 7: a wrong display password read "no connection to the broker"."""
    import dataclasses

    from tabletop.console.server import ConsoleServer

    table.console.stop()
    wrong = dataclasses.replace(table.url, username="display", password="not-the-password")
    table.console = ConsoleServer(wrong, "main")
    table.console.start()
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_contain_text(
        "the broker refused the console's login", timeout=30_000
    )
    expect(page.locator("#connection")).to_contain_text("needs a broker user with the role viewer")
