"""Each game brings its own screen (issue 50.3): the console draws any game it is given from
the game's own screen.js and screen.css (`GameRules.screen`), and knows no game by name.

High Roll (tests/games/highroll.py), a game only the tests know, is drawn in Chromium from its
highroll.js and highroll.css alone; every built-in game's screen is served; a game whose files
are missing is drawn as any game without a screen, and the console says which file."""

from __future__ import annotations

import contextlib
import re
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from urllib.error import HTTPError

import pytest
from playwright.sync_api import Page, expect

from tabletop.console.screens import read_screens
from tabletop.rules import games
from tabletop.rules.games.game import GameRules, Screen
from tests.console.conftest import Table
from tests.games.highroll import HIGH_ROLL, HighRoll

STATIC = Path(__file__).resolve().parents[2] / "src" / "tabletop" / "console" / "static"


@contextlib.contextmanager
def table_with(tmp_path: Path, *installed: GameRules) -> Iterator[Table]:
    """A table whose console was started with `installed` registered beside the shipped games."""
    for game in installed:
        games.register(game)
    running = Table(tmp_path)
    try:
        running.start()
        yield running
    finally:
        running.stop()
        for game in installed:
            games.unregister(game.name)


@pytest.fixture
def high_roll(tmp_path: Path) -> Iterator[Table]:
    """A table whose console was started with High Roll installed."""
    with table_with(tmp_path, HIGH_ROLL) as running:
        yield running


def _roll(table: Table, value: int) -> None:
    reply = table.send({"cmd": "roll", "value": value})
    assert reply["ok"], reply


def test_a_game_only_the_tests_know_is_drawn_from_its_own_screen(
    high_roll: Table, page: Page
) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda failed: errors.append(str(failed)))
    page.on("console", lambda said: errors.append(said.text) if said.type == "error" else None)
    reply = high_roll.send({"cmd": "new_game", "game": "highroll", "players": ["Ana", "Bo"]})
    assert reply["ok"], reply
    page.goto(high_roll.console.url)
    ana = page.locator('#seats [data-name="Ana"]')
    bo = page.locator('#seats [data-name="Bo"]')
    # highroll.js: the rounds won as dots out of the target, the phase in its words
    expect(ana.locator(".dots")).to_have_attribute("aria-label", "Rounds won 0 of 3")
    expect(page.locator("#phase")).to_have_text("First to 3 rounds won")
    _roll(high_roll, 5)
    expect(ana.locator(".high-roll .die")).to_have_text("5")
    expect(bo.locator(".high-roll")).to_have_text("no throw yet this round")
    # highroll.css: this round's die is drawn larger than the page's own (the last throw's)
    expect(page.locator("#dice .die")).to_have_text("5")
    sizes = page.evaluate(
        """() => [document.querySelector('#seats .high-roll .die').getBoundingClientRect().width,
                  document.querySelector('#dice .die').getBoundingClientRect().width]"""
    )
    assert sizes[0] > sizes[1] * 1.2, sizes
    _roll(high_roll, 2)
    expect(ana.locator(".dots")).to_have_attribute("aria-label", "Rounds won 1 of 3")
    for _ in range(2):
        _roll(high_roll, 6)
        _roll(high_roll, 1)
    # the end, in the game's words
    expect(page.locator("#final-title")).to_have_text("High Roll is over")
    expect(page.locator("#final .winner-line")).to_have_text("Ana wins")
    expect(page.locator('#final li[data-name="Ana"]')).to_contain_text("3 rounds won")
    expect(page.locator('#final li[data-name="Bo"]')).to_contain_text("0 rounds won")
    # nothing went wrong on the page: no script error, no file missing (its icon included)
    assert errors == [], errors


def test_every_page_links_each_installed_games_screen(high_roll: Table) -> None:
    base = high_roll.console.url
    with urllib.request.urlopen(base, timeout=10) as answer:
        room = answer.read().decode()
    for name in games.names():
        assert f'<script src="/games/{name}/screen.js" defer></script>' in room, name
    assert '<link rel="stylesheet" href="/games/highroll/screen.css">' in room
    # Six Shooter has no stylesheet of its own (its cards are everyone's)
    assert "/games/sixshooter/screen.css" not in room
    # each after the console's own: table.js first, the page's script last
    assert room.index("/static/table.js") < room.index("/games/highroll/screen.js")
    assert room.index("/games/highroll/screen.js") < room.index("/static/room.js")
    with urllib.request.urlopen(base + "games/highroll/screen.js", timeout=10) as answer:
        script = answer.read().decode()
        tag = answer.headers["ETag"]
        assert answer.headers["Content-Type"].startswith("text/javascript")
    assert script.count("TableView.addGame(") == 1 and 'addGame("highroll"' in script
    with urllib.request.urlopen(base + "games/highroll/screen.css", timeout=10) as answer:
        assert ".high-roll .die" in answer.read().decode()
    # revalidated, not fetched again: 304 while the page holds this copy
    asked = urllib.request.Request(
        base + "games/highroll/screen.js", headers={"If-None-Match": tag}
    )
    with pytest.raises(HTTPError) as unchanged:
        urllib.request.urlopen(asked, timeout=10)
    unchanged.value.close()  # its socket: an HTTPError holds the answer open
    assert unchanged.value.code == 304
    with pytest.raises(HTTPError) as unknown:
        urllib.request.urlopen(base + "games/nogame/screen.js", timeout=10)
    unknown.value.close()
    assert unknown.value.code == 404


