"""Card enrolment: walks a person through tagging a deck on the draw pad, card by card.

A pure state machine: the CLI feeds it mat events (and, in --ask mode, the card codes a person
types) and prints what it says. First one card face up measures the backs for the face sensor;
then each card, face down, gives its UID and its face's reflectance. The deck is the 52 (54)
playing cards, or a game's own deck (`deck/id` codes: `tabletop cards enrol --deck FILE`).
"""

from __future__ import annotations

from enum import Enum

# Against the data flow, on purpose: a tag names a card of the games' card model,
# which is pure (standard library only).
from tabletop.rules.games.cards import DeckCard, TaggedCard, parse_tagged
from tabletop.rules.games.errors import InvalidCommand

from .cardmap import Calibration, CardMap
from .errors import DuplicateUidError
from .events import CardEvent, EventKind, LinkEvent, MatEvent

PAD = "pad"
# Below this distance between backs and faces (of 65535) the face sensor cannot be trusted.
MIN_MARGIN = 6000


class Step(Enum):
    """Where the enrolment stands."""

    MEASURE_BACK = "measure_back"
    CLEAR_PAD = "clear_pad"
    LAY_CARD = "lay_card"
    NAME_CARD = "name_card"  # --ask: a tag is on the pad, which card is it?
    DONE = "done"


class Enrolment:
    """Builds a CardMap from cards laid on the pad, in deck order or as the person names them."""

    def __init__(self, deck: list[TaggedCard], cards: CardMap, ask: bool = False) -> None:
        self.cards = cards
        self.ask = ask
        self.deck = list(deck)
        # A game deck's name: --ask then takes a card's bare id (`draw-1`) too.
        names = {card.deck for card in deck if isinstance(card, DeckCard)}
        self.deck_name = names.pop() if len(names) == 1 else None
        self.todo = [card for card in deck if cards.uid_for(card) is None]
        self.step = Step.MEASURE_BACK
        self.back_level: int | None = None
        self.face_levels: list[int] = []
        self.enrolled: list[TaggedCard] = []
        self._waiting_uid: str | None = None
        self._waiting_level = 0
        if not self.todo:
            self.step = Step.DONE

    @property
    def done(self) -> bool:
        return self.step is Step.DONE

    @property
    def wants_code(self) -> bool:
        """True while a tag waits on the pad for the person to type its code (--ask)."""
        return self.step is Step.NAME_CARD

    @property
    def next_card(self) -> TaggedCard | None:
        return self.todo[0] if self.todo else None

    def prompt(self) -> str:
        """What to tell the person now."""
        if self.step is Step.MEASURE_BACK:
            return "Lay any card of this deck FACE UP on the draw pad (to measure the backs)."
        if self.step is Step.CLEAR_PAD:
            return "Take the card off the draw pad."
        if self.step is Step.NAME_CARD:
            if self.deck_name is not None:
                return f"Which card is it? Type its id in the {self.deck_name} deck file (draw-1):"
            return "Which card is it? Type its code (QS, 10H, JK1):"
        if self.step is Step.DONE:
            return f"Done: {len(self.enrolled)} card(s) enrolled."
        left = f"({len(self.todo)} to go)"
        if self.ask:
            return f"Lay the next card FACE DOWN on the draw pad {left}."
        assert self.next_card is not None
        return f"Lay {self.next_card.code} FACE DOWN on the draw pad {left}."

    def handle(self, event: MatEvent) -> list[str]:
        """Takes one mat event; returns the lines to show (the next prompt last, when it moved)."""
        if isinstance(event, LinkEvent):
            if event.kind is EventKind.LINK_DOWN:
                return [f"The mat went away ({event.detail}); waiting for it to come back."]
            return [f"Mat connected ({event.detail}).", self.prompt()]
        if not isinstance(event, CardEvent) or event.zone != PAD:
            return []
        if event.kind is EventKind.REMOVED:
            if self.step is Step.CLEAR_PAD:
                self.step = Step.LAY_CARD if self.todo else Step.DONE
                return [self.prompt()]
            return []
        if event.kind not in (EventKind.PLACED, EventKind.UNKNOWN_CARD):
            return []
        if self.step is Step.MEASURE_BACK:
            self.back_level = event.level
            self.step = Step.CLEAR_PAD
            return [f"Back measured (level {event.level}).", self.prompt()]
        if self.step is not Step.LAY_CARD:
            return []
        if event.card is not None:
            self.step = Step.CLEAR_PAD
            return [
                f"Refused: tag {event.uid} is already enrolled as {event.card.code}. "
                "Lay a card that has not been enrolled.",
                self.prompt(),
            ]
        if self.ask:
            self._waiting_uid = event.uid
            self._waiting_level = event.level
            self.step = Step.NAME_CARD
            return [self.prompt()]
        card = self.todo[0]
        return self._enrol(event.uid, card, event.level)

    def answer(self, text: str) -> list[str]:
        """Takes the card code a person typed for the tag on the pad (--ask mode)."""
        if self.step is not Step.NAME_CARD or self._waiting_uid is None:
            return []
        text = text.strip()
        if self.deck_name is not None and "/" not in text:
            text = f"{self.deck_name}/{text}"
        try:
            card = parse_tagged(text, "card")
        except InvalidCommand as error:
            return [str(error), self.prompt()]
        if isinstance(card, DeckCard) and card not in self.deck:
            return [f"{card.code} is not a card of the deck being enrolled.", self.prompt()]
        existing = self.cards.uid_for(card)
        if existing is not None:
            return [f"{card.code} is already enrolled (tag {existing}).", self.prompt()]
        return self._enrol(self._waiting_uid, card, self._waiting_level)

    def _enrol(self, uid: str, card: TaggedCard, level: int) -> list[str]:
        try:
            self.cards.add(uid, card)
        except DuplicateUidError as error:
            self.step = Step.CLEAR_PAD
            return [f"Refused: {error}.", self.prompt()]
        if card in self.todo:
            self.todo.remove(card)
        self.enrolled.append(card)
        self.face_levels.append(level)
        self._waiting_uid = None
        self.step = Step.CLEAR_PAD
        return [f"{card.code} = tag {uid}.", self.prompt()]

    def calibration(self) -> tuple[Calibration | None, str]:
        """The deck's face-sensor calibration, with a line saying how trustworthy it is."""
        if self.back_level is None or not self.face_levels:
            return None, "No calibration: no back and face were both measured."
        calibration = Calibration.from_levels(self.back_level, self.face_levels)
        if calibration.margin < MIN_MARGIN:
            return calibration, (
                f"Warning: backs ({calibration.back_level}) and faces (from "
                f"{calibration.face_level_min}) look alike to the sensor; face up/down will be "
                "unreliable with this deck."
            )
        return calibration, (
            f"Face sensor calibrated: backs at {calibration.back_level}, faces "
            f"{calibration.face_level_min}-{calibration.face_level_max}, threshold "
            f"{calibration.threshold}."
        )
