"""The Vigor reroll read from the tray: "reroll all dice not showing sixes", checked against what
the camera saw stay from the last throw (tabletop.rules.games.game.Reroll), and the prompt's `rethrow`."""

from __future__ import annotations

import random
from collections.abc import Sequence

from tabletop.rules.games.game import PeopleSettings, Reroll
from tabletop.rules.games.reading import Alert, AlertCleared, Execute
from tabletop.rules.games.steamfunkateers.engine import Game
from tabletop.rules.games.steamfunkateers.game import STEAMFUNKATEERS
from tabletop.rules.games.steamfunkateers.reading import DiceReader, vigor_problem
from tabletop.rules.games.steamfunkateers.view import state_to_json
from tests.steamfunkateers.helpers import check, new_game, pool, roll


def _thrown_once(*values: int) -> tuple[Game, DiceReader]:
    game = new_game(vigor=1)
    check(game, pool("Ana", len(values)))
    roll(game, *values)
    reader = STEAMFUNKATEERS.table_reader(["Ana", "Bo"], 1.0)
    assert isinstance(reader, DiceReader)
    return game, reader


def test_the_prompt_says_how_many_dice_a_throw_throws_fresh_or_in_the_reroll() -> None:
    game = new_game(vigor=1)
    check(game, pool("Ana", 4))
    first = STEAMFUNKATEERS.waiting(game.state).dice
    assert first is not None and first.rethrow == 4 and first.to_json()["rethrow"] == 4
    roll(game, 6, 6, 2, 3)
    again = STEAMFUNKATEERS.waiting(game.state).dice
    assert again is not None and (again.count, again.rethrow) == (4, 2)


def test_a_reroll_that_left_the_sixes_and_threw_the_others_is_taken() -> None:
    game, reader = _thrown_once(6, 2, 3)
    seen = Reroll(kept=(6,), thrown=(1, 6))
    actions = reader.observe_dice(game.state, [1, 6, 6], 0.0, seen)
    assert actions == [AlertCleared("dice"), Execute({"cmd": "reroll", "values": [1, 6, 6]})]


def test_a_non_six_left_lying_is_an_alert_in_words() -> None:
    game, reader = _thrown_once(6, 2, 3)
    actions = reader.observe_dice(game.state, [2, 5, 6], 0.0, Reroll(kept=(2, 6), thrown=(5,)))
    assert actions == [
        Alert(
            "dice",
            "Ana: 2 stayed in the tray, but a Vigor reroll throws every die not showing a six "
            "again: pick them up and throw them too",
        )
    ]


def test_a_six_thrown_again_is_an_alert_even_when_it_comes_up_six_again() -> None:
    game, reader = _thrown_once(6, 6, 3)
    actions = reader.observe_dice(game.state, [6, 6, 4], 0.0, Reroll(kept=(6,), thrown=(4, 6)))
    assert len(actions) == 1 and isinstance(actions[0], Alert)
    assert actions[0].message == (
        "Ana: 2 dice thrown again, but the reroll throws the 1 die not showing sixes and "
        "leaves the 2 sixes where they lie"
    )


def test_a_six_knocked_by_the_rethrown_dice_is_reported() -> None:
    game, reader = _thrown_once(6, 2, 3)
    actions = reader.observe_dice(game.state, [4, 5, 6], 0.0, Reroll(moved=(4,), thrown=(5, 6)))
    assert len(actions) == 1 and isinstance(actions[0], Alert)
    assert "knocked a six that stayed (now 4)" in actions[0].message


def test_a_six_taken_away_is_an_alert_with_or_without_the_camera() -> None:
    before, after = (6, 6, 2), (6, 1, 3)
    assert "a six was taken away" in vigor_problem("Bo", before, after, None)
    assert "a six was taken away" in vigor_problem("Bo", before, after, Reroll((6,), (), (1, 3)))
    # Typed in, or every die thrown (the camera's watcher checks that against `rethrow`).
    assert vigor_problem("Bo", before, (6, 6, 5), None) == ""


def test_the_wrong_number_of_dice_for_a_reroll_is_an_alert() -> None:
    game, reader = _thrown_once(6, 2, 3)
    actions = reader.observe_dice(game.state, [6, 2, 3, 4], 0.0, Reroll(kept=(6,)))
    assert len(actions) == 1 and isinstance(actions[0], Alert)
    assert "the tray shows 4 dice but the pool is 3" in actions[0].message


def test_a_good_throw_clears_an_alert_the_table_raised_for_an_unclear_one() -> None:
    game = new_game(vigor=0)
    check(game, pool("Ana", 2))
    reader = STEAMFUNKATEERS.table_reader(["Ana", "Bo"], 1.0)
    assert reader.observe_dice(game.state, [3, 4], 0.0)[0] == AlertCleared("dice")


class RerollingHands:
    """Hands that can leave dice lying: records fresh throws and rerolls apart."""

    def __init__(self) -> None:
        self.throws: list[list[int]] = []
        self.rerolls: list[tuple[list[int], list[int]]] = []

    def throw(self, values: Sequence[int]) -> None:
        self.throws.append(list(values))

    def reroll(self, keep: Sequence[int], thrown: Sequence[int]) -> None:
        self.rerolls.append((list(keep), list(thrown)))

    def lay(self, seat: int, slot: int, card: str, face_up: bool) -> None:
        raise AssertionError("no cards")

    def lift(self, seat: int, slot: int) -> None:
        raise AssertionError("no cards")

    def flip(self, seat: int, slot: int) -> None:
        raise AssertionError("no cards")

    def lay_on_pad(self, card: str) -> None:
        raise AssertionError("no pad")


def test_simulated_people_leave_the_sixes_lying_when_their_hands_can() -> None:
    hands = RerollingHands()
    people = STEAMFUNKATEERS.simulated_people(
        ["Ana"], hands, random.Random(2), lambda command: None, PeopleSettings(0.0, 5)
    )
    game, _ = _thrown_once(6, 2, 6, 1)
    view = state_to_json(game.state)
    # The prompt of the same moment as the state (people act on nothing else).
    prompt = {"waiting": "dice", "prompt": "reroll", "pending": view["pending"]}
    for seed in range(40):  # they reroll half the time, keep the other half
        people.rng = random.Random(seed)  # type: ignore[attr-defined]
        people.step(view, prompt, {})
        if hands.rerolls:
            break
    assert hands.rerolls, "the people never rerolled"
    keep, thrown = hands.rerolls[0]
    assert keep == [6, 6] and len(thrown) == 2
    assert hands.throws == []


def test_a_throw_no_one_awaits_is_said_until_the_game_moves_on() -> None:
    """The reader says so of any throw the game does not wait for, as OS-SIX's and Six
    Shooter's do; the next command applied clears it. With no game in play it is no one's
    move, and says nothing."""
    game = new_game(vigor=0)
    reader = STEAMFUNKATEERS.table_reader(["Ana", "Bo"], 1.0)
    stray = reader.observe_dice(game.state, [3], 0.0)
    assert stray == [Alert("dice", "dice were thrown but no throw is awaited now")]
    called = pool("Ana", 2)
    check(game, called)
    assert AlertCleared("dice") in reader.applied(game.state, {"cmd": "check"}, 1.0)
    assert STEAMFUNKATEERS.table_reader(["Ana"], 1.0).observe_dice(Game().state, [3], 0.0) == []
