"""Every game on the room's screen (issue 32.1), in Chromium: OS-SIX dice poker drawn whole,
Steamfunkateers' pools named by their players, the phase or round in words under the prompt,
and each game's page on a tablet and a phone without sideways scrolling or seats overlapping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tabletop.rules.games.showdown.decks import deck_to_json, load_deck
from tests.console.conftest import (
    Table,
    boxes,
    drawn_as_the_table_is,
    gm_login,
    shoot,
    snapshot,
    wait_for,
)

DECKS = Path(__file__).resolve().parents[2] / "examples" / "decks"


def _showdown() -> list[dict[str, Any]]:
    players = [
        {"name": "Ana", "deck": deck_to_json(load_deck(DECKS / "cowboy.toml"))},
        {"name": "Bo", "deck": deck_to_json(load_deck(DECKS / "desperado.toml"))},
    ]
    loads = [
        {
            "cmd": "load",
            "player": player["name"],
            "bullets": [card["id"] for card in player["deck"]["cards"]][:6],
        }
        for player in players
    ]
    return [{"cmd": "new_game", "game": "showdown", "players": players}, *loads]


# Black Bart is no character of the game: the game master's gambler at the poker table.
POKER = [
    {"cmd": "new_game", "game": "ossix", "players": ["Jack", "Kate", "Lou"]},
    {
        "cmd": "poker_start",
        "players": [
            {"name": "Jack", "money": 20},
            {"name": "Kate", "money": 15},
            {"name": "Lou", "money": 12},
            {"name": "Black Bart", "money": 30},
        ],
        "open": True,  # every hand thrown in the tray (concealed hands are the default)
    },
    {"cmd": "ante"},
    # Jack deals: the hands are thrown from his left, Kate first, Jack last
    {"cmd": "roll", "values": [6, 6, 2, 3, 4]},
    {"cmd": "roll", "values": [1, 1, 5, 5, 2]},
    {"cmd": "roll", "values": [3, 3, 3, 5, 2]},
    {"cmd": "roll", "values": [1, 2, 3, 4, 6]},
]
STEAM = [
    {
        "cmd": "new_game",
        "game": "steamfunkateers",
        "players": ["Ana", "Bo", "Cy"],
        "options": {"starting_vigor": 2},
    },
    {
        "cmd": "turn_order",
        "kind": "physical",
        "entrants": [
            {"who": "Ana", "ranks": [3, 1, 1]},
            {"who": "Bo", "ranks": [2, 1, 1]},
            {"who": "Thug", "ranks": [1, 1, 1]},
        ],
    },
    {
        "cmd": "check",
        "task": "jump the gap",
        "pools": [{"player": "Bo", "skill": "Athletics", "rank": 3}, {"npc": "Thug", "base": 2}],
    },
    {"cmd": "roll", "values": [6, 2, 6]},
]
SIX_SHOOTER = [
    {
        "cmd": "new_game",
        "players": [
            {"name": name, "descriptor": "sly", "archetype": "Cat burglar", "lucky": [n + 2]}
            for n, name in enumerate(["Ana", "Bo", "Cy", "Di", "Ed", "Flo"])
        ],
        "seed": 4,
    }
]
GAMES: dict[str, list[dict[str, Any]]] = {
    "sixshooter": SIX_SHOOTER,
    "ossix": POKER,
    "steamfunkateers": STEAM,
    "showdown": _showdown(),
}


def _play(table: Table, commands: list[dict[str, Any]]) -> None:
    for command in commands:
        reply = table.send(command)
        assert reply["ok"], (command, reply)


def test_ossix_dice_poker_is_drawn_whole_in_the_room_and_for_the_game_master(
    table: Table, page: Page, browser: Browser
) -> None:
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    _play(table, [*POKER, {"cmd": "bet", "player": "Kate", "action": "bet", "amount": 2}])
    poker = page.locator(".seat.poker")
    expect(poker.locator(".pot-amount")).to_have_text("$6")  # four antes and Kate's bet
    gamblers = poker.locator(".gambler")
    expect(gamblers).to_have_count(4)
    expect(gamblers.locator(".gambler-name")).to_have_text(["Jack", "Kate", "Lou", "Black Bart"])
    kate = poker.locator('.gambler[data-name="Kate"]')
    expect(kate.locator(".money")).to_have_text("$12 on the table · bet $2 · in the pot $3")
    expect(kate.locator(".die")).to_have_text(["6", "6", "2", "3", "4"])
    expect(kate.locator(".hand")).to_contain_text("one pair")
    # the dealer and the game master's gambler are said in words, and only theirs
    expect(poker.locator('.gambler[data-name="Jack"] .gambler-tags')).to_have_text("dealer")
    expect(poker.locator(".gambler-tags", has_text="game master's gambler")).to_have_count(1)
    bart = poker.locator('.gambler[data-name="Black Bart"]')
    expect(bart.locator(".gambler-tags")).to_have_text("game master's gambler")
    expect(bart.locator(".hand")).to_contain_text("three of a kind")
    # Lou is to bet: marked on the gambler as on the seat
    expect(poker.locator(".gambler.turn")).to_have_count(1)
    expect(poker.locator('.gambler[data-name="Lou"] .turn-tag')).to_have_text("▶ to act")
    expect(page.locator("#phase")).to_have_text(
        "Dice poker (five-dice draw), hand 1: betting, round 1"
    )
    # nothing drawn that the public view does not hold: every gambler and die is the view's
    view = snapshot(page)["state"]["poker"]
    drawn = gamblers.evaluate_all(
        "nodes => nodes.map(n => [n.dataset.name, [...n.querySelectorAll('.die')]"
        ".map(d => Number(d.textContent))])"
    )
    assert drawn == [[seat["name"], seat["dice"]] for seat in view["seats"]]
    table.publish_as_daemon(
        "dice/event", {"v": 1, "event": "rolled", "values": [1, 2, 3, 4, 6]}, False, "bridge"
    )
    expect(page.locator("#dice .die")).to_have_count(5)
    box = poker.bounding_box()  # three characters and four gamblers on a 1280x800 TV
    assert box is not None and box["y"] + box["height"] <= 800
    assert page.evaluate("document.scrollingElement.scrollHeight") <= 800
    shoot(page, "console-room-poker")
    # Lou folds: the gambler says so, and the turn moves on
    assert table.send({"cmd": "bet", "player": "Lou", "action": "fold"})["ok"]
    expect(poker.locator('.gambler[data-name="Lou"] .gambler-status')).to_contain_text("folded")
    expect(poker.locator('.gambler[data-name="Lou"]')).to_have_class("gambler folded")
    # the game master's page draws the same table
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    gm = context.new_page()
    try:
        gm_login(gm, table.console.url)
        expect(gm.locator("#connection")).to_have_text("Table online")
        expect(gm.locator(".seat.poker .pot-amount")).to_have_text("$6")
        expect(gm.locator(".seat.poker .gambler")).to_have_count(4)
        expect(gm.locator('.gambler[data-name="Black Bart"] .gambler-tags')).to_have_text(
            "game master's gambler"
        )
        expect(gm.locator("#phase")).to_contain_text("Dice poker (five-dice draw), hand 1")
    finally:
        context.close()


def test_steamfunkateers_pools_are_named_by_their_players(table: Table, page: Page) -> None:
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    _play(table, STEAM[:3])
    bo = page.locator('.scene .pool[data-who="Bo"]')
    expect(bo.locator(".pool-name")).to_have_text("Bo")
    expect(bo.locator(".pool-label")).to_have_text(" (Athletics 3): ")
    expect(page.locator('.scene .pool[data-who="Thug"] .pool-who')).to_have_text("Thug (2d): ")
    assert table.send({"cmd": "roll", "values": [6, 2, 6]})["ok"]
    expect(bo.locator(".die.six")).to_have_count(2)
    # Ana's turn in the conflict's order is not the "▶ to act" of Bo, who must throw now
    expect(page.locator('.seat[data-name="Ana"] .who')).to_have_text("turn order: now")
    table.publish_as_daemon(
        "dice/event", {"v": 1, "event": "rolled", "values": [6, 2, 6]}, False, "bridge"
    )
    expect(page.locator("#dice .die")).to_have_count(3)
    shoot(page, "console-room-steamfunkateers")


@pytest.mark.parametrize(
    ("game", "commands", "words"),
    [
        (
            "sixshooter",
            SIX_SHOOTER,
            "Adventure 1: setting up, each player turns one card face-up",
        ),
        (
            "ossix",
            [
                {"cmd": "new_game", "game": "ossix", "players": ["Jack", "Kate"]},
                {"cmd": "duel", "player": "Jack", "opponent": "Kate"},
            ],
            "Quick-draw duel, round 1: Jack against Kate, next standoff or draw",
        ),
        (
            "steamfunkateers",
            STEAM[:3],
            "Physical conflict, exchange 1 · a check: jump the gap",
        ),
        ("showdown", _showdown(), "Round 1 of 3: stare down"),
    ],
)
def test_the_phase_or_round_is_said_in_words_under_the_prompt(
    table: Table, page: Page, game: str, commands: list[dict[str, Any]], words: str
) -> None:
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    expect(page.locator("#phase")).to_be_hidden()  # no game: no phase line
    _play(table, commands)
    drawn_as_the_table_is(table, page)
    assert snapshot(page)["prompt"]["game"] == game
    expect(page.locator("#phase")).to_have_text(words)
    prompt, phase = boxes(page, "#prompt", "#phase")
    assert 0 <= phase["y"] - (prompt["y"] + prompt["height"]) < 20  # right under the prompt


def test_a_showdown_tie_break_round_is_not_counted_as_one_of_three(
    table: Table, page: Page
) -> None:
    """The seed: "If the score is tied, then play an additional round, or rounds, until one
    player has the highest score." Round 4 is no "Round 4 of 3" on the people's screens."""
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    _play(table, _showdown())
    wait_for(page, lambda data: (data.get("state") or {}).get("round") == 1)
    expect(page.locator("#phase")).to_have_text("Round 1 of 3: stare down")
    # The daemon's retained public state as it stands in a tie-break round (the same view,
    # one command on): reaching it by play takes three tied rounds.
    state = dict(snapshot(page)["state"])
    state.update(round=4, seq=state["seq"] + 1)
    table.publish_as_daemon("game/state", state)
    expect(page.locator("#phase")).to_have_text("Round 4, a tie-break round: stare down")


