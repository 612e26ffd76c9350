"""The race to the defender's cards however it reaches the engine (the mat, the game master, a
file), judged by its own times, and said as it was.

"If it is unclear which player was fastest to the defender's cards, then the defender is
considered to have been fast enough." (seed 003, 3) DRAW)
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabletop.rules.games.errors import IllegalMove, InvalidCommand
from tabletop.rules.games.replay import replay_lines
from tabletop.rules.games.showdown.engine import Game
from tabletop.rules.games.showdown.events import RaceDecided, event_from_json, event_to_json
from tabletop.rules.games.showdown.game import SHOWDOWN
from tabletop.rules.games.showdown.race import (
    RaceTouch,
    RaceWinner,
    TouchSide,
    credit_race,
    judge_race,
    race_words,
    too_close_to_call,
)
from tabletop.rules.games.showdown.state import Phase
from tabletop.rules.games.showdown.view import describe_event

from .helpers import TouchTable, loaded, new_game, play, reveal
from .test_actions import build

ANA_DRAWS_2 = ["blank-1", "draw-1", "blank-2", "blank-3", "blank-4", "blank-5"]
BO_DRAWS_3 = ["blank-1", "blank-2", "draw-1", "blank-3", "blank-4", "blank-5"]


def racing(**options: Any) -> Game:
    """Ana has drawn (slot 2): the race to Bo's bullets is on."""
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3, **options)
    play(game, [reveal("Ana", 1), reveal("Bo", 1), reveal("Ana", 2)])
    assert game.state.phase is Phase.RACE
    return game


def race(**fields: Any) -> dict[str, Any]:
    return {"cmd": "race", **fields}


# -- 7) a race entered by hand or read from a file is checked against its own times -------------


def test_a_winner_sent_against_its_own_times_inside_the_tie_window_is_refused() -> None:
    # "If it is unclear which player was fastest ... the defender is considered to have been
    # fast enough": 6 ms is unclear, so "attacker" cannot stand.
    game = racing()
    before = game.state
    with pytest.raises(IllegalMove, match="6 ms apart, too close to call") as refused:
        game.execute(race(winner="attacker", attacker_ms=1000, defender_ms=1006))
    assert "Bo, the defender, was fast enough" in str(refused.value)
    assert game.state is before  # nothing changed


def test_a_winner_sent_against_clear_times_is_refused_either_way() -> None:
    game = racing()
    with pytest.raises(IllegalMove, match="Ana was first to Bo's cards by 300 ms"):
        game.execute(race(winner="defender", attacker_ms=1000, defender_ms=1300))
    with pytest.raises(IllegalMove, match="does not match"):
        game.execute(race(winner="Ana", defender_ms=1300))  # only Bo touched: Bo was first


@pytest.mark.parametrize(
    ("attacker_ms", "defender_ms", "winner", "phase"),
    [
        (1000, 1006, "Bo", Phase.DEFENDER_CHOOSES),  # inside the window: the defender
        (1000, 1050, "Bo", Phase.DEFENDER_CHOOSES),  # exactly the window: still unclear
        (1000, 1073, "Ana", Phase.SHOOT),  # clearly first: the attacker's instant shot
        (1200, 1000, "Bo", Phase.DEFENDER_CHOOSES),
    ],
)
def test_times_alone_are_judged_as_the_mats_are(
    attacker_ms: int, defender_ms: int, winner: str, phase: Phase
) -> None:
    game = racing()
    events = game.execute(race(attacker_ms=attacker_ms, defender_ms=defender_ms))
    assert events[0] == RaceDecided(winner, attacker_ms, defender_ms, "", 50)
    assert game.state.race_winner == winner and game.state.phase is phase


def test_the_tables_tie_window_is_the_one_the_times_are_judged_with() -> None:
    game = racing(tie_window_ms=5)
    game.execute(race(winner="attacker", attacker_ms=1000, defender_ms=1006))
    assert game.state.race_winner == "Ana"


