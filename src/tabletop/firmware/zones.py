"""The mat's zones: card slots named s<seat>.<slot> and the shared draw pad.

Zone numbers run seat by seat, slot by slot (s1.1 is 0, s1.2 is 1, ...) and the pad comes last,
so a mat with fewer seats keeps the same numbering for the seats it has.
"""

MAX_SEATS = 6
MAX_SLOTS = 6


class Layout:
    """How many seats and slots a mat has, and whether it has a draw pad."""

    def __init__(self, seats=6, slots=6, pad=True):
        if not 1 <= seats <= MAX_SEATS:
            raise ValueError("seats must be 1-%d, not %r" % (MAX_SEATS, seats))
        if not 1 <= slots <= MAX_SLOTS:
            raise ValueError("slots must be 1-%d, not %r" % (MAX_SLOTS, slots))
        self.seats = seats
        self.slots = slots
        self.pad = bool(pad)
        self.count = seats * slots + (1 if pad else 0)

    def name(self, zone):
        """Returns the name of zone number `zone`, such as "s2.4" or "pad"."""
        if self.pad and zone == self.count - 1:
            return "pad"
        if not 0 <= zone < self.seats * self.slots:
            raise ValueError("no zone %r on a mat of %d zones" % (zone, self.count))
        return "s%d.%d" % (zone // self.slots + 1, zone % self.slots + 1)

    def index(self, name):
        """Returns the zone number of a name such as "s2.4" or "pad"."""
        if name == "pad" and self.pad:
            return self.count - 1
        if name.startswith("s") and "." in name:
            seat_text, slot_text = name[1:].split(".", 1)
            if seat_text.isdigit() and slot_text.isdigit():
                seat, slot = int(seat_text), int(slot_text)
                if 1 <= seat <= self.seats and 1 <= slot <= self.slots:
                    return (seat - 1) * self.slots + slot - 1
        raise ValueError(
            "no zone %r on this mat (s1.1-s%d.%d%s)"
            % (name, self.seats, self.slots, ", pad" if self.pad else "")
        )

    def split(self, buses):
        """Returns the zones of each SPI bus: 1 bus takes all; with 2, bus A takes the first
        half of the seats and bus B the rest and the pad, so each seat's cable carries one bus.
        """
        if buses == 1:
            return [list(range(self.count))]
        if buses != 2:
            raise ValueError("the mat has 1 or 2 SPI buses, not %r" % buses)
        first = (self.seats + 1) // 2 * self.slots
        return [list(range(first)), list(range(first, self.count))]
