"""The game master's view in Chromium: the login tied to the gm role, forms from the game's
actions, a refusal shown next to its form; and the endpoints' answers to bad input."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.console.conftest import Table, gm_login
from tests.daemon.daemon_helpers import ROSTER


def test_login_refuses_a_wrong_password_and_a_user_without_the_gm_role(
    table: Table, page: Page
) -> None:
    gm_login(page, table.console.url, "gm", "not-the-password")
    expect(page.locator("#login-error")).to_have_text("Wrong user name or password.")
    gm_login(page, table.console.url, "display")
    expect(page.locator("#login-error")).to_contain_text(
        "has the role viewer; the game master's view needs a user with the role gm"
    )
    # nothing of the referee's is served without a login
    response = page.request.get(table.console.url + "gm/events")
    assert response.status == 401
    assert "log in as a game master" in response.json()["error"]


def test_game_master_starts_a_game_and_sees_a_refusal_beside_the_form(
    table: Table, page: Page, tmp_path: Path
) -> None:
    gm_login(page, table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    roster = tmp_path / "roster.json"  # on the game master's device, read by the page
    roster.write_text(json.dumps({key: ROSTER[key] for key in ("players", "seed")}))

    new = page.locator('form[data-verb="new"]')
    new.get_by_label("Read a file from this device").set_input_files(roster)
    expect(new.get_by_label("roster", exact=True)).to_have_value(roster.read_text())
    expect(page.locator("#refused li")).to_have_text(["None refused."])
    new.get_by_role("button", name="Start a game").click()
    expect(new.locator(".result")).to_have_text("Done.")
    # the referee's view shows every card, face-down ones too
    expect(page.locator(".card.face")).to_have_count(12)
    expect(page.locator(".card.back")).to_have_count(0)

    reveal = page.locator('form[data-verb="reveal"]')
    reveal.get_by_label("player").select_option("Ana")
    reveal.get_by_label("slot").fill("9")
    reveal.get_by_role("button", name="A player turns a card face up").click()
    # the daemon's field (reveal.slot) said by the form's label
    expect(reveal.locator(".result")).to_have_text("Refused: Slot: must be 1 to 6, got 9")
    expect(page.locator("#refused li").first).to_contain_text("must be 1 to 6")

    reveal.get_by_label("slot").fill("two")
    reveal.get_by_label("slot").press("Enter")  # the keyboard submits as well
    expect(reveal.locator(".result")).to_have_text("Refused: Slot: 'two' is not a whole number")

    reveal.get_by_label("slot").fill("2")
    reveal.get_by_role("button", name="A player turns a card face up").click()
    expect(reveal.locator(".result")).to_have_text("Done.")
    expect(page.locator("#events li").first).to_contain_text("Ana turns slot 2 face-up")

    # the room sees the card it turned, and still no hidden one
    room = page.context.new_page()
    room.goto(table.console.url)
    expect(room.locator(".card.face")).to_have_count(1)
    expect(room.locator(".card.back")).to_have_count(11)


def test_the_action_endpoint_answers_bad_input_in_words(table: Table, page: Page) -> None:
    base = table.console.url
    unauthenticated = page.request.post(base + "gm/actions/reveal", data={"player": "Ana"})
    assert unauthenticated.status == 401
    gm_login(page, base)
    expect(page.locator('form[data-verb="reveal"]')).to_be_visible()
    post = page.request.post

    unknown = post(base + "gm/actions/fly", data={})
    assert unknown.status == 404 and "has no action 'fly'" in unknown.json()["error"]
    not_json = post(
        base + "gm/actions/reveal", data=b"{", headers={"Content-Type": "application/json"}
    )
    assert not_json.status == 400 and "not valid JSON" in not_json.json()["error"]
    not_object = post(base + "gm/actions/reveal", data=[1, 2])
    assert not_object.status == 400 and "JSON object" in not_object.json()["error"]
    missing = post(base + "gm/actions/reveal", data={"player": "Ana"})
    assert missing.status == 400
    assert missing.json() == {"ok": False, "error": "Slot: required", "field": "slot"}
    extra = post(base + "gm/actions/reveal", data={"player": "Ana", "slot": "1", "x": "y"})
    assert extra.status == 400 and extra.json()["field"] == "x"
    form = post(base + "gm/actions/reveal", form={"player": "Ana", "slot": "1"})
    assert form.status == 415
    nowhere = page.request.get(base + "nowhere")
    assert nowhere.status == 404 and "the pages are / and /gm" in nowhere.json()["error"]
