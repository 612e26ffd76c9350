"""Builds Six Shooter games with stacked decks, so each rule test knows every card."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tabletop.rules.games.cards import parse_card, standard_deck
from tabletop.rules.games.sixshooter import Game
from tabletop.rules.games.sixshooter.state import GameState

# Two players' six cards each, slot 1 first, and the roster that seats them (the physical
# table's tests, here and in tests/daemon).
HANDS = {
    "Ana": ["JS", "3H", "QD", "7S", "KC", "AS"],
    "Bo": ["2C", "JC", "4H", "5D", "6S", "3C"],
}
PLAYERS = [
    {"name": "Ana", "descriptor": "sly", "archetype": "", "lucky": [7]},
    {"name": "Bo", "descriptor": "dangerous", "archetype": "", "lucky": [3]},
]

DEFAULT_ROSTER = {
    "Ana": ("sly", [7]),
    "Bo": ("dangerous", [3]),
}


def stacked_deck(
    hands: dict[str, list[str]], then: Sequence[str] = (), jokers: bool = False
) -> list[str]:
    """A full deck whose round-robin deal gives each player `hands[name]` (slot 1 first), with
    `then` on top of what remains."""
    names = list(hands)
    order: list[str] = []
    for slot in range(6):
        order += [hands[name][slot] for name in names]
    order += list(then)
    taken = {parse_card(code) for code in order}
    order += [card.code for card in standard_deck(jokers) if card not in taken]
    return order


def new_game(
    hands: dict[str, list[str]],
    roster: dict[str, tuple[str, list[int]]] | None = None,
    then: Sequence[str] = (),
    jokers: bool = False,
    reveal: dict[str, int] | None = None,
    *,
    campaign: bool = False,
    **options: Any,
) -> Game:
    """A game dealt from a stacked deck; `reveal` turns those slots face-up (all players must be
    named to begin play)."""
    roster = roster or DEFAULT_ROSTER
    game = Game()
    command: dict[str, Any] = {
        "cmd": "new_game",
        "players": [
            {"name": name, "descriptor": roster[name][0], "archetype": "", "lucky": roster[name][1]}
            for name in hands
        ],
        "jokers": jokers,
        "seed": 1,
        "deck": stacked_deck(hands, then, jokers),
    }
    if options:
        command["options"] = options
    if campaign:
        command["campaign"] = True
    game.execute(command)
    for name, slot in (reveal or {}).items():
        game.execute({"cmd": "reveal", "player": name, "slot": slot})
    return game


def slots(state: GameState, name: str) -> list[str]:
    """A hand as short strings: "QS" face-up, "qs" face-down (lower case), "--" discarded."""
    out = []
    for slot in state.operators[name].slots:
        if slot.card is None:
            out.append("--")
        elif slot.state.value == "face_up":
            out.append(slot.card.code)
        else:
            out.append(slot.card.code.lower())
    return out


def run(game: Game, *commands: dict[str, Any]) -> None:
    """Executes commands in order (each must be legal)."""
    for command in commands:
        game.execute(command)


def roll(*values: int) -> list[dict[str, Any]]:
    """`roll` commands for these die values."""
    return [{"cmd": "roll", "value": value} for value in values]
