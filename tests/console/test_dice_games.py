"""The room view draws the dice games with their own renderers: pools, sixes, Vigor, Luck, Strain."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.console.conftest import Table


def test_steamfunkateers_shows_vigor_pools_and_the_sixes_that_count(
    table: Table, page: Page
) -> None:
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    new_game = {
        "cmd": "new_game",
        "game": "steamfunkateers",
        "players": ["Ana", "Bo"],
        "options": {"starting_vigor": 2, "gm_vigor": 1},
    }
    assert table.send(new_game)["ok"]
    expect(page.locator('.seat[data-seat="0"] .facts').nth(1)).to_contain_text("Vigor 2")
    expect(page.locator('.seat[data-seat="0"] .dots')).to_have_attribute(
        "aria-label", "Contest wins 0 of 3"
    )
    check = {
        "cmd": "check",
        "task": "stop the stagecoach",
        "pools": [{"player": "Bo", "skill": "Athletics", "rank": 4, "extra_die": True}],
    }
    assert table.send(check)["ok"]
    expect(page.locator(".scene h3")).to_contain_text("stop the stagecoach")
    assert table.send({"cmd": "roll", "values": [6, 6, 1, 2, 3]})["ok"]
    # a lone pool's roll ends the check at once: the scene keeps its result, marked as ended
    expect(page.locator(".scene h3")).to_have_text("The last roll (ended)")
    pool = page.locator('.scene .pool.last[data-who="Bo"]')
    expect(pool).to_contain_text("2 sixes")
    # named by its player, then what it rolled (issue 32: pools named)
    expect(pool.locator(".pool-who")).to_have_text("Bo (Athletics 4 +1 Vigor die): ")
    # ... with its dice as thrown (the public view keeps the ended roll's pools)
    expect(pool.locator(".die")).to_have_count(5)
    expect(pool.locator(".die.six")).to_have_count(2)


def test_ossix_shows_luck_strain_and_the_last_roll(table: Table, page: Page) -> None:
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    new_game = {"cmd": "new_game", "game": "ossix", "players": ["Jack", "Kate"]}
    assert table.send(new_game)["ok"]
    jack = page.locator('.seat[data-seat="0"]')
    expect(jack.locator(".dots")).to_have_attribute("aria-label", "Luck 2 of 3")
    expect(jack.locator(".dot.lit")).to_have_count(2)
    expect(jack.locator("meter")).to_have_attribute("value", "0")
    action = {"cmd": "action", "player": "Jack", "attribute": "agility", "score": 2, "skill": True}
    assert table.send(action)["ok"]
    assert table.send({"cmd": "roll", "values": [1, 4, 6]})["ok"]
    expect(jack.locator(".roll .die")).to_have_count(3)
    expect(jack.locator(".roll")).to_contain_text("success")
    # no JSON dump in place of the drawing
    expect(page.locator("pre.generic")).to_have_count(0)


def test_showdown_shows_each_gunslingers_bullets_as_backs_until_revealed(
    table: Table, page: Page
) -> None:
    from pathlib import Path

    from tabletop.rules.games.showdown.decks import deck_to_json, load_deck

    decks = Path(__file__).resolve().parents[2] / "examples" / "decks"
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    players = [
        {"name": "Ana", "deck": deck_to_json(load_deck(decks / "cowboy.toml"))},
        {"name": "Bo", "deck": deck_to_json(load_deck(decks / "desperado.toml"))},
    ]
    assert table.send({"cmd": "new_game", "game": "showdown", "players": players})["ok"]
    for player, deck in zip(players, ("cowboy", "desperado"), strict=True):
        ids = [card["id"] for card in player["deck"]["cards"]][:6]
        load = {"cmd": "load", "player": player["name"], "bullets": ids}
        assert table.send(load)["ok"], deck
    expect(page.locator(".card.back")).to_have_count(12)
    assert table.send({"cmd": "reveal", "player": "Ana", "slot": 1})["ok"]
    expect(page.locator(".card.back")).to_have_count(11)
    revealed = page.locator('.seat[data-seat="0"] .slot[data-slot="1"] .card.bullet')
    expect(revealed).to_have_attribute("data-card", "cowboy/draw-1")
    expect(page.locator('.seat[data-seat="0"] .score')).to_have_attribute("aria-label", "0 points")
