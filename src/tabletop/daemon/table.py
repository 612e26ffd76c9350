"""The rules daemon's view of a physical table: mat and dice messages in, commands and alerts out.

`PhysicalTable` decodes what the bridge publishes (`mat/snapshot`, `mat/event`, `dice/event`),
hands it to the pure `TableReader`, and keeps what the table must be told: the alerts and
instructions (retained on `table/alert`) and the seat LED frame with the slots a game lights
(retained on `leds/frame`).
Malformed payloads are logged and dropped; they never reach the game. Only the bridge the
daemon expects is heard: each of its messages carries its boot id and a rising `seq`
(`BridgeGate`); anything else on those topics is dropped with an alert.
"""

from __future__ import annotations

import logging
import re
from collections import deque
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from tabletop.rules.games.cards import DECK_CODE, parse_card
from tabletop.rules.games.errors import RulesError
from tabletop.rules.games.game import TOUCH_SIDES, GameRules, Reroll, TableReader, touch_observer
from tabletop.rules.games.reading import EMPTY, Action, Alert, AlertCleared, SlotView

# The LED frame's format is the LED driver's own; the daemon fills it with the game's
# counts.
from tabletop.wire.leds import frame_for_counts
from tabletop.wire.payload import read_json
from tabletop.wire.throttled_log import ThrottledLog
from tabletop.wire.topics import TableTopics

log = logging.getLogger(__name__)

ALERT_FORMAT_VERSION: Final = 1
BRIDGE_ALERT: Final = "bridge"
# The table's devices went quiet: the bridge left (its last will) or the mat is unplugged.
BRIDGE_GONE_ALERT: Final = "bridge.offline"
MAT_GONE_ALERT: Final = "mat.offline"
# The bridge runs, but says on `bridge/availability` that its camera gives no frames.
CAMERA_GONE_ALERT: Final = "camera.offline"
# The alerts about the table's devices, which a new game does not clear.
DEVICE_ALERTS: Final = frozenset(
    {BRIDGE_ALERT, BRIDGE_GONE_ALERT, MAT_GONE_ALERT, CAMERA_GONE_ALERT}
)
# The longest words of the bridge's that an alert quotes.
BRIDGE_WORDS_MOST: Final = 300
# How long the mat must stay disconnected before the table says so.
MAT_GONE_ALERT_SECONDS: Final = 3.0
# How long after the last message of an unexpected sender its alert stays up.
STRANGER_ALERT_SECONDS: Final = 10.0
_BRIDGE_ID = re.compile(r"^[0-9A-Za-z_-]{1,64}$")


# A bridge numbers all its messages with one counter; between two messages of one topic it
# sends a few others, and while the daemon was away perhaps thousands. A jump past this, plus
# JUMP_PER_SECOND for each second since the topic's last message, is beyond reason (issue 33.7).
SEQ_JUMP_ALLOWED: Final = 10_000
JUMP_PER_SECOND: Final = 1_000
# Another bridge is taken for the table's once the table's own has said nothing this long.
BRIDGE_SILENT_SECONDS: Final = 10.0
# The taken sequence numbers remembered per topic, to tell a repeat from a message behind.
RECENT_KEPT: Final = 64
# New messages behind the last taken number, each newer than the one before, that show the
# number was never the bridge's (a forged jump): the gate follows the bridge again.
BEHIND_TO_RECOVER: Final = 3


@dataclass(frozen=True, slots=True)
class Admission:
    """What the gate does with one message: take it or not, and what the table is told."""

    take: bool
    alert: str | None = None


