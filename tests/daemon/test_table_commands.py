"""A game master's command at a table with a mat: its table reader hears of it once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rules import games
from rules.daemon.service import TableOptions, TableServer
from rules.daemon.store import LogDatabase
from rules.reading import Action
from tests.games.highroll import HIGH_ROLL
from wire.mqtt import Message


class QuietLink:
    """Below the daemon's lowest layer: keeps what would have been published."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes]] = []

    def publish(self, topic: str, payload: bytes, *args: Any, **kwargs: Any) -> None:
        self.sent.append((topic, payload))

    def publish_retained(self, topic: str, payload: bytes, *args: Any, **kwargs: Any) -> None:
        self.sent.append((topic, payload))


@pytest.fixture
def high_roll() -> Iterator[None]:
    games.register(HIGH_ROLL)
    yield
    games.unregister(HIGH_ROLL.name)


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
