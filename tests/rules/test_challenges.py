"""Overcoming Challenges, Rolling Your Hand and Strikes (Six Shooter v0.03)."""

from __future__ import annotations

from typing import Any

import pytest

from tabletop.rules.games.errors import OutOfTurn
from tabletop.rules.games.sixshooter import Game, Outcome, Status, event_name, state_to_json
from tabletop.rules.games.sixshooter.errors import ChallengeError, PlayerOutOfPlay
from tabletop.rules.games.sixshooter.events import ChallengeResolved
from tests.rules.table import new_game, roll, run, slots

HANDS = {
    "Ana": ["2S", "3S", "4S", "5S", "6S", "8S"],
    "Bo": ["2C", "3C", "4C", "5C", "6C", "8C"],
}


def playing(**options: Any) -> Game:
    return new_game(HANDS, reveal={"Ana": 1, "Bo": 1}, **options)


def challenge(
    player: str = "Ana", critical: object = 4, method: str = "slyness", **extra: object
) -> dict[str, object]:
    return {"cmd": "challenge", "player": player, "method": method, "critical": critical, **extra}


def outcome_of(game: Game) -> ChallengeResolved:
    resolved = [e for e in game.events if isinstance(e, ChallengeResolved)]
    return resolved[-1]


@pytest.mark.parametrize(
    ("rolled", "outcome", "rolls_hand"),
    [
        (5, Outcome.SUCCESS, False),
        (4, Outcome.SUCCESS_ROLL_HAND, True),
        (3, Outcome.FAILURE, True),
    ],
)
def test_a_roll_against_the_critical_number(
    rolled: int, outcome: Outcome, rolls_hand: bool
) -> None:
    """ "greater than the Critical Number, the Operator overcomes the challenge ... equal ... overcomes
    the challenge, but the player must Roll Their Hand ... less ... does not overcome the challenge
    ... and the player must Roll Their Hand." """
    game = playing()
    run(game, challenge(critical=4), *roll(rolled))
    assert outcome_of(game).outcome is outcome
    pending = state_to_json(game.state)["pending"]
    if rolls_hand:
        assert pending["purpose"] == "roll_hand" and pending["player"] == "Ana"
    else:
        assert pending is None


def test_critical_number_zero_or_lower_succeeds_without_a_roll() -> None:
    """ "0 or lower – The Operator overcomes the challenge without having to roll." """
    game = playing()
    run(game, challenge(critical=1, card={"player": "Ana", "slot": 1}))
    resolved = outcome_of(game)
    assert resolved.roll is None and resolved.outcome is Outcome.SUCCESS and resolved.critical == 0
    assert state_to_json(game.state)["pending"] is None


def test_an_impossible_challenge_cannot_be_attempted() -> None:
    """ "Impossible – There's no point in the character rolling" """
    game = playing()
    with pytest.raises(ChallengeError, match="cannot attempt an Impossible challenge"):
        game.execute(challenge(critical="impossible"))


def test_a_critical_number_above_7_is_refused() -> None:
    """Decision: the Critical Number is base + Strikes capped at 7, and a base above 7 is rejected."""
    with pytest.raises(ChallengeError, match="at most 7, got 8"):
        playing().execute(challenge(critical=8))


def give_strikes(game: Game, player: str, count: int) -> None:
    """Strikes reached through play: fail a challenge, then roll slot 1 until it is empty."""
    method = "slyness" if player == "Ana" else "danger"
    start = game.state.operators[player].strikes
    while game.state.operators[player].strikes < start + count:
        run(game, challenge(player=player, method=method, critical=4), *roll(1, 1))


def test_strikes_raise_the_critical_number_but_never_above_7() -> None:
    """ "For each Strike you have, the Critical Number of all challenges is increased by 1 (but never
    above 7) for your Operator and your Operator only." """
    game = playing()
    give_strikes(game, "Ana", 2)
    run(game, challenge(critical=4))
    assert game.state.challenge is not None and game.state.challenge.critical == 6
    run(game, *roll(6), *roll(3))  # equal: overcome, then Roll Your Hand
    run(game, challenge(player="Bo", critical=4, method="danger"))
    assert game.state.challenge is not None and game.state.challenge.critical == 4
    run(game, *roll(6), challenge(critical=6))
    assert game.state.challenge is not None and game.state.challenge.critical == 7


