"""Steamfunkateers' pools and turn-order entrants are built on the game master's page by taps,
a row per pool or entrant (issue 48 item 4: no command-line syntax on any page): the daemon
takes the command `tabletop gm` would have made, and a row filled in wrongly is refused in
words that name the row and the part."""

from __future__ import annotations

import argparse
from typing import Any

from playwright.sync_api import Page, expect

from tabletop.console.forms import forms_for
from tabletop.rules import games
from tabletop.rules.games.steamfunkateers.actions import pool_spec
from tests.console.accessibility import assert_accessible
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
    first = order.locator(".builder-row").nth(0)
    # a scene's order (the kind first offered) compares Empathy alone: one rank asked
    expect(order.get_by_label("kind", exact=True)).to_have_value("scene")
    expect(first.get_by_label("Empathy rank", exact=True)).to_be_visible()
    expect(first.locator("[data-column]:visible")).to_have_count(1)
    order.get_by_label("kind", exact=True).select_option("physical")
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
    name = thugs.get_by_label("the character's name (optional)", exact=True)
    # the daemon's own refusal, of the second pool's who, is said by that row and part too
    name.fill("Bo")
    check.get_by_role("button", name="Call a roll").click()
    expect(check.locator(".result")).to_contain_text("Refused: Pool 2, who throws: ")
    expect(check.locator(".result")).to_contain_text("is a player")
    name.fill("Thugs")
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


def test_a_row_makes_the_command_the_command_line_makes() -> None:
    """Every key `pool_spec` takes, given in rows, is the command `tabletop gm` makes from its
    notation (an entrant's ranks too)."""
    game = games.get("steamfunkateers")
    forms = forms_for(game.gm_actions(), game.roster_keys)
    ana: dict[str, object] = {
        "who": "Ana",
        "rank": "4",
        "skill": "Burglary",
        "obstacle": "2",
        "obstacle_2": "1",
    }
    ana |= {"conditions": "1", "circumstance": "-1", "bonus": True, "extra": True}
    ana |= {"unfamiliar": True}
    thugs: dict[str, object] = {
        "who": "Thugs",
        "npc": True,
        "base": "5",
        "outnumbering": "2",
        "circumstance": "+2",
    }
    gm: dict[str, object] = {"who": "", "npc": True}
    made = forms["check"].command({"pools": [ana, thugs, gm], "task": "the vault"})
    typed = [
        "Ana=4,skill=Burglary,obstacle=2,obstacle=1,unfamiliar,conditions=1,circumstance=-1,"
        "bonus,extra",
        "npc:Thugs,base=5,outnumbering=2,circumstance=+2",
        "npc",
    ]
    assert made == {"cmd": "check", "pools": [pool_spec(t) for t in typed], "task": "the vault"}
    order: list[dict[str, object]] = [{"who": "Ana", "first": 3, "second": "2", "third": "1"}]
    order += [{"who": "Thug", "npc": True, "first": 2, "second": 2, "third": 2}]
    action = next(a for a in game.gm_actions() if a.verb == "turn-order")
    parser = argparse.ArgumentParser()
    action.arguments(parser)
    cli = action.build(parser.parse_args(["mental", "Ana=3/2/1", "Thug=2/2/2"]))
    assert forms["turn-order"].command({"kind": "mental", "entrants": order}) == cli


def test_the_builders_pass_axe(
    table: Table,
    axe_page: Page,
    axe_source: str,
) -> None:
    _started(table, axe_page)
    check = axe_page.locator('form[data-verb="check"]')
    check.get_by_role("button", name="Add a pool").click()
    check.locator(".builder-row").nth(1).get_by_label("who throws", exact=True).select_option(
        label="a game master's character"
    )
    order = axe_page.locator('form[data-verb="turn-order"]')
    order.get_by_label("kind", exact=True).select_option("mental")
    expect(order.locator(".builder-row").nth(0)).to_contain_text("Rapport rank")
    assert_accessible(axe_page, axe_source, "the pools and the entrants in rows")