class _Unfinished(HighRoll):
    """High Roll with a screen whose script nobody wrote yet."""

    screen = Screen("tests.games", script="nothing-here.js", style="highroll.css")


def test_a_game_whose_screen_is_missing_is_named_and_the_others_are_served(
    caplog: pytest.LogCaptureFixture,
) -> None:
    drawn = read_screens([_Unfinished(), games.get("showdown")])
    assert drawn.missing == ("highroll: tests/games/nothing-here.js: No such file or directory",)
    assert "tests/games/nothing-here.js" in caplog.text
    # its stylesheet is left out with it; the other game is whole
    assert list(drawn.scripts) == ["showdown"] and list(drawn.styles) == ["showdown"]
    assert 'TableView.addGame("showdown"' in drawn.scripts["showdown"]


@pytest.mark.parametrize("name", sorted(games.BUILT_IN))
def test_every_built_in_game_brings_a_screen_that_draws_it(name: str) -> None:
    drawn = read_screens([games.get(name)])
    assert drawn.missing == ()
    assert re.findall(r'TableView\.addGame\("([a-z]+)"', drawn.scripts[name]) == [name]
    screen = games.get(name).screen
    assert screen is not None
    # a stylesheet when the game names one (Six Shooter's playing cards are everyone's)
    assert (name in drawn.styles) == (screen.style is not None), name


def test_the_consoles_own_pages_name_no_game() -> None:
    """The lines a new game needs in the console's pages: none. A game's name or title in
    console/static is drawing that belongs in the game's own screen."""
    words = {word for name in sorted(games.BUILT_IN) for word in (name, games.get(name).info.title)}
    found = [
        f"{path.name}:{number}: {word}"
        for path in sorted(STATIC.iterdir())
        if path.suffix in {".js", ".css", ".html"}
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for word in words
        if re.search(rf"\b{re.escape(word)}\b", line, re.IGNORECASE)
    ]
    assert found == []


class _Broken(HighRoll):
    """High Roll under another name, with a screen script that does not parse."""

    info = replace(HighRoll.info, name="brokenroll", title="Broken Roll")
    screen = Screen("tests.games", script="broken_screen.js", style=None)


class _Faulty(HighRoll):
    """High Roll under another name, whose screen's seats throw."""

    info = replace(HighRoll.info, name="faultyroll", title="Faulty Roll")
    screen = Screen("tests.games", script="faulty_screen.js", style=None)


@pytest.fixture
def faulty_games(tmp_path: Path) -> Iterator[Table]:
    """A table whose console serves High Roll beside two games with broken screens."""
    with table_with(tmp_path, HIGH_ROLL, _Broken(), _Faulty()) as running:
        yield running


def test_a_broken_screen_loses_its_own_game_drawing_alone(faulty_games: Table, page: Page) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda failed: errors.append(str(failed)))
    page.on("console", lambda said: errors.append(said.text) if said.type == "error" else None)
    table = faulty_games
    new = {"cmd": "new_game", "game": "faultyroll", "players": ["Ana", "Bo"]}
    assert table.send({**new, "options": {"target": 1}})["ok"]
    page.goto(table.console.url)
    # the seats as any game's (each player's box), the rest from the game's own screen
    expect(page.locator('#seats .seat[data-name="Ana"]')).to_be_visible()
    expect(page.locator("#seats .dots")).to_have_count(0)
    expect(page.locator("#phase")).to_have_text("A faulty game's own phase")
    assert any("a bug in the seats" in line for line in errors), errors
    # brokenroll's script did not parse, and was the only one lost
    assert any("Unexpected token" in line for line in errors), errors
    _roll(table, 6)
    _roll(table, 1)
    expect(page.locator("#final-title")).to_have_text("The game is over")
    # High Roll, served beside both, draws from its own screen as ever
    assert table.send({**new, "game": "highroll"})["ok"]
    ana = page.locator('#seats [data-name="Ana"]')
    expect(ana.locator(".dots")).to_have_attribute("aria-label", "Rounds won 0 of 3")
