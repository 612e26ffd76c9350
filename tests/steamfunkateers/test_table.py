"""Steamfunkateers at the table: the tray reader, the LEDs, the waiting throw, `tabletop gm`
verbs, the random player and the simulated people (against fake hands)."""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from typing import Any

import pytest

from tabletop.rules import games
from tabletop.rules.games.cards import parse_card
from tabletop.rules.games.errors import RulesError
from tabletop.rules.games.game import PeopleSettings, Scoring, WaitKind
from tabletop.rules.games.reading import Alert, AlertCleared, Execute, SlotView
from tabletop.rules.games.steamfunkateers.engine import Game
from tabletop.rules.games.steamfunkateers.events import ContestEnded, DiceRerolled
from tabletop.rules.games.steamfunkateers.game import STEAMFUNKATEERS
from tabletop.rules.games.steamfunkateers.view import state_to_json
from tests.steamfunkateers.helpers import check, new_game, pool, roll


def test_the_registry_finds_the_game_and_its_table_has_no_cards() -> None:
    assert games.get("steamfunkateers") is STEAMFUNKATEERS
    layout = STEAMFUNKATEERS.mat_layout({})
    assert layout.slots_per_seat == 0 and not layout.pad and layout.deck is None
    assert [o.name for o in STEAMFUNKATEERS.info.options] == [
        "starting_vigor",
        "gm_vigor",
        "vigor_once_per_roll",
        "fold_after_failed_throw",
    ]


def test_waiting_asks_for_a_pool_counted_by_sixes_and_says_when_a_reroll_is_possible() -> None:
    game = new_game(vigor=1)
    check(game, pool("Ana", 3))
    waiting = STEAMFUNKATEERS.waiting(game.state)
    assert waiting.kind is WaitKind.DICE and waiting.dice is not None
    assert (waiting.dice.who, waiting.dice.count) == ("Ana", 3)
    assert waiting.dice.scoring is Scoring.COUNT_SIXES and waiting.dice.rerollable
    assert "throw 3 dice" in waiting.words
    roll(game, 6, 1, 2)
    again = STEAMFUNKATEERS.waiting(game.state)
    assert again.dice is not None and again.dice.rerollable and again.detail is not None
    assert again.detail["type"] == "reroll" and "2 other dice again" in again.words
    one_left = new_game(vigor=1)
    check(one_left, pool("Ana", 2))
    roll(one_left, 6, 3)
    assert "throw the 1 other die again" in STEAMFUNKATEERS.waiting(one_left.state).words
    broke = new_game(vigor=0)
    check(broke, pool("Ana", 2))
    throw = STEAMFUNKATEERS.waiting(broke.state).dice
    assert throw is not None and not throw.rerollable


def test_the_gm_throws_for_npcs_and_waits_otherwise() -> None:
    game = new_game()
    assert STEAMFUNKATEERS.waiting(game.state).kind is WaitKind.GAME_MASTER
    check(game, {"npc": "Thugs", "outnumbering": 1})
    throw = STEAMFUNKATEERS.waiting(game.state).dice
    assert throw is not None and (throw.who, throw.count) == ("GM", 7)


def test_the_reader_turns_a_throw_into_the_awaited_roll_or_reroll() -> None:
    game = new_game(vigor=1)
    reader = STEAMFUNKATEERS.table_reader(["Ana", "Bo"], 1.0)
    check(game, pool("Ana", 3))
    wrong = reader.observe_dice(game.state, [6, 2], 0.0)
    assert wrong == [Alert("dice", "Ana: throw 3 dice, not 2")]
    right = reader.observe_dice(game.state, [6, 2, 3], 1.0)
    assert right == [AlertCleared("dice"), Execute({"cmd": "roll", "values": [6, 2, 3]})]
    roll(game, 6, 2, 3)
    taken = reader.observe_dice(game.state, [1, 2, 3], 2.0)
    assert isinstance(taken[0], Alert) and "a six was taken away" in taken[0].message
    reroll = reader.observe_dice(game.state, [6, 6, 3], 3.0)
    assert reroll[-1] == Execute({"cmd": "reroll", "values": [6, 6, 3]})


def test_the_reader_asks_for_cards_to_leave_the_table_and_is_content_with_an_empty_mat() -> None:
    reader = STEAMFUNKATEERS.table_reader(["Ana"], 1.0)
    alert = reader.observe_pad(Game().state, None, 0.0)
    assert isinstance(alert[0], Alert) and "uses no cards" in alert[0].message
    card = SlotView(parse_card("4S"), face_up=True)
    laid = reader.observe_slot(Game().state, 0, 1, card, 0.0)
    assert len(laid) == 1 and isinstance(laid[0], Alert)
    assert (laid[0].key, laid[0].seat, laid[0].slot) == ("mat.s0.1", 0, 1)
    assert reader.observe_slot(Game().state, 0, 1, SlotView(), 1.0) == [AlertCleared("mat.s0.1")]


def test_each_seats_leds_show_its_contest_victories() -> None:
    game = new_game(vigor=0)
    game.execute({"cmd": "contest", "participants": ["Ana", "Bo"]})
    for ana, bo in (((6,), (1,)), ((6,), (1,)), ((1,), (6,))):
        game.execute({"cmd": "exchange", "pools": [pool("Ana", 1), pool("Bo", 1)]})
        roll(game, *ana)
        roll(game, *bo)
    lights = STEAMFUNKATEERS.indicators(game.state, ["Bo", "Ana", "Cy"])
    assert [s.lit for s in lights.seats] == [1, 2, 0]
    assert "first to 3" in lights.meaning


