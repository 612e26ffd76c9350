"""Six Shooter commands: immutable requests, and the reader that turns JSON objects into them.

The JSON vocabulary is the one `tabletop replay` reads and MQTT clients send. The reader checks
shape and types only and names the field at fault; whether the rules allow a command now is
the engine's business.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..cards import Card, parse_card
from ..errors import InvalidCommand, quote
from .model import HAND_SIZE, Descriptor, Method, Options

# Keys a transport may add to any command (correlation id, payload version, origin).
ENVELOPE_KEYS = frozenset({"id", "v", "source"})
MAX_NAME_LENGTH = 40
MAX_TEXT_LENGTH = 200


@dataclass(frozen=True, slots=True)
class OperatorSpec:
    """One player's Operator as given at the start of a game."""

    name: str
    descriptor: Descriptor
    archetype: str
    lucky: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardRef:
    """A card named by where it lies: a player's slot, 1 (leftmost) to 6."""

    player: str
    slot: int


@dataclass(frozen=True, slots=True)
class NewGame:
    """Seat the Operators, shuffle (or take the given deck order) and deal."""

    players: tuple[OperatorSpec, ...]
    jokers: bool
    seed: int | str
    deck: tuple[Card, ...] | None
    options: Options
    hands: tuple[tuple[str, tuple[Card, ...]], ...] | None = None
    # The Operators carry their Lucky Numbers over from an earlier game of the same campaign.
    campaign: bool = False


@dataclass(frozen=True, slots=True)
class Reveal:
    """The setup choice: a player turns one of their face-down cards face-up."""

    player: str
    slot: int


@dataclass(frozen=True, slots=True)
class TurnOrder:
    """Players who want the same challenge draw for turn order; `draws` are the cards drawn at a
    physical table, in the order drawn (else the engine draws from its deck)."""

    players: tuple[str, ...]
    draws: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True)
class Challenge:
    """An Operator attempts a challenge; `critical` None means Impossible."""

    player: str
    method: Method
    critical: int | None
    card: CardRef | None = None
    wager: int = 0
    stage: str | None = None


@dataclass(frozen=True, slots=True)
class MultiStage:
    """Opens a multi-stage challenge needing `needed` successes in all."""

    stage: str
    needed: int


@dataclass(frozen=True, slots=True)
class Roll:
    """A die result for the roll the game is waiting for (a tuple, so dice pools fit too)."""

    values: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Lucky:
    """Answers a Lucky Number offer: draw a replacement or not; `card` is the card drawn at a
    physical table (else the engine draws the top card)."""

    player: str
    replace: bool
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class Contest:
    """Starts a player-versus-player contest; rolls come in the listed order."""

    players: tuple[str, str]
    methods: tuple[tuple[str, Method], ...] = ()
    cards: tuple[tuple[str, CardRef], ...] = ()
    wagers: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Boost:
    """Before their roll, a player uses a card (theirs or a helper's) or wagers Strikes: on an
    awaited challenge roll, or on the next exchange of a contest."""

    player: str
    card: CardRef | None = None
    wager: int = 0


@dataclass(frozen=True, slots=True)
class Concede:
    """A contestant concedes; their Operator loses the contest."""

    player: str


@dataclass(frozen=True, slots=True)
class EndAdventure:
    """Ends the current adventure: Character Progression follows."""


@dataclass(frozen=True, slots=True)
class GrantLucky:
    """At the end of an adventure, a player with a face card or Ace face-up gives an Operator
    an extra Lucky Number."""

    giver: str
    to: str
    number: int


@dataclass(frozen=True, slots=True)
class Return:
    """A removed Operator loses a Lucky Number to rejoin at the next adventure."""

    player: str
    drop_lucky: int


@dataclass(frozen=True, slots=True)
class Retire:
    """A removed Operator retires for good instead of losing a Lucky Number."""

    player: str


