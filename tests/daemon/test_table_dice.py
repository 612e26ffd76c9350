"""The daemon's table reader hands the game what the camera said of a throw, rerolls included."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tabletop.daemon.table import PhysicalTable
from tabletop.rules.games.game import Reroll
from tabletop.rules.games.reading import Action, Alert
from tabletop.wire.topics import TableTopics
from tests.games.highroll import HIGH_ROLL

TOPICS = TableTopics("t1")


class RecordingReader:
    """Stands in for a game's reader: records each throw it is shown."""

    def __init__(self) -> None:
        self.throws: list[tuple[list[int], Reroll | None]] = []

    def observe_dice(
        self, state: Any, values: Sequence[int], now: float, reroll: Reroll | None = None
    ) -> list[Action]:
        self.throws.append((list(values), reroll))
        return []


def _table() -> tuple[PhysicalTable, RecordingReader]:
    table = PhysicalTable(TOPICS, ["Ana", "Bo"], 0.3, HIGH_ROLL)
    reader = RecordingReader()
    table.reader = reader  # type: ignore[assignment]
    return table, reader


def _rolled(seq: int, **fields: Any) -> bytes:
    return json.dumps({"v": 1, "bridge": "b1", "seq": seq, "event": "rolled", **fields}).encode()


def test_a_fresh_throw_reaches_the_game_with_no_reroll() -> None:
    table, reader = _table()
    table.message(TOPICS.dice_event, _rolled(1, values=[3, 6]), None, 0.0)
    assert reader.throws == [([3, 6], None)]


def test_a_reroll_says_which_dice_stayed_and_which_were_thrown() -> None:
    table, reader = _table()
    payload = _rolled(1, values=[6, 6, 2, 5], kept=[6, 6], moved=[], thrown=[2, 5])
    table.message(TOPICS.dice_event, payload, None, 0.0)
    assert reader.throws == [([6, 6, 2, 5], Reroll(kept=(6, 6), moved=(), thrown=(2, 5)))]


def test_a_damaged_reroll_list_is_dropped_and_counted_not_guessed() -> None:
    table, reader = _table()
    table.message(TOPICS.dice_event, _rolled(1, values=[6, 2], kept=[6], thrown=["2"]), None, 0.0)
    table.message(TOPICS.dice_event, _rolled(2, values=[6, 2], kept=[9], thrown=[2]), None, 0.0)
    assert reader.throws == []
    assert table.dropped == 2


def test_an_unclear_throw_is_an_alert_asking_for_it_again_once() -> None:
    table, reader = _table()

    def unclear(seq: int, reason: str) -> bytes:
        body = {"v": 1, "bridge": "b1", "seq": seq, "event": "unclear", "reason": reason}
        return json.dumps(body).encode()

    found = table.message(TOPICS.dice_event, unclear(1, "expected 5 dice, found 4"), None, 0.0)
    again = table.message(
        TOPICS.dice_event,
        unclear(2, "dice rolled but no die was found at rest: throw again"),
        None,
        0.0,
    )
    assert found == [Alert("dice", "expected 5 dice, found 4: throw again")]
    assert again == [Alert("dice", "dice rolled but no die was found at rest: throw again")]
    assert reader.throws == []
