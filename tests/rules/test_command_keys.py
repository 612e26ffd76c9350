"""Issue 31, items 13 and 14: every refused line of a replay file is reported, a key that its
command does not take is refused by name, and a number too long for any field is refused in
our words."""

from __future__ import annotations

import json

import pytest

from tabletop.rules.games import get
from tabletop.rules.games.errors import InvalidCommand
from tabletop.rules.games.game import ReadKeys, UnknownKey, execute_every_key
from tabletop.rules.games.replay import replay_lines


def test_a_refusal_before_the_last_new_game_stays_in_the_json() -> None:
    lines = [
        '{"cmd":"new_game","game":"ossix","players":["Jack"]}',
        '{"cmd":"gm_roll","kind":"d7"}',  # refused in the first game
        '{"cmd":"end_game"}',
        '{"cmd":"new_game","game":"steamfunkateers","players":["Ana"]}',
        '{"cmd":"award","player":"Zed"}',  # refused in the second
    ]
    rejected = replay_lines(lines).to_json()["rejected"]
    assert [r["line"] for r in rejected] == [2, 5]
    assert "kind" in rejected[0]["error"] and "Zed" in rejected[1]["error"]


def test_a_number_of_five_thousand_digits_is_refused_in_our_words() -> None:
    line = '{"cmd":"new_game","game":"ossix","players":["Jack"],"seed":' + "9" * 5000 + "}"
    replay = replay_lines([line, '{"cmd":"new_game","game":"ossix","players":["Jack"]}'])
    (refused,) = replay.to_json()["rejected"]
    assert refused["line"] == 1
    assert "5000 digits" in refused["error"] and "4300" not in refused["error"]
    assert replay.to_json()["players"][0]["name"] == "Jack"  # the file went on


@pytest.mark.parametrize(
    ("game", "start", "typo", "key"),
    [
        (
            "ossix",
            {"players": ["Jack"]},
            {"cmd": "action", "player": "Jack", "attribute": "mind", "score": 2, "bonsu": 1},
            "bonsu",
        ),
        (
            "steamfunkateers",
            {"players": ["Ana"]},
            {"cmd": "award", "player": "Ana", "pionts": 3},
            "pionts",
        ),
    ],
)
def test_a_misspelt_key_is_refused_by_name_and_the_game_is_unchanged(
    game: str, start: dict[str, object], typo: dict[str, object], key: str
) -> None:
    new_game = json.dumps({"cmd": "new_game", "game": game, **start})
    replay = replay_lines([new_game, json.dumps(typo)])
    (refused,) = replay.rejected
    assert refused["error"].startswith(f"'{key}': {typo['cmd']} takes no such key")
    fresh = replay_lines([new_game])
    assert replay.to_json() == {**fresh.to_json(), "rejected": replay.rejected}
    assert len(replay.game.events) == len(fresh.game.events)


def test_the_envelope_keys_are_taken_by_every_command() -> None:
    rules = get("steamfunkateers")
    engine = rules.new_engine()
    command = {"cmd": "new_game", "players": ["Ana"], "id": "x", "v": 1, "source": "gm"}
    assert execute_every_key(engine, command)


def test_read_keys_notes_what_was_read() -> None:
    command = ReadKeys({"cmd": "roll", "values": [1], "valuse": [2], "player": "Ana"})
    assert command.get("values") == [1]
    assert "player" in command
    assert command.unread() == ["valuse"]
    assert dict(command) and command.unread() == []  # walking the keys reads them all


def test_an_unknown_key_is_an_invalid_command_naming_the_key() -> None:
    engine = get("ossix").new_engine()
    with pytest.raises(UnknownKey) as refused:
        execute_every_key(engine, {"cmd": "new_game", "players": ["Jack"], "optoins": {}})
    assert isinstance(refused.value, InvalidCommand) and refused.value.field == "optoins"
