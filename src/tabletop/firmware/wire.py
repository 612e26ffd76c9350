"""The mat's side of serial protocol v1: frames, the messages the mat sends, the commands it reads.

A frame is SOF, version, type, payload length (u16 LE), payload, CRC-32 (LE) over everything
between SOF and the CRC. docs/mat-protocol.md is the reference;
src/tabletop/firmware/vectors/protocol-v1.json holds golden bytes that this module and the host's
decoder are both tested against.
"""

import struct

try:
    from binascii import crc32
except ImportError:  # a MicroPython build without binascii.crc32
    crc32 = None

SOF = 0xA5
VERSION = 1
HEADER_SIZE = 5
CRC_SIZE = 4
MAX_PAYLOAD = 1024

# Mat -> host
HELLO = 0x01
SNAPSHOT = 0x02
PONG = 0x03
RESULT = 0x04
LOG = 0x05
# Mat -> host, only to a host that asked for extensions in its HELLO_REQUEST (touch extension)
CAPABILITIES = 0x06
TOUCH = 0x07
TOUCH_SIDES = 0x08  # touch extension v2: TOUCH with the half of a split pad first touched
# Host -> mat
HELLO_REQUEST = 0x81
SNAPSHOT_REQUEST = 0x82
PING = 0x83
SET_LEDS = 0x84
CONFIGURE = 0x85

COMMAND_TYPES = (HELLO_REQUEST, SNAPSHOT_REQUEST, PING, SET_LEDS, CONFIGURE)

# Why a snapshot was sent
REASON_BOOT = 0
REASON_CHANGE = 1
REASON_REQUEST = 2
REASON_HEARTBEAT = 3

# Zone record flags
FLAG_PRESENT = 0x01
FACE_SHIFT = 1
FACE_MASK = 0x06
FLAG_FAULT = 0x08
FACE_UNKNOWN = 0
FACE_UP = 1
FACE_DOWN = 2

# RESULT codes
OK = 0
UNKNOWN_COMMAND = 1
BAD_PAYLOAD = 2
BAD_KEY = 3
BAD_VALUE = 4

LOG_INFO = 0
LOG_WARNING = 1
LOG_ERROR = 2

# Extensions a host asks for in HELLO_REQUEST's second byte, and a mat offers in CAPABILITIES
EXT_TOUCH = 0x01
EXT_TOUCH_SIDES = 0x02  # with EXT_TOUCH: touches carry their side (touch extension v2)
TOUCH_VERSION = 1
TOUCH_SIDES_VERSION = 2
TOUCH_EVENT_SIZE = 6
TOUCH_SIDE_EVENT_SIZE = 7
MAX_TOUCH_EVENTS = 64  # per TOUCH frame


def _crc32_soft(data, crc=0):
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def checksum(data):
    """Returns the CRC-32 (IEEE, as zlib computes it) of `data`."""
    if crc32 is None:
        return _crc32_soft(data)
    return crc32(data) & 0xFFFFFFFF


def encode_frame(msg_type, payload=b""):
    """Returns one complete frame carrying `payload` as a message of `msg_type`."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload of %d bytes is over %d" % (len(payload), MAX_PAYLOAD))
    body = struct.pack("<BBH", VERSION, msg_type, len(payload)) + payload
    return bytes([SOF]) + body + struct.pack("<I", checksum(body))


class FrameReader:
    """Cuts a byte stream into (type, payload) frames, skipping damage; counts what it skipped.

    After a frame fails its check the search restarts one byte after that frame's SOF, so a
    good frame hidden behind a damaged one is never lost.
    """

    def __init__(self):
        self._buffer = bytearray()
        self.frames = 0
        self.damaged = 0
        self.skipped_bytes = 0

    def feed(self, data):
        """Adds received bytes; returns the list of complete, checked (type, payload) frames."""
        self._buffer.extend(data)
        found = []
        buffer = self._buffer
        start = 0
        while True:
            sof = buffer.find(bytes([SOF]), start)
            if sof < 0:
                self.skipped_bytes += len(buffer) - start
                start = len(buffer)
                break
            self.skipped_bytes += sof - start
            start = sof
            if len(buffer) - start < HEADER_SIZE:
                break
            version = buffer[start + 1]
            length = buffer[start + 3] | (buffer[start + 4] << 8)
            if version != VERSION or length > MAX_PAYLOAD:
                self.damaged += 1
                self.skipped_bytes += 1
                start += 1
                continue
            end = start + HEADER_SIZE + length + CRC_SIZE
            if len(buffer) < end:
                break
            body = bytes(buffer[start + 1 : end - CRC_SIZE])
            (expected,) = struct.unpack("<I", bytes(buffer[end - CRC_SIZE : end]))
            if checksum(body) != expected:
                self.damaged += 1
                self.skipped_bytes += 1
                start += 1
                continue
            found.append((buffer[start + 2], body[4:]))
            self.frames += 1
            start = end
        self._buffer = buffer[start:]
        return found

    def pending(self):
        """Returns how many received bytes wait for the rest of their frame."""
        return len(self._buffer)

    def drop_stale(self):
        """Gives up on a partial frame that stopped arriving; returns frames found behind it."""
        if not self._buffer:
            return []
        self._buffer = self._buffer[1:]
        self.damaged += 1
        self.skipped_bytes += 1
        return self.feed(b"")


# ---- messages the mat sends -------------------------------------------------------------


def encode_hello(boot_id, seats, slots, pad, firmware_version):
    """HELLO: protocol version, boot id, zone layout and firmware version text."""
    text = firmware_version.encode()
    payload = struct.pack("<BIBBBB", VERSION, boot_id, seats, slots, 1 if pad else 0, len(text))
    return encode_frame(HELLO, payload + text)


def encode_zone(present, face, fault, generation, quality=0, level=0, uid=b""):
    """One zone's record inside a SNAPSHOT."""
    flags = (FLAG_PRESENT if present else 0) | ((face << FACE_SHIFT) & FACE_MASK)
    if fault:
        flags |= FLAG_FAULT
    record = struct.pack("<BB", flags, generation & 0xFF)
    if present:
        record += struct.pack("<BHB", quality, level, len(uid)) + bytes(uid)
    return record


