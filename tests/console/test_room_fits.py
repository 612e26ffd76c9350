"""The room's screen is the TV's screen (issue 48 item 3), in Chromium, for every game at
1280x800 and 1920x1080: nothing scrolls, nothing is clipped, no text is too small to read
across a room, whatever the table holds (six seats with the camera's picture, dice poker with
seven gamblers, a duel, Showdown's scoreboard); and each game's end has a screen of its own.

Readable across a room: 20 px at 1920x1080 (on a 55-inch TV a pixel is 0.63 mm, so a 20 px
line is 12.6 mm tall, read from about 4 m, a café table's distance from its TV). A TV scales
the picture it is sent to its whole panel, so a 1280x800 picture's pixels are 1.5 times
larger there: 20 * 1280 / 1920 = 13.3 px at 1280x800 is the same size on the glass."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from playwright.sync_api import Page, expect

from tabletop.rules.games import registry
from tests.console.conftest import (
    PASSWORDS,
    TABLE,
    Table,
    drawn_as_the_table_is,
    resized,
    shoot,
    snapshot,
    wait_for,
)
from tests.console.test_room_games import STEAM as STEAM_GAME
from tests.console.test_room_games import _showdown

STEAM: list[dict[str, Any]] = list(STEAM_GAME)  # type: ignore[arg-type]
SIZES = [(1280, 800), (1920, 1080)]
NAMES = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo"]
SMALLEST_TEXT_AT_1920 = 20.0

# What the page measures: its scroll, every visible element inside the screen and inside the
# box of any ancestor that clips (a scrolling list's own items excepted: the list scrolls, and
# the list itself must be inside), and the size of every piece of text shown.
MEASURE = """() => {
  const hiddenAway = (node) => node.closest(".visually-hidden") !== null;
  const scrolls = (node) => { const s = getComputedStyle(node);
    return /(auto|scroll)/.test(s.overflowY + s.overflowX); };
  const clips = (node) => getComputedStyle(node).overflow !== "visible";
  const name = (node) => node.tagName.toLowerCase() + (node.id ? "#" + node.id : "")
    + (node.className && typeof node.className === "string" ? "." + node.className.trim().replace(/ +/g, ".") : "")
    + (node.dataset && node.dataset.name ? `[${node.dataset.name}]` : "");
  const outside = [], clipped = [], small = [], cut = [];
  let smallest = Infinity;
  for (const node of document.body.querySelectorAll("*")) {
    if (!node.getClientRects().length || hiddenAway(node)) continue;
    if (getComputedStyle(node).visibility === "hidden") continue;
    const r = node.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    let scrolled = false;
    for (let up = node.parentElement; up && up !== document.body; up = up.parentElement)
      if (scrolls(up)) scrolled = true;
    if (!scrolled && (r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5))
      outside.push(name(node));
    // inside every ancestor that clips, up to the first that scrolls
    for (let up = node.parentElement; up && up !== document.body; up = up.parentElement) {
      if (!clips(up)) continue;
      if (scrolls(up)) break;
      const b = up.getBoundingClientRect();
      if (r.left < b.left - 0.5 || r.top < b.top - 0.5 || r.right > b.right + 0.5 || r.bottom > b.bottom + 0.5)
        clipped.push(`${name(node)} in ${name(up)}`);
    }
    // a box that clips its own content cuts it (text cut off with an ellipsis, a card's words)
    if (clips(node) && !scrolls(node) && node.tagName !== "IMG" &&
        (node.scrollWidth > node.clientWidth + 1 || node.scrollHeight > node.clientHeight + 1))
      cut.push(name(node));
    const text = [...node.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim());
    if (text) {
      const size = parseFloat(getComputedStyle(node).fontSize);
      smallest = Math.min(smallest, size);
      if (size < __SMALLEST__) small.push(`${name(node)} ${size}px`);
    }
  }
  const el = document.scrollingElement;
  return { scrollHeight: el.scrollHeight, scrollWidth: el.scrollWidth, innerHeight, innerWidth,
           outside, clipped, cut, small, smallest, fit: document.body.dataset.fit };
}"""


def smallest_text(width: int) -> float:
    return SMALLEST_TEXT_AT_1920 * width / 1920


def measure(page: Page) -> dict[str, Any]:
    width = page.viewport_size["width"] if page.viewport_size else 1280
    script = MEASURE.replace("__SMALLEST__", f"{smallest_text(width) - 0.05:.2f}")
    value: dict[str, Any] = page.evaluate(script)
    return value


def publish_raw(table: Table, topic: str, payload: bytes, user: str = "bridge") -> None:
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{time.monotonic_ns()}")
    client.username_pw_set(user, PASSWORDS[user])
    client.connect("127.0.0.1", table.broker.port)
    client.loop_start()
    try:
        info = client.publish(f"tabletop/v1/{TABLE}/{topic}", payload, qos=1, retain=True)
        info.wait_for_publish(5)
        assert info.is_published(), f"{topic}: not published"
    finally:
        client.disconnect()
        client.loop_stop()


def camera_picture(table: Table, values: list[int]) -> None:
    """A throw as the bridge publishes it: its values, then the camera's 1280x720 picture."""
    table.publish_as_daemon(
        "dice/event", {"v": 1, "event": "rolled", "values": values}, False, "bridge"
    )
    image = np.full((720, 1280, 3), (40, 90, 40), np.uint8)
    for n, _ in enumerate(values):
        cv2.rectangle(image, (100 + 180 * n, 300), (220 + 180 * n, 420), (250, 250, 250), -1)
    ok, jpeg = cv2.imencode(".jpg", image)
    assert ok
    publish_raw(table, "dice/picture", jpeg.tobytes())


