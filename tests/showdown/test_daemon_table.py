"""The daemon's physical table feeds a showdown: deck cards in the mat's snapshots, touches on
`mat/event`; a reader that reads no touches is never told of one."""

from __future__ import annotations

import json
from typing import Any

from tabletop.daemon.table import PhysicalTable
from tabletop.rules.games.reading import Alert, Execute, SlotView
from tabletop.rules.games.showdown.engine import Game
from tabletop.rules.games.showdown.game import SHOWDOWN
from tabletop.wire.topics import TableTopics
from tests.games.highroll import HIGH_ROLL

from .helpers import BLANKS, new_game

TOPICS = TableTopics("t1")


def _message(seq: int, **fields: Any) -> bytes:
    return json.dumps({"v": 1, "bridge": "b1", "seq": seq, **fields}).encode()


def test_a_snapshot_reads_a_deck_card_by_its_code_and_a_touch_reaches_the_reader() -> None:
    game = Game()
    game.execute(new_game())
    for player in ("Ana", "Bo"):
        game.execute({"cmd": "load", "player": player, "bullets": BLANKS})
    table = PhysicalTable(TOPICS, ["Ana", "Bo"], 0.3, SHOWDOWN)
    zones = {f"s1.{i}": {"card": f"cowboy/{c}", "face": "down"} for i, c in enumerate(BLANKS, 1)}
    zones["s2.1"] = {"card": "QS", "face": "up"}
    actions = table.message(TOPICS.mat_snapshot, _message(1, zones=zones), game.state, 1.0)
    assert table.reader.seen[(0, 3)] == SlotView(None, False, "cowboy/blank-3")
    assert any(isinstance(a, Alert) and "a playing card (QS)" in a.message for a in actions)
    touch = _message(1, event="touch", zone="s1.2", t_ms=4321)
    actions = table.message(TOPICS.mat_event, touch, game.state, 1.1)
    assert actions == [Execute({"cmd": "touch", "player": "Ana", "slot": 2, "at_ms": 4321})]
    assert table.message(TOPICS.mat_event, _message(2, event="touch", zone="s1.2"), None, 1.2) == []
    assert table.dropped == 1  # a touch without its time is dropped, not guessed


def test_a_game_whose_reader_reads_no_touches_ignores_them() -> None:
    table = PhysicalTable(TOPICS, ["Ana", "Bo"], 0.3, HIGH_ROLL)
    touch = _message(1, event="touch", zone="s1.2", t_ms=10)
    assert table.message(TOPICS.mat_event, touch, None, 0.0) == [] and table.dropped == 0
