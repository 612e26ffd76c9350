"""A game master's command at a table with a mat: its table reader hears of it once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from daemon_helpers import QuietLink

from tabletop.daemon.server import TableOptions, TableServer
from tabletop.daemon.store import LogDatabase
from tabletop.rules.games.reading import Action, AlertCleared, Execute
from tabletop.wire.mqtt import Message
from tests.games.highroll import DiceReader as HighRollReader
from tests.rules.table import HANDS, PLAYERS


def table_server(tmp_path: Path, game: str) -> TableServer:
    """A table's server with a physical table of two seats, on a fresh log, loaded."""
    database = LogDatabase(tmp_path / "log.db")
    database.open()
    options = TableOptions(seats=("Ana", "Bo"), grace=0.3, game=game)
    server = TableServer("t1", QuietLink(), database, "full", options)  # type: ignore[arg-type]
    server.load()
    return server


def test_a_repeated_command_id_is_answered_again_but_not_applied_again(
    tmp_path: Path, high_roll: None
) -> None:
    server = table_server(tmp_path, "highroll")
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
    server = table_server(tmp_path, "highroll")
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


def test_an_alert_a_game_master_s_command_clears_is_cleared_at_the_table(
    tmp_path: Path, high_roll: None
) -> None:
    """A game master's command that the reader answers by clearing an alert (a refusal it
    puts right; every slot's alert once the game ends) clears it on `table/alert` too. The
    soak found one standing after the game ended: the reader had cleared it, the table not."""
    server = table_server(tmp_path, "highroll")
    table = server.physical
    assert table is not None

    class ClearingReader(HighRollReader):
        """Reads every throw as a roll, and clears its refusal once any command goes through
        (as OS-SIX's and Six Shooter's readers do)."""

        def observe_dice(self, state: Any, values: Any, now: float, reroll: Any = None) -> Any:
            return [Execute({"cmd": "roll", "value": values[0]})]

        def applied(self, state: Any, command: dict[str, Any], now: float) -> list[Action]:
            return [AlertCleared("refused")]

    start = {"v": 1, "id": "c1", "cmd": "new_game", "players": ["Ana", "Bo"]}
    server.decide([Message(server.topics.command, json.dumps(start).encode())], 1.0)
    table.reader = ClearingReader(["Ana", "Bo"], 0.3)
    throw = {"v": 1, "bridge": "b1", "seq": 2, "event": "rolled", "values": [9]}
    server.decide([Message(server.topics.dice_event, json.dumps(throw).encode())], 2.0)
    assert "refused" in table.alerts  # no die shows 9
    roll = {"v": 1, "id": "c3", "cmd": "roll", "value": 4}  # the game master types it in
    server.decide([Message(server.topics.command, json.dumps(roll).encode())], 3.0)
    assert server.outcomes[-1].reply["ok"]
    assert "refused" not in table.alerts
    published = json.loads(server._last_table[server.topics.table_alert])
    assert published["alerts"] == []


def test_a_restarted_daemon_reads_the_mat_s_snapshot_whole_and_boosts_nothing(
    tmp_path: Path,
) -> None:
    """A rules daemon that restarts during a challenge roll hears the mat's snapshot with a
    reader that has seen nothing yet. Read slot by slot, every face-up card not yet reported
    looked lifted, and the first was applied as a boost nobody made (the soak: a daemon killed
    during a roll, then "Ana has no roll to boost" refused). Read whole, nothing is."""
    server = table_server(tmp_path, "sixshooter")
    table = server.physical
    assert table is not None

    def zones(up: set[tuple[str, int]]) -> dict[str, Any]:
        return {
            f"s{seat}.{slot}": {"card": card, "face": "up" if (name, slot) in up else "down"}
            for seat, name in enumerate(HANDS, start=1)
            for slot, card in enumerate(HANDS[name], start=1)
        }

    def send(number: int, topic: str, body: dict[str, Any]) -> None:
        server.decide([Message(topic, json.dumps({"v": 1, **body}).encode())], float(number))

    snapshot = {"bridge": "b1", "connected": True}
    send(1, server.topics.command, {"id": "g", "cmd": "new_game", "players": PLAYERS})
    send(2, server.topics.mat_snapshot, {**snapshot, "seq": 1, "zones": zones(set())})
    revealed = {("Ana", 1), ("Bo", 1)}
    # Both reveals in one snapshot (a mat plugged back in): each read and made once.
    send(3, server.topics.mat_snapshot, {**snapshot, "seq": 2, "zones": zones(revealed)})
    challenge = {"id": "c", "cmd": "challenge", "player": "Bo", "method": "slyness", "critical": 5}
    send(4, server.topics.command, challenge)
    assert server.referee.state_json()["pending"]["type"] == "roll"
    # The daemon restarts: the game is rebuilt from the log, and its reader has seen nothing.
    table.reader = type(table.reader)(["Ana", "Bo"], grace=0.3)
    send(5, server.topics.mat_snapshot, {**snapshot, "seq": 3, "zones": zones(revealed)})
    state = server.referee.state_json()
    assert state["pending"]["critical"] == 5  # no card was used on the roll
    assert [p["slots"][0]["state"] for p in state["players"]] == ["face_up", "face_up"]
    assert all(o.reply["ok"] for o in server.outcomes), [o.reply for o in server.outcomes]
    server.decide([], 6.0)
    assert table.alerts == {}
