"""Issue 48 item 2: a game master's refused command is their own answer, never a table alert.

A refused command from the game master used to become a `refused:<verb>` alert on
`table/alert`, the room's screen, every phone and the stream, and stood until the same verb
went through. Now it is the reply (and the referee's refused list) only; a table move the
rules refuse (tests/daemon/test_table_commands.py) is still the table's alert.
"""

from __future__ import annotations

import json
from pathlib import Path

from daemon_helpers import QuietLink

from tabletop.daemon.server import TableOptions, TableServer
from tabletop.daemon.store import LogDatabase
from tabletop.wire.mqtt import Message


def _server(tmp_path: Path, game: str) -> TableServer:
    database = LogDatabase(tmp_path / "log.db")
    database.open()
    options = TableOptions(seats=("Ana", "Bo"), grace=0.3, game=game)
    server = TableServer("t1", QuietLink(), database, "full", options)  # type: ignore[arg-type]
    server.load()
    return server


def test_a_game_master_s_refused_command_raises_no_public_alert(tmp_path: Path) -> None:
    server = _server(tmp_path, "ossix")
    table = server.physical
    assert table is not None

    def send(number: int, **command: object) -> dict[str, object]:
        payload = json.dumps({"v": 1, "id": f"c{number}", **command}).encode()
        server.decide([Message(server.topics.command, payload)], float(number))
        return server.outcomes[-1].reply

    assert send(1, cmd="new_game", players=["Ana", "Bo"])["ok"]
    refused = send(2, cmd="roll", values=[3, 4])  # no throw is awaited
    assert refused["ok"] is False and refused["error"]
    assert not [key for key in table.alerts if key.startswith("refused")]
    public = json.loads(server._last_table[server.topics.table_alert])
    referee = json.loads(server._last_table[server.topics.referee_alert])
    assert public["alerts"] == [] and referee["alerts"] == []