def leds(table: Table, seats: int) -> None:
    frame = {"v": 1, "seats": [["on", "off", "off"]] * seats, "meaning": "Strikes"}
    table.publish_as_daemon("leds/frame", frame)


def play(table: Table, commands: list[dict[str, Any]]) -> None:
    for command in commands:
        reply = table.send(command)
        assert reply["ok"], (command, reply)


def played(
    game: str, start: list[dict[str, Any]], until: Callable[[Any, Any, list[Any]], bool], seed: int
) -> list[dict[str, Any]] | None:
    """`start` and the commands the game's own random player adds (rules.random_command) up
    to the first state `until` accepts, played here first: the daemon is sent only moves that
    its rules take. None when the game ends first."""
    rules = registry.get(game)
    engine = rules.new_engine()
    commands = []
    for command in start:
        engine.execute(dict(command))
        commands.append(command)
    rng = random.Random(seed)
    seen: list[Any] = []
    for _ in range(3000):
        if until(rules, engine.state, seen):
            return commands
        if rules.is_over(engine.state):
            return None
        move = rules.random_command(engine.state, rng)
        if move is None:
            return None
        try:
            seen += list(engine.execute(dict(move)))
        except Exception:  # a random move the rules refuse: not sent
            continue
        commands.append(move)
    return None


def showdown_mid() -> list[dict[str, Any]]:
    """A Showdown round with bullets revealed and a race decided by a margin in ms."""

    def until(rules: Any, state: Any, seen: list[Any]) -> bool:
        view = rules.public_view(state)
        up = sum(b["state"] == "face_up" for p in view["players"] for b in p["bullets"])
        raced = any(
            "ms" in rules.public_event(e, state)["text"] and type(e).__name__ == "RaceDecided"
            for e in seen
        )
        return raced and up >= 3 and view["phase"] != "finished"

    for seed in range(200):
        found = played("showdown", _showdown(), until, seed)
        if found:
            return found
    raise AssertionError("no random Showdown came to a timed race")


def showdown_won() -> list[dict[str, Any]]:
    def until(rules: Any, state: Any, seen: list[Any]) -> bool:
        return bool(rules.is_over(state) and rules.public_view(state)["winner"])

    for seed in range(200):
        found = played("showdown", _showdown(), until, seed)
        if found:
            return found
    raise AssertionError("no random Showdown was won")


