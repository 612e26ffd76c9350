"""Issue 48 items 1 and 2 in Chromium: every game starts from the players' names, each player
with the game's choices filled in with legal defaults (kept on the device for next week), and
a game master's refused command is an answer on their screen only, never the room's alert."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tabletop.rules.games.sixshooter.choices import DEFAULT_LUCKY
from tests.console.conftest import Table, gm_login, shoot, wait_for


def _players(page: Page) -> list[dict[str, object]]:
    state = page.evaluate("() => (window.tableSnapshot || {}).state || {}")
    return list(state.get("players") or [])


def test_six_shooter_starts_from_names_with_choices_a_player_may_change(
    table: Table, page: Page
) -> None:
    gm_login(page, table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    new = page.locator('form[data-verb="new"]')
    new.get_by_label("roster", exact=True).fill("Ana Maria\nBo")
    rows = new.locator(".player-row")
    expect(rows).to_have_count(2)
    expect(new.locator(".player-note")).to_contain_text("change any")
    expect(new.get_by_label("Ana Maria: Descriptor")).to_have_value("dangerous")
    expect(new.get_by_label("Ana Maria: Lucky Number")).to_have_value(str(DEFAULT_LUCKY[0]))
    expect(new.get_by_label("Bo: Lucky Number")).to_have_value(str(DEFAULT_LUCKY[1]))
    new.get_by_label("Bo: Descriptor").select_option("charming")
    new.get_by_label("Bo: Lucky Number").select_option("9")
    new.get_by_label("Bo: Archetype").fill("Sniper")
    shoot(page, "console-gm-start-from-names")
    new.get_by_role("button", name="Start a game").click()
    expect(new.locator(".result")).to_have_text("Done.")
    wait_for(page, lambda shown: len((shown.get("state") or {}).get("players") or []) == 2)
    bo = next(player for player in _players(page) if player["name"] == "Bo")
    assert (bo["descriptor"], bo["archetype"], bo["lucky"]) == ("charming", "Sniper", [9])
    # the group is kept on this device: the next visit fills the names and choices in
    page.reload()
    again = page.locator('form[data-verb="new"]')
    expect(again.get_by_label("roster", exact=True)).to_have_value("Ana Maria\nBo")
    expect(again.get_by_label("Bo: Lucky Number")).to_have_value("9")
    expect(again.get_by_label("Bo: Archetype")).to_have_value("Sniper")
    expect(again.locator(".player-note")).to_contain_text("last group")


def test_showdown_starts_from_names_with_the_decks_the_console_knows(
    table: Table, page: Page
) -> None:
    gm_login(page, table.console.url)
    page.get_by_label("Game (pick another to start it)").select_option("showdown")
    new = page.locator('form[data-verb="new"]')
    expect(page.locator("form.action")).to_have_count(1)
    new.get_by_label("roster", exact=True).fill("Ana\nBo")
    expect(new.get_by_label("Ana: Deck").locator("option")).to_have_text(["Cowboy", "Desperado"])
    expect(new.get_by_label("Ana: Deck")).to_have_value("cowboy")
    expect(new.get_by_label("Bo: Deck")).to_have_value("desperado")
    new.get_by_role("button", name="Start a showdown").click()
    expect(new.locator(".result")).to_have_text("Done.")
    expect(page.locator("#game-name")).to_have_text("(Six-Gun Showdown)")
    expect(page.locator("#seats")).to_contain_text("Ana")


def test_a_typed_roster_still_goes_as_it_is(table: Table, page: Page) -> None:
    """Roster text (TOML here) is no list of names: no rows, sent as typed."""
    gm_login(page, table.console.url)
    new = page.locator('form[data-verb="new"]')
    new.get_by_label("roster", exact=True).fill(
        '[[players]]\nname = "Ana"\ndescriptor = "sly"\nlucky = [4]\n'
        '[[players]]\nname = "Bo"\ndescriptor = "sharp"\nlucky = [5]\n'
    )
    expect(new.locator(".player-row")).to_have_count(0)
    new.get_by_role("button", name="Start a game").click()
    expect(new.locator(".result")).to_have_text("Done.")
    wait_for(page, lambda shown: len((shown.get("state") or {}).get("players") or []) == 2)
    assert [player["lucky"] for player in _players(page)] == [[4], [5]]


@pytest.fixture
def poker_table(tmp_path: Path) -> Iterator[Table]:
    """An OS-SIX table whose daemon reads two seats (a table reader, which raises alerts)."""
    running = Table(tmp_path, daemon_options={"seats": ["Ana", "Bo"], "game": "ossix"})
    running.start()
    try:
        yield running
    finally:
        running.stop()


def test_a_refused_command_is_the_game_master_s_answer_not_the_room_s_alert(
    poker_table: Table, page: Page
) -> None:
    seated = poker_table
    started = seated.send({"cmd": "new_game", "players": ["Ana", "Bo"]})
    assert started["ok"], started
    room = page.context.new_page()
    room.goto(seated.console.url)
    expect(room.locator("#connection")).to_have_text("Table online")
    gm_login(page, seated.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    duel = {"cmd": "duel", "player": "Ana", "opponent": "Bo", "two_pistols": False}
    assert seated.send(duel)["ok"]
    # the game master starts the same duel again: the "Ana is already in a duel"
    again = page.locator('form[data-verb="duel"]')
    again.locator('select[name="player"]').select_option("Ana")
    again.locator('[name="opponent"]').fill("Bo")
    again.locator("button").click()
    expect(again.locator(".result")).to_have_text("Refused: Ana is already in a duel")
    expect(page.locator("#refused li")).not_to_have_text(["None refused."])
    # a later command shows on the room's screen: the refusal before it was answered by then
    assert seated.send({"cmd": "award_luck", "player": "Ana"})["ok"]
    expect(room.locator('.seat .dots[aria-label="Luck 3 of 3"]')).to_have_count(1)
    expect(room.locator("#alerts-box")).to_be_hidden()
    expect(page.locator("#alerts-box")).to_be_hidden()  # nor the game master's own alerts


def test_an_os_six_group_is_kept_on_the_device_for_next_week(table: Table, page: Page) -> None:
    gm_login(page, table.console.url)
    chooser = page.get_by_label("Game (pick another to start it)")
    chooser.select_option("ossix")
    new = page.locator('form[data-verb="new"]')
    new.get_by_label("players").fill("Jack\nKate")
    new.locator("button").click()
    expect(new.locator(".result")).to_have_text("Done.")
    expect(page.locator("#game-name")).to_have_text("(OS-SIX)")
    page.reload()
    expect(page.locator('form[data-verb="new"]').get_by_label("players")).to_have_value(
        "Jack\nKate"
    )
