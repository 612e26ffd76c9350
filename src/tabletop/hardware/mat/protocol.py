"""Mat serial protocol v1, host side: typed messages and their payload codecs.

docs/mat-protocol.md describes the bytes; src/tabletop/firmware/vectors/protocol-v1.json holds
golden frames that both this module and the firmware's `wire` module are tested against. This is a
separate implementation from the firmware's on purpose: the vectors, not shared code, keep them in
step.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import Enum, IntEnum

from .errors import FrameError

PROTOCOL_VERSION = 1
# Extensions of v1 a host asks for in HELLO_REQUEST's second byte (docs/mat-protocol.md,
# "Touch extension"); a mat sends their frames only to a host that asked.
EXT_TOUCH = 0x01
# With EXT_TOUCH: touches carry the half of a split pad first touched (touch extension v2,
# "Touch extension, version 2: sides"); a mat that does not know it answers as version 1.
EXT_TOUCH_SIDES = 0x02
TOUCH_VERSION = 1
TOUCH_SIDES_VERSION = 2


class MessageType(IntEnum):
    """Every message type; the high bit marks host -> mat commands."""

    HELLO = 0x01
    SNAPSHOT = 0x02
    PONG = 0x03
    RESULT = 0x04
    LOG = 0x05
    CAPABILITIES = 0x06  # touch extension: only to a host that asked
    TOUCH = 0x07  # touch extension: only to a host that asked
    TOUCH_SIDES = 0x08  # touch extension v2: only to a host that asked for sides
    HELLO_REQUEST = 0x81
    SNAPSHOT_REQUEST = 0x82
    PING = 0x83
    SET_LEDS = 0x84
    CONFIGURE = 0x85


class Face(Enum):
    """Which side of a card is up, as the slot's reflectance sensor judges it."""

    UNKNOWN = 0
    UP = 1
    DOWN = 2

    @property
    def text(self) -> str:
        """ "up", "down" or "unknown", as written in events."""
        return self.name.lower()


class PadSide(IntEnum):
    """Which half of a split touch pad a finger reached first (docs/mat.md, "Whose hand: split
    pads"): the half nearer the slot's owner, the half nearer the player across the table, or
    unknown (both halves in one poll, or a release)."""

    UNKNOWN = 0
    NEAR = 1
    FAR = 2

    @property
    def text(self) -> str:
        """ "near", "far" or "unknown", as written in events."""
        return self.name.lower()


class SnapshotReason(IntEnum):
    """Why the mat sent a snapshot."""

    BOOT = 0
    CHANGE = 1
    REQUEST = 2
    HEARTBEAT = 3


class ResultCode(IntEnum):
    """How a host command went."""

    OK = 0
    UNKNOWN_COMMAND = 1
    BAD_PAYLOAD = 2
    BAD_KEY = 3
    BAD_VALUE = 4


class ScanSetting(IntEnum):
    """CONFIGURE keys (src/tabletop/firmware/config.py has their limits)."""

    PRESENT_READS = 1
    ABSENT_MISSES = 2
    HEARTBEAT_MS = 3
    CONFIRM_GAP_MS = 4
    VERIFY_EVERY = 5
    FACE_THRESHOLD = 6
    FACE_HYSTERESIS = 7
    FACE_BRIGHTER = 8
    PRESENCE_CHECKS = 9
    SPLIT_SEATS = 10  # a bit per seat whose slots have split touch pads


@dataclass(frozen=True, slots=True)
class Hello:
    """The mat introduces itself: protocol version, boot id, layout, firmware version."""

    version: int
    boot_id: int
    seats: int
    slots: int
    pad: bool
    firmware: str

    @property
    def zone_count(self) -> int:
        return self.seats * self.slots + (1 if self.pad else 0)


