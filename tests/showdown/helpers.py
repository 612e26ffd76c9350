"""Shared pieces of the Six-Gun Showdown tests: decks with known numbers, a game in hand."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tabletop.rules.games.showdown.decks import deck_to_json, load_deck
from tabletop.rules.games.showdown.engine import Game
from tabletop.rules.games.showdown.events import Event
from tabletop.rules.games.showdown.game import SHOWDOWN

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "decks"


def example(name: str) -> dict[str, Any]:
    return deck_to_json(load_deck(EXAMPLES / f"{name}.toml"))


def card(card_id: str, kind: str, speed: int = 0, accuracy: int = 0, **more: Any) -> dict[str, Any]:
    return {
        "id": card_id,
        "title": card_id.title(),
        "type": kind,
        "speed": speed,
        "accuracy": accuracy,
        **more,
    }


def plain_deck(
    name: str, extra: Sequence[dict[str, Any]] = (), kind: str = "full"
) -> dict[str, Any]:
    """A deck whose numbers the tests choose: blanks (all zero), two Draws, and `extra`."""
    cards = [card(f"blank-{i}", "focus") for i in range(1, 9)]
    cards += [card("draw-1", "draw"), card("draw-2", "draw"), *extra]
    return {
        "format": "six-gun-showdown-deck",
        "version": 1,
        "name": name,
        "title": name.title(),
        "kind": kind,
        "cards": cards,
    }


def new_game(
    ana: Mapping[str, Any] | None = None,
    bo: Mapping[str, Any] | None = None,
    **options: Any,
) -> dict[str, Any]:
    return {
        "cmd": "new_game",
        "players": [
            {"name": "Ana", "deck": dict(ana or plain_deck("cowboy"))},
            {"name": "Bo", "deck": dict(bo or plain_deck("desperado"))},
        ],
        "options": options,
    }


BLANKS = ["blank-1", "blank-2", "blank-3", "blank-4", "blank-5", "blank-6"]


def loaded(
    ana: Sequence[str] = BLANKS,
    bo: Sequence[str] = BLANKS,
    ana_deck: Mapping[str, Any] | None = None,
    bo_deck: Mapping[str, Any] | None = None,
    **options: Any,
) -> Game:
    """A game in its first stare down: Ana's and Bo's bullets in slots 1-6 in the given order."""
    game = Game()
    game.execute(new_game(ana_deck, bo_deck, **options))
    game.execute({"cmd": "load", "player": "Ana", "bullets": list(ana)})
    game.execute({"cmd": "load", "player": "Bo", "bullets": list(bo)})
    return game


def play(game: Game, commands: Iterable[dict[str, Any]]) -> list[Event]:
    out: list[Event] = []
    for command in commands:
        out += game.execute(command)
    return out


def reveal(player: str, slot: int) -> dict[str, Any]:
    return {"cmd": "reveal", "player": player, "slot": slot}


def roll(value: int) -> dict[str, Any]:
    return {"cmd": "roll", "value": value}


class Table:
    """An in-process table joined as the daemon joins it: a mat of two seats, the reader, the
    engine; the reader's actions executed, its alerts kept. Time moves only by `advance`."""

    def __init__(self, seats: Sequence[str] = ("Ana", "Bo"), grace: float = 1.0) -> None:
        from tabletop.rules.games.reading import Alert, AlertCleared, Execute, SlotView
        from tabletop.rules.games.showdown.reading import ShowdownReader

        self._types = (Alert, AlertCleared, Execute, SlotView)
        self.engine = Game()
        self.reader = ShowdownReader(list(seats), grace)
        self.mat: dict[tuple[int, int], Any] = {}
        self.now = 100.0
        self.clock_ms = 5_000  # the mat's own clock
        self.alerts: dict[str, str] = {}
        self.raised: list[str] = []  # every alert message, in order
        self.refusals: list[str] = []
        self.applied: list[dict[str, Any]] = []
        self.views: list[dict[str, Any]] = []  # the public view after each applied command

    @property
    def state(self) -> Any:
        return self.engine.state

    def act(self, actions: Iterable[Any]) -> None:
        from tabletop.rules.games.errors import RulesError

        alert, cleared, execute, _ = self._types
        for action in actions:
            if isinstance(action, execute):
                try:
                    self.engine.execute(action.command)
                except RulesError as error:
                    self.refusals.append(str(error))
                    self.act(self.reader.refused(action.command, str(error)))
                    continue
                self.applied.append(action.command)
                self.views.append(SHOWDOWN.public_view(self.state))
                self.act(self.reader.applied(self.state, action.command, self.now))
            elif isinstance(action, alert):
                self.alerts[action.key] = action.message
                self.raised.append(action.message)
            elif isinstance(action, cleared):
                self.alerts.pop(action.key, None)

    def send(self, command: dict[str, Any]) -> None:
        _, _, execute, _ = self._types
        self.act([execute(command)])

    def _show(self, seat: int, slot: int) -> None:
        view = self.mat.get((seat, slot), self._types[3]())
        self.act(self.reader.observe_slot(self.state, seat, slot, view, self.now))

    def lay(self, seat: int, slot: int, card: str, face_up: bool) -> None:
        self.mat[(seat, slot)] = self._types[3](None, face_up, card)
        self._show(seat, slot)

    def lay_card(self, seat: int, slot: int, view: Any) -> None:
        self.mat[(seat, slot)] = view
        self._show(seat, slot)

    def lift(self, seat: int, slot: int) -> None:
        self.mat.pop((seat, slot), None)
        self._show(seat, slot)

    def flip(self, seat: int, slot: int) -> None:
        view = self.mat[(seat, slot)]
        self.mat[(seat, slot)] = self._types[3](view.card, not view.face_up, view.code)
        self._show(seat, slot)

    def lay_on_pad(self, card: str) -> None:
        self.act(self.reader.observe_pad(self.state, card, self.now))

    def throw(self, values: Sequence[int]) -> None:
        self.act(self.reader.observe_dice(self.state, values, self.now))

    def advance(self, seconds: float) -> None:
        self.now += seconds
        self.clock_ms += round(seconds * 1000)
        self.act(self.reader.tick(self.state, self.now))


class TouchTable(Table):
    """The same table on a mat with a touch pad under every slot."""

    def touch(self, seat: int, slot: int, hand: int | None = None) -> None:
        self.act(self.reader.observe_touch(self.state, seat, slot, self.clock_ms, self.now))


class SplitTouchTable(TouchTable):
    """The same table with split pads: a touch says the side of the hand that made it (the
    owner's near half, any other seat's far half)."""

    def touch(self, seat: int, slot: int, hand: int | None = None) -> None:
        side = "near" if hand is None or hand == seat else "far"
        self.act(
            self.reader.observe_touch(self.state, seat, slot, self.clock_ms, self.now, side=side)
        )
