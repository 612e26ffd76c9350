"""The game master's tablet in Chromium: verbs in plain words grouped by what the game waits
for (the prompt's own first), players picked from the game's, 44 px tap targets, an honest
"none", and every game of `tabletop games` started from the page with its roster typed there."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tabletop.rules import games
from tabletop.rules.games.showdown.decks import deck_to_json, load_deck
from tests.console.conftest import Table, gm_login, shoot
from tests.daemon.daemon_helpers import ROSTER

CLI_VERBS = re.compile(r"^(allin|duelend|gmroll|pokerend|new|end-game|end)$")


def _now(page: Page) -> list[str]:
    return page.locator(".group.now form.action").evaluate_all(
        "forms => forms.map(f => f.dataset.verb)"
    )


def test_the_prompts_own_action_comes_first_and_players_are_picked(
    table: Table, page: Page
) -> None:
    gm_login(page, table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    # no game yet: starting one is what the game waits for
    expect(page.locator(".group.now form.action").first).to_have_attribute("data-verb", "new")
    roster = page.locator('form[data-verb="new"]')
    typed = json.dumps({key: ROSTER[key] for key in ("players", "seed")})
    roster.get_by_label("roster", exact=True).fill(typed)
    roster.get_by_role("button", name="Start a game").click()
    expect(roster.locator(".result")).to_have_text("Done.")
    # the deal waits for each player to turn a card: that form moves to the top
    expect(page.locator(".group.now form.action").first).to_have_attribute("data-verb", "reveal")
    assert "new" not in _now(page)
    player = page.locator('form[data-verb="reveal"] select[name="player"]')
    names = [player["name"] for player in ROSTER["players"]]
    expect(player.locator("option")).to_have_text(["— pick a player —", *names])
    # the other verbs stand under their groups, named in words
    titles = page.locator(".group-title").all_text_contents()
    assert titles[0] == "What the game waits for now"
    assert "The game master's calls" in titles
    for button in page.locator("form.action button").all_text_contents():
        assert not CLI_VERBS.match(button), button
    shoot(page, "console-gm")


def test_tap_targets_are_44_px_and_an_empty_list_says_none(table: Table, page: Page) -> None:
    page.set_viewport_size({"width": 768, "height": 1024})
    gm_login(page, table.console.url)
    expect(page.locator("form.action").first).to_be_visible()
    expect(page.locator("#refused li")).to_have_text(["None refused."])
    controls = page.locator(
        "form.action button, form.action input, form.action select, #game-choice"
    )
    assert controls.count() > 20
    small = controls.evaluate_all(
        """nodes => nodes.map(n => [n.name || n.textContent, n.getBoundingClientRect()])
                    .filter(([, r]) => r.width < 44 || r.height < 44)
                    .map(([name, r]) => `${name} ${r.width}x${r.height}`)"""
    )
    assert small == []


@pytest.mark.parametrize("name", ["ossix", "steamfunkateers", "showdown"])
def test_every_game_starts_from_the_page(table: Table, page: Page, name: str) -> None:
    gm_login(page, table.console.url)
    chooser = page.get_by_label("Game (pick another to start it)")
    expect(chooser.locator("option")).to_have_count(len(games.names()))
    chooser.select_option(name)
    new = page.locator('form[data-verb="new"]')
    expect(page.locator("form.action")).to_have_count(1)  # only its start, until it runs
    if name == "showdown":
        # a showdown's roster carries each gunslinger's deck (as a file read on the device would)
        new.get_by_label("roster", exact=True).fill(_showdown_roster())
    else:
        new.get_by_label("players").fill("Ana Maria\nBo")
    new.locator("button").click()
    expect(new.locator(".result")).to_have_text("Done.")
    expect(page.locator("#game-name")).to_have_text(f"({games.get(name).info.title})")
    expect(page.locator("form.action").nth(3)).to_be_visible()  # the game's own verbs now
    expect(page.locator("#seats")).to_contain_text("Ana Maria")
    # The start's reply outlives the forms being built again (another game looked at, and back).
    other = next(game for game in games.names() if game != name)
    chooser.select_option(other)
    expect(page.locator("form.action")).to_have_count(1)
    chooser.select_option(name)
    expect(page.locator("form.action").nth(3)).to_be_visible()
    expect(new.locator(".result")).to_have_text("Done.")


def _showdown_roster() -> str:
    decks = Path(__file__).resolve().parents[2] / "examples" / "decks"
    players = [
        {"name": "Ana Maria", "deck": deck_to_json(load_deck(decks / "cowboy.toml"))},
        {"name": "Bo", "deck": deck_to_json(load_deck(decks / "desperado.toml"))},
    ]
    return json.dumps({"players": players})


def test_a_verb_that_takes_everyone_offers_all_beside_the_players(table: Table, page: Page) -> None:
    assert table.send({"cmd": "new_game", "game": "ossix", "players": ["Jack", "Kate"]})["ok"]
    gm_login(page, table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    award = page.locator('form[data-verb="award"]')
    player = award.locator('select[name="player"]')
    expect(player.locator("option")).to_have_text(
        ["— pick a player —", "Jack", "Kate", "all (everyone)"]
    )
    # a verb that takes only one player offers no "all"
    expect(page.locator('form[data-verb="panic"] select[name="player"] option')).to_have_text(
        ["— pick a player —", "Jack", "Kate"]
    )
    player.select_option("all")
    award.get_by_role("button", name="Award a Luck Point").click()
    expect(award.locator(".result")).to_have_text("Done.")
    # everyone got a Luck Point (two to three each): the room's drawing says so
    expect(page.locator('.seat .dots[aria-label="Luck 3 of 3"]')).to_have_count(2)