SIX: dict[str, Any] = {
    "cmd": "new_game",
    "players": [
        {"name": name, "descriptor": "sly", "archetype": "Cat burglar", "lucky": [n + 2]}
        for n, name in enumerate(NAMES)
    ],
    "seed": 4,
}
OSSIX_SIX: dict[str, Any] = {"cmd": "new_game", "game": "ossix", "players": NAMES}
SEVEN_GAMBLERS: dict[str, Any] = {
    "cmd": "poker_start",
    "players": [{"name": name, "money": 20 + n} for n, name in enumerate(NAMES)]
    + [{"name": "Black Bart", "money": 30}],
    "open": True,  # every hand thrown in the tray; concealed hands are drawn below
}
ROLLS: list[dict[str, Any]] = [
    {"cmd": "action", "player": "Ana", "attribute": "agility", "score": 2, "skill": True},
    {"cmd": "roll", "values": [6, 3, 1]},
    {"cmd": "action", "player": "Bo", "attribute": "agility", "score": 1},
    {"cmd": "roll", "values": [3]},
]
DEAL: list[dict[str, Any]] = [
    {"cmd": "roll", "values": [(n % 6) + 1, 2, 3, 4, 6]} for n in range(7)
]
STEAM_SIX: list[dict[str, Any]] = [
    {
        "cmd": "new_game",
        "game": "steamfunkateers",
        "players": NAMES,
        "options": {"starting_vigor": 2},
    },
    {
        "cmd": "check",
        "task": "hold the airship's door against the wind",
        "pools": [
            {"player": "Bo", "skill": "Athletics", "rank": 3},
            {"player": "Cy", "skill": "Tinkering", "rank": 2},
            {"npc": "Thug", "base": 2},
        ],
    },
    {"cmd": "roll", "values": [6, 2, 6]},
]
ALERT: dict[str, Any] = {
    "v": 1,
    "alerts": [
        {
            "key": "s2.3",
            "message": "Bo's slot 3: lay that card face-down again",
            "seat": 1,
            "slot": 3,
        }
    ],
    "instructions": [],
}


def six_shooter(table: Table) -> None:
    play(table, [SIX, {"cmd": "reveal", "player": "Ana", "slot": 1}])
    leds(table, 6)
    table.publish_as_daemon("table/alert", ALERT)
    camera_picture(table, [3, 5])


def ossix_characters(table: Table) -> None:
    play(table, [OSSIX_SIX, *ROLLS, {"cmd": "duel", "player": "Cy", "opponent": "Di"}])
    leds(table, 6)
    camera_picture(table, [6, 3, 1])


def ossix_poker(table: Table) -> None:
    play(table, [OSSIX_SIX, *ROLLS, SEVEN_GAMBLERS, {"cmd": "ante"}, *DEAL])
    leds(table, 6)
    camera_picture(table, [1, 2, 3, 4, 6])


def ossix_duel(table: Table) -> None:
    play(
        table,
        [
            {"cmd": "new_game", "game": "ossix", "players": ["Jack", "Kate"]},
            {"cmd": "duel", "player": "Jack", "opponent": "Kate", "two_pistols": True},
        ],
    )
    camera_picture(table, [4, 5])


def steamfunkateers(table: Table) -> None:
    play(table, STEAM_SIX)
    leds(table, 6)
    camera_picture(table, [6, 2, 6])


def showdown(table: Table) -> None:
    play(table, showdown_mid())
    leds(table, 2)
    camera_picture(table, [5])


TABLES: dict[str, Callable[[Table], None]] = {
    "sixshooter": six_shooter,
    "ossix-characters": ossix_characters,
    "ossix-poker": ossix_poker,
    "ossix-duel": ossix_duel,
    "steamfunkateers": steamfunkateers,
    "showdown": showdown,
}
GAME_OF = {"sixshooter": "sixshooter", "steamfunkateers": "steamfunkateers", "showdown": "showdown"}


def drawn(table: Table, page: Page, game: str) -> None:
    """Waits until the page drew the table as it is now, the camera's picture and the fit
    that follows (taken again here, so it is of the last snapshot drawn)."""
    drawn_as_the_table_is(table, page)
    assert snapshot(page)["prompt"]["game"] == game
    wait_for(page, lambda data: bool(data.get("picture")))
    page.wait_for_function(
        "() => { const p = document.getElementById('dice-picture');"
        " return p && !p.hidden && p.complete && p.naturalWidth > 0; }"
    )
    page.evaluate("() => window.dispatchEvent(new Event('resize'))")


