"""The game master's forms come from the game's GmActions; the room's feed drops hidden cards."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tabletop.console.cli import parse_bind
from tabletop.console.feed import hide_face_down
from tabletop.console.forms import Form, FormError, forms_for
from tabletop.rules import games

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def forms() -> dict[str, Form]:
    game = games.get("sixshooter")
    return forms_for(game.gm_actions(), game.roster_keys)


def test_every_action_of_the_game_is_a_form_with_its_arguments(forms: dict[str, Form]) -> None:
    verbs = [action.verb for action in games.get("sixshooter").gm_actions()]
    assert list(forms) == verbs
    challenge = forms["challenge"].to_json()
    fields = {field["name"]: field for field in challenge["fields"]}
    assert fields["method"]["kind"] == "choice"
    assert fields["method"]["choices"] == ["danger", "sharpness", "slyness", "charm"]
    assert fields["player"]["required"] and not fields["card"]["required"]
    assert fields["wager"]["kind"] == "number"
    # Six Shooter's own `new` reads a roster file: the console offers the roster itself
    assert [(f["name"], f["kind"]) for f in forms["new"].to_json()["fields"]] == [
        ("roster", "roster")
    ]
    # a card per contestant: a row per player on the page, not PLAYER=OWNER:SLOT typed
    assert forms["contest"].to_json()["fields"][3]["kind"] == "pairs"


def test_a_filled_in_form_builds_the_games_command(forms: dict[str, Form]) -> None:
    command = forms["challenge"].command(
        {"player": "Ana", "method": "slyness", "critical": "4", "card": "Bo:2", "wager": ""}
    )
    assert command == {
        "cmd": "challenge",
        "player": "Ana",
        "method": "slyness",
        "critical": 4,
        "card": {"player": "Bo", "slot": 2},
    }
    assert forms["roll"].command({"values": "3 5"}) == {"cmd": "roll", "values": [3, 5]}


@pytest.mark.parametrize(
    ("values", "message", "field"),
    [
        ({"player": "Ana", "method": "charm"}, "^Critical Number .*: required", "critical"),
        (
            {"player": "Ana", "method": "magic", "critical": "4"},
            "Method: 'magic' is not one of danger, sharpness",
            "method",
        ),
        (
            {"player": "Ana", "method": "charm", "critical": "x"},
            "a number or 'impossible'",
            "critical",
        ),
        (
            {"player": "Ana", "method": "charm", "critical": 4, "colour": "red"},
            "no field 'colour'",
            "colour",
        ),
        ({"player": ["Ana"], "method": "charm", "critical": "4"}, "expected text", "player"),
    ],
)
def test_a_wrong_form_is_refused_naming_its_field(
    forms: dict[str, Form], values: dict[str, object], message: str, field: str
) -> None:
    with pytest.raises(FormError, match=message) as refused:
        forms["challenge"].command(values)
    assert refused.value.field == field


def test_a_positional_starting_with_a_dash_is_not_read_as_an_option(forms: dict[str, Form]) -> None:
    assert forms["reveal"].command({"player": "-Ana", "slot": "1"})["player"] == "-Ana"


def test_the_room_feed_removes_the_card_of_any_face_down_slot() -> None:
    state = {
        "players": [
            {"slots": [{"card": "9S", "state": "face_up"}, {"card": "KH", "state": "face_down"}]}
        ]
    }
    assert hide_face_down(state) == {
        "players": [
            {"slots": [{"card": "9S", "state": "face_up"}, {"card": None, "state": "face_down"}]}
        ]
    }


def test_bind_addresses() -> None:
    assert parse_bind("0.0.0.0:8080") == ("0.0.0.0", 8080)
    assert parse_bind("[::1]:0") == ("::1", 0)
    for bad in ("8080", "host:", "host:http", "host:70000"):
        with pytest.raises(ValueError, match="expected HOST:PORT"):
            parse_bind(bad)


def test_the_command_line_says_what_is_wrong_without_a_traceback() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tabletop",
            "console",
            "--bind",
            "nowhere",
            "--broker",
            "mqtt://127.0.0.1:1",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "--bind: expected HOST:PORT" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_feed_survives_payloads_that_are_not_the_daemons() -> None:
    """Whatever lands on a public topic (anonymous brokers let anyone publish), the feed goes on."""
    from tabletop.console.feed import ROOM, TableFeed
    from tabletop.wire.mqtt import BrokerUrl, Message

    feed = TableFeed(BrokerUrl("mqtt", "127.0.0.1", 1), "main", ROOM)
    topic = "tabletop/v1/main/game/state"
    for payload in (b"[" * 100_000, b"\xff", b"[1]", b"{}"):
        feed._file(Message(topic, payload, retain=True))
    assert feed.parts.get("state") == {}
    feed._file(
        Message(
            "tabletop/v1/main/game/event",
            b'{"events": [{"number": 1, "text": "hi"}]}',
            retain=False,
        )
    )
    assert feed.snapshot()["events"] == [{"number": 1, "text": "hi"}]


ROSTER_TOML = """seed = 4
[[players]]
name = "Ana"
descriptor = "sly"
archetype = "Cat burglar"
lucky = [7]
"""


@pytest.mark.parametrize(
    ("roster", "command"),
    [
        ("Ana\nBo\n", {"cmd": "new_game", "players": ["Ana", "Bo"]}),
        (
            ROSTER_TOML,
            {
                "cmd": "new_game",
                "seed": 4,
                "players": [
                    {"name": "Ana", "descriptor": "sly", "archetype": "Cat burglar", "lucky": [7]}
                ],
            },
        ),
        (
            '{"players": ["Ana"], "jokers": true}',
            {"cmd": "new_game", "players": ["Ana"], "jokers": True},
        ),
        ({"players": ["Ana"], "seed": 2}, {"cmd": "new_game", "players": ["Ana"], "seed": 2}),
        (["Ana", "Bo"], {"cmd": "new_game", "players": ["Ana", "Bo"]}),
    ],
)
def test_the_roster_is_given_in_the_form(
    forms: dict[str, Form], roster: object, command: dict[str, object]
) -> None:
    assert forms["new"].command({"roster": roster}) == command


@pytest.mark.parametrize(
    ("roster", "message"),
    [
        ("", "Roster: required"),
        ("rosters/three.toml", "Roster: the console reads no files on its machine"),
        ("C:\\tables\\roster.json", "Roster: the console reads no files on its machine"),
        ("{not json", "Roster: not valid JSON"),
        ("seed = = 4", "Roster: not valid TOML"),
        ('{"players": ["Ana"], "deck": [], "path": "/etc"}', "unknown key 'path'"),
        ('{"players": []}', "'players' must list at least one player"),
        (42, "expected a table of players, got int"),
    ],
)
def test_a_wrong_roster_is_refused_in_words(
    forms: dict[str, Form], roster: object, message: str
) -> None:
    with pytest.raises(FormError, match=re.escape(message)) as refused:
        forms["new"].command({"roster": roster})
    assert refused.value.field == "roster"


def test_showdown_decks_come_in_the_roster_not_as_files() -> None:
    game = games.get("showdown")
    new = forms_for(game.gm_actions(), game.roster_keys)["new"]
    deck = tomllib.loads((ROOT / "examples/decks/cowboy.toml").read_text())
    command = new.command({"roster": {"players": [{"name": "Ana", "deck": deck}]}})
    assert command["players"][0]["deck"]["name"] == "cowboy"
    with pytest.raises(FormError, match="no field 'players'"):
        new.command({"players": "Ana=/etc/passwd Bo=/dev/zero"})


def test_every_games_verbs_have_plain_words_and_a_forgotten_one_fails() -> None:
    from tabletop.rules import games
    from tabletop.rules.games.game import GmAction, VerbGroup, worded

    for name in games.names():
        for action in games.get(name).gm_actions():
            assert action.title and action.title != action.verb, (name, action.verb)
    bare = GmAction("zap", "zap", lambda parser: None, lambda a: {"cmd": "zap"})
    with pytest.raises(ValueError, match=r"verbs without words \['zap'\]"):
        worded([bare], {})
    with pytest.raises(ValueError, match=r"words without verb \['zip'\]"):
        worded([bare], {"zap": ("Zap", VerbGroup.CALLS, ()), "zip": ("Zip", VerbGroup.CALLS, ())})


def test_a_player_field_is_a_pick_and_new_players_are_one_a_line() -> None:
    from tabletop.rules import games

    ossix = forms_for(games.get("ossix").gm_actions())
    assert [f.kind for f in ossix["help"].fields] == ["player", "player"]
    new = ossix["new"]
    assert new.fields[0].kind == "names"
    assert new.command({"players": "Ana Maria\nBo\n"}) == {
        "cmd": "new_game",
        "players": ["Ana Maria", "Bo"],
    }


def test_a_verb_that_takes_everyone_offers_all_beside_the_players() -> None:
    from tabletop.rules import games

    ossix = forms_for(games.get("ossix").gm_actions())
    award, rest = ossix["award"].fields[0], ossix["rest"].fields[0]
    assert (award.kind, award.choices, award.required) == ("player", ("all",), True)
    assert (rest.kind, rest.choices, rest.required) == ("player", ("all",), False)
    assert ossix["award"].command({"player": "all"}) == {"cmd": "award_luck", "player": "all"}
    assert ossix["panic"].fields[0].choices == ()  # one player only: no "all"