@dataclass(slots=True)
class BridgeGate:
    """Which bridge's table events the daemon takes: one bridge, each message newer than the last.

    The first bridge heard is the table's; another is taken instead only when it has just
    started (its first message, `seq` 1), the table's bridge said it went offline, or the
    table's bridge has said nothing for BRIDGE_SILENT_SECONDS while the other speaks. Per
    topic a message must carry a higher `seq` than the last taken: a repeat (a QoS 1
    redelivery, a replay of an old message) is dropped quietly.

    A forged `seq` must not mute the bridge: a jump beyond reason is refused with an alert,
    and when new messages keep coming behind the last taken number (each newer than the one
    before, none of them a repeat), that number was never the bridge's: the gate says so in
    an alert and follows the bridge's own numbers again.
    """

    bridge: str | None = None
    last_seq: dict[str, int] = field(default_factory=dict)
    last_at: dict[str, float] = field(default_factory=dict)
    recent: dict[str, deque[int]] = field(default_factory=dict)
    behind: dict[str, list[int]] = field(default_factory=dict)

    def admit(self, topic: str, raw: dict[str, Any], now: float = 0.0) -> Admission:
        """Whether to take the message, and what the table should be told about it."""
        sender, seq = raw.get("bridge"), raw.get("seq")
        if not isinstance(sender, str) or not _BRIDGE_ID.match(sender):
            return Admission(False, 'it names no bridge (a "bridge" id of 1-64 letters and digits)')
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            return Admission(
                False, f'bridge {sender}: it has no sequence number ("seq" 1, 2, 3, ...)'
            )
        taken_over: str | None = None
        if sender != self.bridge:
            if self.bridge is not None and seq != 1:
                quiet = max(self.last_at.values(), default=None)
                if quiet is not None and now - quiet < BRIDGE_SILENT_SECONDS:
                    return Admission(
                        False,
                        f"it comes from bridge {sender}, but this table's bridge is "
                        f"{self.bridge}: is a second bridge running for this table?",
                    )
                # The table's bridge has said nothing for a while and another speaks: it was
                # restarted while this daemon was away (its first message missed, and an old
                # retained snapshot heard first). Said, so a second bridge does not go unseen.
                taken_over = (
                    f"bridge {sender} now speaks for this table: bridge {self.bridge} has said "
                    f"nothing for {BRIDGE_SILENT_SECONDS:g} s (restarted?)"
                )
            self.offline()
            self.bridge = sender
        last = self.last_seq.get(topic)
        recent = self.recent.setdefault(topic, deque(maxlen=RECENT_KEPT))
        if last is not None and seq <= last:
            if seq in recent or seq <= min(recent, default=0):
                return Admission(False)  # a repeat, or older than anything remembered
            return self._behind(topic, seq, last, now)
        if last is not None:
            allowed = SEQ_JUMP_ALLOWED + JUMP_PER_SECOND * max(0.0, now - self.last_at[topic])
            if seq - last > allowed:
                return Admission(
                    False,
                    f"bridge {sender}: {_relative(topic)} jumps from seq {last} to {seq}, beyond "
                    "reason (a forged message?)",
                )
        self._take(topic, seq, now)
        return Admission(True, taken_over)

    def _behind(self, topic: str, seq: int, last: int, now: float) -> Admission:
        """A new message behind the last taken number: after a few in a row the number is
        taken for a forgery and the bridge is followed again, said in an alert."""
        run = self.behind.setdefault(topic, [])
        if run and seq <= run[-1]:
            run.clear()
        run.append(seq)
        where = _relative(topic)
        if len(run) < BEHIND_TO_RECOVER:
            return Admission(
                False,
                f"bridge {self.bridge}: {where} seq {seq} is behind {last}, a number it has not "
                "reached (a forged message?)",
            )
        self._take(topic, seq, now)
        return Admission(
            True,
            f"bridge {self.bridge}: {where} had been pushed to seq {last}, a number the bridge "
            f"never sent (a forged message?); following the bridge's own numbers again from {seq}",
        )

    def _take(self, topic: str, seq: int, now: float) -> None:
        self.last_seq[topic] = seq
        self.last_at[topic] = now
        self.recent.setdefault(topic, deque(maxlen=RECENT_KEPT)).append(seq)
        self.behind.pop(topic, None)

    def offline(self) -> None:
        """The table's bridge stopped: the next bridge to speak becomes the table's."""
        self.bridge = None
        self.last_seq.clear()
        self.last_at.clear()
        self.recent.clear()
        self.behind.clear()


