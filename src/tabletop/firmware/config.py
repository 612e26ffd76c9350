"""Scan settings the host can change with CONFIGURE, with their keys, limits and defaults."""

PRESENT_READS = 1
ABSENT_MISSES = 2
HEARTBEAT_MS = 3
CONFIRM_GAP_MS = 4
VERIFY_EVERY = 5
FACE_THRESHOLD = 6
FACE_HYSTERESIS = 7
FACE_BRIGHTER = 8
PRESENCE_CHECKS = 9
SPLIT_SEATS = 10

# key: (attribute, lowest, highest)
KEYS = {
    PRESENT_READS: ("present_reads", 1, 5),
    ABSENT_MISSES: ("absent_misses", 1, 10),
    HEARTBEAT_MS: ("heartbeat_ms", 100, 10000),
    CONFIRM_GAP_MS: ("confirm_gap_ms", 0, 1000),
    VERIFY_EVERY: ("verify_every", 1, 255),
    FACE_THRESHOLD: ("face_threshold", 0, 65535),
    FACE_HYSTERESIS: ("face_hysteresis", 0, 32767),
    FACE_BRIGHTER: ("face_brighter", 0, 1),
    PRESENCE_CHECKS: ("presence_checks", 0, 1),
    SPLIT_SEATS: ("split_seats", 0, 63),
}


class ScanConfig:
    """How the mat scans and debounces; every field is one CONFIGURE key."""

    def __init__(self):
        # A card counts as laid after this many agreeing reads, and as gone after that many
        # misses in a row: a hand passing over a slot must not move a card.
        self.present_reads = 2
        self.absent_misses = 3
        self.heartbeat_ms = 1000
        # Unsettled zones are read again this soon instead of waiting for the next sweep.
        self.confirm_gap_ms = 10
        # A card already known is checked with a cheap wake-up; its UID is read again every
        # this many reads, and after any miss.
        self.verify_every = 8
        # Reflectance (0-65535) between a card's back and its face, and the dead band around it.
        self.face_threshold = 24000
        self.face_hysteresis = 2000
        # 1 when the deck's faces reflect more than its backs (white faces, dark backs).
        self.face_brighter = 1
        self.presence_checks = 1
        # The seats whose slots have split touch pads (near half and far half, docs/mat.md
        # "Whose hand: split pads"), a bit per seat (bit 0 is seat 1); 0: every pad is whole.
        # Its value at boot is how the mat was built (`board.SPLIT_SEATS`).
        self.split_seats = 0

    def set(self, key, value):
        """Changes one setting; raises KeyError for an unknown key, ValueError out of range."""
        if key not in KEYS:
            raise KeyError("no scan setting with key %d" % key)
        name, low, high = KEYS[key]
        if not low <= value <= high:
            raise ValueError("%s must be %d-%d, not %d" % (name, low, high, value))
        setattr(self, name, value)
