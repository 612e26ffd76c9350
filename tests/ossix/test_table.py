"""OS-SIX at the table: the game interface, the dice reader, the LEDs, the gm verbs, the
referee, a random legal player and the simulated people."""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.daemon.referee import Referee
from tabletop.rules import games
from tabletop.rules.games.errors import InvalidCommand, RulesError
from tabletop.rules.games.game import PeopleSettings, Scoring, WaitKind
from tabletop.rules.games.ossix.game import OS_SIX
from tabletop.rules.games.reading import Alert, AlertCleared, Execute
from tests.games.helpers import referee_at, reopened, send

ANA_BO = {"cmd": "new_game", "players": ["Ana", "Bo"]}


def engine_with(*commands: dict[str, Any]) -> Any:
    game = OS_SIX.new_engine()
    for command in (ANA_BO, *commands):
        game.execute(command)
    return game


def test_the_registry_serves_os_six_by_name() -> None:
    assert games.get("ossix") is OS_SIX
    assert "ossix" in games.names()
    assert [o.name for o in OS_SIX.info.options] == [
        "starting_luck",
        "luck_after_long_rest",
        "push_needs_a_failure",
        "second_chance_after_long_rest",
        "critical_failure_strain_stacks",
        "poker_variant",
        "poker_ante",
        "poker_minimum_raise",
        "poker_ties",
        "poker_odd_dollar",
        "poker_open",
    ]
    assert OS_SIX.read_options({"starting_luck": 3})["starting_luck"] == 3
    with pytest.raises(InvalidCommand, match="expected one of"):
        OS_SIX.read_options({"starting_luck": 5})


def test_the_phase_tells_no_game_yet_from_a_game_over() -> None:
    game = OS_SIX.new_engine()
    assert OS_SIX.public_view(game.state)["phase"] == "no_game"
    game.execute(ANA_BO)
    assert OS_SIX.public_view(game.state)["phase"] == "play"
    game.execute({"cmd": "end_game"})
    assert OS_SIX.public_view(game.state)["phase"] == "finished"
    assert OS_SIX.waiting(game.state).kind is WaitKind.NOTHING


def test_waiting_says_who_throws_how_many_dice_and_how_they_are_read() -> None:
    game = engine_with()
    assert OS_SIX.waiting(game.state).kind is WaitKind.GAME_MASTER
    game.execute({"cmd": "action", "player": "Bo", "attribute": "will", "score": 3})
    waiting = OS_SIX.waiting(game.state)
    assert waiting.kind is WaitKind.DICE and waiting.who == ("Bo",)
    assert waiting.dice is not None
    assert (waiting.dice.who, waiting.dice.count, waiting.dice.scoring) == (
        "Bo",
        3,
        Scoring.HIGHEST,
    )
    game.execute({"cmd": "roll", "values": [1, 2, 4]})
    game.execute({"cmd": "action", "player": "Ana", "attribute": "none"})
    empty = OS_SIX.waiting(game.state).dice
    assert empty is not None and (empty.count, empty.scoring) == (2, Scoring.LOWEST)
    assert "disadvantage" in OS_SIX.waiting(game.state).words


def test_the_leds_of_a_seat_show_its_luck_points_and_blink_when_incapacitated() -> None:
    game = engine_with(
        {"cmd": "award_luck", "player": "Bo"}, {"cmd": "strain", "player": "Ana", "change": 12}
    )
    lights = OS_SIX.indicators(game.state, ["Ana", "Bo", "Cy"]).seats
    assert [(s.lit, s.blinking) for s in lights] == [(2, True), (3, False), (0, False)]


def test_the_table_needs_no_mat_slots_and_no_pad() -> None:
    layout = OS_SIX.mat_layout({})
    assert (layout.slots_per_seat, layout.pad, layout.deck) == (0, False, None)


def test_the_reader_turns_a_throw_into_the_roll_and_alerts_on_a_wrong_count() -> None:
    game = engine_with({"cmd": "action", "player": "Ana", "attribute": "mind", "score": 2})
    reader = OS_SIX.table_reader(["Ana", "Bo"], 1.0)
    wrong = reader.observe_dice(game.state, [3, 4, 5], 0.0)
    assert wrong == [Alert("dice", "Ana: 3 dice in the tray, throw 2")]
    right = reader.observe_dice(game.state, [3, 4], 1.0)
    assert right == [
        AlertCleared("dice"),
        Execute({"cmd": "roll", "values": [3, 4], "source": "dice"}),
    ]
    assert isinstance(right[1], Execute)
    game.execute(right[1].command)
    assert game.state.characters[0].last.values == (3, 4)
    assert isinstance(reader.observe_dice(game.state, [6], 2.0)[0], Alert)
    assert isinstance(reader.observe_pad(game.state, None, 2.0)[0], Alert)


def _parse(verb: str, argv: list[str]) -> dict[str, Any]:
    action = next(a for a in OS_SIX.gm_actions() if a.verb == verb)
    parser = argparse.ArgumentParser(prog=verb)
    action.arguments(parser)
    return action.build(parser.parse_args(argv))


def test_the_gm_verbs_build_commands_the_engine_takes() -> None:
    verbs = {a.verb for a in OS_SIX.gm_actions()}
    assert {"action", "roll", "help", "luck", "award", "push", "gmroll", "panic"} <= verbs
    game = engine_with()
    commands = [
        _parse("action", ["Ana", "agility", "2", "--skill", "--pressure", "--penalty", "1"]),
        _parse("help", ["Bo", "Ana"]),
        _parse("luck", ["Ana", "bonus"]),
        _parse("roll", ["2", "2", "3", "1"]),
        _parse("award", ["all"]),
        _parse("load", ["Bo", "2", "15.5"]),
        _parse("gmroll", ["morale", "--morale", "6"]),
        _parse("roll", ["6", "6"]),
        _parse("strain", ["Bo", "-1", "--reason", "rest"]),
        _parse("rest", []),
        _parse("end", []),
    ]
    for command in commands:
        game.execute(command)
    assert game.state.over
    bo = game.state.character("Bo")
    assert bo is not None and bo.strain == 0 and bo.overloaded
    with pytest.raises(InvalidCommand) as error:
        game = engine_with()
        game.execute(_parse("gmroll", ["morale"]))
    assert error.value.field == "morale"


