"""Derives card events by comparing two snapshots: the snapshot is the truth, events are hints.

Within one boot of the mat, a zone whose generation moved while its card and face stayed the
same was lifted and laid again between the two snapshots ("replaced"). Across a restart the
generations start again, so only cards and faces are compared.
"""

from __future__ import annotations

from .cardmap import CardMap
from .events import CardEvent, EventKind, MatEvent, ZoneEvent
from .protocol import Face, Snapshot, ZoneReading
from .zones import MatLayout

_EMPTY = ZoneReading(False, Face.UNKNOWN, False, 0)


def diff_snapshots(
    previous: Snapshot | None,
    current: Snapshot,
    layout: MatLayout,
    cards: CardMap,
    same_boot: bool = True,
) -> list[MatEvent]:
    """Returns the events that turn `previous` (None: an empty mat) into `current`."""
    events: list[MatEvent] = []
    before = previous.zones if previous is not None else ()
    for index, now in enumerate(current.zones):
        was = before[index] if index < len(before) else _EMPTY
        zone = layout.name(index)
        if now.fault != was.fault:
            kind = EventKind.ZONE_FAULT if now.fault else EventKind.ZONE_OK
            events.append(ZoneEvent(kind, zone))
        events.extend(_card_events(zone, was, now, cards, same_boot and previous is not None))
    return events


def _card_event(kind: EventKind, zone: str, reading: ZoneReading, cards: CardMap) -> CardEvent:
    card = cards.card_for(reading.uid)
    if kind is EventKind.PLACED and card is None:
        kind = EventKind.UNKNOWN_CARD
    return CardEvent(kind, zone, reading.uid.hex().upper(), reading.face, card, reading.level)


def _card_events(
    zone: str, was: ZoneReading, now: ZoneReading, cards: CardMap, compare_generation: bool
) -> list[CardEvent]:
    if not was.present and not now.present:
        return []
    if not now.present:
        return [_card_event(EventKind.REMOVED, zone, was, cards)]
    if not was.present:
        return [_card_event(EventKind.PLACED, zone, now, cards)]
    if now.uid != was.uid:
        return [
            _card_event(EventKind.REMOVED, zone, was, cards),
            _card_event(EventKind.PLACED, zone, now, cards),
        ]
    if now.face != was.face:
        return [_card_event(EventKind.FLIPPED, zone, now, cards)]
    if compare_generation and now.generation != was.generation:
        return [_card_event(EventKind.REPLACED, zone, now, cards)]
    return []