def assert_fits(page: Page, what: str) -> dict[str, Any]:
    layout = measure(page)
    assert layout["scrollHeight"] <= layout["innerHeight"], (what, layout)
    assert layout["scrollWidth"] <= layout["innerWidth"], (what, layout)
    assert layout["outside"] == [], (what, layout["outside"])
    assert layout["clipped"] == [], (what, layout["clipped"])
    assert layout["cut"] == [], (what, layout["cut"])
    assert layout["small"] == [], (what, layout["small"])
    return layout


@pytest.mark.parametrize("holds", sorted(TABLES))
def test_the_room_fits_the_tv_at_both_sizes(table: Table, page: Page, holds: str) -> None:
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    TABLES[holds](table)
    game = GAME_OF.get(holds, "ossix")
    for width, height in SIZES:
        resized(page, width, height)
        drawn(table, page, game)
        layout = assert_fits(page, f"{holds} at {width}x{height}")
        assert float(layout["fit"]) >= 0.87, layout
        if width == 1920:
            shoot(page, f"console-room-tv-{holds}")
    data = snapshot(page)
    if holds == "sixshooter":
        expect(page.locator("#seats > .seat")).to_have_count(6)
        expect(page.locator(".slot.alerted")).to_have_count(1)
    if holds == "ossix-poker":
        expect(page.locator(".gambler")).to_have_count(7)
        expect(page.locator("#seats > .seat:not(.scene)")).to_have_count(6)
    if holds == "ossix-duel":
        expect(page.locator(".seat.duel")).to_contain_text("Jack against Kate")
    if holds == "showdown":
        # the scoreboard: a big score per gunslinger, six bullets each, the race's margin
        expect(page.locator(".gunslinger")).to_have_count(2)
        for player in data["state"]["players"]:
            box = page.locator(f'.gunslinger[data-name="{player["name"]}"]')
            expect(box.locator(".score-value")).to_have_text(str(player["points"]))
            assert len(player["bullets"]) == box.locator(".slot").count()
        expect(page.locator(".race")).to_contain_text(" ms")
        assert "undefined" not in page.locator("#seats").inner_text()
        size = page.locator(".score-value").first.evaluate(
            "n => parseFloat(getComputedStyle(n).fontSize)"
        )
        assert size >= 80  # the score: read from the back of the room
        for bullet in page.locator(".gunslinger .slot .card").all():
            shape = bullet.bounding_box()
            assert shape is not None and shape["width"] >= 100 and shape["height"] >= 80, shape


def test_a_showdown_between_rounds_never_says_undefined(table: Table, page: Page) -> None:
    """Speed and accuracy exist in the view only while a round is in play: between rounds and
    at the end the scoreboard says neither, rather than "speed undefined"."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    play(table, showdown_won())
    wait_for(page, lambda data: (data.get("state") or {}).get("phase") == "finished")
    assert "undefined" not in page.locator("body").inner_text()
    assert all("speed" not in p for p in snapshot(page)["state"]["players"])


END: dict[str, list[dict[str, Any]]] = {
    "ossix": [OSSIX_SIX, *ROLLS, {"cmd": "end_game"}],
    "steamfunkateers": [*STEAM, {"cmd": "end_game"}],
    "sixshooter": [SIX, {"cmd": "end_game"}],
}


@pytest.mark.parametrize("game", ["ossix", "showdown", "sixshooter", "steamfunkateers"])
def test_every_game_ends_on_a_screen_of_its_own(table: Table, page: Page, game: str) -> None:
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    final = page.locator("#final")
    expect(final).to_be_hidden()
    play(table, END[game] if game in END else showdown_won())
    wait_for(page, lambda data: (data.get("state") or {}).get("phase") == "finished")
    expect(final).to_be_visible()
    expect(page.locator(".seats-box")).to_be_hidden()
    state = snapshot(page)["state"]
    names = [player["name"] for player in state["players"]]
    expect(final.locator(".standing li")).to_have_count(len(names))
    if game == "showdown":
        winner = state["winner"]
        expect(final.locator(".winner-line")).to_have_text(f"{winner} wins")
        # the final standing: the winner first, each with their points
        expect(final.locator(".standing li").first).to_have_attribute("data-name", winner)
        for player in state["players"]:
            expect(final.locator(f'li[data-name="{player["name"]}"]')).to_contain_text(
                f"{player['points']} point"
            )
        expect(final.locator("h2")).to_have_text("The shootout is over")
    elif game == "sixshooter":
        expect(final.locator("h2")).to_have_text("The campaign is over")
        expect(final.locator(".winner-line")).to_contain_text("Still in the campaign: Ana, Bo")
        expect(final.locator('li[data-name="Flo"]')).to_contain_text("0 Strikes")
    elif game == "ossix":
        expect(final.locator("h2")).to_have_text("The game is over")
        expect(final.locator('li[data-name="Bo"]')).to_contain_text("Strain 0 of 12")
        expect(final.locator('li[data-name="Ana"]')).to_contain_text("Luck 2 of 3")
    else:
        expect(final.locator('li[data-name="Bo"]')).to_contain_text("Vigor")
    for width, height in SIZES:
        resized(page, width, height)
        assert_fits(page, f"{game}'s end at {width}x{height}")
        if width == 1920:
            shoot(page, f"console-room-end-{game}")


def concealed_poker(view: dict[str, Any]) -> dict[str, Any]:
    """A poker view as the contract has it while the hands are concealed: each seat's dice
    null, dice_hidden its count, its hand's words null (contract-poker.md)."""
    for seat in view["poker"]["seats"]:
        seat.update(dice=None, dice_hidden=5 if seat["playing"] else 0, hand=None)
    view["seq"] += 1
    return view


