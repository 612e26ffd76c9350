"""The per-player choices a game started from names gets (src/tabletop/rules/games/setup.py, each game's
`player_setup`, drawn by the console): every default
starts a legal game, a player's own choice wins, and a deck the console does not know is
refused in words."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabletop.console.forms import Form, FormError, forms_for
from tabletop.console.players import EXAMPLE_DECKS, player_setup
from tabletop.rules import games
from tabletop.rules.games.game import GameRules

NAMES = ("Ana", "Bo", "Cy", "Dee", "Eli", "Fay")


def _new(game: str, folder: Path = EXAMPLE_DECKS) -> tuple[GameRules, Form]:
    rules = games.get(game)
    setup = player_setup(rules, folder)
    return rules, forms_for(rules.gm_actions(), rules.roster_keys, setup)["new"]


@pytest.mark.parametrize("count", range(2, 7))
def test_six_shooter_starts_from_names_alone(count: int) -> None:
    rules, new = _new("sixshooter")
    command = new.command({"roster": "\n".join(NAMES[:count])})
    lucky = [number for player in command["players"] for number in player["lucky"]]
    assert len(set(lucky)) == count and all(2 <= number <= 10 for number in lucky)
    engine = rules.new_engine()
    engine.execute(command)  # the rules take it: a legal game
    assert list(engine.state.operators) == list(NAMES[:count])


def test_a_player_s_own_choices_win_over_the_defaults() -> None:
    _, new = _new("sixshooter")
    chosen = {"name": "Bo", "descriptor": "sly", "archetype": "Sniper", "lucky": "9"}
    command = new.command({"roster": {"players": ["Ana", chosen]}})
    assert command["players"][1] == {**chosen, "lucky": [9]}
    assert command["players"][0]["name"] == "Ana"


def test_a_toml_roster_that_starts_with_its_players_table_is_read_as_toml() -> None:
    _, new = _new("sixshooter")
    text = '[[players]]\nname = "Ana"\ndescriptor = "sly"\nlucky = [4]\n'
    assert new.command({"roster": text})["players"][0]["lucky"] == [4]


def test_showdown_starts_from_names_with_the_known_decks() -> None:
    rules, new = _new("showdown")
    command = new.command({"roster": "Ana\nBo"})
    assert [p["deck"]["name"] for p in command["players"]] == ["cowboy", "desperado"]
    rules.new_engine().execute(command)
    picked = new.command({"roster": {"players": [{"name": "Ana", "deck": "desperado"}, "Bo"]}})
    assert picked["players"][0]["deck"]["name"] == "desperado"


def test_a_deck_the_console_does_not_know_is_refused_in_words() -> None:
    _, new = _new("showdown")
    with pytest.raises(FormError, match="no deck 'zorro'; this console knows cowboy, desperado"):
        new.command({"roster": {"players": [{"name": "Ana", "deck": "zorro"}, "Bo"]}})


def test_a_bad_deck_file_is_left_out_and_the_others_offered(tmp_path: Path) -> None:
    (tmp_path / "broken.toml").write_text('format = "six-gun-showdown-deck"\n')
    (tmp_path / "cowboy.toml").write_text((EXAMPLE_DECKS / "cowboy.toml").read_text())
    _, new = _new("showdown", tmp_path)
    described = new.to_json()["fields"][0]["players"]
    assert described["choices"][0]["choices"] == ["cowboy"] and described["count"] == 2