@dataclass(frozen=True, slots=True)
class StartAdventure:
    """Starts the next adventure: Strikes reset, cards shuffled and dealt again (`hands`: the deal
    seen at a physical table)."""

    hands: tuple[tuple[str, tuple[Card, ...]], ...] | None = None


@dataclass(frozen=True, slots=True)
class EndGame:
    """Ends the game (the campaign); nothing more is accepted."""


Command = (
    NewGame
    | Reveal
    | TurnOrder
    | Challenge
    | MultiStage
    | Roll
    | Lucky
    | Contest
    | Boost
    | Concede
    | EndAdventure
    | GrantLucky
    | Return
    | Retire
    | StartAdventure
    | EndGame
)


class _Reader:
    """Reads the fields of one command object, naming `cmd.field` in every error."""

    def __init__(self, raw: Mapping[str, Any], cmd: str) -> None:
        self.raw = raw
        self.cmd = cmd
        self.used = {"cmd"} | ENVELOPE_KEYS

    def fail(self, key: str, message: str) -> InvalidCommand:
        return InvalidCommand(f"{self.cmd}.{key}: {message}", field=key)

    def has(self, key: str) -> bool:
        return key in self.raw and self.raw[key] is not None

    def get(self, key: str) -> Any:
        self.used.add(key)
        if key not in self.raw:
            raise self.fail(key, "missing")
        return self.raw[key]

    def text(self, key: str, limit: int = MAX_NAME_LENGTH, value: Any = None) -> str:
        value = self.get(key) if value is None else value
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"expected a non-empty string, got {quote(value)}")
        if len(value) > limit:
            raise self.fail(key, f"longer than {limit} characters")
        return value

    def integer(self, key: str, low: int, high: int, value: Any = None) -> int:
        value = self.get(key) if value is None else value
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(key, f"expected an integer, got {quote(value)}")
        if not low <= value <= high:
            raise self.fail(key, f"must be {low} to {high}, got {value}")
        return value

    def boolean(self, key: str) -> bool:
        value = self.get(key)
        if not isinstance(value, bool):
            raise self.fail(key, f"expected true or false, got {quote(value)}")
        return value

    def array(self, key: str) -> list[Any]:
        value = self.get(key)
        if not isinstance(value, list):
            raise self.fail(key, f"expected a list, got {quote(value)}")
        return value

    def mapping(self, key: str) -> dict[str, Any]:
        value = self.get(key)
        if not isinstance(value, dict):
            raise self.fail(key, f"expected an object keyed by player name, got {quote(value)}")
        return value

    def method(self, key: str, value: Any = None) -> Method:
        value = self.get(key) if value is None else value
        try:
            return Method(value)
        except ValueError:
            expected = "expected danger, sharpness, slyness or charm"
            raise self.fail(key, f"{expected}, got {quote(value)}") from None

    def card_ref(self, key: str, value: Any = None) -> CardRef:
        value = self.get(key) if value is None else value
        if not isinstance(value, dict) or set(value) != {"player", "slot"}:
            raise self.fail(key, f'expected {{"player": NAME, "slot": 1-6}}, got {quote(value)}')
        return CardRef(
            self.text(f"{key}.player", value=value["player"]),
            self.integer(f"{key}.slot", 1, HAND_SIZE, value=value["slot"]),
        )

    def finish(self) -> None:
        unknown = sorted(set(self.raw) - self.used)
        if unknown:
            raise self.fail(unknown[0], "unknown field for this command")


