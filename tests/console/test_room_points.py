"""The room's smaller points of issue 48 (items 3 and 8), in Chromium: sounds off until
switched on in the page, then one for a throw read, a reveal, a strike and a win; dice entered
by hand shown as the last throw; the events of the current game only; no "no game yet" while
the table waits for something; and a scrolling event list reachable from the keyboard on the
room's, the game master's and a seat's pages (axe-core's scrollable-region-focusable)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.console.accessibility import AXE, join_letting_axe_in
from tests.console.conftest import Table, gm_login, wait_for
from tests.console.test_seat_screens import codes, start_showdown
from tests.daemon.daemon_helpers import ROSTER

OSSIX = {"cmd": "new_game", "game": "ossix", "players": ["Jack", "Kate"]}
JACK_ROLLS = {"cmd": "action", "player": "Jack", "attribute": "agility", "score": 2, "skill": True}


def room(table: Table, page: Page) -> None:
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")


def sounds(page: Page) -> tuple[int, str]:
    body = page.locator("body")
    return int(body.get_attribute("data-sounds") or 0), body.get_attribute("data-last-sound") or ""


def test_sounds_are_off_until_switched_on_then_one_for_each_kind(table: Table, page: Page) -> None:
    room(table, page)
    button = page.get_by_role("button", name="Sounds: off")
    expect(button).to_have_attribute("aria-pressed", "false")
    expect(page.locator("body")).to_have_attribute("data-sounds-on", "no")
    # off: a throw read plays nothing
    table.publish_as_daemon(
        "dice/event", {"v": 1, "event": "rolled", "values": [3]}, False, "bridge"
    )
    expect(page.locator("#dice .die")).to_have_count(1)
    assert sounds(page) == (0, "")
    button.click()
    on = page.get_by_role("button", name="Sounds: on")
    expect(on).to_have_attribute("aria-pressed", "true")
    expect(page.locator("body")).to_have_attribute("data-sounds-on", "yes")
    # a throw read
    table.publish_as_daemon(
        "dice/event", {"v": 1, "event": "rolled", "values": [4, 6]}, False, "bridge"
    )
    expect(page.locator("body")).to_have_attribute("data-last-sound", "throw")
    assert sounds(page)[0] == 1
    # a reveal
    assert table.send(ROSTER)["ok"]
    expect(page.locator("#seats .card.back")).to_have_count(12)
    count = sounds(page)[0]
    assert table.send({"cmd": "reveal", "player": "Ana", "slot": 1})["ok"]
    expect(page.locator("body")).to_have_attribute("data-sounds", str(count + 1))
    assert sounds(page)[1] == "reveal"
    # a win: the game's end
    assert table.send({"cmd": "end_game"})["ok"]
    expect(page.locator("body")).to_have_attribute("data-sounds", str(count + 2))
    assert sounds(page)[1] == "win"
    # a strike: a character's Strain rises (a critical failure: a single 1)
    assert table.send(OSSIX)["ok"]
    wait_for(page, lambda data: (data.get("prompt") or {}).get("game") == "ossix")
    count = sounds(page)[0]
    assert table.send({"cmd": "action", "player": "Kate", "attribute": "agility", "score": 1})["ok"]
    assert table.send({"cmd": "roll", "values": [1]})["ok"]
    expect(page.locator("body")).to_have_attribute("data-sounds", str(count + 1))
    assert sounds(page)[1] == "strike"
    # off again: nothing more
    on.click()
    expect(page.get_by_role("button", name="Sounds: off")).to_have_attribute(
        "aria-pressed", "false"
    )
    table.publish_as_daemon(
        "dice/event", {"v": 1, "event": "rolled", "values": [5]}, False, "bridge"
    )
    # drawn: the tone is counted (or not) as the snapshot is drawn, in the same go
    expect(page.locator("#dice .die")).to_have_count(1)
    assert sounds(page)[0] == count + 1


def test_dice_entered_by_hand_show_as_the_last_throw(table: Table, page: Page) -> None:
    room(table, page)
    dice = page.locator("#dice")
    expect(dice).to_have_text("No dice thrown yet.")
    assert table.send(OSSIX)["ok"]
    assert table.send(JACK_ROLLS)["ok"]
    assert table.send({"cmd": "roll", "values": [6, 3, 1]})["ok"]  # typed by the game master
    expect(dice.locator(".die")).to_have_text(["6", "3", "1"])
    expect(dice).to_contain_text("Entered by hand, Jack")
    expect(dice).to_have_attribute("data-source", "entered")
    # a throw the camera reads afterwards is the last one
    table.publish_as_daemon(
        "dice/event", {"v": 1, "event": "rolled", "values": [2, 5]}, False, "bridge"
    )
    expect(dice.locator(".die")).to_have_text(["2", "5"])
    expect(dice).to_have_attribute("data-source", "camera")
    expect(dice).to_contain_text("Rolled")
    # and dice typed after that are again
    assert table.send({"cmd": "action", "player": "Kate", "attribute": "agility", "score": 1})["ok"]
    assert table.send({"cmd": "roll", "values": [4]})["ok"]
    expect(dice.locator(".die")).to_have_text(["4"])
    expect(dice).to_contain_text("Entered by hand, Kate")
    # a page opened now shows the same
    page.reload()
    expect(page.locator("#dice .die")).to_have_text(["4"])


def test_the_events_are_the_current_games_only(table: Table, page: Page) -> None:
    room(table, page)
    assert table.send(OSSIX)["ok"]
    assert table.send(JACK_ROLLS)["ok"]
    assert table.send({"cmd": "roll", "values": [6, 3, 1]})["ok"]
    events = page.locator("#events li")
    expect(events.last).to_contain_text("OS-SIX starts: Jack, Kate")
    assert table.send({"cmd": "end_game"})["ok"]
    assert table.send(ROSTER)["ok"]
    expect(page.locator("#seats .card.back")).to_have_count(12)
    expect(events.last.locator(".event-number")).to_have_text("1.")
    expect(page.locator("#events")).not_to_contain_text("OS-SIX")
    expect(page.locator("#events")).not_to_contain_text("Jack")
    page.reload()  # the page opened afresh: the same
    expect(page.locator("#events li").first).to_be_visible()
    expect(page.locator("#events")).not_to_contain_text("OS-SIX")


def test_no_game_yet_is_said_in_words_and_a_wait_is_said_as_a_wait(
    table: Table, page: Page
) -> None:
    room(table, page)
    prompt = page.locator("#prompt")
    expect(prompt).to_have_text("No game yet: the game master starts one.")  # no "(gm new …)"
    # a game that waits for the table (the deal on the mat) says what it waits for
    waiting = {"v": 1, "alerts": [], "instructions": ["deal six cards to each seat"]}
    table.publish_as_daemon("table/alert", waiting)
    expect(prompt).to_have_text("Waiting for the table: deal six cards to each seat")
    expect(prompt).not_to_contain_text("No game yet")
    table.publish_as_daemon("table/alert", {"v": 1, "alerts": [], "instructions": []})
    expect(prompt).to_have_text("No game yet: the game master starts one.")


def many_events(table: Table, start: int) -> None:
    """Thirty events more of the game on the table, on the room's and the referee's topics."""
    events = {
        "v": 1,
        "events": [
            {
                "number": n,
                "text": f"Ana touches slot {n % 6 + 1} and turns the card face up for all to see",
            }
            for n in range(start, start + 30)
        ],
    }
    table.publish_as_daemon("game/event", events, False)
    table.publish_as_daemon("referee/event", events, False)


FOCUSABLE = """async () => {
  const r = await axe.run(document, { runOnly: ["scrollable-region-focusable"] });
  const list = document.getElementById("events");
  return { violations: r.violations.map((v) => v.nodes.map((n) => n.target.join(" "))).flat(),
           ran: r.passes.length + r.violations.length + r.incomplete.length,
           overflows: list.scrollHeight > list.clientHeight, tabindex: list.tabIndex,
           label: list.getAttribute("aria-labelledby") };
}"""


def scrolling_list_is_reachable(page: Page, what: str) -> None:
    page.add_script_tag(content=Path(AXE).read_text(encoding="utf-8"))
    found: dict[str, Any] = page.evaluate(FOCUSABLE)
    assert found["overflows"], (what, found)  # the list does scroll
    assert found["violations"] == [] and found["ran"] > 0, (what, found)
    assert found["tabindex"] == 0 and found["label"], (what, found)
    # reached with the keyboard, and named
    page.locator("#events").focus()
    expect(page.locator("#events")).to_be_focused()
    expect(page.locator("#events")).to_have_accessible_name("What happened")


def test_a_scrolling_event_list_is_reachable_from_the_keyboard_on_every_page(
    seated: Table, browser: Browser
) -> None:
    start_showdown(seated)
    wait_for_events = 4  # the game's own events so far: Showdown's start, a round, two loads
    many_events(seated, wait_for_events + 1)
    base = seated.console.url
    context = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(base)
        expect(page.locator("#events li")).to_have_count(30)  # the console keeps 30
        scrolling_list_is_reachable(page, "the room")
        gm = context.new_page()
        gm_login(gm, base)
        expect(gm.locator("#connection")).to_have_text("Table online")
        many_events(seated, wait_for_events + 1)  # the game master's feed reads from its login
        wait_for(gm, lambda data: len(data.get("events") or []) >= 30)
        given = codes(gm)
        scrolling_list_is_reachable(gm, "the game master's page")
    finally:
        context.close()
    phone = join_letting_axe_in(browser, base, 1, given[1])
    try:
        expect(phone.locator("#events li").first).to_be_visible()
        scrolling_list_is_reachable(phone, "seat 1's screen")
    finally:
        phone.context.close()
