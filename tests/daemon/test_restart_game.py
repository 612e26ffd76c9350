"""A daemon restarted mid-game reads the mat as the game being played, not as the table file's
game (issue 48: a restarted daemon read a Showdown table as Six Shooter until the game master's
next command: error lines, no LED frames, a race lost in the gap)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from daemon_helpers import QuietLink

from tabletop.daemon.server import TableOptions, TableServer
from tabletop.daemon.store import LogDatabase
from tabletop.rules import games
from tabletop.wire.mqtt import Message
from tests.showdown.helpers import new_game as showdown_new_game


def _server(database: LogDatabase, link: QuietLink) -> TableServer:
    """A table whose file names Six Shooter (the default game) with a mat of two seats."""
    options = TableOptions(seats=("Ana", "Bo"), grace=0.3)
    server = TableServer("t1", link, database, "full", options)  # type: ignore[arg-type]
    server.load()
    return server


def test_a_restarted_daemon_reads_the_mat_as_the_game_in_play(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    database = LogDatabase(tmp_path / "log.db")
    database.open()
    try:
        assert database.claim("t1")
        first = _server(database, QuietLink())
        start = {"v": 1, "id": "g1", "game": "showdown", **showdown_new_game()}
        first.decide([Message(first.topics.command, json.dumps(start).encode())], 1.0)
        assert first.outcomes[0].ok, first.outcomes[0].reply
        first.referee.commit()
        database.release("t1")  # the daemon is gone; its log stays

        link = QuietLink()
        assert database.claim("t1")
        restarted = _server(database, link)
        assert restarted.referee.rules is games.get("showdown")
        table = restarted.physical
        assert table is not None
        assert table.rules is games.get("showdown")
        with caplog.at_level(logging.ERROR):
            snapshot = {"v": 1, "bridge": "b1", "seq": 1, "connected": True, "zones": {}}
            restarted.decide(
                [Message(restarted.topics.mat_snapshot, json.dumps(snapshot).encode())], 2.0
            )
            restarted.decide([], 3.0)
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
        frames = link.bodies(restarted.topics.leds_frame)
        assert frames, "no LED frame after the restart"
        expected = games.get("showdown").indicators(restarted.referee.game.state, ["Ana", "Bo"])
        assert frames[-1]["meaning"] == expected.meaning
    finally:
        database.close()
