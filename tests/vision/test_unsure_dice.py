"""A die the camera cannot read for sure reaches the table as unsure, with its place, never as a
value: the throw's event lists it, the daemon asks for it, and the game gets no roll."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tabletop.daemon.table import PhysicalTable
from tabletop.rules.games.game import Reroll
from tabletop.rules.games.reading import Action, Alert
from tabletop.vision.reading import DieReading, DieStatus, FrameReading
from tabletop.vision.watch import DieOrigin, ThrowEvent, ThrowEventKind
from tabletop.wire.topics import TableTopics
from tests.games.highroll import HIGH_ROLL

TOPICS = TableTopics("t1")
READ_FIVE = DieReading(5, 0.99, (10, 10, 50, 50), DieStatus.READ)
UNSURE = DieReading(None, 0.62, (100, 20, 140, 60), DieStatus.UNREADABLE)
COCKED = DieReading(None, 0.9, (200, 20, 240, 60), DieStatus.COCKED)


class RecordingReader:
    """Stands in for a game's reader: records each throw it is shown."""

    def __init__(self) -> None:
        self.throws: list[list[int]] = []

    def observe_dice(
        self, state: Any, values: Sequence[int], now: float, reroll: Reroll | None = None
    ) -> list[Action]:
        self.throws.append(list(values))
        return []


def event(kind: ThrowEventKind, *dice: DieReading) -> ThrowEvent:
    reading = FrameReading(dice)
    origins = (DieOrigin.THROWN,) * len(dice)
    return ThrowEvent(kind, 7, 1.5, reading.values, reading, "", "Ana", origins)


def test_an_unsure_die_is_listed_by_its_place_and_box_never_as_a_value() -> None:
    data = event(ThrowEventKind.UNREADABLE, READ_FIVE, UNSURE, COCKED).to_json()
    assert data["values"] == [5]
    assert data["unsure"] == [{"die": 1, "box": [100, 20, 140, 60]}]
    assert data["dice"][1]["value"] is None
    assert data["dice"][1]["status"] == "unreadable"


def test_a_throw_read_in_full_has_no_unsure_field() -> None:
    assert "unsure" not in event(ThrowEventKind.ROLLED, READ_FIVE).to_json()
    assert "unsure" not in event(ThrowEventKind.COCKED, READ_FIVE, COCKED).to_json()


def test_the_reading_names_every_unsure_die_in_order() -> None:
    assert FrameReading((UNSURE, READ_FIVE, UNSURE)).unsure == (0, 2)
    assert FrameReading((READ_FIVE,)).unsure == ()


def _table() -> tuple[PhysicalTable, RecordingReader]:
    table = PhysicalTable(TOPICS, ["Ana", "Bo"], 0.3, HIGH_ROLL)
    reader = RecordingReader()
    table.reader = reader  # type: ignore[assignment]
    return table, reader


def _published(data: dict[str, Any], seq: int) -> bytes:
    return json.dumps({"bridge": "b1", "seq": seq, **data}).encode()


def test_the_table_asks_for_unsure_dice_on_the_photo_and_the_game_gets_no_roll() -> None:
    table, reader = _table()
    two = event(ThrowEventKind.UNREADABLE, UNSURE, READ_FIVE, UNSURE).to_json()
    actions = table.message(TOPICS.dice_event, _published(two, 1), None, 0.0)
    assert reader.throws == []
    assert actions == [
        Alert(
            "dice",
            "2 dice could not be read for sure (? on the throw's photo): game master, tap each "
            "on the photo to give its value, or throw again",
        )
    ]


def test_an_unreadable_throw_without_the_field_still_asks_for_one_die() -> None:
    """A bridge from before the `unsure` field (format still v 1) is asked about one die."""
    table, reader = _table()
    old = {"v": 1, "event": "unreadable", "values": [5]}
    actions = table.message(TOPICS.dice_event, _published(old, 1), None, 0.0)
    assert reader.throws == []
    assert len(actions) == 1 and isinstance(actions[0], Alert)
    assert actions[0].message.startswith("1 die could not be read for sure")
    assert "tap it on the photo" in actions[0].message