def run_verb(game: Game, verb: str, *words: str) -> dict[str, Any]:
    action = next(a for a in STEAMFUNKATEERS.gm_actions() if a.verb == verb)
    parser = argparse.ArgumentParser(prog=verb, exit_on_error=False)
    action.arguments(parser)
    command = action.build(parser.parse_args(list(words)))
    game.execute(command)
    return command


def test_the_gm_verbs_build_commands_the_engine_takes() -> None:
    game = Game()
    run_verb(game, "new", "Ana", "Bo", "--vigor", "2", "--gm-vigor", "3")
    command = run_verb(game, "check", "Ana=4,skill=Burglary,obstacle=1,bonus,extra", "npc:Thugs")
    assert command["pools"][0] == {
        "player": "Ana",
        "rank": 4,
        "skill": "Burglary",
        "obstacle": 1,
        "bonus": 1,
        "extra_die": True,
    }
    run_verb(game, "roll", "6", "1", "1", "2", "3")  # Vigor spent on the extra die: it stands
    run_verb(game, "roll", "1", "1", "1", "1", "1", "1")
    run_verb(game, "reroll", "1", "1", "1", "1", "1", "2")  # the GM's reroll, for 1 Vigor
    run_verb(game, "turn-order", "physical", "Ana=3/2/1", "Thug=3/2/1")
    run_verb(game, "roll", "5")
    run_verb(game, "roll", "2")
    assert game.state.order is not None and game.state.order.order == ("Ana", "Thug")
    run_verb(game, "end-turn")
    run_verb(game, "condition", "Ana", "--by", "Thug", "--name", "winded")
    run_verb(game, "roll", "3")
    run_verb(game, "end-conflict")
    run_verb(game, "gm-buy", "hazard", "--points", "2")
    run_verb(game, "award", "Ana")
    run_verb(game, "narrate", "Ana=1", "Bo=2")
    assert game.state.narrator == "Bo" and game.state.vigor == {"Ana": 2, "Bo": 0, "GM": 0}
    run_verb(game, "contest", "Ana", "Bo")
    run_verb(game, "fold", "Ana")
    run_verb(game, "end-game")
    assert game.state.over and game.state.conditions["Ana"] == (("winded", 3),)
    with pytest.raises(argparse.ArgumentError, match="expected PLAYER=RANK"):
        run_verb(game, "check", "Ana")


def test_random_play_reaches_contest_wins_rerolls_and_a_rebuilt_state() -> None:
    rng = random.Random(7)
    game = Game()
    refused = 0
    for _ in range(1500):
        command = STEAMFUNKATEERS.random_command(game.state, rng)
        assert command is not None
        try:
            game.execute(command)
        except RulesError:
            refused += 1
    assert any(isinstance(e, ContestEnded) and e.winner for e in game.events)
    assert any(isinstance(e, DiceRerolled) for e in game.events)
    assert refused < 30, "the random player is usually legal"
    assert STEAMFUNKATEERS.random_command(Game([*game.events]).state, rng) is not None


class FakeHands:
    """Records throws; no cards in this game, so laying one is a failure of the test."""

    def __init__(self) -> None:
        self.throws: list[list[int]] = []

    def throw(self, values: Sequence[int]) -> None:
        self.throws.append(list(values))

    def lay(self, seat: int, slot: int, card: str, face_up: bool) -> None:
        raise AssertionError("Steamfunkateers lays no card")

    def lift(self, seat: int, slot: int) -> None:
        raise AssertionError("Steamfunkateers lifts no card")

    def flip(self, seat: int, slot: int) -> None:
        raise AssertionError("Steamfunkateers flips no card")

    def lay_on_pad(self, card: str) -> None:
        raise AssertionError("Steamfunkateers uses no pad")


def test_simulated_people_play_a_game_through_the_tray_reader() -> None:
    """The people see only the public state, prompt and alerts; their throws reach the game
    through the same reader the camera feeds; their GM calls go straight in."""
    hands = FakeHands()
    sent: list[dict[str, Any]] = []
    people = STEAMFUNKATEERS.simulated_people(
        ["Ana", "Bo", "Cy"], hands, random.Random(1), sent.append, PeopleSettings(0.1, 25)
    )
    game = Game()
    reader = STEAMFUNKATEERS.table_reader(["Ana", "Bo", "Cy"], 1.0)
    alerts: dict[str, str] = {}
    people.start_game(5)

    def deliver() -> None:
        while sent:
            command = sent.pop(0)
            try:
                game.execute(command)
                people.replied(True)
            except RulesError:
                people.replied(False)
        while hands.throws:
            for action in reader.observe_dice(game.state, hands.throws.pop(0), 0.0):
                if isinstance(action, Alert):
                    alerts[action.key] = action.message
                elif isinstance(action, AlertCleared):
                    alerts.pop(action.key, None)
                else:
                    game.execute(action.command)

    deliver()
    for _ in range(3000):
        view = state_to_json(game.state)
        waiting = STEAMFUNKATEERS.waiting(game.state)
        # as the daemon's game/prompt carries it: `pending` is the game's own item
        pending = dict(waiting.detail) if waiting.detail is not None else None
        prompt = {"waiting": waiting.kind.value, "prompt": waiting.words, "pending": pending}
        if not people.step(view, prompt, dict(alerts)):
            break
        deliver()
    assert game.state.over, "the game master ends the game after its length"
    assert people.mistakes_made >= 1 and not alerts, "every mistake was caught and put right"
    assert any(isinstance(e, DiceRerolled) for e in game.events)