@dataclass(frozen=True, slots=True)
class ZoneReading:
    """One zone in a snapshot: the card's UID (empty when none), face, quality and generation."""

    present: bool
    face: Face
    fault: bool
    generation: int
    quality: int = 0
    level: int = 0
    uid: bytes = b""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The whole mat at one moment: the truth the host's events are derived from."""

    boot_id: int
    seq: int
    uptime_ms: int
    reason: SnapshotReason
    zones: tuple[ZoneReading, ...]


@dataclass(frozen=True, slots=True)
class Pong:
    nonce: int
    uptime_ms: int


@dataclass(frozen=True, slots=True)
class Result:
    """The mat's answer to SET_LEDS and CONFIGURE (and to a command it does not know)."""

    for_type: int
    code: ResultCode
    text: str


@dataclass(frozen=True, slots=True)
class Log:
    level: int
    text: str


@dataclass(frozen=True, slots=True)
class Capabilities:
    """The extensions a mat has on, in answer to a HELLO_REQUEST that asked for extensions.

    `touch_zones` zones (from zone 0) have a touch pad; 0 means a mat built without them.
    `sample_ms` is how often its touch chips measure, `debounce` how many polls a change lasts.
    `split_zones` (touch version 2) are the zones whose pads are split in near and far halves.
    """

    extensions: int
    touch_version: int
    touch_zones: int
    sample_ms: int
    debounce: int
    split_zones: frozenset[int] = frozenset()

    @property
    def touch(self) -> bool:
        return bool(self.extensions & EXT_TOUCH) and self.touch_zones > 0

    @property
    def sides(self) -> bool:
        """Whether touches come with their side (TOUCH_SIDES frames)."""
        return self.touch and bool(self.extensions & EXT_TOUCH_SIDES)


@dataclass(frozen=True, slots=True)
class TouchReading:
    """One settled touch change: zone number, touched or released, the mat's ms (mod 2**32),
    and the half of a split pad first touched (UNKNOWN in a TOUCH frame, which has no sides)."""

    zone: int
    touched: bool
    t_ms: int
    side: PadSide = PadSide.UNKNOWN


@dataclass(frozen=True, slots=True)
class Touch:
    """A TOUCH or TOUCH_SIDES frame: touch changes in the order the mat saw them."""

    boot_id: int
    seq: int
    events: tuple[TouchReading, ...]
    sides: bool = False  # a TOUCH_SIDES frame: each event's side is the mat's word

    @property
    def name(self) -> str:
        return "TOUCH_SIDES" if self.sides else "TOUCH"


MatMessage = Hello | Snapshot | Pong | Result | Log | Capabilities | Touch

_HELLO = struct.Struct("<BIBBBB")
_SNAPSHOT = struct.Struct("<IIIBB")
_ZONE_HEAD = struct.Struct("<BB")
_ZONE_CARD = struct.Struct("<BHB")
_U32 = struct.Struct("<I")
_PONG = struct.Struct("<II")
_CAPABILITIES = struct.Struct("<BBBBB")
_TOUCH = struct.Struct("<IHB")
_TOUCH_EVENT = struct.Struct("<BBI")
_TOUCH_SIDE_EVENT = struct.Struct("<BBBI")
_FLAG_PRESENT = 0x01
_FLAG_FAULT = 0x08
_FACE_MASK = 0x06
_UID_SIZES = (4, 7, 10)
_FACES = (Face.UNKNOWN, Face.UP, Face.DOWN)


def _need(payload: bytes, size: int, what: str, msg_type: MessageType) -> None:
    if len(payload) < size:
        raise FrameError(
            f"{msg_type.name}: {what} needs {size} bytes, the payload has {len(payload)}",
            msg_type,
        )


