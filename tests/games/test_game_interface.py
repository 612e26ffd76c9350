"""The game interface without the network: the registry, the referee, the replay and the config
serve a second game (tests/games/highroll.py) with no change to them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabletop.cli import main
from tabletop.config.table import ConfigError, parse_config
from tabletop.daemon.referee import Referee
from tabletop.daemon.store import GameLog
from tabletop.rules import games
from tabletop.rules.games.errors import InvalidCommand
from tabletop.rules.games.replay import replay_lines
from tests.games.helpers import referee_at, reopened, send
from tests.games.highroll import HIGH_ROLL

ANA_BO = {"cmd": "new_game", "game": "highroll", "players": ["Ana", "Bo"]}


@pytest.fixture(autouse=True)
def high_roll() -> Iterator[None]:
    games.register(HIGH_ROLL)
    yield
    games.unregister(HIGH_ROLL.name)


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    with referee_at(tmp_path) as found:
        yield found


def test_the_registry_lists_every_game_and_names_the_installed_ones_for_a_wrong_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert games.names() == ["highroll", "ossix", "showdown", "sixshooter", "steamfunkateers"]
    assert main(["games", "--json"]) == 0
    listed = {game["name"]: game for game in json.loads(capsys.readouterr().out)}
    assert listed["highroll"]["options"] == [
        {"name": "target", "default": 3, "help": "rounds to win the game"}
    ]
    assert "tell_critical_numbers" in [o["name"] for o in listed["sixshooter"]["options"]]
    installed = "highroll, ossix, showdown, sixshooter, steamfunkateers"
    with pytest.raises(InvalidCommand, match=f"no game named 'chess'.*{installed}"):
        games.get("chess")


def test_the_listing_writes_each_game_s_version_as_people_do(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["games"]) == 0
    titles = [line.split(", seed")[0] for line in capsys.readouterr().out.splitlines()]
    assert "sixshooter (default): Six Shooter v0.03" in titles
    assert "steamfunkateers: Steamfunkateers page 2" in titles  # not "vpage 2"


def test_a_second_game_is_refereed_logged_and_rebuilt_from_the_log(referee: Referee) -> None:
    assert send(referee, ANA_BO)["game"] == "highroll"
    for value in (6, 2, 5, 5, 6, 1, 6, 3):  # Ana, tie, Ana, Ana: three rounds won
        assert send(referee, {"cmd": "roll", "value": value})["ok"]
    state = referee.state_json()
    assert state["winner"] == "Ana" and state["phase"] == "finished"
    assert send(referee, {"cmd": "roll", "value": 4})["kind"] == "illegal"
    state = referee.state_json()
    assert reopened(referee) == (HIGH_ROLL, state)


def test_a_table_switches_games_only_once_the_game_is_over(referee: Referee) -> None:
    six = {
        "cmd": "new_game",
        "players": [{"name": "Ana", "descriptor": "sly", "archetype": "Thief", "lucky": [7]}],
        "seed": 3,
    }
    assert send(referee, six)["game"] == "sixshooter"
    refused = send(referee, ANA_BO)
    assert refused["kind"] == "illegal" and "end that game first" in str(refused["error"])
    assert send(referee, {"cmd": "end_game"})["ok"]
    assert send(referee, ANA_BO)["ok"] and referee.rules is HIGH_ROLL
    assert referee.prompt_json()["dice"] == {
        "who": "Ana",
        "count": 1,
        "scoring": "highest",
        "rerollable": False,
    }
    unknown = send(referee, {**ANA_BO, "game": "chess"})
    assert unknown["kind"] == "invalid" and unknown["field"] == "game"


def test_the_table_options_apply_to_its_game_unless_a_command_sets_them(tmp_path: Path) -> None:
    log = GameLog(tmp_path / "games.sqlite3", "t2")
    log.open()
    referee = Referee(log, "highroll", {"target": 1})
    referee.load()
    send(referee, {"cmd": "new_game", "players": ["Ana", "Bo"]})
    send(referee, {"cmd": "roll", "value": 6})
    send(referee, {"cmd": "roll", "value": 1})
    assert referee.state_json()["winner"] == "Ana", "one round won is the game with target 1"
    send(referee, {"cmd": "new_game", "players": ["Ana", "Bo"], "options": {"target": 2}})
    send(referee, {"cmd": "roll", "value": 6})
    send(referee, {"cmd": "roll", "value": 1})
    assert referee.state_json()["winner"] is None
    log.close()


def test_replay_picks_the_game_from_the_file() -> None:
    lines = [json.dumps(ANA_BO), '{"cmd": "roll", "value": 3}', '{"cmd": "roll", "value": 9}']
    replay = replay_lines(lines)
    assert replay.rules is HIGH_ROLL
    assert replay.to_json()["throws"] == [3]
    assert replay.rejected == [{"line": 3, "error": "value: expected a die, 1 to 6"}]


def test_the_tables_file_names_its_game_and_its_options_are_checked_by_it() -> None:
    document = {
        "table": {"id": "kitchen"},
        "game": "highroll",
        "seats": [{"name": "Ana"}, {"name": "Bo"}],
        "rules": {"options": {"target": 2}},
    }
    config = parse_config(document)
    assert config.rules.game == "highroll" and config.rules.options == {"target": 2}
    with pytest.raises(ConfigError, match="rules.options.lucky_cap: High Roll has no such"):
        parse_config({**document, "rules": {"options": {"lucky_cap": 2}}})
    with pytest.raises(ConfigError, match="game: no game named 'go'"):
        parse_config({**document, "game": "go"})
