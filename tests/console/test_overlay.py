"""The stream overlay (/overlay, issue 32.4) in Chromium: a transparent page that follows a game
from the room's public feed, and whose data and DOM never hold a face-down card."""

from __future__ import annotations

import json
import urllib.request
import zlib

from playwright.sync_api import Page, expect

from tests.console.conftest import Table, shoot, snapshot, wait_for
from tests.console.test_room_view import face_down_cards
from tests.console.test_seat_screens import start_showdown
from tests.daemon.daemon_helpers import ROSTER


def overlay(table: Table, page: Page) -> None:
    page.goto(table.console.url + "overlay")
    expect(page.locator("#connection")).to_have_text("Table online")


def test_the_overlay_follows_a_game(table: Table, page: Page) -> None:
    page.set_viewport_size({"width": 1920, "height": 1080})  # OBS's usual browser source
    overlay(table, page)
    assert table.send(ROSTER)["ok"]
    # the strip of seats: both names, every card a back
    expect(page.locator("#seats .seat")).to_have_count(2)
    expect(page.locator('#seats .seat[data-seat="1"] h3')).to_contain_text("Bo")
    expect(page.locator("#seats .card.back")).to_have_count(12)
    # a throw appears as dice faces
    expect(page.locator("#dice")).to_have_text("No dice thrown yet.")
    table.publish_as_daemon(
        "dice/event", {"v": 1, "event": "rolled", "values": [4, 6]}, False, "bridge"
    )
    expect(page.locator("#dice .die")).to_have_text(["4", "6"])
    expect(page.locator("#dice")).to_contain_text("just now")
    # an alert appears, its slot marked on the strip, and clears
    alert = {
        "v": 1,
        "alerts": [
            {"key": "s1.2", "message": "Ana's slot 2: lay it face-down", "seat": 0, "slot": 2}
        ],
        "instructions": [],
    }
    table.publish_as_daemon("table/alert", alert)
    expect(page.locator("#alerts .alert")).to_have_text("Ana's slot 2: lay it face-down")
    expect(page.locator("#alerts-box")).to_be_visible()
    expect(page.locator('#seats .seat[data-seat="0"] .slot[data-slot="2"]')).to_have_class(
        "slot alerted"
    )
    shoot(page, "console-overlay")
    table.publish_as_daemon("table/alert", {"v": 1, "alerts": [], "instructions": []})
    expect(page.locator("#alerts-box")).to_be_hidden()
    expect(page.locator(".slot.alerted")).to_have_count(0)
    # a reveal shows on the strip, and the newest event says it
    assert table.send({"cmd": "reveal", "player": "Ana", "slot": 1})["ok"]
    expect(page.locator("#seats .card.back")).to_have_count(11)
    expect(page.locator("#events li").first).to_contain_text("Ana turns slot 1 face-up")
    expect(page.locator("#events li").first).to_be_visible()
    # the strip is one row: the second seat beside the first, not below it
    first = page.locator('#seats .seat[data-seat="0"]').bounding_box()
    second = page.locator('#seats .seat[data-seat="1"]').bounding_box()
    assert first and second and second["x"] >= first["x"] + first["width"]
    assert abs(second["y"] - first["y"]) < 1