def test_rolling_your_hand_flips_discards_or_strikes() -> None:
    """ "If the card is face-down, flip it face-up. If the card is face-up, discard it without
    gaining any benefits. If the card has already been discarded and is missing, you gain a Strike." """
    game = playing()
    run(game, challenge(critical=4), *roll(1, 2))  # fail, roll hand 2: face-down 3S flips
    assert slots(game.state, "Ana") == ["2S", "3S", "4s", "5s", "6s", "8s"]
    run(game, challenge(critical=4), *roll(1, 2))  # roll hand 2 again: face-up 3S discarded
    assert slots(game.state, "Ana") == ["2S", "--", "4s", "5s", "6s", "8s"]
    assert game.state.discard[-1].code == "3S"
    run(game, challenge(critical=4), *roll(1, 2))  # slot 2 is empty: a Strike
    assert game.state.operators["Ana"].strikes == 1


def test_the_third_strike_removes_the_operator_from_play() -> None:
    """ "Once you get your third Strike, your Operator's luck runs out completely and they are
    removed from play." Decision: their remaining cards go to the discard pile."""
    game = playing()
    run(game, challenge(critical=4), *roll(1, 1))  # slot 1 (2S, face-up) discarded
    for _ in range(3):
        run(game, challenge(critical=4), *roll(1, 1))
    ana = game.state.operators["Ana"]
    assert ana.strikes == 3 and ana.status is Status.REMOVED
    assert slots(game.state, "Ana") == ["--"] * 6
    assert {c.code for c in game.state.discard} >= {"2S", "3S", "4S", "5S", "6S", "8S"}
    with pytest.raises(PlayerOutOfPlay, match="Ana's Operator is removed"):
        game.execute(challenge(critical=2))


def test_removed_cards_can_stay_on_the_table_by_option() -> None:
    game = playing(removed_cards_to_discard=False)
    run(game, challenge(critical=4), *roll(1, 1))
    for _ in range(3):
        run(game, challenge(critical=4), *roll(1, 1))
    assert slots(game.state, "Ana") == ["--", "3s", "4s", "5s", "6s", "8s"]


def test_a_roll_is_taken_only_when_one_is_awaited() -> None:
    game = playing()
    with pytest.raises(OutOfTurn, match="no roll is awaited"):
        game.execute({"cmd": "roll", "value": 4})
    run(game, challenge(critical=4))
    with pytest.raises(OutOfTurn, match="Ana: roll the die for the slyness challenge"):
        game.execute(challenge(player="Bo", method="danger"))


def test_six_shooter_rolls_one_die() -> None:
    game = playing()
    run(game, challenge(critical=4))
    with pytest.raises(ChallengeError, match="one six-sided die, not 2"):
        game.execute({"cmd": "roll", "values": [3, 4]})


def test_multi_stage_challenges_count_successes_collectively() -> None:
    """ "the Operatives must collectively succeed on a certain number of rolls before the challenge
    is overcome." """
    game = playing()
    run(game, {"cmd": "multi_stage", "id": "dragon", "needed": 2})
    run(game, challenge(critical=3, stage="dragon"), *roll(2, 4))  # failure: no progress
    assert game.state.stages["dragon"].successes == 0
    run(game, challenge(critical=3, stage="dragon"), *roll(5))
    run(game, challenge(player="Bo", method="danger", critical=3, stage="dragon"), *roll(3, 6))
    names = [event_name(e) for e in game.events]
    assert names.count("stage_progressed") == 2
    assert names[names.index("stage_overcome") - 1] == "stage_progressed"
    assert "dragon" not in game.state.stages
    with pytest.raises(ChallengeError, match="no multi-stage challenge 'dragon' is open"):
        game.execute(challenge(stage="dragon"))