def _relative(topic: str) -> str:
    """A table topic as people read it: `mat/event` rather than its full path."""
    return "/".join(topic.split("/")[-2:])


_SLOT_ZONE = re.compile(r"^s([1-9][0-9]?)\.([1-9][0-9]?)$")


class PhysicalTable:
    """Reads one table's mat and dice for the rules daemon."""

    def __init__(
        self, topics: TableTopics, seats: Sequence[str], grace: float, rules: GameRules
    ) -> None:
        self.topics = topics
        self.seats = list(seats)
        self.grace = grace
        self.rules = rules
        self.reader: TableReader = rules.table_reader(self.seats, grace)
        self.alerts: dict[str, Alert] = {}
        self.gate = BridgeGate()
        self.dropped = 0
        self._stranger_seen: float | None = None
        self._mat_gone_since: float | None = None  # the bridge said the mat is not connected
        self._mat_words: str | None = None  # why, in the bridge's words (bridge/availability)
        self._warnings = ThrottledLog(log)

    def use(self, rules: GameRules) -> None:
        """The table now plays `rules`' game: its reader takes over what the mat shows."""
        if rules is self.rules:
            return
        seen = dict(self.reader.seen)
        self.rules = rules
        self.reader = rules.table_reader(self.seats, self.grace)
        self.reader.seen.update(seen)
        self.alerts = {key: alert for key, alert in self.alerts.items() if key in DEVICE_ALERTS}

    @property
    def subscriptions(self) -> list[tuple[str, int]]:
        """The bridge's topics this daemon reads."""
        return [(topic, 1) for topic in self._topics]

    @property
    def _topics(self) -> tuple[str, ...]:
        return (
            self.topics.mat_snapshot,
            self.topics.mat_event,
            self.topics.dice_event,
            self.topics.bridge_availability,
        )

    def owns(self, topic: str) -> bool:
        """True for a topic this class reads."""
        return topic in self._topics

    def message(self, topic: str, payload: bytes, state: Any, now: float) -> list[Action]:
        """Turns one bridge message into the reader's actions; bad payloads are dropped."""
        if topic == self.topics.bridge_availability:
            if payload == b"offline":
                self.gate.offline()
                return [
                    Alert(
                        BRIDGE_GONE_ALERT,
                        "the table's bridge went offline: the mat and the dice are not read "
                        "until it is back (is the Pi on, and tabletop bridge running?)",
                    )
                ]
            return self._availability(payload, now)
        try:
            raw = read_json(payload)
            if not isinstance(raw, dict) or raw.get("v") != 1:
                raise ValueError('expected a JSON object with "v": 1')
            admitted = self.gate.admit(topic, raw, now)
            if not admitted.take:
                return [] if admitted.alert is None else self._stranger(topic, admitted.alert, now)
            told: list[Action] = []
            if admitted.alert is not None:  # the gate recovered from a forged number
                self._stranger_seen = now
                self._warnings.warning(f"gate {topic}", "%s", admitted.alert)
                told.append(Alert(BRIDGE_ALERT, admitted.alert))
            if topic == self.topics.mat_snapshot:
                return told + self._snapshot(raw, state, now)
            if topic == self.topics.mat_event:
                return told + self._mat_event(raw, state, now)
            return told + self._dice(raw, state, now)
        except (ValueError, KeyError, TypeError, RulesError) as error:  # PayloadError too
            self.dropped += 1
            self._warnings.warning(
                f"malformed {topic}", "dropped a malformed message on %s: %s", topic, error
            )
            return []

    def _availability(self, payload: bytes, now: float) -> list[Action]:
        """`online`, or `degraded: mat, camera` with the bridge's words for each missing part
        on a line of its own (docs/mqtt.md): the camera's is an alert at once, the mat's
        words go into its alert (raised after MAT_GONE_ALERT_SECONDS, as before)."""
        first, *rest = payload.decode("utf-8", "replace").splitlines() or [""]
        state, _, named = first.partition(":")
        missing = {part.strip() for part in named.split(",")} & {"mat", "camera"}
        if first.strip() != "online" and (state.strip() != "degraded" or not missing):
            return []  # nothing this daemon knows how to read: left as it was
        words: dict[str, str] = {}
        for line in rest:
            part, _, said = line.partition(":")
            if part.strip() in missing and said.strip():
                words[part.strip()] = said.strip()[:BRIDGE_WORDS_MOST]
        actions: list[Action] = [AlertCleared(BRIDGE_GONE_ALERT)]
        if "camera" in missing:
            why = words.get("camera", "it gives no frames")
            actions.append(
                Alert(
                    CAMERA_GONE_ALERT,
                    f"the dice camera is not read: {why} (dice thrown meanwhile are not seen: "
                    "enter them with tabletop gm)",
                )
            )
        else:
            actions.append(AlertCleared(CAMERA_GONE_ALERT))
        self._mat_words = words.get("mat") if "mat" in missing else None
        if "mat" in missing:
            if self._mat_gone_since is None:
                self._mat_gone_since = now
            return actions + self.tick_mat(now)
        return actions

    def tick_mat(self, now: float) -> list[Action]:
        """The mat's alert, once it has been away MAT_GONE_ALERT_SECONDS."""
        gone = self._mat_gone_since
        if gone is None or now - gone < MAT_GONE_ALERT_SECONDS:
            return []
        why = f": {self._mat_words}" if self._mat_words else " (check its USB cable)"
        return [
            Alert(
                MAT_GONE_ALERT,
                f"the sensor mat is not connected to the bridge{why}; cards laid now are not "
                "read until it is back",
            )
        ]

    def _stranger(self, topic: str, why: str, now: float) -> list[Action]:
        self.dropped += 1
        self._stranger_seen = now
        self._warnings.warning(f"stranger {topic}", "ignored a message on %s: %s", topic, why)
        return [Alert(BRIDGE_ALERT, f"table events ignored: {why}")]

    def tick(self, state: Any, now: float) -> list[Action]:
        """What the passing of time changes: the reader's grace periods, stale alerts."""
        actions = self.reader.tick(state, now)
        seen = self._stranger_seen
        if seen is not None and now - seen >= STRANGER_ALERT_SECONDS:
            self._stranger_seen = None
            actions.append(AlertCleared(BRIDGE_ALERT))
        return actions + self.tick_mat(now)

    def _snapshot(self, raw: dict[str, Any], state: Any, now: float) -> list[Action]:
        zones = raw["zones"]
        if not isinstance(zones, dict):
            raise ValueError("zones: expected an object keyed by zone")
        actions: list[Action] = [AlertCleared(BRIDGE_GONE_ALERT)]
        if raw.get("connected") is False:
            # Said once it lasts (tick): a bridge starting, or a cable re-seated, is no alarm.
            if self._mat_gone_since is None:
                self._mat_gone_since = now
        elif raw.get("connected") is True:
            self._mat_gone_since = None
            self._mat_words = None
            actions.append(AlertCleared(MAT_GONE_ALERT))
        views: dict[tuple[int, int], SlotView] = {}
        for zone, held in zones.items():
            match = _SLOT_ZONE.match(zone)
            if match is None or not isinstance(held, dict):
                continue  # the draw pad and unknown zones are not slots
            seat, slot = int(match.group(1)) - 1, int(match.group(2))
            if seat >= len(self.seats) or slot > self.rules.mat_layout({}).slots_per_seat:
                continue
            views[(seat, slot)] = _slot_view(held, f"zones.{zone}.card")
        slots = self.rules.mat_layout({}).slots_per_seat
        changed = {
            (seat, slot): views.get((seat, slot), EMPTY)
            for seat in range(len(self.seats))
            for slot in range(1, slots + 1)
            if self.reader.seen.get((seat, slot), EMPTY) != views.get((seat, slot), EMPTY)
        }
        whole = getattr(self.reader, "observe_slots", None)
        if callable(whole) and changed:
            return actions + list(whole(state, changed, now))  # `SnapshotReader`
        for (seat, slot), view in changed.items():
            actions += self.reader.observe_slot(state, seat, slot, view, now)
        return actions

    def _mat_event(self, raw: dict[str, Any], state: Any, now: float) -> list[Action]:
        # Slots are read from the snapshots (the truth); events only tell the draw pad, and
        # touches, which are moments, not state.
        if raw.get("zone") == "pad" and raw.get("event") == "placed" and raw.get("card"):
            return self.reader.observe_pad(state, parse_card(raw["card"], "card"), now)
        if raw.get("event") == "touch":
            return self._touch(raw, state, now)
        return []

    def _touch(self, raw: dict[str, Any], state: Any, now: float) -> list[Action]:
        observe = touch_observer(self.reader)
        match = _SLOT_ZONE.match(raw["zone"]) if isinstance(raw.get("zone"), str) else None
        if observe is None or match is None:
            return []  # a game without touches, or the draw pad
        at_ms = raw["t_ms"]
        if not isinstance(at_ms, int) or isinstance(at_ms, bool) or at_ms < 0:
            raise ValueError("t_ms: expected the mat's milliseconds, a whole number >= 0")
        side = raw.get("side")
        if side is not None and side not in TOUCH_SIDES:
            raise ValueError(f"side: expected {', '.join(TOUCH_SIDES)} or none, got {side!r}"[:200])
        seat, slot = int(match.group(1)) - 1, int(match.group(2))
        if seat >= len(self.seats) or slot > self.rules.mat_layout({}).slots_per_seat:
            return []
        return observe(state, seat, slot, at_ms, now, side=side)  # None: a whole pad

    def _dice(self, raw: dict[str, Any], state: Any, now: float) -> list[Action]:
        kind = raw["event"]
        if kind == "rolled":
            values = raw["values"]
            if not isinstance(values, list) or not all(isinstance(v, int) for v in values):
                raise ValueError("values: expected a list of integers")
            return self.reader.observe_dice(state, values, now, _reroll(raw))
        if kind == "unreadable":  # never a guess: the game gets no roll until it is known
            return [Alert("dice", _unsure_words(raw))]
        if kind == "cocked":
            return [Alert("dice", f"the die is {kind}: throw it again")]
        if kind == "unclear":  # the camera cannot tell (and says why): never a guess
            reason = raw.get("reason")
            why = reason[:200] if isinstance(reason, str) and reason else "the camera cannot tell"
            # The watcher's own reasons may already ask for it ("... at rest: throw again").
            asked = why.rstrip(". ").endswith("throw again")
            return [Alert("dice", why if asked else f"{why}: throw again")]
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

    def alert_payload(self, hidden: Collection[str] | None = None) -> dict[str, Any]:
        """The retained alert message: what is wrong and what the players must do.

        With `hidden` (the names the public view hides: `hidden_names`) it is the public
        `table/alert`, each of those names said as "the card"; without, the referee's
        `referee/alert`, in the reader's own words."""
        words = (lambda text: text) if hidden is None else _public_words(hidden)
        return {
            "v": ALERT_FORMAT_VERSION,
            "alerts": [
                {"key": a.key, "message": words(a.message), "seat": a.seat, "slot": a.slot}
                for a in self.alerts.values()
                if hidden is None or not a.private  # the game master's alone (`Alert.private`)
            ],
            "instructions": [words(text) for text in self.reader.instructions],
        }

    def led_payload(self, state: Any) -> dict[str, Any]:
        """The retained `leds/frame` message: what the game's indicators show now."""
        indicators = self.rules.indicators(state, self.seats)
        frame = frame_for_counts([(seat.lit, seat.blinking) for seat in indicators.seats])
        # The slots' guidance LEDs ride along: one retained picture of everything lit.
        slots = [light.to_json() for light in indicators.slots if light.seat < len(self.seats)]
        return {**frame.to_json(), "meaning": indicators.meaning, "slots": slots}