# Each page's parts that must not overlap one another, and must stay inside the screen.
LAYOUT = """() => {
  const boxes = (selector) => [...document.querySelectorAll(selector)]
    .map((node) => [node.dataset.name || node.className, node.getBoundingClientRect()]);
  const overlapping = (list) => {
    const found = [];
    list.forEach(([a, r], i) => list.slice(i + 1).forEach(([b, s]) => {
      if (r.left < s.right - 1 && s.left < r.right - 1 && r.top < s.bottom - 1 && s.top < r.bottom - 1)
        found.push(`${a} / ${b}`);
    }));
    return found;
  };
  const wide = [...document.querySelectorAll("main *")]
    .filter((node) => !node.closest(".events") && node.getClientRects().length)
    .filter((node) => node.getBoundingClientRect().right > innerWidth + 0.5)
    .map((node) => node.className || node.tagName);
  return {
    scrollWidth: document.scrollingElement.scrollWidth, innerWidth,
    seats: document.querySelectorAll("#seats > .seat").length,
    overlaps: [...overlapping(boxes("#seats > .seat")), ...overlapping(boxes(".gambler")),
               ...overlapping(boxes("#seats, .columns > section"))],
    wide,
  };
}"""


@pytest.mark.parametrize("size", ["768x1024", "390x844"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_games_room_page_fits_a_tablet_and_a_phone(
    table: Table, page: Page, game: str, size: str
) -> None:
    width, height = (int(n) for n in size.split("x"))
    page.set_viewport_size({"width": width, "height": height})
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    _play(table, GAMES[game])
    drawn_as_the_table_is(table, page)
    assert snapshot(page)["prompt"]["game"] == game
    table.publish_as_daemon(
        "dice/event", {"v": 1, "event": "rolled", "values": [6, 2, 6, 1, 5]}, False, "bridge"
    )
    expect(page.locator("#dice .die")).to_have_count(5)
    expect(page.locator("#seats > .seat").first).to_be_visible()
    layout = page.evaluate(LAYOUT)
    assert layout["seats"] >= 2
    assert layout["scrollWidth"] <= layout["innerWidth"], layout
    assert layout["wide"] == [], layout
    assert layout["overlaps"] == [], layout
    if size == "390x844" and game in ("ossix", "steamfunkateers"):
        shoot(page, f"console-room-{game}-phone", full_page=True)