def test_every_event_is_described_in_words_and_round_trips_through_json() -> None:
    game = OS_SIX.new_engine()
    rng = random.Random(5)
    for _ in range(400):
        command = OS_SIX.random_command(game.state, rng)
        assert command is not None
        game.execute(command)
    kinds = set()
    for event in game.events:
        assert OS_SIX.event_from_json(json.loads(json.dumps(OS_SIX.event_to_json(event)))) == event
        text = OS_SIX.describe_event(event)
        assert text and "EventKind" not in text
        kinds.add(event.kind)
    assert len(kinds) >= 12
    with pytest.raises(InvalidCommand, match="not an OS-SIX event"):
        OS_SIX.event_from_json({"type": "dealt"})


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=1, max_value=300))
def test_random_legal_play_keeps_luck_and_strain_in_bounds_and_the_log_rebuilds_it(
    seed: int, length: int
) -> None:
    rng = random.Random(seed)
    game = OS_SIX.new_engine()
    for _ in range(length):
        command = OS_SIX.random_command(game.state, rng)
        assert command is not None
        try:
            game.execute(command)
        except RulesError as error:  # random play is legal play: a refusal is a bug
            pytest.fail(f"{command} refused: {error}")
        for character in game.state.characters:
            assert 0 <= character.luck <= 3 and 0 <= character.strain <= 12
    logged = [OS_SIX.event_from_json(OS_SIX.event_to_json(e)) for e in game.events]
    assert OS_SIX.new_engine(logged).state == game.state


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    with referee_at(tmp_path) as found:
        yield found


def test_the_referee_plays_os_six_logs_it_and_rebuilds_it(referee: Referee) -> None:
    assert send(referee, {**ANA_BO, "game": "ossix", "options": {"starting_luck": 1}})["ok"]
    assert referee.rules is OS_SIX
    send(referee, {"cmd": "action", "player": "Ana", "attribute": "brawn", "score": 1})
    assert referee.prompt_json()["dice"] == {
        "who": "Ana",
        "count": 1,
        "scoring": "highest",
        "rerollable": False,
    }
    refused = send(referee, {"cmd": "roll", "values": [1, 2]})
    assert refused["ok"] is False and refused["kind"] == "invalid"
    assert send(referee, {"cmd": "roll", "values": [1]})["ok"]  # a lone 1: critical failure
    assert referee.prompt_json()["waiting"] == "game_master"
    assert send(referee, {"cmd": "panic", "player": "Ana", "outcome": "freezes"})["ok"]
    assert send(referee, {"cmd": "spend_luck", "player": "Ana", "use": "reroll"})["ok"]
    assert send(referee, {"cmd": "roll", "values": [5]})["ok"]
    state = referee.state_json()
    ana = state["players"][0]
    assert (ana["luck"], ana["strain"], ana["last_roll"]["outcome"]) == (0, 1, "partial success")
    assert reopened(referee) == (OS_SIX, state)


class FakeHands:
    """Hands that only throw dice: what the simulated people did, for the test to check."""

    def __init__(self) -> None:
        self.throws: list[list[int]] = []

    def lay(self, seat: int, slot: int, card: str, face_up: bool) -> None:
        raise AssertionError("OS-SIX lays no cards")

    def lift(self, seat: int, slot: int) -> None:
        raise AssertionError("OS-SIX lifts no cards")

    def flip(self, seat: int, slot: int) -> None:
        raise AssertionError("OS-SIX flips no cards")

    def lay_on_pad(self, card: str) -> None:
        raise AssertionError("OS-SIX uses no pad")

    def throw(self, values: Sequence[int]) -> None:
        self.throws.append(list(values))


def test_simulated_people_play_an_evening_through_the_referee_and_the_reader(
    referee: Referee,
) -> None:
    hands = FakeHands()
    sent: list[dict[str, Any]] = []
    people = OS_SIX.simulated_people(
        ["Ana", "Bo", "Cy"],
        hands,
        random.Random(3),
        sent.append,
        PeopleSettings(mistake_rate=0.2, length=25),
    )
    reader = OS_SIX.table_reader(["Ana", "Bo", "Cy"], 1.0)
    alerts: dict[str, str] = {}
    people.start_game(7)
    steps = 0
    while steps < 2000:
        for command in sent:
            people.replied(bool(send(referee, command)["ok"]))
        sent.clear()
        for values in hands.throws:
            for action in reader.observe_dice(referee.game.state, values, float(steps)):
                if isinstance(action, Alert):
                    alerts[action.key] = action.message
                elif isinstance(action, AlertCleared):
                    alerts.pop(action.key, None)
                else:
                    assert send(referee, action.command)["ok"]
        hands.throws.clear()
        state, prompt = referee.public_state_json(), referee.prompt_json()
        if not people.step(state, prompt, dict(alerts)):
            break
        steps += 1
    assert referee.state_json()["phase"] == "finished"
    assert people.mistakes_made > 0 and not alerts  # every wrong throw caught, then fixed
    assert people.mistakes_caught == people.mistakes_made
    rolled = [e for e in referee.game.events if e.kind.value == "rolled"]
    assert len(rolled) >= 15