def fully_transparent(png: bytes) -> bool:
    """True when every pixel of an RGBA PNG is (0, 0, 0, 0): each filtered row of such an image
    is all zero whatever its filter, and only such an image's rows are."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, data, width, colour = 8, b"", 0, -1
    while at < len(png):
        length = int.from_bytes(png[at : at + 4], "big")
        kind, body = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            width, depth, colour = int.from_bytes(body[:4], "big"), body[8], body[9]
            assert (depth, colour) == (8, 6), "expected an 8-bit RGBA picture"
        elif kind == b"IDAT":
            data += body
        at += 12 + length
    raw = zlib.decompress(data)
    row = 1 + 4 * width
    return bool(raw) and all(not any(raw[i + 1 : i + row]) for i in range(0, len(raw), row))


def test_the_overlays_background_is_transparent(table: Table, page: Page) -> None:
    overlay(table, page)
    assert table.send(ROSTER)["ok"]
    expect(page.locator("#seats .seat")).to_have_count(2)
    backgrounds = page.evaluate(
        """() => [document.documentElement, document.body, document.querySelector("main")]
                 .map((node) => getComputedStyle(node).backgroundColor)"""
    )
    assert backgrounds == ["rgba(0, 0, 0, 0)"] * 3, backgrounds
    # a screenshot without a background: a corner away from every panel is fully transparent
    picture = page.screenshot(
        omit_background=True, clip={"x": 0, "y": 300, "width": 4, "height": 4}
    )
    assert fully_transparent(picture), "the overlay paints over the video"
    panel = page.locator(".overlay-dice").bounding_box()
    assert panel is not None  # while the panels themselves are painted
    assert not fully_transparent(page.screenshot(omit_background=True, clip=panel))
    # "Table online" is no news on a stream: out of sight; trouble is shown
    assert page.locator("#connection").bounding_box()["width"] <= 1  # type: ignore[index]


def test_the_overlay_needs_no_login_like_the_room(table: Table) -> None:
    with urllib.request.urlopen(table.console.url + "overlay", timeout=5) as answer:
        assert answer.status == 200
        assert '<script src="/static/overlay.js"' in answer.read().decode()
    with urllib.request.urlopen(table.console.url + "static/overlay.js", timeout=5) as answer:
        assert b'follow("/events"' in answer.read()  # the room's public stream, not /gm/events


def overlay_leaks(page: Page, hidden: set[str]) -> list[str]:
    """The hidden cards that the overlay's data, its DOM's cards or its HTML name."""
    data = snapshot(page)
    shown = set(page.locator("[data-card]").evaluate_all("nodes => nodes.map(n => n.dataset.card)"))
    text = json.dumps(data) + page.content()
    return sorted(
        card for card in hidden if card in shown or f'"{card}"' in text or f">{card}<" in text
    )


def test_the_overlay_never_holds_a_face_down_card(table: Table, page: Page) -> None:
    overlay(table, page)
    assert table.send(ROSTER)["ok"]
    assert table.send({"cmd": "reveal", "player": "Bo", "slot": 3})["ok"]
    assert table.gm is not None
    wait_for(page, lambda data: "Bo turns slot 3" in json.dumps(data.get("events")))
    table.gm.sync()
    hidden = face_down_cards(table.gm.state())
    assert len(hidden) == 11
    data = snapshot(page)
    slots = [slot for player in data["state"]["players"] for slot in player["slots"]]
    assert [slot["card"] for slot in slots if slot["state"] == "face_down"] == [None] * 11
    expect(page.locator("#seats .card.back")).to_have_count(11)
    assert page.locator("#seats .card[data-card]").count() == 1  # the one turned face-up
    assert overlay_leaks(page, hidden) == []


def test_the_overlay_never_holds_a_face_down_bullet(seated: Table, page: Page) -> None:
    """Showdown with seats: the daemon publishes each seat's own bullets, which the overlay
    (the room's feed) never reads."""
    overlay(seated, page)
    start_showdown(seated)
    assert seated.send({"cmd": "reveal", "player": "Ana", "slot": 1})["ok"]
    expect(page.locator("#seats .card.back")).to_have_count(11)
    expect(page.locator("#seats .card.bullet")).to_have_count(1)
    assert seated.gm is not None
    seated.gm.sync()
    down = [
        bullet
        for player in seated.gm.state()["players"]
        for bullet in player["bullets"]
        if bullet["state"] == "face_down"
    ]
    assert len(down) == 11 and all(bullet.get("card") for bullet in down)
    for player in snapshot(page)["state"]["players"]:
        for bullet in player["bullets"]:
            if bullet["state"] == "face_down":
                assert not ({"card", "title", "speed", "accuracy"} & set(bullet)), bullet
    assert "seat_views" not in snapshot(page)
    assert overlay_leaks(page, {str(bullet["card"]) for bullet in down}) == []
    # nor the hidden bullets' titles, unless the one revealed bullet bears the same title
    shown = page.locator("#seats").inner_text()
    revealed = page.locator("#seats .card.bullet .bullet-title").inner_text()
    assert not [b["title"] for b in down if b["title"] != revealed and b["title"] in shown]
