"""Steamfunkateers' pools and turn-order entrants are built on the game master's page by taps,
a row per pool or entrant (issue 48 item 4: no command-line syntax on any page): the daemon
takes the command `tabletop gm` would have made, and a row filled in wrongly is refused in
words that name the row and the part."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from tests.console.conftest import Table, gm_login, shoot, snapshot, wait_for


def _started(table: Table, page: Page) -> None:
    new: dict[str, Any] = {"cmd": "new_game", "game": "steamfunkateers"}
    new["players"] = ["Ana", "Bo"]
    new["options"] = {"starting_vigor": 1}
    assert table.send(new)["ok"]
    gm_login(page, table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")


def test_a_turn_order_and_an_opposed_check_are_built_by_taps(table: Table, page: Page) -> None:
    _started(table, page)
    order = page.locator('form[data-verb="turn-order"]')
    order.get_by_label("kind", exact=True).select_option("physical")
    first = order.locator(".builder-row").nth(0)
    # a physical order compares Spot, then Athletics, then Physique: the columns say so
    expect(first.locator("legend")).to_have_text("Entrant 1")
    first.get_by_label("who", exact=True).select_option("Ana")
    first.get_by_label("Spot rank", exact=True).fill("3")
    first.get_by_label("Athletics rank", exact=True).fill("2")
    first.get_by_label("Physique rank", exact=True).fill("1")
    order.get_by_role("button", name="Add an entrant").click()
    second = order.locator(".builder-row").nth(1)
    expect(second.locator("legend")).to_have_text("Entrant 2")
    second.get_by_label("who", exact=True).select_option(label="a game master's character")
    second.get_by_label("the character's name", exact=True).fill("Thug")
    for skill in ("Spot", "Athletics", "Physique"):
        second.get_by_label(f"{skill} rank", exact=True).fill("2")
    order.get_by_role("button", name="Set a turn order").click()
    expect(order.locator(".result")).to_have_text("Done.")
    wait_for(page, lambda shown: bool((shown.get("state") or {}).get("order")))
    called = snapshot(page)["state"]["order"]
    assert called["kind"] == "physical"
    assert called["order"] == ["Ana", "Thug"] and called["npcs"] == ["Thug"], called
    # the form is fresh for the next command: one empty row again
    expect(order.locator(".builder-row")).to_have_count(1)
    expect(order.locator(".builder-row").nth(0).get_by_label("who", exact=True)).to_have_value("")

    check = page.locator('form[data-verb="check"]')
    ana = check.locator(".builder-row").nth(0)
    expect(ana.locator("legend")).to_have_text("Pool 1")
    ana.get_by_label("who throws", exact=True).select_option("Ana")
    # a slip first: the rank left out is refused by its row and its part, in words
    check.get_by_role("button", name="Call a roll").click()
    expect(check.locator(".result")).to_have_text("Refused: Pool 1, skill rank (dice): required")
    ana.get_by_label("skill rank (dice)", exact=True).fill("4")
    ana.get_by_label("skill (optional)", exact=True).fill("Burglary")
    ana.get_by_label("obstacle level (optional)", exact=True).fill("1")
    ana.get_by_label("bonus die (the more applicable talent)", exact=True).check()
    # a game master's character's row asks the game master's dice, not a player's rank
    check.get_by_role("button", name="Add a pool").click()
    thugs = check.locator(".builder-row").nth(1)
    thugs.get_by_label("who throws", exact=True).select_option(label="a game master's character")
    expect(thugs.get_by_label("skill rank (dice)", exact=True)).to_be_hidden()
    thugs.get_by_label("the character's name (optional)", exact=True).fill("Thugs")
    thugs.get_by_label("outnumbering the players (optional)", exact=True).fill("2")
    thugs.get_by_label("circumstance (dice, more or fewer) (optional)", exact=True).fill("-1")
    check.get_by_label("task (optional)", exact=True).fill("the vault door")
    # the second pool, the task and the button in the screenshot: the actions' box scrolled
    thugs.evaluate(
        "row => { const box = row.closest('.actions');"
        " box.scrollTop += row.getBoundingClientRect().top - box.getBoundingClientRect().top - 40; }"
    )
    shoot(page, "console-gm-pools")
    check.get_by_role("button", name="Call a roll").click()
    expect(check.locator(".result")).to_contain_text("Done")
    wait_for(page, lambda shown: bool((shown.get("state") or {}).get("round")))
    called = snapshot(page)["state"]["round"]
    assert called["task"] == "the vault door"
    dice = {pool["who"]: pool["dice"] for pool in called["pools"]}
    # Ana: rank 4, an obstacle off, the bonus die on; the Thugs: 6, +2 outnumbering, -1
    assert dice == {"Ana": 4, "Thugs": 7}, called
    expect(page.locator("#events li").first).to_contain_text("Thugs")
