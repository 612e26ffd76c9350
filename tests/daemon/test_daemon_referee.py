"""The referee without the network: the durable log, ids applied once, bad payloads refused."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from daemon_helpers import ROSTER, full_game_commands, payloads
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.daemon.referee import Referee
from tabletop.daemon.store import GameLog, StoreError
from tabletop.rules.games.replay import replay_lines
from tabletop.wire.payload import MAX_PAYLOAD_BYTES

_opened: list[GameLog] = []


@pytest.fixture
def db(log_db: str | Path) -> str | Path:
    """Every test here runs on SQLite and on PostgreSQL: the same log either way."""
    return log_db


@pytest.fixture(autouse=True)
def _close_logs() -> Iterator[None]:
    yield
    while _opened:
        _opened.pop().close()


def referee(db: str | Path, table: str = "main") -> Referee:
    log = GameLog(db, table)
    log.open()
    _opened.append(log)
    found = Referee(log)
    found.load()
    return found


def send(ref: Referee, command: Any) -> dict[str, Any]:
    reply = ref.handle(json.dumps(command).encode()).reply
    ref.commit()
    return reply


def test_the_state_is_what_tabletop_replay_prints_and_survives_a_restart(db: str | Path) -> None:
    commands = full_game_commands()
    ref = referee(db)
    for command in commands:
        ref.handle(json.dumps(command).encode())
    ref.commit()
    expected = replay_lines([json.dumps(c) for c in commands]).to_json()
    assert ref.state_json() == expected
    ref.log.close()
    again = referee(db)
    assert again.state_json() == expected
    assert again.last_seq == len(commands)
    assert len(again.game.events) == len(ref.game.events)


def test_an_id_is_applied_once_and_its_reply_is_sent_again(db: str | Path) -> None:
    ref = referee(db)
    first = send(ref, {**ROSTER, "id": "start"})
    events = len(ref.game.events)
    again = send(ref, {**ROSTER, "id": "start"})
    assert first["ok"] and again == {**first, "duplicate": True}
    assert len(ref.game.events) == events and ref.last_seq == 1
    ref.log.close()
    # after a restart too, and for a refused command as well
    ref = referee(db)
    assert send(ref, {**ROSTER, "id": "start"}) == {**first, "duplicate": True}
    refused = send(ref, {"cmd": "reveal", "player": "Zed", "slot": 1, "id": 7})
    assert refused["id"] == 7 and not refused["ok"] and refused["rule"] == "players"
    assert send(ref, {"cmd": "reveal", "player": "Ana", "slot": 1, "id": 7})["duplicate"]
    assert ref.state_json()["rejected"] == [{"line": 2, "error": refused["error"]}]


@pytest.mark.parametrize(
    ("payload", "kind", "words"),
    [
        (b"{not json", "invalid", "not valid JSON"),
        (b"\xff\xfe", "invalid", "not UTF-8"),
        (b"[1, 2]", "invalid", "expected a JSON object"),
        (b'"roll"', "invalid", "expected a JSON object"),
        (b"{}", "invalid", "missing 'cmd'"),
        (b'{"cmd": "fly"}', "invalid", "unknown command 'fly'"),
        (b'{"cmd": "roll", "value": "six"}', "invalid", "roll.value: expected an integer"),
        (b'{"cmd": "roll", "value": 9}', "invalid", "must be 1 to 6"),
        (b'{"cmd": "roll", "value": 3, "extra": 1}', "invalid", "unknown field"),
        (b'{"cmd": "roll", "value": 3, "v": 2}', "invalid", "version 2 is not supported"),
        (b'{"cmd": "roll", "value": 3, "id": [1]}', "invalid", "id: expected a string"),
        (b'{"cmd": "roll", "value": 3}', "illegal", "roll belongs to play"),
        (b"[" * 20_000, "invalid", "not valid JSON"),
        (b'{"cmd": "roll", "value": ' + b"9" * 5000 + b"}", "invalid", "5000 digits"),
        (b" " * (MAX_PAYLOAD_BYTES + 1), "too_large", "over the 65536-byte limit"),
    ],
)
def test_bad_payloads_are_refused_with_a_reason_and_change_nothing(
    db: str | Path, payload: bytes, kind: str, words: str
) -> None:
    ref = referee(db)
    send(ref, ROSTER)
    before = ref.state_json()
    outcome = ref.handle(payload)
    ref.commit()
    assert not outcome.ok and outcome.reply["kind"] == kind
    assert words in outcome.reply["error"]
    after = ref.state_json()
    assert after.pop("rejected") == [{"line": 2, "error": outcome.reply["error"]}]
    before.pop("rejected")
    assert after == before


@pytest.mark.parametrize(
    ("payload", "expected_id"),
    [
        (b'{"cmd":"roll","value":NaN,"id":"nan-1"}', "nan-1"),
        (b'{"cmd":"roll","cmd":"end_game","id":7}', 7),
        (b'{"cmd":"reveal","player":"\\ud800","id":"lone-1"}', "lone-1"),
        (b'{"cmd":"roll","id":"\\ud800"}', None),
        (b'{"cmd":"roll","id":"' + b"x" * 200 + b'"', None),
        # Issue 31: a number too long for any field is answered under the command's own id.
        (b'{"id":"big-1","cmd":"roll","value":' + b"9" * 5000 + b"}", "big-1"),
        (b'{"cmd":"roll","value":' + b"9" * 5000 + b',"id":12}', 12),
    ],
)
def test_a_refused_payload_is_answered_under_its_id_when_one_can_be_read(
    db: str | Path, payload: bytes, expected_id: str | int | None
) -> None:
    ref = referee(db)
    outcome = ref.handle(payload)
    ref.commit()
    assert not outcome.ok and outcome.reply["kind"] == "invalid"
    assert outcome.reply["id"] == expected_id
    assert "4300" not in outcome.reply["error"]  # our words, not Python's
    if expected_id is not None:
        again = ref.handle(payload)
        assert again.duplicate and again.reply["seq"] == outcome.reply["seq"]


def test_a_stage_name_is_also_the_request_id(db: str | Path) -> None:
    ref = referee(db)
    send(ref, ROSTER)
    send(ref, {"cmd": "reveal", "player": "Ana", "slot": 1})
    send(ref, {"cmd": "reveal", "player": "Bo", "slot": 1})
    opened = send(ref, {"cmd": "multi_stage", "id": "vault", "needed": 1})
    assert opened["ok"] and opened["id"] == "vault"
    again = send(ref, {"cmd": "multi_stage", "id": "vault", "needed": 1})
    assert again == {**opened, "duplicate": True}
    assert list(ref.game.state.stages) == ["vault"]


def test_a_finished_game_refuses_every_command(db: str | Path) -> None:
    ref = referee(db)
    send(ref, ROSTER)
    assert send(ref, {"cmd": "end_game"})["ok"]
    reply = send(ref, {"cmd": "reveal", "player": "Ana", "slot": 1, "id": "late"})
    assert not reply["ok"] and reply["error"].startswith("the game is over")


def test_tables_share_one_database_file_without_mixing(db: str | Path) -> None:
    one, two = referee(db, "one"), referee(db, "two")
    send(one, ROSTER)
    send(two, {**ROSTER, "players": ROSTER["players"][:1], "seed": 9})
    send(two, {"cmd": "reveal", "player": "Ana", "slot": 2})
    one.log.close()
    two.log.close()
    assert [p["name"] for p in referee(db, "one").state_json()["players"]] == ["Ana", "Bo"]
    assert referee(db, "two").state_json()["phase"] == "play"


def test_a_second_daemon_for_the_same_table_is_turned_away(db: str | Path) -> None:
    referee(db, "main")
    with pytest.raises(StoreError, match="another rules daemon already serves table 'main'"):
        GameLog(db, "main").open()
    referee(db, "other")  # another table in the same file is fine


def test_a_log_that_does_not_replay_is_reported_and_the_table_still_serves(
    db: str | Path, caplog: pytest.LogCaptureFixture
) -> None:
    ref = referee(db)
    send(ref, ROSTER)
    ref.log.database.execute("UPDATE events SET event = ?", ('{"type": "nonsense"}',))
    ref.log.close()
    again = referee(db)  # starts: what a log holds never keeps a table down
    assert any("is unreadable, skipped" in r.getMessage() for r in caplog.records)
    assert again.game.state.phase is None
    assert send(again, {**ROSTER, "id": "fresh"})["ok"]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(payloads, min_size=1, max_size=12))
def test_fuzzed_payloads_never_break_the_referee(db: str | Path, batch: list[bytes]) -> None:
    table = f"t{uuid.uuid4().hex[:12]}"
    ref = referee(db, table)
    send(ref, ROSTER)
    for payload in batch:
        before = ref.state_json()
        outcome = ref.handle(payload)
        if outcome.duplicate:
            assert ref.state_json() == before, "a repeated id was applied again"
        elif not outcome.ok:
            after = ref.state_json()
            assert after.pop("rejected")[-1]["error"] == outcome.reply["error"]
            before.pop("rejected")
            assert after == before, "a refused command changed the game"
            assert outcome.reply["error"]
    ref.commit()
    ref.log.close()
    rebuilt = referee(db, table)
    assert rebuilt.state_json() == ref.state_json()
    rebuilt.log.close()


@pytest.mark.parametrize(
    "payload",
    [
        b'{"v":1,"id":"\\u0000","cmd":"roll","player":"Jack","dice":[3]}',
        b'{"v":1,"id":"a\\tb","cmd":"roll","player":"Jack","dice":[3]}',
        # refused for its repeated key first, then its id is salvaged for the reply
        b'{"v":1,"v":1,"id":"\\u0000"}',
    ],
    ids=["nul", "tab", "salvaged"],
)
def test_an_id_with_a_control_character_is_refused_and_the_log_is_written(
    db: str | Path, payload: bytes
) -> None:
    """Hypothesis found it on PostgreSQL: an id of "\\u0000" was kept as the command's id,
    and PostgreSQL's text cannot hold NUL, so the log could not be written ("storage: ...
    send it again", a refusal no resend could cure). It is refused as what it is, by field."""
    ref = referee(db)
    assert send(ref, ROSTER)["ok"]
    before = ref.state_json()
    outcome = ref.handle(payload)
    ref.commit()  # raised StoreError before
    assert not outcome.ok
    assert outcome.reply["kind"] == "invalid"
    if b'"v":1,"v":1' not in payload:
        assert outcome.reply["field"] == "id"
        assert outcome.reply["error"].startswith("id: a control character (U+00")
    assert outcome.reply["id"] is None  # no id of that kind is echoed or remembered
    ref.log.close()
    rebuilt = referee(db)
    after = rebuilt.state_json()
    assert after.pop("rejected")[-1]["error"] == outcome.reply["error"]
    before.pop("rejected", None)
    assert after == before


def test_a_key_the_verb_does_not_take_is_refused_by_name_and_changes_nothing(
    db: str | Path,
) -> None:
    """Issue 31: a misspelt key ("valuse") was ignored and its default used; now the command
    is refused naming it, and the events the engine had decided are taken back out."""
    ref = referee(db)
    assert send(ref, {"cmd": "new_game", "game": "ossix", "players": ["Jack"]})["ok"]
    before = ref.state_json()
    reply = send(
        ref,
        {
            "cmd": "action",
            "player": "Jack",
            "attribute": "agility",
            "score": 2,
            "bonsu": 1,
            "id": "typo-1",
        },
    )
    assert not reply["ok"] and reply["id"] == "typo-1" and reply["field"] == "bonsu"
    assert reply["error"].startswith("'bonsu': action takes no such key")
    after = ref.state_json()
    after.pop("rejected"), before.pop("rejected")
    assert after == before  # no roll was called
    ref.log.close()
    reload = referee(db)  # and the log holds nothing of it either
    reloaded = reload.state_json()
    reloaded.pop("rejected")
    assert reloaded == before