def decode_message(msg_type: int, payload: bytes) -> MatMessage:
    """Returns the message a checked frame carries; raises FrameError if it does not read."""
    try:
        kind = MessageType(msg_type)
    except ValueError:
        raise FrameError(f"unknown message type 0x{msg_type:02x}", msg_type) from None
    if kind is MessageType.HELLO:
        _need(payload, _HELLO.size, "HELLO", kind)
        version, boot_id, seats, slots, pad, size = _HELLO.unpack_from(payload)
        if len(payload) != _HELLO.size + size:
            raise FrameError("HELLO: firmware text length does not match", kind)
        if not (1 <= seats <= 6 and 1 <= slots <= 6 and pad in (0, 1)):
            raise FrameError(f"HELLO: impossible layout {seats}x{slots} pad={pad}", kind)
        text = payload[_HELLO.size :].decode("utf-8", errors="replace")
        return Hello(version, boot_id, seats, slots, bool(pad), text)
    if kind is MessageType.SNAPSHOT:
        return _decode_snapshot(payload)
    if kind is MessageType.PONG:
        if len(payload) != _PONG.size:
            raise FrameError(f"PONG: needs 8 bytes, has {len(payload)}", kind)
        return Pong(*_PONG.unpack(payload))
    if kind is MessageType.RESULT:
        _need(payload, 2, "RESULT", kind)
        try:
            code = ResultCode(payload[1])
        except ValueError:
            raise FrameError(f"RESULT: unknown code {payload[1]}", kind) from None
        return Result(payload[0], code, payload[2:].decode("utf-8", errors="replace"))
    if kind is MessageType.LOG:
        _need(payload, 1, "LOG", kind)
        return Log(payload[0], payload[1:].decode("utf-8", errors="replace"))
    if kind is MessageType.CAPABILITIES:
        return _decode_capabilities(payload)
    if kind is MessageType.TOUCH:
        return _decode_touch(payload)
    if kind is MessageType.TOUCH_SIDES:
        return _decode_touch(payload, sides=True)
    raise FrameError(f"{kind.name} is a host command; a mat does not send it", msg_type)


def _decode_capabilities(payload: bytes) -> Capabilities:
    kind = MessageType.CAPABILITIES
    # Later versions may append fields: read the ones this host knows.
    if len(payload) < _CAPABILITIES.size:
        raise FrameError(f"CAPABILITIES: needs 5 bytes, has {len(payload)}", kind)
    extensions, version, zones, sample_ms, debounce = _CAPABILITIES.unpack_from(payload)
    split: set[int] = set()
    if version >= TOUCH_SIDES_VERSION:
        size = _CAPABILITIES.size + (zones + 7) // 8
        if len(payload) < size:
            raise FrameError(
                f"CAPABILITIES: touch v{version} with {zones} zones needs {size} bytes, "
                f"has {len(payload)}",
                kind,
            )
        for index, byte in enumerate(payload[_CAPABILITIES.size : size]):
            split.update(index * 8 + bit for bit in range(8) if byte & (1 << bit))
        beyond = sorted(z for z in split if z >= zones)
        if beyond:
            raise FrameError(
                f"CAPABILITIES: zone {beyond[0]} split, but only zones 0-{zones - 1} have pads",
                kind,
            )
    return Capabilities(extensions, version, zones, sample_ms, debounce, frozenset(split))


def _decode_touch(payload: bytes, sides: bool = False) -> Touch:
    kind = MessageType.TOUCH_SIDES if sides else MessageType.TOUCH
    event = _TOUCH_SIDE_EVENT if sides else _TOUCH_EVENT
    _need(payload, _TOUCH.size, "header", kind)
    boot_id, seq, count = _TOUCH.unpack_from(payload)
    size = _TOUCH.size + count * event.size
    if len(payload) != size:
        raise FrameError(
            f"{kind.name}: {count} event(s) need {size} bytes, the payload has {len(payload)}",
            kind,
        )
    events = []
    for index in range(count):
        at = _TOUCH.size + index * event.size
        side = PadSide.UNKNOWN
        if sides:
            zone, state, side_code, t_ms = _TOUCH_SIDE_EVENT.unpack_from(payload, at)
            try:
                side = PadSide(side_code)
            except ValueError:
                raise FrameError(
                    f"{kind.name}: event {index} has side {side_code}, not 0, 1 or 2", kind
                ) from None
        else:
            zone, state, t_ms = _TOUCH_EVENT.unpack_from(payload, at)
        if state > 1:
            raise FrameError(f"{kind.name}: event {index} has state {state}, not 0 or 1", kind)
        events.append(TouchReading(zone, state == 1, t_ms, side))
    return Touch(boot_id, seq, tuple(events), sides)


