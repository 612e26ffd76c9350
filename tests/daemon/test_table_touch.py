"""The daemon's table reader hands a game the mat's touches, when the game reads them."""

from __future__ import annotations

import json
from typing import Any

from tabletop.daemon.table import PhysicalTable
from tabletop.rules.games import get
from tabletop.rules.games.reading import Action
from tabletop.wire.topics import TableTopics

TOPICS = TableTopics("t1")


class TouchingReader:
    """Stands in for a game's reader that judges races by touch: records each touch."""

    def __init__(self) -> None:
        self.touches: list[tuple[int, int, int, float]] = []

    def observe_touch(
        self, state: Any, seat: int, slot: int, at_ms: int, now: float
    ) -> list[Action]:
        self.touches.append((seat, slot, at_ms, now))
        return []


def _event(seq: int, **fields: Any) -> bytes:
    return json.dumps({"v": 1, "bridge": "b1", "seq": seq, **fields}).encode()


def _touch(seq: int, zone: str, t_ms: Any) -> bytes:
    return _event(seq, event="touch", zone=zone, t_ms=t_ms, boot_id="b76298f5")


def test_a_touch_on_a_slot_reaches_a_reader_that_reads_touches() -> None:
    table = PhysicalTable(TOPICS, ["Ana", "Bo"], 0.3, get("sixshooter"))
    reader = TouchingReader()
    table.reader = reader  # type: ignore[assignment]
    table.message(TOPICS.mat_event, _touch(1, "s2.3", 123456), None, 7.5)
    release = _event(2, event="release", zone="s2.3", t_ms=123600, boot_id="b76298f5")
    table.message(TOPICS.mat_event, release, None, 7.6)
    table.message(TOPICS.mat_event, _touch(3, "pad", 123700), None, 7.7)  # not a slot
    table.message(TOPICS.mat_event, _touch(4, "s3.1", 123800), None, 7.8)  # no third seat
    assert reader.touches == [(1, 3, 123456, 7.5)]


def test_a_touch_with_a_bad_time_is_dropped_not_guessed() -> None:
    table = PhysicalTable(TOPICS, ["Ana", "Bo"], 0.3, get("sixshooter"))
    reader = TouchingReader()
    table.reader = reader  # type: ignore[assignment]
    for seq, bad in enumerate(("12", -4, None, 1.5, True), start=1):
        table.message(TOPICS.mat_event, _touch(seq, "s1.1", bad), None, 0.0)
    assert reader.touches == [] and table.dropped == 5


def test_a_game_without_observe_touch_ignores_touches() -> None:
    table = PhysicalTable(TOPICS, ["Ana", "Bo"], 0.3, get("sixshooter"))
    assert not hasattr(table.reader, "observe_touch")
    assert table.message(TOPICS.mat_event, _touch(1, "s1.1", 500), None, 0.0) == []
    assert table.dropped == 0


class SidedReader:
    """A reader that takes the side of a split pad's touch."""

    def __init__(self) -> None:
        self.touches: list[tuple[int, int, int, str | None]] = []

    def observe_touch(
        self, state: Any, seat: int, slot: int, at_ms: int, now: float, *, side: str | None = None
    ) -> list[Action]:
        self.touches.append((seat, slot, at_ms, side))
        return []


def test_a_touchs_side_reaches_a_reader_that_takes_it_and_a_bad_side_is_dropped() -> None:
    table = PhysicalTable(TOPICS, ["Ana", "Bo"], 0.3, get("sixshooter"))
    sided = SidedReader()
    table.reader = sided  # type: ignore[assignment]
    far = _event(1, event="touch", zone="s2.3", t_ms=100, boot_id="b76298f5", side="far")
    table.message(TOPICS.mat_event, far, None, 1.0)
    table.message(TOPICS.mat_event, _touch(2, "s2.3", 110), None, 1.1)  # no side: a whole pad
    left = _event(3, event="touch", zone="s2.3", t_ms=120, boot_id="b76298f5", side="left")
    table.message(TOPICS.mat_event, left, None, 1.2)
    assert sided.touches == [(1, 3, 100, "far"), (1, 3, 110, None)]
    assert table.dropped == 1
    # A reader written before sides never gets one: the touch reaches it as before.
    plain = TouchingReader()
    table.reader = plain  # type: ignore[assignment]
    near = _event(4, event="touch", zone="s1.1", t_ms=130, boot_id="b76298f5", side="near")
    table.message(TOPICS.mat_event, near, None, 1.3)
    assert plain.touches == [(0, 1, 130, 1.3)]
