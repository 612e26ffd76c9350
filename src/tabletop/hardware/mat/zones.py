"""Zone names on the host side: s<seat>.<slot> and pad, numbered as the firmware numbers them."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ZoneError


@dataclass(frozen=True, slots=True)
class MatLayout:
    """A mat's seats, slots per seat and draw pad, as its HELLO announces them."""

    seats: int = 6
    slots: int = 6
    pad: bool = True

    def __post_init__(self) -> None:
        if not (1 <= self.seats <= 6 and 1 <= self.slots <= 6):
            raise ZoneError(f"a mat has 1-6 seats of 1-6 slots, not {self.seats}x{self.slots}")

    @property
    def count(self) -> int:
        return self.seats * self.slots + (1 if self.pad else 0)

    def name(self, zone: int) -> str:
        """Returns "s2.4" or "pad" for zone number `zone`."""
        if self.pad and zone == self.count - 1:
            return "pad"
        if not 0 <= zone < self.seats * self.slots:
            raise ZoneError(f"no zone number {zone} on a mat of {self.count} zones")
        return f"s{zone // self.slots + 1}.{zone % self.slots + 1}"

    def index(self, name: str) -> int:
        """Returns the zone number for "s2.4" or "pad"; raises ZoneError naming the range."""
        text = name.strip().lower()
        if text == "pad" and self.pad:
            return self.count - 1
        if text.startswith("s") and "." in text:
            seat_text, slot_text = text[1:].split(".", 1)
            if seat_text.isdigit() and slot_text.isdigit():
                seat, slot = int(seat_text), int(slot_text)
                if 1 <= seat <= self.seats and 1 <= slot <= self.slots:
                    return (seat - 1) * self.slots + slot - 1
        pad = " or pad" if self.pad else ""
        raise ZoneError(
            f"no zone {name!r} on this mat; zones are s1.1 to s{self.seats}.{self.slots}{pad}"
        )

    def names(self) -> list[str]:
        return [self.name(zone) for zone in range(self.count)]
