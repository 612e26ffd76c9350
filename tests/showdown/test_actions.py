"""`tabletop gm --game showdown`: the verbs build the commands; `new` reads the deck files."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from tabletop.rules.games.showdown.decks import DeckError, load_deck
from tabletop.rules.games.showdown.engine import Game
from tabletop.rules.games.showdown.game import SHOWDOWN

from .helpers import EXAMPLES


def build(verb: str, *words: str) -> dict[str, Any]:
    action = next(a for a in SHOWDOWN.gm_actions() if a.verb == verb)
    parser = argparse.ArgumentParser(prog=verb)
    action.arguments(parser)
    return action.build(parser.parse_args(list(words)))


def test_new_reads_both_deck_files_and_the_engine_takes_the_command() -> None:
    command = build(
        "new",
        f"Ana={EXAMPLES / 'cowboy.toml'}",
        f"Bo={EXAMPLES / 'desperado.toml'}",
        "--hit-face",
        "0",
        "--reach-scores",
        "no",
    )
    assert command["options"] == {"hit_face": 0, "reach_scores": False}
    game = Game()
    game.execute(command)
    assert game.state.decks["Bo"] == load_deck(EXAMPLES / "desperado.toml")
    assert game.state.options["hit_face"] == 0


def test_new_with_a_bad_deck_file_names_the_file_and_key(tmp_path: Path) -> None:
    bad = tmp_path / "mine.toml"
    bad.write_text((EXAMPLES / "cowboy.toml").read_text().replace("speed = 1", 'speed = "1"', 1))
    with pytest.raises(DeckError, match=r"mine.toml: cards\[\d+\].speed: expected an integer"):
        build("new", f"Ana={bad}", f"Bo={EXAMPLES / 'desperado.toml'}")


@pytest.mark.parametrize(
    ("words", "command"),
    [
        (
            ("load", "Ana", "draw-1", "focus-1"),
            {"cmd": "load", "player": "Ana", "bullets": ["draw-1", "focus-1"]},
        ),
        (("reveal", "Bo", "3"), {"cmd": "reveal", "player": "Bo", "slot": 3}),
        (
            ("race", "defender", "--slot", "2"),
            {"cmd": "race", "winner": "defender", "how": "the game master", "slot": 2},
        ),
        (("reroll", "Ana", "5"), {"cmd": "reroll", "player": "Ana", "value": 5}),
        (("discard", "Ana", "draw-1"), {"cmd": "discard", "player": "Ana", "cards": ["draw-1"]}),
        (("pass", "Bo"), {"cmd": "pass", "player": "Bo"}),
    ],
)
def test_each_verb_builds_its_command(words: tuple[str, ...], command: dict[str, Any]) -> None:
    assert build(*words) == command
