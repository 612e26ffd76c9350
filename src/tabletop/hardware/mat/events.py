"""Typed events the host derives from the mat's snapshots, and their JSON form."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

# Against the data flow, on purpose: a tag names a card of the games' card model,
# which is pure (standard library only).
from tabletop.rules.games.cards import TaggedCard

from .protocol import Face, PadSide


class EventKind(Enum):
    """Every kind of mat event; the value is the "event" field of its JSON."""

    PLACED = "placed"
    REMOVED = "removed"
    FLIPPED = "flipped"
    REPLACED = "replaced"  # the same card lifted and laid again between two snapshots
    UNKNOWN_CARD = "unknown_card"  # a tag laid that is not in the card map
    ZONE_FAULT = "zone_fault"
    ZONE_OK = "zone_ok"
    RESYNC = "resync"
    LINK_UP = "link_up"
    LINK_DOWN = "link_down"
    TOUCH = "touch"  # a finger arrived on a zone's touch pad (touch extension)
    RELEASE = "release"  # ... and left it


@dataclass(frozen=True, slots=True)
class CardEvent:
    """A card placed, removed, flipped or replaced on a zone, or an unknown tag laid there.

    `card` is None for a tag the card map does not know; `uid` is always the tag's UID in hex.
    """

    kind: EventKind
    zone: str
    uid: str
    face: Face
    card: TaggedCard | None
    level: int = 0  # the face sensor's reading, for calibration (not in the JSON)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind.value, "zone": self.zone}
        if self.kind is EventKind.UNKNOWN_CARD:
            out["uid"] = self.uid
            out["face"] = self.face.text
            return out
        out["card"] = self.card.code if self.card is not None else None
        if self.card is None:
            out["uid"] = self.uid
        if self.kind is not EventKind.REMOVED:
            out["face"] = self.face.text
        return out


@dataclass(frozen=True, slots=True)
class ZoneEvent:
    """A zone's reader failed (and is being reset), or answers again."""

    kind: EventKind
    zone: str

    def to_json(self) -> dict[str, Any]:
        return {"event": self.kind.value, "zone": self.zone}


@dataclass(frozen=True, slots=True)
class LinkEvent:
    """The mat came up (with its firmware and boot id) or went away (with the reason)."""

    kind: EventKind
    port: str
    detail: str
    boot_id: int | None = None
    touch_zones: int = 0  # zones with a touch pad (0: none, or a mat without the extension)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind.value, "port": self.port}
        if self.kind is EventKind.LINK_UP:
            out["firmware"] = self.detail
            out["boot_id"] = f"{self.boot_id:08x}" if self.boot_id is not None else None
            out["touch_zones"] = self.touch_zones
        else:
            out["reason"] = self.detail
        return out


@dataclass(frozen=True, slots=True)
class ResyncEvent:
    """The host asked for a fresh snapshot (after a gap, a damaged frame or a mat restart)."""

    reason: str

    kind = EventKind.RESYNC

    def to_json(self) -> dict[str, Any]:
        return {"event": self.kind.value, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class TouchEvent:
    """A finger arrived on (TOUCH) or left (RELEASE) a zone's touch pad.

    `t_ms` is the mat controller's clock, milliseconds since its boot `boot_id` (the clock of
    the snapshots' `uptime_ms`), dated by the first poll that saw the change: compare it only
    with other times of the same boot. `at` is when the host received it (time.monotonic()).
    `side` is the half of the zone's split pad the finger reached first (docs/mat.md, "Whose
    hand: split pads"), so whose hand it was: None for a whole pad, a release, or a mat that
    does not tell sides.
    """

    kind: EventKind
    zone: str
    t_ms: int
    boot_id: int
    at: float = 0.0
    side: PadSide | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "event": self.kind.value,
            "zone": self.zone,
            "t_ms": self.t_ms,
            "boot_id": f"{self.boot_id:08x}",
        }
        if self.side is not None:
            out["side"] = self.side.text
        return out


MatEvent = CardEvent | ZoneEvent | LinkEvent | ResyncEvent | TouchEvent


def describe_event(event: MatEvent) -> str:
    """Returns one line for a person at the table."""
    if isinstance(event, CardEvent):
        what = event.card.code if event.card is not None else f"unknown tag {event.uid}"
        if event.kind is EventKind.REMOVED:
            return f"{event.zone}: {what} removed"
        if event.kind is EventKind.UNKNOWN_CARD:
            return (
                f"{event.zone}: unknown tag {event.uid} laid face {event.face.text} "
                "(enrol it with `tabletop cards enrol`)"
            )
        return f"{event.zone}: {what} {event.kind.value} face {event.face.text}"
    if isinstance(event, ZoneEvent):
        if event.kind is EventKind.ZONE_FAULT:
            return f"{event.zone}: reader not answering (being reset)"
        return f"{event.zone}: reader answering again"
    if isinstance(event, TouchEvent):
        what = "touched" if event.kind is EventKind.TOUCH else "released"
        side = f" ({event.side.text} half first)" if event.side is not None else ""
        return f"{event.zone}: {what} at {event.t_ms} ms{side}"
    if isinstance(event, LinkEvent):
        if event.kind is EventKind.LINK_UP:
            pads = f", touch pads on {event.touch_zones} zones" if event.touch_zones else ""
            return f"mat connected on {event.port} ({event.detail}{pads})"
        return f"mat lost on {event.port}: {event.detail}"
    return f"resynchronising with the mat: {event.reason}"