def _read_new_game(r: _Reader) -> NewGame:
    players_raw = r.array("players")
    players = tuple(_read_operator(r, index, raw) for index, raw in enumerate(players_raw))
    jokers = r.boolean("jokers") if r.has("jokers") else False
    seed: int | str = 0
    if r.has("seed"):
        seed = r.get("seed")
        if not isinstance(seed, int | str) or isinstance(seed, bool):
            raise r.fail("seed", f"expected an integer or a string, got {quote(seed)}")
    deck = None
    if r.has("deck"):
        deck = tuple(
            parse_card(code, f"new_game.deck[{index}]")
            for index, code in enumerate(r.array("deck"))
        )
    options = (
        Options.from_json(r.get("options"), "new_game.options") if r.has("options") else Options()
    )
    hands = _read_hands(r) if r.has("hands") else None
    if hands is not None and deck is not None:
        raise r.fail("hands", "give the deck order or the hands dealt, not both")
    campaign = r.boolean("campaign") if r.has("campaign") else False
    return NewGame(players, jokers, seed, deck, options, hands, campaign)


def _read_hands(r: _Reader) -> tuple[tuple[str, tuple[Card, ...]], ...]:
    hands = []
    for name, codes in r.mapping("hands").items():
        if not isinstance(codes, list) or len(codes) != HAND_SIZE:
            raise r.fail(
                f"hands.{name}", f"expected a list of {HAND_SIZE} card codes, slot 1 first"
            )
        cards = tuple(
            parse_card(code, f"{r.cmd}.hands.{name}[{i}]") for i, code in enumerate(codes)
        )
        hands.append((name, cards))
    return tuple(hands)


def _read_cards(r: _Reader, key: str) -> tuple[Card, ...]:
    return tuple(parse_card(code, f"{r.cmd}.{key}[{i}]") for i, code in enumerate(r.array(key)))


def _read_operator(r: _Reader, index: int, raw: Any) -> OperatorSpec:
    where = f"players[{index}]"
    if not isinstance(raw, dict):
        raise r.fail(where, "expected an object with name, descriptor, archetype and lucky")
    unknown = sorted(set(raw) - {"name", "descriptor", "archetype", "lucky"})
    if unknown:
        raise r.fail(f"{where}.{unknown[0]}", "unknown field for a player")
    for key in ("name", "descriptor", "lucky"):
        if key not in raw:
            raise r.fail(f"{where}.{key}", "missing")
    name = r.text(f"{where}.name", value=raw["name"])
    try:
        descriptor = Descriptor(raw["descriptor"])
    except ValueError:
        raise r.fail(
            f"{where}.descriptor",
            f"expected dangerous, sharp, sly or charming, got {quote(raw['descriptor'])}",
        ) from None
    archetype = raw.get("archetype", "")
    if not isinstance(archetype, str) or len(archetype) > MAX_TEXT_LENGTH:
        raise r.fail(f"{where}.archetype", f"expected text of at most {MAX_TEXT_LENGTH} characters")
    lucky_raw = raw["lucky"]
    if isinstance(lucky_raw, int) and not isinstance(lucky_raw, bool):
        lucky_raw = [lucky_raw]
    if not isinstance(lucky_raw, list):
        raise r.fail(f"{where}.lucky", f"expected a list of numbers 2-10, got {quote(lucky_raw)}")
    lucky = tuple(
        r.integer(f"{where}.lucky[{i}]", 2, 10, value=number) for i, number in enumerate(lucky_raw)
    )
    return OperatorSpec(name, descriptor, archetype, lucky)


def _read_challenge(r: _Reader) -> Challenge:
    player = r.text("player")
    method = r.method("method")
    critical_raw = r.get("critical")
    critical: int | None
    if critical_raw == "impossible":
        critical = None
    else:
        if not isinstance(critical_raw, int) or isinstance(critical_raw, bool):
            raise r.fail(
                "critical", f'expected an integer or "impossible", got {quote(critical_raw)}'
            )
        critical = critical_raw
    card = r.card_ref("card") if r.has("card") else None
    wager = r.integer("wager", 0, 3) if r.has("wager") else 0
    stage = r.text("stage") if r.has("stage") else None
    return Challenge(player, method, critical, card, wager, stage)


