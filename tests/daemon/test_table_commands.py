"""A game master's command at a table with a mat: its table reader hears of it once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from daemon_helpers import QuietLink

from rules.daemon.service import TableOptions, TableServer
from rules.daemon.store import LogDatabase
from rules.games.reading import Action, Execute
from tests.games.highroll import DiceReader as HighRollReader
from wire.mqtt import Message


def test_a_repeated_command_id_is_answered_again_but_not_applied_again(
    tmp_path: Path, high_roll: None
) -> None:
    database = LogDatabase(tmp_path / "log.db")
    database.open()
    link = QuietLink()
    options = TableOptions(seats=("Ana", "Bo"), grace=0.3, game="highroll")
    server = TableServer("t1", link, database, "full", options)  # type: ignore[arg-type]
    server.load()
    assert server.physical is not None
    reader = server.physical.reader
    applied: list[dict[str, Any]] = []
    original = reader.applied

    def counting(state: Any, command: dict[str, Any], now: float) -> list[Action]:
        applied.append(command)
        return original(state, command, now)

    reader.applied = counting  # type: ignore[method-assign]
    command = {"v": 1, "id": "start-1", "cmd": "new_game", "players": ["Ana", "Bo"]}
    payload = json.dumps(command).encode()
    server.decide([Message(server.topics.command, payload)], 1.0)
    server.decide([Message(server.topics.command, payload)], 2.0)
    assert [o.duplicate for o in server.outcomes] == [False, True]
    assert server.outcomes[1].reply == {**server.outcomes[0].reply, "duplicate": True}
    assert [c["id"] for c in applied] == ["start-1"]


def test_a_refusal_while_no_game_is_played_is_no_alert_at_the_table(
    tmp_path: Path, high_roll: None
) -> None:
    """A table move the game refuses is an alert for the table to put right; once the game is
    over nothing can be put right and nothing would clear it (a throw that crossed the end, as
    `tabletop sim` once raised), so it is only the reply."""
    database = LogDatabase(tmp_path / "log.db")
    database.open()
    options = TableOptions(seats=("Ana", "Bo"), grace=0.3, game="highroll")
    server = TableServer("t1", QuietLink(), database, "full", options)  # type: ignore[arg-type]
    server.load()
    table = server.physical
    assert table is not None

    class EagerReader(HighRollReader):
        """Reads every throw as a roll, whether or not a game waits for one."""

        def observe_dice(self, state: Any, values: Any, now: float, reroll: Any = None) -> Any:
            return [Execute({"cmd": "roll", "value": values[0]})]

    def throw(number: int, value: int) -> None:
        event = {"v": 1, "bridge": "b1", "seq": number, "event": "rolled", "values": [value]}
        payload = json.dumps(event).encode()
        server.decide([Message(server.topics.dice_event, payload)], float(number))

    start = {"v": 1, "id": "c1", "cmd": "new_game", "players": ["Ana", "Bo"]}
    server.decide([Message(server.topics.command, json.dumps(start).encode())], 1.0)
    table.reader = EagerReader(["Ana", "Bo"], 0.3)
    throw(2, 9)  # no die shows 9: refused while the game is played
    assert not server.outcomes[-1].reply["ok"]
    assert "refused" in table.alerts
    end = {"v": 1, "id": "c3", "cmd": "end_game"}
    server.decide([Message(server.topics.command, json.dumps(end).encode())], 3.0)
    before = {key: alert.message for key, alert in table.alerts.items()}
    throw(4, 3)
    assert server.outcomes[-1].reply["error"] == "no game: start one first"
    assert {key: alert.message for key, alert in table.alerts.items()} == before
