"""Issue 33.7: a forged bridge `seq` cannot mute the real bridge silently.

The gate refuses a jump beyond reason with an alert, and when the bridge's own new messages
keep coming behind a number it never reached, says so and follows the bridge again."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tabletop.daemon.table import (
    BEHIND_TO_RECOVER,
    BRIDGE_ALERT,
    JUMP_PER_SECOND,
    SEQ_JUMP_ALLOWED,
    BridgeGate,
    PhysicalTable,
)
from tabletop.rules.games.game import Reroll
from tabletop.rules.games.reading import Action, Alert
from tabletop.wire.topics import TableTopics
from tests.games.highroll import HIGH_ROLL

TOPICS = TableTopics("t1")


class RecordingReader:
    """Stands in for a game's reader: records each throw it is shown."""

    def __init__(self) -> None:
        self.throws: list[list[int]] = []

    def observe_dice(
        self, state: Any, values: Sequence[int], now: float, reroll: Reroll | None = None
    ) -> list[Action]:
        self.throws.append(list(values))
        return []


def rolled(seq: int, value: int, bridge: str = "b1") -> bytes:
    body = {"v": 1, "bridge": bridge, "seq": seq, "event": "rolled", "values": [value]}
    return json.dumps(body).encode()


def table() -> tuple[PhysicalTable, RecordingReader]:
    physical = PhysicalTable(TOPICS, ["Ana", "Bo"], 0.3, HIGH_ROLL)
    reader = RecordingReader()
    physical.reader = reader  # type: ignore[assignment]
    return physical, reader


def alerts(actions: list[Action]) -> list[str]:
    return [a.message for a in actions if isinstance(a, Alert) and a.key == BRIDGE_ALERT]


def test_a_huge_forged_seq_is_refused_with_an_alert_and_the_bridge_goes_on() -> None:
    physical, reader = table()
    physical.message(TOPICS.dice_event, rolled(1, 3), None, 0.0)
    told = physical.message(TOPICS.dice_event, rolled(10**15, 6), None, 1.0)
    assert alerts(told) == [
        f"table events ignored: bridge b1: dice/event jumps from seq 1 to {10**15}, beyond "
        "reason (a forged message?)"
    ]
    physical.message(TOPICS.dice_event, rolled(2, 4), None, 2.0)
    assert reader.throws == [[3], [4]]


def test_a_jump_within_reason_is_taken() -> None:
    """The daemon away for a while: the bridge numbered many messages meanwhile."""
    gate = BridgeGate()
    assert gate.admit(TOPICS.dice_event, {"bridge": "b1", "seq": 1}, 0.0).take
    far = 1 + SEQ_JUMP_ALLOWED + JUMP_PER_SECOND * 60
    assert gate.admit(TOPICS.dice_event, {"bridge": "b1", "seq": far}, 60.0).take


def test_a_forged_jump_within_reason_is_found_out_and_the_bridge_followed_again() -> None:
    physical, reader = table()
    physical.message(TOPICS.dice_event, rolled(1, 3), None, 0.0)
    physical.message(TOPICS.dice_event, rolled(5000, 6), None, 1.0)  # forged, within reason
    told: list[list[str]] = []
    for seq, value in zip(range(2, 2 + BEHIND_TO_RECOVER), (1, 2, 4), strict=True):
        told.append(alerts(physical.message(TOPICS.dice_event, rolled(seq, value), None, 2.0)))
    assert told[0] == [
        "table events ignored: bridge b1: dice/event seq 2 is behind 5000, a number it has not "
        "reached (a forged message?)"
    ]
    assert told[-1] == [
        "bridge b1: dice/event had been pushed to seq 5000, a number the bridge never sent (a "
        "forged message?); following the bridge's own numbers again from 4"
    ]
    # the forged throw was taken (it looked new), then the bridge's own from the recovery on
    physical.message(TOPICS.dice_event, rolled(5, 5), None, 3.0)
    assert reader.throws == [[3], [6], [4], [5]]


def test_repeats_stay_quiet_and_are_never_taken_twice() -> None:
    physical, reader = table()
    for seq in (1, 2, 3):
        physical.message(TOPICS.dice_event, rolled(seq, seq), None, 0.0)
    for seq in (1, 2, 3):  # a QoS 1 redelivery of all three, in order
        assert alerts(physical.message(TOPICS.dice_event, rolled(seq, seq), None, 1.0)) == []
    assert reader.throws == [[1], [2], [3]]


def test_a_restarted_bridge_is_followed_from_its_first_message() -> None:
    physical, reader = table()
    physical.message(TOPICS.dice_event, rolled(900, 1, bridge="old"), None, 0.0)
    physical.message(TOPICS.bridge_availability, b"offline", None, 1.0)
    physical.message(TOPICS.dice_event, rolled(1, 2, bridge="new"), None, 2.0)
    assert reader.throws == [[1], [2]]


def test_a_bridge_restarted_while_the_daemon_was_away_is_followed_once_the_old_one_is_quiet() -> (
    None
):
    """Found by the 100-game soak (Showdown seed 739608): a daemon restarted by a fault heard
    the old bridge's retained snapshot first, then refused every message of the new bridge (its
    first, seq 1, went by while the daemon was away) as a second bridge's: the table stood
    still. The table's bridge is given up once it has said nothing for a while, and said so."""
    from tabletop.daemon.table import BRIDGE_SILENT_SECONDS

    gate = BridgeGate()
    snapshot = TOPICS.mat_snapshot
    assert gate.admit(snapshot, {"bridge": "old", "seq": 900}, 0.0).take
    # a second bridge talking while the table's own still talks: refused, said
    early = gate.admit(TOPICS.dice_event, {"bridge": "new", "seq": 7}, 1.0)
    assert not early.take and "is a second bridge running" in (early.alert or "")
    later = gate.admit(TOPICS.dice_event, {"bridge": "new", "seq": 8}, BRIDGE_SILENT_SECONDS)
    assert later.take and gate.bridge == "new"
    assert "bridge new now speaks for this table: bridge old has said nothing" in (
        later.alert or ""
    )
    # and the old one, should it speak again, is the stranger now
    assert not gate.admit(snapshot, {"bridge": "old", "seq": 901}, 11.0).take