# A card of a game's own deck, as the card map names it: `deck/id` (`cowboy/draw-1`).
_DECK_CODE = DECK_CODE


_UID = re.compile(r"^[0-9A-F]{8,20}$")


def _slot_view(held: dict[str, Any], where: str) -> SlotView:
    """One zone of a snapshot: a playing card, a game deck's card (`deck/id`), a tag the card
    map does not know (`?UID`: never taken for an empty slot), or empty."""
    code = held.get("card")
    face_up = held.get("face") == "up"
    if not code:
        uid = held.get("uid")
        if isinstance(uid, str) and _UID.match(uid):
            return SlotView(None, face_up, f"?{uid}")
        return EMPTY
    if isinstance(code, str) and _DECK_CODE.match(code):
        return SlotView(None, face_up, code)
    return SlotView(parse_card(code, where), face_up)


def _unsure_words(raw: dict[str, Any]) -> str:
    """The alert for a throw with dice the camera could not read for sure (`unsure` in the
    dice event, docs/mqtt.md): the game master gives each its value on the throw's photo, or
    the player throws again."""
    unsure = raw.get("unsure")
    count = len(unsure) if isinstance(unsure, list) and unsure else 1
    dice = "1 die" if count == 1 else f"{count} dice"
    them = "it" if count == 1 else "each"
    return (
        f"{dice} could not be read for sure (? on the throw's photo): game master, tap {them} "
        "on the photo to give its value, or throw again"
    )