def test_a_game_master_who_cannot_tell_gives_the_race_to_the_defender() -> None:
    # "If it is unclear which player was fastest to the defender's cards, then the defender is
    # considered to have been fast enough."
    game = racing()
    events = game.execute(build("race", "unclear", "--slot", "4"))
    assert events[0] == RaceDecided("Bo", None, None, "too close to call: the game master")
    assert game.state.phase is Phase.DEFENDER_CHOOSES and game.state.hands["Bo"].touched == 4
    assert describe_event(events[0], game.state) == (
        "Bo, the defender, was fast enough (too close to call: the game master)"
    )


def test_the_game_masters_race_takes_times_and_may_leave_the_winner_to_them() -> None:
    command = build("race", "--attacker-ms", "1000", "--defender-ms", "1006")
    assert command == {
        "cmd": "race",
        "how": "the game master",
        "attacker_ms": 1000,
        "defender_ms": 1006,
    }
    game = racing()
    game.execute(command)
    assert game.state.race_winner == "Bo"


def test_a_race_without_a_winner_or_times_is_refused_naming_what_to_send() -> None:
    with pytest.raises(InvalidCommand, match="winner: expected attacker, defender, unclear"):
        racing().execute(race())


def test_a_race_read_from_a_file_is_checked_against_its_own_times() -> None:
    lines = [
        json.dumps({**new_game(), "game": "showdown"}),
        json.dumps({"cmd": "load", "player": "Ana", "bullets": ANA_DRAWS_2}),
        json.dumps({"cmd": "load", "player": "Bo", "bullets": BO_DRAWS_3}),
        json.dumps(reveal("Ana", 1)),
        json.dumps(reveal("Bo", 1)),
        json.dumps(reveal("Ana", 2)),
        json.dumps(race(winner="attacker", attacker_ms=2000, defender_ms=2020)),
        json.dumps(race(attacker_ms=2000, defender_ms=2020, slot=3)),
    ]
    replay = replay_lines(lines)
    assert [r["line"] for r in replay.rejected] == [7]
    assert "20 ms apart, too close to call" in replay.rejected[0]["error"]
    assert replay.game.state.race_winner == "Bo" and replay.game.state.hands["Bo"].touched == 3


# -- 9) a race said as it was -------------------------------------------------------------------


def test_a_tie_is_said_as_a_tie_never_as_the_attacker_first() -> None:
    game = racing()
    events = game.execute(race(attacker_ms=1000, defender_ms=1006, how="touch pads"))
    text = describe_event(events[0], game.state)
    assert text == "6 ms apart, too close to call: Bo, the defender, was fast enough (touch pads)"
    assert "first" not in text
    public = SHOWDOWN.public_event(events[0], game.state)["text"]
    assert public == text


def test_a_clear_race_gives_its_margin_in_milliseconds() -> None:
    game = racing()
    events = game.execute(race(attacker_ms=1000, defender_ms=1073))
    assert describe_event(events[0], game.state) == "Ana was first to Bo's cards by 73 ms"
    # without the state at hand (the game master's log words) the defender goes unnamed
    assert describe_event(events[0]) == "Ana was first to the defender's cards by 73 ms"
    game = racing()
    events = game.execute(race(attacker_ms=1200, defender_ms=1000))
    assert (
        describe_event(events[0], game.state)
        == "Bo, the defender, was first by 200 ms: fast enough"
    )


def test_a_defenders_timed_win_is_told_as_the_defenders_in_every_view() -> None:
    # Issue 48: "a defender's timed win is told as the defender's". Without the state at hand
    # (the game master's log words) the words were the attacker's: "Bo was first to the
    # defender's cards by 200 ms", Bo being the defender.
    game = racing()
    events = game.execute(race(attacker_ms=1200, defender_ms=1000))
    won = "Bo, the defender, was first by 200 ms: fast enough"
    assert describe_event(events[0]) == won
    assert SHOWDOWN.describe_event(events[0]) == won
    assert SHOWDOWN.public_event(events[0], game.state)["text"] == won
    # The attacker touched no bullet: the defender's win, said as the defender's.
    assert race_words("Bo", None, 1000, 40) == "Bo, the defender, was fast enough"
    # The attacker's timed win stays the attacker's, with or without the state.
    assert race_words("Ana", 1000, 1200, 40) == "Ana was first to the defender's cards by 200 ms"
    assert race_words("Ana", 1000, None, 40) == "Ana won the race to the defender's cards"


