"""The UID -> card map written by enrolment, with the deck's face-sensor calibration.

The file is JSON (docs/mat.md, "The card map file"):

    {"format": "tabletop-card-map", "version": 2, "deck": "standard+jokers",
     "calibration": {"back_level": 11000, "face_level_min": 36000, "face_level_max": 50000,
                     "threshold": 23500, "hysteresis": 3000, "face_brighter": true},
     "decks": {"cowboy": "examples/decks/cowboy.toml"},
     "cards": {"04A1B2C3D4E5F6": "QS", "04B2C3D4E5F607": "cowboy/draw-1", ...}}

UIDs are upper-case hex. A card is a playing card's code or a game deck's `deck/id`; `decks`
names the deck file each `deck/id` prefix was enrolled from. Version 2 added the deck cards:
a map of playing cards only is still written as version 1, so older programs read it.

A bundled map of the simulated decks (the playing cards and the example Showdown decks) is the
default, so the simulated mat's cards read as themselves out of the box; $TABLETOP_CARDS or
--cards choose another.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

# Against the data flow, on purpose: a tag names a card of the games' card model,
# which is pure (standard library only).
from tabletop.rules.games.cards import Card, DeckCard, TaggedCard, parse_tagged
from tabletop.rules.games.errors import InvalidCommand

from .errors import CardMapError, DuplicateUidError
from .protocol import ScanSetting

FORMAT = "tabletop-card-map"
VERSION = 2  # deck cards (`deck/id`) and "decks"
PLAIN_VERSION = 1  # playing cards only: what a map without deck cards is written as
ENVIRONMENT = "TABLETOP_CARDS"
SIM_DECK = "sim-deck.json"


@dataclass(frozen=True, slots=True)
class Calibration:
    """Reflectance levels of a deck as the slot sensors see it, and the threshold between them."""

    back_level: int
    face_level_min: int
    face_level_max: int
    threshold: int
    hysteresis: int
    face_brighter: bool

    @classmethod
    def from_levels(cls, back_level: int, face_levels: list[int]) -> Calibration:
        """Places the threshold midway between the back and the face nearest to it."""
        low, high = min(face_levels), max(face_levels)
        brighter = low > back_level
        nearest = low if brighter else high
        threshold = (back_level + nearest) // 2
        return cls(back_level, low, high, threshold, abs(nearest - back_level) // 4, brighter)

    @property
    def margin(self) -> int:
        """Distance from the back to the nearest face; small means unreliable face sensing."""
        nearest = self.face_level_min if self.face_brighter else self.face_level_max
        return abs(nearest - self.back_level)

    def settings(self) -> dict[ScanSetting, int]:
        """The CONFIGURE settings that teach the mat this deck."""
        return {
            ScanSetting.FACE_THRESHOLD: self.threshold,
            ScanSetting.FACE_HYSTERESIS: self.hysteresis,
            ScanSetting.FACE_BRIGHTER: 1 if self.face_brighter else 0,
        }


def normalise_uid(text: str) -> str:
    """Returns a UID as upper-case hex without separators; raises CardMapError if it is not one."""
    cleaned = text.replace(":", "").replace(" ", "").upper()
    try:
        raw = bytes.fromhex(cleaned)
    except ValueError:
        raise CardMapError(f"{text!r} is not a tag UID in hex") from None
    if len(raw) not in (4, 7, 10):
        raise CardMapError(f"tag UID {text!r} has {len(raw)} bytes; tags have 4, 7 or 10")
    return cleaned


class CardMap:
    """Which card each tag UID is stuck on."""

    def __init__(
        self,
        cards: dict[str, TaggedCard] | None = None,
        deck: str = "standard+jokers",
        calibration: Calibration | None = None,
        source: str = "(new)",
        decks: dict[str, str] | None = None,
    ) -> None:
        self.cards: dict[str, TaggedCard] = dict(cards or {})
        self.deck = deck
        self.calibration = calibration
        self.source = source
        # deck name -> the deck file its cards were enrolled from
        self.decks: dict[str, str] = dict(decks or {})

    def card_for(self, uid: bytes) -> TaggedCard | None:
        """Returns the card carrying tag `uid`, or None for an unknown tag."""
        return self.cards.get(uid.hex().upper())

    def uid_for(self, card: TaggedCard) -> str | None:
        for uid, known in self.cards.items():
            if known == card:
                return uid
        return None

    def deck_of(self, uid: str) -> str | None:
        """The game deck the tag `uid` belongs to (`cowboy`), or None for a playing card or an
        unknown tag."""
        card = self.cards.get(normalise_uid(uid))
        return card.deck if isinstance(card, DeckCard) else None

    def check_decks(self, ids: Callable[[str], set[str]]) -> list[str]:
        """Checks every deck card against its deck file: `ids(path)` gives the card ids the
        file lists (it raises CardMapError when the file cannot be read). Returns one line
        per problem, naming the UID; empty when the map and its files agree."""
        problems: list[str] = []
        listed: dict[str, set[str]] = {}
        for uid, card in sorted(self.cards.items()):
            if not isinstance(card, DeckCard):
                continue
            path = self.decks.get(card.deck)
            if path is None:
                problems.append(
                    f"{self.source}: cards[{uid}]: {card.code}: no deck file for "
                    f'"{card.deck}" in "decks"'
                )
                continue
            if card.deck not in listed:
                listed[card.deck] = ids(path)
            if card.id not in listed[card.deck]:
                problems.append(
                    f"{self.source}: cards[{uid}]: {card.code}: {path} has no card {card.id!r}"
                )
        return problems

    def add(self, uid: str, card: TaggedCard) -> None:
        """Enrols a tag; refuses a UID already enrolled (as any card)."""
        key = normalise_uid(uid)
        existing = self.cards.get(key)
        if existing is not None:
            raise DuplicateUidError(key, existing.code)
        self.cards[key] = card

    def to_json(self) -> dict[str, Any]:
        calibration = None
        if self.calibration is not None:
            c = self.calibration
            calibration = {
                "back_level": c.back_level,
                "face_level_min": c.face_level_min,
                "face_level_max": c.face_level_max,
                "threshold": c.threshold,
                "hysteresis": c.hysteresis,
                "face_brighter": c.face_brighter,
            }
        plain = not self.decks and all(isinstance(c, Card) for c in self.cards.values())
        out: dict[str, Any] = {
            "format": FORMAT,
            "version": PLAIN_VERSION if plain else VERSION,
            "deck": self.deck,
            "calibration": calibration,
        }
        if not plain:
            out["decks"] = dict(sorted(self.decks.items()))
        out["cards"] = {uid: card.code for uid, card in sorted(self.cards.items())}
        return out

    def save(self, path: Path) -> None:
        """Writes the map atomically (a half-written file never replaces a good one)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, path)

    @classmethod
    def from_json(cls, data: Any, source: str) -> CardMap:
        """Reads a parsed map file; errors name the file and the key."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CardMapError(f'{source}: not a card map (no "format": "{FORMAT}")')
        version = data.get("version")
        if version not in (PLAIN_VERSION, VERSION):
            raise CardMapError(
                f"{source}: card map version {version!r}; this program reads "
                f"{PLAIN_VERSION} and {VERSION}"
            )
        raw_cards = data.get("cards")
        if not isinstance(raw_cards, dict):
            raise CardMapError(f'{source}: "cards" must be an object of UID: card code')
        raw_decks = data.get("decks", {})
        if not isinstance(raw_decks, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in raw_decks.items()
        ):
            raise CardMapError(f'{source}: "decks" must be an object of deck name: deck file')
        cards: dict[str, TaggedCard] = {}
        for uid, code in raw_cards.items():
            key = normalise_uid(uid)
            if key in cards:
                raise CardMapError(f"{source}: cards: UID {key} appears twice")
            try:
                card = parse_tagged(code, f"{source}: cards[{uid}]")
            except InvalidCommand as error:
                raise CardMapError(str(error)) from None
            if isinstance(card, DeckCard) and version == PLAIN_VERSION:
                raise CardMapError(
                    f"{source}: cards[{uid}]: {card.code} is a deck card; a version "
                    f"{PLAIN_VERSION} map holds playing cards only (write version {VERSION})"
                )
            cards[key] = card
        calibration = None
        raw_calibration = data.get("calibration")
        if raw_calibration is not None:
            try:
                calibration = Calibration(
                    int(raw_calibration["back_level"]),
                    int(raw_calibration["face_level_min"]),
                    int(raw_calibration["face_level_max"]),
                    int(raw_calibration["threshold"]),
                    int(raw_calibration["hysteresis"]),
                    bool(raw_calibration["face_brighter"]),
                )
            except (KeyError, TypeError, ValueError) as error:
                raise CardMapError(f"{source}: calibration: missing or bad {error}") from None
        return cls(cards, str(data.get("deck", "")), calibration, source, dict(raw_decks))

    @classmethod
    def load(cls, path: Path | str) -> CardMap:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise CardMapError(f"cannot read card map {path}: {error.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CardMapError(f"{path}: line {error.lineno}: {error.msg}") from None
        return cls.from_json(data, str(path))


def simulated_deck() -> CardMap:
    """The bundled map of the simulated deck's tags
    (src/tabletop/hardware/mat/data/sim-deck.json)."""
    text = (
        resources.files(__package__).joinpath("data").joinpath(SIM_DECK).read_text(encoding="utf-8")
    )
    return CardMap.from_json(json.loads(text), f"bundled {SIM_DECK}")


def default_card_map(path: str | None = None) -> CardMap:
    """The map to use: `path`, else $TABLETOP_CARDS, else the bundled simulated deck."""
    chosen = path or os.environ.get(ENVIRONMENT)
    if chosen:
        return CardMap.load(chosen)
    return simulated_deck()