def _read_roll(r: _Reader) -> Roll:
    if r.has("values"):
        values = tuple(
            r.integer(f"values[{i}]", 1, 6, value=v) for i, v in enumerate(r.array("values"))
        )
        if not values:
            raise r.fail("values", "expected at least one die")
        return Roll(values)
    return Roll((r.integer("value", 1, 6),))


def _read_contest(r: _Reader) -> Contest:
    names = [r.text(f"players[{i}]", value=v) for i, v in enumerate(r.array("players"))]
    if len(names) != 2:
        raise r.fail("players", f"a contest is between exactly two players, got {len(names)}")
    methods: list[tuple[str, Method]] = []
    if r.has("method"):
        shared = r.method("method")
        methods = [(name, shared) for name in names]
    if r.has("methods"):
        methods = [
            (name, r.method(f"methods.{name}", value=v)) for name, v in r.mapping("methods").items()
        ]
    cards = []
    if r.has("cards"):
        cards = [
            (name, r.card_ref(f"cards.{name}", value=v)) for name, v in r.mapping("cards").items()
        ]
    wagers = []
    if r.has("wagers"):
        wagers = [
            (name, r.integer(f"wagers.{name}", 0, 3, value=v))
            for name, v in r.mapping("wagers").items()
        ]
    return Contest((names[0], names[1]), tuple(methods), tuple(cards), tuple(wagers))


def _read_boost(r: _Reader) -> Boost:
    player = r.text("player")
    card = r.card_ref("card") if r.has("card") else None
    wager = r.integer("wager", 0, 3) if r.has("wager") else 0
    if card is None and wager == 0:
        raise r.fail("card", "a boost needs a card or a wager of at least 1")
    return Boost(player, card, wager)


_READERS: dict[str, Callable[[_Reader], Command]] = {
    "new_game": _read_new_game,
    "reveal": lambda r: Reveal(r.text("player"), r.integer("slot", 1, HAND_SIZE)),
    "turn_order": lambda r: TurnOrder(
        tuple(r.text(f"players[{i}]", value=v) for i, v in enumerate(r.array("players"))),
        _read_cards(r, "draws") if r.has("draws") else None,
    ),
    "challenge": _read_challenge,
    "multi_stage": lambda r: MultiStage(r.text("id"), r.integer("needed", 1, 100)),
    "roll": _read_roll,
    "lucky": lambda r: Lucky(
        r.text("player"),
        r.boolean("replace"),
        parse_card(r.get("card"), "lucky.card") if r.has("card") else None,
    ),
    "contest": _read_contest,
    "boost": _read_boost,
    "concede": lambda r: Concede(r.text("player")),
    "end_adventure": lambda r: EndAdventure(),
    "grant_lucky": lambda r: GrantLucky(r.text("from"), r.text("to"), r.integer("number", 2, 10)),
    "return": lambda r: Return(r.text("player"), r.integer("drop_lucky", 2, 10)),
    "retire": lambda r: Retire(r.text("player")),
    "start_adventure": lambda r: StartAdventure(_read_hands(r) if r.has("hands") else None),
    "end_game": lambda r: EndGame(),
}

COMMAND_NAMES: tuple[str, ...] = tuple(_READERS)


def parse_command(raw: object) -> Command:
    """Turns one JSON object into a command, or raises InvalidCommand naming the field at fault."""
    if not isinstance(raw, Mapping):
        raise InvalidCommand(f"expected a JSON object with a 'cmd' field, got {type(raw).__name__}")
    name = raw.get("cmd")
    if not isinstance(name, str):
        raise InvalidCommand("missing 'cmd': the command name, such as \"challenge\"", field="cmd")
    read = _READERS.get(name)
    if read is None:
        raise InvalidCommand(
            f"unknown command {quote(name)}; known commands are {', '.join(COMMAND_NAMES)}",
            field="cmd",
        )
    reader = _Reader(raw, name)
    command = read(reader)
    reader.finish()
    return command
