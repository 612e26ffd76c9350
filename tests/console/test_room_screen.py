"""The room's screen across a room (issue 32.1), in Chromium: whose turn it is marked on its
seat, cards drawn as cards in alerts and events too, event numbers whole, the LEDs labelled,
a fresh throw told from an old one, and six seats on a 1280x800 TV without scrolling."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.console.conftest import Table, shoot, wait_for

NAMES = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo"]
SIX = {
    "cmd": "new_game",
    "players": [
        {"name": name, "descriptor": "sly", "archetype": "Cat burglar", "lucky": [n + 2]}
        for n, name in enumerate(NAMES)
    ],
    "seed": 4,
}


def test_six_seats_fit_a_tv_and_the_seat_to_act_is_marked(table: Table, page: Page) -> None:
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    assert table.send(SIX)["ok"]
    expect(page.locator(".seat")).to_have_count(6)
    table.publish_as_daemon(
        "leds/frame", {"v": 1, "seats": [["on", "off", "off"]] * 6, "meaning": "Strikes"}
    )
    table.publish_as_daemon(
        "dice/event", {"v": 1, "event": "rolled", "values": [3, 5]}, False, "bridge"
    )
    expect(page.locator("#dice .die")).to_have_count(2)
    # every seat waits to turn a card: each is marked in words, not only by colour
    wait_for(page, lambda data: len((data.get("prompt") or {}).get("who") or []) == 6)
    expect(page.locator(".seat.turn .turn-tag")).to_have_count(6)
    expect(page.locator('.seat[data-seat="0"] .turn-tag')).to_have_text("▶ to act")
    expect(page.locator('.seat[data-seat="0"] .leds-label')).to_have_text("LEDs (Strikes)")
    # the count in words as well as by colour
    expect(page.locator('.seat[data-seat="0"] .leds-count')).to_have_text("1 of 3")
    # the whole screen fits: no scrolling, the last throw and the events in view
    shoot(page, "console-room-six")
    for seat in range(6):  # every card whole inside its seat
        box = page.locator(f'.seat[data-seat="{seat}"]').bounding_box()
        last = page.locator(f'.seat[data-seat="{seat}"] .slot').last.bounding_box()
        assert box is not None and last is not None
        assert last["x"] + last["width"] <= box["x"] + box["width"], seat
    # the seats start right under the prompt and its phase line: no empty band above them
    prompt = page.locator(".prompt-box").bounding_box()
    first = page.locator('.seat[data-seat="0"]').bounding_box()
    assert prompt is not None and first is not None
    assert 0 <= first["y"] - (prompt["y"] + prompt["height"]) < 24
    assert page.evaluate("document.documentElement.scrollHeight") <= 800
    for part in ("#dice", "#events", '.seat[data-seat="5"]'):
        box = page.locator(part).bounding_box()
        assert box is not None and box["y"] + min(box["height"], 40) <= 800, part
    assert table.send({"cmd": "reveal", "player": "Ana", "slot": 1})["ok"]
    expect(page.locator('.seat[data-seat="0"] .turn-tag')).to_have_count(0)
    expect(page.locator(".seat.turn")).to_have_count(5)


def test_cards_in_alerts_and_events_are_drawn_as_cards(table: Table, page: Page) -> None:
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    assert table.send(SIX)["ok"]
    alert = {
        "v": 1,
        "alerts": [{"key": "s2.3", "message": "Bo's slot 3: discard 8S and TD", "seat": 1}],
        "instructions": [],
    }
    table.publish_as_daemon("table/alert", alert)
    item = page.locator("#alerts .alert")
    expect(item.locator(".inline-card")).to_have_count(2)
    expect(item.locator(".inline-card").first).to_have_attribute("aria-label", "8 of spades")
    expect(item.locator(".inline-card.red")).to_have_text("10♦")
    expect(item).not_to_contain_text("8S")
    events = {"v": 1, "events": [{"number": 103, "text": "Ana discards QH"}]}
    table.publish_as_daemon("game/event", events, False)
    last = page.locator("#events li").first
    expect(last.locator(".event-number")).to_have_text("103.")
    expect(last.locator(".inline-card")).to_have_text("Q♥")
    number = last.locator(".event-number").bounding_box()
    listed = page.locator("#events").bounding_box()
    assert number is not None and listed is not None
    assert number["x"] >= listed["x"]  # the number is whole, not clipped at the left edge


def test_an_old_throw_is_told_from_a_fresh_one(table: Table, page: Page) -> None:
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    table.publish_as_daemon(
        "dice/event", {"v": 1, "event": "rolled", "values": [6]}, False, "bridge"
    )
    expect(page.locator("#dice")).to_have_class("fresh")
    expect(page.locator("#dice .dice-age")).to_have_text(" — just now")
    # the same throw seen long after: the page's clock moved on 30 s
    page.evaluate(
        "() => { const real = Date.now; const start = real(); "
        "Date.now = () => start + 30000 + (real() - start); }"
    )
    wait_for(page, lambda data: data.get("dice") is not None)
    expect(page.locator("#dice")).to_have_class("stale", timeout=30_000)
    expect(page.locator("#dice .dice-age")).to_contain_text("an old throw")