def test_a_concealed_hand_is_five_backs_never_its_values(table: Table, page: Page) -> None:
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    ossix_poker(table)
    drawn(table, page, "ossix")
    expect(page.locator(".gambler .die:not(.back)").first).to_be_visible()  # played open
    state = concealed_poker(json.loads(json.dumps(snapshot(page)["state"])))
    table.publish_as_daemon("game/state", state)
    kate = page.locator('.gambler[data-name="Ana"]')
    expect(kate.locator(".hidden-dice")).to_have_attribute("aria-label", "5 dice, hidden")
    expect(kate.locator(".die.back")).to_have_count(5)
    expect(kate).to_contain_text("5 dice, hidden")
    expect(page.locator(".gambler .die:not(.back)")).to_have_count(0)
    expect(page.locator(".gambler .hand strong")).to_have_count(0)
    assert_fits(page, "concealed poker at 1920x1080")
    # the reveal: the dice are the list again, and drawn as faces
    for seat in state["poker"]["seats"]:
        seat.update(dice=[6, 6, 2, 3, 4], dice_hidden=0)
    state["seq"] += 1
    table.publish_as_daemon("game/state", state)
    expect(kate.locator(".die:not(.back)")).to_have_text(["6", "6", "2", "3", "4"])
    expect(page.locator(".die.back")).to_have_count(0)


def test_a_concealed_deal_through_the_daemon_shows_backs_on_the_tv(
    table: Table, page: Page
) -> None:
    """Concealed poker as the rules play it (the default): each gambler's hand entered, the
    room sees "5 dice, hidden" for each, and nowhere the values, not as the last throw either."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    concealed = {key: value for key, value in SEVEN_GAMBLERS.items() if key != "open"}
    play(table, [OSSIX_SIX, concealed, {"cmd": "ante"}])
    hands = {name: [6, 6, 5, 5, n % 6 + 1] for n, name in enumerate([*NAMES, "Black Bart"])}
    for name, values in hands.items():
        play(table, [{"cmd": "poker_hand", "player": name, "values": values}])
    wait_for(page, lambda data: "bet" in ((data.get("prompt") or {}).get("prompt") or ""))
    expect(page.locator(".gambler .hidden-dice")).to_have_count(7)
    expect(page.locator(".gambler .die.back")).to_have_count(35)
    expect(page.locator(".gambler .die:not(.back)")).to_have_count(0)
    for gambler in page.locator(".gambler").all():
        expect(gambler).to_contain_text("5 dice, hidden")
    expect(page.locator("#dice")).to_have_text("No dice thrown yet.")
    text = page.locator("body").inner_text()
    assert "6 6 5 5" not in text and "6, 6, 5, 5" not in text
    assert "6, 6, 5, 5" not in json.dumps(snapshot(page))
    assert_fits(page, "a concealed deal at 1920x1080")
    shoot(page, "console-room-tv-poker-concealed")