def check_touch_zones(touch: Touch, zone_count: int) -> None:
    """Raises FrameError when a TOUCH names a zone the mat's HELLO did not announce."""
    for index, event in enumerate(touch.events):
        if event.zone >= zone_count:
            kind = MessageType.TOUCH_SIDES if touch.sides else MessageType.TOUCH
            raise FrameError(
                f"{kind.name}: event {index} names zone {event.zone}; the mat has "
                f"{zone_count} zones",
                kind,
            )


def unwrap_ms(last: int | None, wire_ms: int) -> int:
    """The mat's milliseconds since boot from a u32 time on the wire, given the last one.

    Times travel modulo 2**32 (49.7 days); a time within 2**31 ms of the last is taken as the
    nearest, so the count goes on past the wrap instead of jumping back to 0."""
    if last is None:
        return wire_ms
    delta = (wire_ms - last + (1 << 31)) % (1 << 32) - (1 << 31)
    return last + delta


def _decode_snapshot(payload: bytes) -> Snapshot:
    kind = MessageType.SNAPSHOT
    _need(payload, _SNAPSHOT.size, "SNAPSHOT header", kind)
    boot_id, seq, uptime, reason_code, count = _SNAPSHOT.unpack_from(payload)
    try:
        reason = SnapshotReason(reason_code)
    except ValueError:
        raise FrameError(f"SNAPSHOT: unknown reason {reason_code}", kind) from None
    zones = []
    at = _SNAPSHOT.size
    for index in range(count):
        _need(payload, at + _ZONE_HEAD.size, f"zone {index}", kind)
        flags, generation = _ZONE_HEAD.unpack_from(payload, at)
        at += _ZONE_HEAD.size
        if flags & ~(_FLAG_PRESENT | _FACE_MASK | _FLAG_FAULT):
            raise FrameError(f"SNAPSHOT: zone {index} has unknown flags 0x{flags:02x}", kind)
        face_code = (flags & _FACE_MASK) >> 1
        if face_code == 3:
            raise FrameError(f"SNAPSHOT: zone {index} has face code 3", kind)
        face = _FACES[face_code]
        if not flags & _FLAG_PRESENT:
            zones.append(ZoneReading(False, face, bool(flags & _FLAG_FAULT), generation))
            continue
        _need(payload, at + _ZONE_CARD.size, f"zone {index} card", kind)
        quality, level, size = _ZONE_CARD.unpack_from(payload, at)
        at += _ZONE_CARD.size
        if size not in _UID_SIZES or quality > 100:
            raise FrameError(f"SNAPSHOT: zone {index} has UID size {size}, quality {quality}", kind)
        _need(payload, at + size, f"zone {index} UID", kind)
        uid = bytes(payload[at : at + size])
        at += size
        zones.append(
            ZoneReading(True, face, bool(flags & _FLAG_FAULT), generation, quality, level, uid)
        )
    if at != len(payload):
        raise FrameError(f"SNAPSHOT: {len(payload) - at} bytes after the last zone", kind)
    return Snapshot(boot_id, seq, uptime, reason, tuple(zones))


# ---- commands the host sends --------------------------------------------------------------


def hello_request(extensions: int = 0) -> tuple[MessageType, bytes]:
    """HELLO_REQUEST; with `extensions` (EXT_TOUCH) the second byte asks for them. A v1 mat
    ignores it; a mat that has them answers HELLO, then CAPABILITIES."""
    if not extensions:
        return MessageType.HELLO_REQUEST, bytes([PROTOCOL_VERSION])
    return MessageType.HELLO_REQUEST, bytes([PROTOCOL_VERSION, extensions])


