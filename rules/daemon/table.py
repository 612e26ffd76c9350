"""The rules daemon's view of a physical table: mat and dice messages in, commands and alerts out.

`PhysicalTable` decodes what the bridge publishes (`mat/snapshot`, `mat/event`, `dice/event`),
hands it to the pure `TableReader`, and keeps what the table must be told: the alerts and
instructions (retained on `table/alert`) and the Strike LED frame (retained on `leds/frame`).
Malformed payloads are logged and dropped; they never reach the game.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import Any, Final

from hardware.leds import frame_for_strikes
from rules.cards import parse_card
from rules.errors import RulesError
from rules.sixshooter.reading import EMPTY, Action, Alert, AlertCleared, SlotView, TableReader
from rules.sixshooter.state import GameState
from tabletop.topics import TableTopics

log = logging.getLogger(__name__)

ALERT_FORMAT_VERSION: Final = 1
_SLOT_ZONE = re.compile(r"^s([1-9])\.([1-6])$")


class PhysicalTable:
    """Reads one table's mat and dice for the rules daemon."""

    def __init__(self, topics: TableTopics, seats: Sequence[str], grace: float) -> None:
        self.topics = topics
        self.seats = list(seats)
        self.reader = TableReader(self.seats, grace=grace)
        self.alerts: dict[str, Alert] = {}
        self.dropped = 0

    @property
    def subscriptions(self) -> list[tuple[str, int]]:
        """The bridge's topics this daemon reads."""
        return [
            (self.topics.mat_snapshot, 1),
            (self.topics.mat_event, 1),
            (self.topics.dice_event, 1),
        ]

    def owns(self, topic: str) -> bool:
        """True for a topic this class reads."""
        return topic in (self.topics.mat_snapshot, self.topics.mat_event, self.topics.dice_event)

    def message(self, topic: str, payload: bytes, state: GameState, now: float) -> list[Action]:
        """Turns one bridge message into the reader's actions; bad payloads are dropped."""
        try:
            raw = json.loads(payload.decode("utf-8"))
            if not isinstance(raw, dict) or raw.get("v") != 1:
                raise ValueError('expected a JSON object with "v": 1')
            if topic == self.topics.mat_snapshot:
                return self._snapshot(raw, state, now)
            if topic == self.topics.mat_event:
                return self._mat_event(raw, state, now)
            return self._dice(raw, state, now)
        except (ValueError, KeyError, TypeError, RulesError) as error:
            self.dropped += 1
            log.warning("dropped a malformed message on %s: %s", topic, error)
            return []

    def _snapshot(self, raw: dict[str, Any], state: GameState, now: float) -> list[Action]:
        zones = raw["zones"]
        if not isinstance(zones, dict):
            raise ValueError("zones: expected an object keyed by zone")
        views: dict[tuple[int, int], SlotView] = {}
        for zone, held in zones.items():
            match = _SLOT_ZONE.match(zone)
            if match is None or not isinstance(held, dict):
                continue  # the draw pad and unknown zones are not slots
            seat, slot = int(match.group(1)) - 1, int(match.group(2))
            if seat >= len(self.seats):
                continue
            card = parse_card(held["card"], f"zones.{zone}.card") if held.get("card") else None
            views[(seat, slot)] = SlotView(card, held.get("face") == "up") if card else EMPTY
        actions: list[Action] = []
        for seat in range(len(self.seats)):
            for slot in range(1, 7):
                view = views.get((seat, slot), EMPTY)
                if self.reader.seen.get((seat, slot), EMPTY) != view:
                    actions += self.reader.observe_slot(state, seat, slot, view, now)
        return actions

    def _mat_event(self, raw: dict[str, Any], state: GameState, now: float) -> list[Action]:
        # Slots are read from the snapshots (the truth); events only tell the draw pad.
        if raw.get("zone") == "pad" and raw.get("event") == "placed" and raw.get("card"):
            return self.reader.observe_pad(state, parse_card(raw["card"], "card"), now)
        return []

    def _dice(self, raw: dict[str, Any], state: GameState, now: float) -> list[Action]:
        kind = raw["event"]
        if kind == "rolled":
            values = raw["values"]
            if not isinstance(values, list) or not all(isinstance(v, int) for v in values):
                raise ValueError("values: expected a list of integers")
            return self.reader.observe_dice(state, values, now)
        if kind in ("cocked", "unreadable"):
            return [Alert("dice", f"the die is {kind}: throw it again")]
        return []

    def record(self, actions: Sequence[Action]) -> bool:
        """Keeps the alerts the actions raise or clear; True when they changed."""
        changed = False
        for action in actions:
            if isinstance(action, Alert):
                if self.alerts.get(action.key) != action:
                    self.alerts[action.key] = action
                    changed = True
            elif isinstance(action, AlertCleared) and action.key in self.alerts:
                del self.alerts[action.key]
                changed = True
        return changed

    def alert_payload(self) -> dict[str, Any]:
        """The retained `table/alert` message: what is wrong and what the players must do."""
        return {
            "v": ALERT_FORMAT_VERSION,
            "alerts": [
                {"key": a.key, "message": a.message, "seat": a.seat, "slot": a.slot}
                for a in self.alerts.values()
            ],
            "instructions": list(self.reader.instructions),
        }

    def led_payload(self, state: GameState) -> dict[str, Any]:
        """The retained `leds/frame` message for the current Strikes."""
        seats = []
        for name in self.seats:
            operator = state.operators.get(name)
            if operator is None:
                seats.append((0, False))
            else:
                seats.append((operator.strikes, operator.status.value != "active"))
        return frame_for_strikes(seats).to_json()
