"""Six Shooter's vocabulary: closed enums for descriptors, methods, slot states and phases, and
the table's house-rule options."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from ..cards import Card, Rank, Suit
from ..errors import InvalidCommand, quote

HAND_SIZE = 6
MAX_STRIKES = 3
CRITICAL_CAP = 7
LUCKY_RANGE = range(2, 11)


class Method(Enum):
    """A way of overcoming a challenge; each belongs to one suit."""

    DANGER = "danger"
    SHARPNESS = "sharpness"
    SLYNESS = "slyness"
    CHARM = "charm"

    @property
    def suit(self) -> Suit:
        """The suit whose cards help this method: "clubs for Danger, diamonds for Sharpness,
        spades for Slyness, and hearts for Charm"."""
        return _METHOD_SUITS[self]


class Descriptor(Enum):
    """An Operator's Descriptor: "each of which correlates to both a specific card suit and a
    way of solving problems"."""

    DANGEROUS = "dangerous"
    SHARP = "sharp"
    SLY = "sly"
    CHARMING = "charming"

    @property
    def method(self) -> Method:
        """The method this Descriptor is best at."""
        return _DESCRIPTOR_METHODS[self]

    @property
    def suit(self) -> Suit:
        """The suit of this Descriptor (Dangerous: clubs, Sharp: diamonds, Sly: spades,
        Charming: hearts)."""
        return self.method.suit


_METHOD_SUITS = {
    Method.DANGER: Suit.CLUBS,
    Method.SHARPNESS: Suit.DIAMONDS,
    Method.SLYNESS: Suit.SPADES,
    Method.CHARM: Suit.HEARTS,
}
_DESCRIPTOR_METHODS = {
    Descriptor.DANGEROUS: Method.DANGER,
    Descriptor.SHARP: Method.SHARPNESS,
    Descriptor.SLY: Method.SLYNESS,
    Descriptor.CHARMING: Method.CHARM,
}


class SlotState(Enum):
    """What lies in one of the six places of a hand."""

    FACE_DOWN = "face_down"
    FACE_UP = "face_up"
    DISCARDED = "discarded"


class Phase(Enum):
    """The part of the game the table is in."""

    SETUP = "setup"  # dealt; waiting for each player to turn one card face-up
    PLAY = "play"
    BETWEEN_ADVENTURES = "between_adventures"
    FINISHED = "finished"


class Status(Enum):
    """Whether an Operator is in play."""

    ACTIVE = "active"
    REMOVED = "removed"  # third Strike this adventure; may return next adventure
    RETIRED = "retired"  # out of the campaign for good


class Outcome(Enum):
    """How a challenge roll ended."""

    SUCCESS = "success"  # roll above the Critical Number, or Critical Number 0 or lower
    SUCCESS_ROLL_HAND = "success_roll_hand"  # roll equal: overcome, but Roll Your Hand
    FAILURE = "failure"  # roll below: not overcome, Roll Your Hand


def card_reduction(card: Card) -> int:
    """How much a used card lowers a Critical Number: 2-10 by 1, J 2, Q 3, K 4, A 5."""
    return _REDUCTIONS.get(card.rank, 1)


_REDUCTIONS = {Rank.JACK: 2, Rank.QUEEN: 3, Rank.KING: 4, Rank.ACE: 5, Rank.JOKER: 0}


class LuckyReplacement(Enum):
    """What happens when a card matching a Lucky Number is discarded."""

    ASK = "ask"  # "the player can replace it": the owner answers with `lucky`
    ALWAYS = "always"
    NEVER = "never"


class Deal(Enum):
    """How six cards reach each player."""

    ROUND_ROBIN = "round_robin"  # one card at a time in the players' order
    BLOCK = "block"  # six cards to the first player, then six to the next


class Version(Enum):
    """Which text of Six Shooter the table plays (shared/seeds/000_*.txt holds both)."""

    V0_03 = "0.03"  # May 25, 2020: the default
    # May 13, 2020: "No Operator can have more than two Lucky Numbers at any given time."
    V0_02 = "0.02"


@dataclass(frozen=True, slots=True)
class Options:
    """House rules a table may choose; every default follows v0.03 and docs/rules.md."""

    version: Version = Version.V0_03
    deal: Deal = Deal.ROUND_ROBIN
    ace_high: bool = True
    lucky_replacement: LuckyReplacement = LuckyReplacement.ASK
    lucky_cap: int = 9
    lucky_progressive_cap: bool = True
    removed_cards_to_discard: bool = True
    # "You don't have to tell your players the exact Critical Numbers for challenges before
    # they roll": the game master's choice; hidden from the public views unless chosen.
    tell_critical_numbers: bool = False

    @property
    def lucky_limit(self) -> int:
        """The most Lucky Numbers an Operator may hold at this table: `lucky_cap` ("If the GM
        wishes, they may set the cap lower"), and at most two when playing v0.02."""
        if self.version is Version.V0_02:
            return min(self.lucky_cap, 2)
        return self.lucky_cap

    @property
    def progressive(self) -> bool:
        """Whether v0.03's "cannot gain more Lucky Numbers unless all other Operators have at
        least as many" applies (v0.02 has a flat cap of two instead)."""
        return self.version is Version.V0_03 and self.lucky_progressive_cap

    def to_json(self) -> dict[str, Any]:
        """Returns the options as plain JSON values."""
        out: dict[str, Any] = {}
        for field in fields(self):
            value = getattr(self, field.name)
            out[field.name] = value.value if isinstance(value, Enum) else value
        return out

    @classmethod
    def from_json(cls, raw: object, where: str = "options") -> Options:
        """Reads options from JSON, naming any unknown key or bad value."""
        if raw is None:
            return cls()
        if not isinstance(raw, dict):
            raise InvalidCommand(f"{where}: expected an object of options", field=where)
        known = {field.name: field for field in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in raw.items():
            if key not in known:
                raise InvalidCommand(
                    f"{where}.{key}: unknown option; known options are {', '.join(sorted(known))}",
                    field=f"{where}.{key}",
                )
            default = getattr(cls(), key)
            values[key] = _option_value(default, value, f"{where}.{key}")
        options = cls(**values)
        if not 1 <= options.lucky_cap <= len(LUCKY_RANGE):
            raise InvalidCommand(
                f"{where}.lucky_cap: must be 1 to {len(LUCKY_RANGE)}, got {options.lucky_cap}",
                field=f"{where}.lucky_cap",
            )
        return options


def _option_value(default: object, value: object, where: str) -> object:
    if isinstance(default, Enum):
        try:
            return type(default)(value)
        except ValueError:
            choices = ", ".join(repr(member.value) for member in type(default))
            raise InvalidCommand(
                f"{where}: expected one of {choices}, got {quote(value)}", field=where
            ) from None
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise InvalidCommand(
                f"{where}: expected true or false, got {quote(value)}", field=where
            )
        return value
    if isinstance(default, int):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidCommand(f"{where}: expected an integer, got {quote(value)}", field=where)
        return value
    raise AssertionError(f"option {where} has an unsupported type")  # pragma: no cover