def test_words_never_call_a_player_first_inside_the_window() -> None:
    for attacker_ms in range(900, 1101, 7):
        for window in (0, 10, 50):
            close = too_close_to_call(attacker_ms, 1000, window)
            assert close == (abs(attacker_ms - 1000) <= window)
            for winner in ("Ana", "Bo"):
                text = race_words(winner, attacker_ms, 1000, window, "Bo")
                assert ("too close to call" in text) == close
                if "first" in text:
                    # only ever the one who touched first, by more than the window
                    assert not close
                    assert (winner == "Ana") == (attacker_ms < 1000)


def test_an_event_logged_before_the_window_was_recorded_still_reads_and_is_said_plainly() -> None:
    raw = {
        "v": 1,
        "type": "race_decided",
        "winner": "Ana",
        "attacker_ms": 2000,
        "defender_ms": 2006,
        "how": "touch pads",
    }
    event = event_from_json(raw)
    assert event == RaceDecided("Ana", 2000, 2006, "touch pads", None)
    assert describe_event(event) == "Ana won the race (6 ms apart) (touch pads)"
    assert event_to_json(event)["tie_window_ms"] is None


def test_the_mats_tie_is_said_as_a_tie() -> None:
    table = TouchTable()
    table.send(new_game())
    for seat, (cards, deck) in enumerate(((ANA_DRAWS_2, "cowboy"), (BO_DRAWS_3, "desperado"))):
        for slot, card in enumerate(cards, start=1):
            table.lay(seat, slot, f"{deck}/{card}", False)
    table.advance(1.0)
    for seat, slot in ((0, 1), (1, 1), (0, 2)):
        table.touch(seat, slot)
        table.flip(seat, slot)
    assert table.state.phase is Phase.RACE
    table.touch(1, 4)  # Ana's hand
    table.advance(0.006)
    table.touch(1, 3)  # Bo's, 6 ms later
    table.flip(1, 3)
    decided = next(e for e in table.engine.events if isinstance(e, RaceDecided))
    assert describe_event(decided, table.state) == (
        "6 ms apart, too close to call: Bo, the defender, was fast enough (touch pads)"
    )


# -- 11) whose hand: split pads name the side a finger came from --------------------------------


def test_on_a_whole_pad_the_attackers_touch_on_the_very_bullet_turned_counts_as_the_defenders() -> (
    None
):
    # the limitation split pads remove: a pad cannot tell whose finger it was
    touches = [RaceTouch(3, 1000), RaceTouch(3, 1200)]
    assert credit_race(touches, turned_slot=3) == (None, 1000)


def test_with_split_pads_the_far_half_first_is_the_attackers_hand_even_on_the_bullet_turned() -> (
    None
):
    # "If the attacker is able to touch one of the defender's bullets first, the attacker takes
    # an 'Instant shot'": Ana's finger from across the table, then Bo's own 200 ms later
    touches = [
        RaceTouch(3, 1000, TouchSide.FAR),
        RaceTouch(3, 1004, TouchSide.NEAR),  # Ana's fingertip spreading over the pad
        RaceTouch(3, 1200, TouchSide.NEAR),  # Bo's hand
    ]
    attacker_ms, defender_ms = credit_race(touches, turned_slot=3)
    assert (attacker_ms, defender_ms) == (1000, 1200)
    assert judge_race(attacker_ms, defender_ms, 50) is RaceWinner.ATTACKER


def test_with_split_pads_sides_beat_the_slots_and_unknown_sides_fall_back_to_them() -> None:
    touches = [
        RaceTouch(2, 1000, TouchSide.NEAR),  # Bo chose slot 2 first ...
        RaceTouch(4, 1010, TouchSide.UNKNOWN),  # a finger across both halves of slot 4
        RaceTouch(2, 1030, TouchSide.FAR),  # ... and Ana reached it too, 30 ms later
    ]
    assert credit_race(touches, turned_slot=2) == (1010, 1000)
    assert credit_race([RaceTouch(5, 900, TouchSide.NEAR)], turned_slot=None) == (None, 900)
