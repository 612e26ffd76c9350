"""Per-zone debouncing: turns single reads into a settled card, face and read quality.

A card is settled after `present_reads` agreeing reads and dropped after `absent_misses` misses
in a row. Every settled change bumps the zone's generation (mod 256), so a host that missed a
snapshot can still tell that a card was lifted and laid again.
"""

from .wire import FACE_DOWN, FACE_UNKNOWN, FACE_UP


class ZoneState:
    """What one zone holds, settled, plus the unsettled evidence the next reads add to."""

    __slots__ = (
        "candidate",
        "candidate_reads",
        "face",
        "face_candidate",
        "face_reads",
        "fault",
        "faults",
        "generation",
        "history",
        "history_len",
        "last_read_ms",
        "level",
        "misses",
        "reads_since_verify",
        "uid",
    )

    def __init__(self):
        self.uid = None
        self.face = FACE_UNKNOWN
        self.level = 0
        self.generation = 0
        self.fault = False
        self.faults = 0
        self.candidate = None
        self.candidate_reads = 0
        self.face_candidate = FACE_UNKNOWN
        self.face_reads = 0
        self.misses = 0
        self.history = 0
        self.history_len = 0
        self.last_read_ms = -1000000
        self.reads_since_verify = 0

    @property
    def unsettled(self):
        """True while reads disagree with the settled state (a confirm read is due)."""
        return (
            self.candidate_reads > 0
            or self.face_reads > 0
            or (self.uid is not None and self.misses > 0)
        )

    @property
    def quality(self):
        """Share of the last reads (up to 8) since the card was laid that found it, 0-100."""
        if self.uid is None or self.history_len == 0:
            return 0
        hits = 0
        bits = self.history
        for _ in range(self.history_len):
            hits += bits & 1
            bits >>= 1
        return hits * 100 // self.history_len

    def _remember(self, hit):
        self.history = ((self.history << 1) | (1 if hit else 0)) & 0xFF
        if self.history_len < 8:
            self.history_len += 1

    def observe_card(self, uid, face, level, config):
        """Adds a read that found `uid`; returns True when the settled state changed."""
        self.level = level
        if self.uid is not None and uid == self.uid:
            self.misses = 0
            self.candidate = None
            self.candidate_reads = 0
            self._remember(True)
            if face in (self.face, FACE_UNKNOWN):
                self.face_reads = 0
                return False
            if face == self.face_candidate:
                self.face_reads += 1
            else:
                self.face_candidate = face
                self.face_reads = 1
            if self.face_reads < config.present_reads:
                return False
            self.face = face
            self.face_reads = 0
            self.generation = (self.generation + 1) & 0xFF
            return True
        if uid == self.candidate:
            self.candidate_reads += 1
        else:
            self.candidate = uid
            self.candidate_reads = 1
        if self.candidate_reads < config.present_reads:
            return False
        self.uid = uid
        self.face = face
        self.face_reads = 0
        self.misses = 0
        self.candidate = None
        self.candidate_reads = 0
        self.history = (1 << config.present_reads) - 1
        self.history_len = config.present_reads
        self.reads_since_verify = 0
        self.generation = (self.generation + 1) & 0xFF
        return True

    def observe_miss(self, config):
        """Adds a read that found no card; returns True when the settled state changed."""
        self.candidate = None
        self.candidate_reads = 0
        self.face_reads = 0
        if self.uid is None:
            return False
        self._remember(False)
        self.misses += 1
        if self.misses < config.absent_misses:
            return False
        self.uid = None
        self.face = FACE_UNKNOWN
        self.level = 0
        self.misses = 0
        self.history = 0
        self.history_len = 0
        self.generation = (self.generation + 1) & 0xFF
        return True


def classify_face(level, previous, config):
    """Returns FACE_UP or FACE_DOWN for a reflectance level, holding `previous` inside the band.

    The sensor looks up at the card's lower side: when it sees the face, the card lies face down.
    """
    high = config.face_threshold + config.face_hysteresis
    low = config.face_threshold - config.face_hysteresis
    if level >= high:
        bright = True
    elif level <= low:
        bright = False
    elif previous == FACE_UNKNOWN:
        bright = level >= config.face_threshold
    else:
        sees_face = previous == FACE_DOWN
        return FACE_DOWN if sees_face else FACE_UP
    sees_face = bright == bool(config.face_brighter)
    return FACE_DOWN if sees_face else FACE_UP
