"""Per-zone debouncing: turns single reads into a settled card, face and read quality.

A card is settled after `present_reads` agreeing reads and dropped after enough misses in a
row: `absent_misses` for a card the reader finds every time, more for one it often misses (a
worn sticker, a card lying off-centre), as many as make a false drop about one in 10^8 runs of
misses (`FALSE_DROP`), up to `MAX_MISSES`. How often the reader misses a card is learnt
from the runs of misses that ended with the same card read again: those were misses, not a
removal. Every settled change bumps the zone's generation (mod 256), so a host that missed a
snapshot can still tell that a card was lifted and laid again.
"""

from .wire import FACE_DOWN, FACE_UNKNOWN, FACE_UP

# The chance of a false drop allowed per run of misses of a lying card, as learnt. At 20 reads
# a second a full mat's 36 cards start about 600,000 runs an hour when one read in three
# misses; the margin below 1/600,000 covers a learnt rate that is a little low (1e-6 left a
# false drop in 6 card-hours at miss rates of 0.2, 0.3 and 0.4: bench/mat_sweep.py --misses).
FALSE_DROP = 1e-8
# At most this many misses in a row (with the confirm reads 10 ms apart, about 0.3 s): a card
# missed more often than every other read still goes when lifted, late rather than never.
MAX_MISSES = 20
# The learnt miss rate, in 1/65536: for a card just laid, the share of its reads missed, counted
# from one imagined miss (so a card seen a few times is not trusted yet: 10 reads found, 1/11,
# 8 misses to drop); after RATE_WINDOW reads it moves 1/RATE_WINDOW of the way to each read's
# outcome, so it follows a card that slides off-centre and wavers little (about +-0.04 at 0.4).
RATE_ONE = 65536
RATE_WINDOW = 64


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
        "miss_rate",
        "miss_reads",
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
        self.miss_rate = RATE_ONE
        self.miss_reads = 1
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

    def _learn(self, outcome):
        """Counts one read of the settled card into its miss rate: RATE_ONE missed, 0 found."""
        if self.miss_reads < RATE_WINDOW:
            self.miss_reads += 1
        self.miss_rate += (outcome - self.miss_rate) // self.miss_reads

    def misses_to_drop(self, config):
        """How many misses in a row drop this zone's card: `absent_misses`, or more for a card
        the reader often misses, until a false drop is about `FALSE_DROP` likely."""
        needed = config.absent_misses
        rate = self.miss_rate / RATE_ONE
        chance = rate**needed
        while chance > FALSE_DROP and needed < MAX_MISSES:
            needed += 1
            chance *= rate
        return needed

    def observe_card(self, uid, face, level, config):
        """Adds a read that found `uid`; returns True when the settled state changed."""
        self.level = level
        if self.uid is not None and uid == self.uid:
            # The misses before this read were misses, not a removal: learn from them.
            for _ in range(self.misses):
                self._learn(RATE_ONE)
            self._learn(0)
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
        # A new card: nothing known of how often it is missed but the reads that settled it.
        self.miss_rate = RATE_ONE // (config.present_reads + 1)
        self.miss_reads = config.present_reads + 1
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
        if self.misses < config.absent_misses or self.misses < self.misses_to_drop(config):
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