def _reroll(raw: dict[str, Any]) -> Reroll | None:
    """Which dice stayed from the last throw, when the camera compared the two (else None)."""
    if not any(key in raw for key in ("kept", "moved", "thrown")):
        return None
    parts: list[tuple[int, ...]] = []
    for key in ("kept", "moved", "thrown"):
        values = raw.get(key, [])
        if not isinstance(values, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in values
        ):
            raise ValueError(f"{key}: expected a list of die values 1 to 6")
        parts.append(tuple(values))
    return Reroll(kept=parts[0], moved=parts[1], thrown=parts[2])


# A name the referee's view may hold that the public's does not: a card (`9C`), a bullet
# (`cowboy/draw-1`). Short and without spaces, so no sentence of a view is taken for one.
_NAME = re.compile(r"^[^\s]{1,40}$")
HIDDEN_CARD_WORDS = "the card"


def hidden_names(referee_view: Any, public_view: Any) -> frozenset[str]:
    """The short names in the referee's view that the public view does not show.

    A table alert is retained where the viewer role reads it (issue 33 finding 6): its
    words must not name what the public view hides, whatever a game's reader wrote."""
    return frozenset(
        name for name in _leaves(referee_view) - _leaves(public_view) if _NAME.match(name)
    )


def _leaves(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_leaves(item) for item in value.values()))
    if isinstance(value, list | tuple):
        return set().union(*(_leaves(item) for item in value))
    return set()


def _public_words(hidden: Collection[str]) -> Callable[[str], str]:
    """A text with each hidden name, as a whole word, said as "the card"."""
    if not hidden:
        return lambda text: text
    names = "|".join(re.escape(name) for name in sorted(hidden, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w/-])(?:{names})(?![\w/-])")
    return lambda text: pattern.sub(HIDDEN_CARD_WORDS, text)