def snapshot_request() -> tuple[MessageType, bytes]:
    return MessageType.SNAPSHOT_REQUEST, b""


def ping(nonce: int) -> tuple[MessageType, bytes]:
    return MessageType.PING, _U32.pack(nonce)


@dataclass(frozen=True, slots=True)
class LedSetting:
    """One guidance LED's colour; zone 255 sets every zone."""

    zone: int
    red: int
    green: int
    blue: int
    blink: bool = False


def set_leds(leds: list[LedSetting]) -> tuple[MessageType, bytes]:
    payload = bytearray([len(leds)])
    for led in leds:
        payload += bytes([led.zone, led.red, led.green, led.blue, 1 if led.blink else 0])
    return MessageType.SET_LEDS, bytes(payload)


def configure(settings: dict[ScanSetting, int]) -> tuple[MessageType, bytes]:
    payload = bytearray([len(settings)])
    for key, value in settings.items():
        payload += struct.pack("<BH", int(key), value)
    return MessageType.CONFIGURE, bytes(payload)


# ---- messages the mat sends, for the simulator's tests and tools ---------------------------


def encode_snapshot(snapshot: Snapshot) -> bytes:
    """Returns the SNAPSHOT payload for `snapshot` (tests and fuzzers build streams with it)."""
    out = bytearray(
        _SNAPSHOT.pack(
            snapshot.boot_id,
            snapshot.seq,
            snapshot.uptime_ms,
            int(snapshot.reason),
            len(snapshot.zones),
        )
    )
    for zone in snapshot.zones:
        flags = (_FLAG_PRESENT if zone.present else 0) | (zone.face.value << 1)
        flags |= _FLAG_FAULT if zone.fault else 0
        out += _ZONE_HEAD.pack(flags, zone.generation)
        if zone.present:
            out += _ZONE_CARD.pack(zone.quality, zone.level, len(zone.uid)) + zone.uid
    return bytes(out)


def describe(message: MatMessage) -> str:
    """Returns one line a person can read, for `tabletop mat monitor --frames`."""
    if isinstance(message, Snapshot):
        cards = [
            f"{i}:{z.uid.hex()}/{z.face.text}/q{z.quality}/g{z.generation}"
            for i, z in enumerate(message.zones)
            if z.present
        ]
        faults = [str(i) for i, z in enumerate(message.zones) if z.fault]
        return (
            f"SNAPSHOT boot={message.boot_id:08x} seq={message.seq} "
            f"reason={message.reason.name.lower()} zones={len(message.zones)} "
            f"cards=[{' '.join(cards)}]" + (f" faults=[{' '.join(faults)}]" if faults else "")
        )
    if isinstance(message, Hello):
        return (
            f"HELLO v{message.version} boot={message.boot_id:08x} "
            f"{message.seats}x{message.slots}{'+pad' if message.pad else ''} {message.firmware!r}"
        )
    if isinstance(message, Pong):
        return f"PONG nonce={message.nonce} uptime={message.uptime_ms}ms"
    if isinstance(message, Capabilities):
        return (
            f"CAPABILITIES extensions=0x{message.extensions:02x} touch=v{message.touch_version} "
            f"touch_zones={message.touch_zones} sample={message.sample_ms}ms "
            f"debounce={message.debounce}"
            + (
                f" split=[{' '.join(map(str, sorted(message.split_zones)))}]"
                if message.touch_version >= TOUCH_SIDES_VERSION
                else ""
            )
        )
    if isinstance(message, Touch):
        changes = " ".join(
            f"{e.zone}:{'touch' if e.touched else 'release'}@{e.t_ms}"
            + (f"/{e.side.text}" if message.sides else "")
            for e in message.events
        )
        return f"{message.name} boot={message.boot_id:08x} seq={message.seq} [{changes}]"
    if isinstance(message, Result):
        return f"RESULT for=0x{message.for_type:02x} {message.code.name} {message.text!r}"
    return f"LOG level={message.level} {message.text!r}"