def encode_snapshot(boot_id, seq, uptime_ms, reason, zone_records):
    """SNAPSHOT: the state of every zone, with the boot id and sequence number."""
    head = struct.pack(
        "<IIIBB", boot_id, seq & 0xFFFFFFFF, uptime_ms & 0xFFFFFFFF, reason, len(zone_records)
    )
    return encode_frame(SNAPSHOT, head + b"".join(zone_records))


def encode_pong(nonce, uptime_ms):
    """PONG: the PING's nonce echoed, with the mat's uptime."""
    return encode_frame(PONG, struct.pack("<II", nonce, uptime_ms & 0xFFFFFFFF))


def encode_result(for_type, code, text=""):
    """RESULT: how a command went (code OK or an error code, with a reason)."""
    return encode_frame(RESULT, struct.pack("<BB", for_type, code) + text.encode())


def encode_log(level, text):
    """LOG: a line of text for the host's log (reader resets, watchdog, faults)."""
    return encode_frame(LOG, struct.pack("<B", level) + text.encode())


def encode_capabilities(extensions, touch_zones, sample_ms, debounce, split_zones=None):
    """CAPABILITIES: the extensions this mat has on (bit 0 touch, bit 1 sides), the touch
    extension's version, how many zones have a touch pad (0: none), the touch chip's sample
    interval and the polls a touch change must last.

    `split_zones` None is touch version 1 (five bytes, for a host that did not ask for sides);
    otherwise version 2, followed by a bitmap of the zones with split pads, a bit per touch
    zone (bit 0 of the first byte is zone 0)."""
    version = TOUCH_VERSION if split_zones is None else TOUCH_SIDES_VERSION
    payload = struct.pack("<BBBBB", extensions, version, touch_zones, sample_ms, debounce)
    if split_zones is not None:
        bitmap = bytearray((touch_zones + 7) // 8)
        for zone in split_zones:
            bitmap[zone // 8] |= 1 << (zone % 8)
        payload += bytes(bitmap)
    return encode_frame(CAPABILITIES, payload)


def encode_touch(boot_id, seq, events):
    """TOUCH: settled touch changes, each (zone, 1 touched or 0 released, t_ms since boot)."""
    if len(events) > MAX_TOUCH_EVENTS:
        raise ValueError("%d touch events is over %d a frame" % (len(events), MAX_TOUCH_EVENTS))
    payload = struct.pack("<IHB", boot_id, seq & 0xFFFF, len(events))
    for zone, state, t_ms in events:
        payload += struct.pack("<BBI", zone, state, t_ms & 0xFFFFFFFF)
    return encode_frame(TOUCH, payload)


def encode_touch_sides(boot_id, seq, events):
    """TOUCH_SIDES: settled touch changes, each (zone, 1 touched or 0 released, t_ms since
    boot, side: 0 unknown, 1 near half, 2 far half), for a host that asked for sides."""
    if len(events) > MAX_TOUCH_EVENTS:
        raise ValueError("%d touch events is over %d a frame" % (len(events), MAX_TOUCH_EVENTS))
    payload = struct.pack("<IHB", boot_id, seq & 0xFFFF, len(events))
    for zone, state, t_ms, side in events:
        payload += struct.pack("<BBBI", zone, state, side, t_ms & 0xFFFFFFFF)
    return encode_frame(TOUCH_SIDES, payload)


# ---- commands the mat reads -------------------------------------------------------------


class CommandError(Exception):
    """A command frame that passed its CRC but whose payload cannot be read."""

    def __init__(self, code, text):
        super().__init__(text)
        self.code = code
        self.text = text


def decode_hello_request(payload):
    """Returns (host version, extensions) of a HELLO_REQUEST; a v1 host sends no extensions.

    Lenient as v1 firmware was (it read nothing): an empty payload is version 0, no extensions,
    and bytes after the second are for extensions this mat does not know yet."""
    if not payload:
        return 0, 0
    return payload[0], payload[1] if len(payload) > 1 else 0


def decode_ping(payload):
    """Returns the nonce of a PING."""
    if len(payload) != 4:
        raise CommandError(BAD_PAYLOAD, "PING carries 4 bytes, got %d" % len(payload))
    return struct.unpack("<I", payload)[0]


def decode_set_leds(payload):
    """Returns [(zone, r, g, b, mode)] from a SET_LEDS payload (zone 255 means every zone)."""
    if not payload or len(payload) != 1 + 5 * payload[0]:
        raise CommandError(BAD_PAYLOAD, "SET_LEDS length does not match its count")
    return [tuple(payload[1 + 5 * i : 6 + 5 * i]) for i in range(payload[0])]


def decode_configure(payload):
    """Returns [(key, value)] from a CONFIGURE payload."""
    if not payload or len(payload) != 1 + 3 * payload[0]:
        raise CommandError(BAD_PAYLOAD, "CONFIGURE length does not match its count")
    return [struct.unpack("<BH", payload[1 + 3 * i : 4 + 3 * i]) for i in range(payload[0])]
