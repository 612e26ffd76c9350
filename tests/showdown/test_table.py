"""The table reader: loads, reveals and the race read from the mat; alerts in plain words.

The race is judged from timestamps: with touch pads the mat's own millisecond clock, without
them the moment each bullet was first lifted or turned."""

from __future__ import annotations

import pytest

from tabletop.rules.games.cards import parse_card
from tabletop.rules.games.game import TouchReader
from tabletop.rules.games.reading import SlotView
from tabletop.rules.games.showdown.model import TIE_WINDOW_MS
from tabletop.rules.games.showdown.reading import RaceWinner, judge_race
from tabletop.rules.games.showdown.state import Phase

from .helpers import SplitTouchTable, Table, TouchTable, new_game, plain_deck

ANA = ["blank-1", "draw-1", "blank-2", "blank-3", "blank-4", "blank-5"]
BO = ["blank-1", "blank-2", "draw-1", "blank-3", "blank-4", "blank-5"]


# -- judge_race ---------------------------------------------------------------------------------


def test_a_clear_win_goes_to_whoever_touched_first() -> None:
    assert judge_race(1000, 1200, 50) is RaceWinner.ATTACKER
    assert judge_race(1200, 1000, 50) is RaceWinner.DEFENDER


def test_inside_the_tie_window_the_defender_was_fast_enough() -> None:
    assert judge_race(1000, 1030, 50) is RaceWinner.DEFENDER
    assert judge_race(1000, 1050, 50) is RaceWinner.DEFENDER  # exactly at the window: unclear
    assert judge_race(1000, 1051, 50) is RaceWinner.ATTACKER
    assert judge_race(1000, 1001, 0) is RaceWinner.ATTACKER


def test_one_touch_alone_decides_and_none_is_an_error() -> None:
    assert judge_race(None, 900, 50) is RaceWinner.DEFENDER
    assert judge_race(900, None, 50) is RaceWinner.ATTACKER
    with pytest.raises(ValueError, match="neither"):
        judge_race(None, None, 50)
    with pytest.raises(ValueError, match="tie_window_ms"):
        judge_race(1, 2, -1)
    assert 20 <= TIE_WINDOW_MS <= 100  # the default sits in the simultaneity literature's range


# -- loading and revealing ----------------------------------------------------------------------


def _load(table: Table, seat: int, cards: list[str], deck: str) -> None:
    for slot, card in enumerate(cards, start=1):
        table.lay(seat, slot, f"{deck}/{card}", False)


def ready(table: Table, **options: object) -> Table:
    table.send(new_game(**options))
    _load(table, 0, ANA, "cowboy")
    _load(table, 1, BO, "desperado")
    table.advance(1.0)
    return table


def test_six_face_down_cards_left_alone_for_the_grace_period_are_loaded_and_ready() -> None:
    table = Table()
    table.send(new_game())
    _load(table, 0, ANA, "cowboy")
    assert not table.state.hands["Ana"].loaded  # hands may still be moving cards
    table.advance(0.5)
    assert not table.state.hands["Ana"].loaded
    table.advance(0.6)
    assert table.state.hands["Ana"].loaded
    assert [b.card for b in table.state.hands["Ana"].bullets] == ANA


@pytest.mark.parametrize(
    ("view", "words"),
    [
        (SlotView(None, False, "desperado/draw-1"), "this card is from Bo's deck"),
        (SlotView(parse_card("QS"), True), "a playing card (QS) is not a bullet"),
        (SlotView(None, False, "?04A1B2C3"), "a card the table does not know (tag 04A1B2C3)"),
        (SlotView(None, False, "cowboy/laser"), "the Cowboy deck file has no card laser"),
    ],
)
def test_a_card_that_is_not_from_the_seats_deck_is_an_alert_until_it_goes(
    view: SlotView, words: str
) -> None:
    table = Table()
    table.send(new_game())
    table.lay_card(0, 3, view)
    assert words in table.alerts["card.s1.3"]
    table.lift(0, 3)
    assert "card.s1.3" not in table.alerts


def test_turning_a_bullet_face_up_is_its_reveal_and_out_of_turn_it_is_refused_in_words() -> None:
    table = ready(Table())
    table.flip(0, 1)
    assert table.state.reveals == (("Ana", "blank-1"),)
    table.flip(0, 3)
    assert table.state.reveals == (("Ana", "blank-1"),)
    assert "it is Bo's turn" in table.alerts["refused:reveal"]
    table.advance(0.1)
    assert "Ana's slot 3 was turned out of turn" in table.alerts["slot.s1.3"]
    table.flip(1, 1)  # Bo's turn: the table goes on and the refusal is old news
    assert "refused:reveal" not in table.alerts and table.state.turn == "Ana"
    assert table.state.reveals[-1] == ("Bo", "blank-1")  # Ana's early card is not counted
    table.flip(0, 3)  # turned back face down: the alert goes
    assert "slot.s1.3" not in table.alerts


def test_a_touch_out_of_turn_is_an_alert_and_a_touch_in_turn_chooses() -> None:
    table = ready(TouchTable())
    assert isinstance(table.reader, TouchReader)
    table.touch(1, 2)
    assert table.state.turn == "Bo"  # whoever touches first goes first
    table.touch(0, 4)
    assert "Ana touched slot 4 while it is Bo's turn" in table.alerts["touch.s1.4"]
    table.flip(1, 2)
    assert table.state.turn == "Ana" and "touch.s1.4" not in table.alerts


def _draw(table: Table) -> None:
    table.flip(0, 1)
    table.flip(1, 1)
    table.flip(0, 2)  # Ana's Draw
    assert table.state.phase is Phase.RACE


# -- the race -----------------------------------------------------------------------------------


def test_with_touch_pads_an_attacker_clearly_first_takes_the_instant_shot() -> None:
    table = ready(TouchTable())
    _draw(table)
    table.touch(1, 4)  # Ana's hand on Bo's bullet
    table.advance(0.2)
    table.touch(1, 3)  # Bo chooses 200 ms later
    table.flip(1, 3)
    race = next(c for c in table.applied if c["cmd"] == "race")
    assert race["winner"] == "attacker" and race["defender_ms"] - race["attacker_ms"] == 200
    assert table.state.phase is Phase.SHOOT and table.state.shots == (("Ana",),)
    assert "turned after the race was lost" in table.reader.instructions[0]
    table.throw([1])  # Ana misses: Bo's turned Draw now counts, and Bo shoots back
    assert table.state.reveals[-1] == ("Bo", "draw-1") and table.state.shots == (("Bo",),)
    table.throw([6])
    assert table.state.points == {"Ana": 0, "Bo": 2}


def test_with_touch_pads_a_touch_inside_the_tie_window_goes_to_the_defender() -> None:
    table = ready(TouchTable())
    _draw(table)
    table.touch(1, 4)
    table.advance(0.030)
    table.touch(1, 3)
    table.flip(1, 3)  # Bo's Draw: simultaneous shots
    race = next(c for c in table.applied if c["cmd"] == "race")
    assert race["winner"] == "defender"
    assert table.state.shots == (("Ana",), ("Bo",)) and table.state.drew == ("Ana", "Bo")


def test_after_the_defender_chose_a_late_touch_is_the_attackers_hand() -> None:
    table = ready(TouchTable())
    _draw(table)
    table.send({"cmd": "race", "winner": "defender", "slot": 3})
    table.touch(1, 5)  # Ana's hand arrives late
    assert table.state.hands["Bo"].touched == 3 and not table.alerts
    table.flip(1, 3)
    assert table.state.reveals[-1] == ("Bo", "draw-1")


def test_the_tie_window_is_an_option() -> None:
    table = ready(TouchTable(), tie_window_ms=10)
    _draw(table)
    table.touch(1, 4)
    table.advance(0.030)
    table.touch(1, 3)
    table.flip(1, 3)
    assert next(c for c in table.applied if c["cmd"] == "race")["winner"] == "attacker"


def test_a_touch_never_turned_was_the_attackers_hand() -> None:
    table = ready(TouchTable())
    _draw(table)
    table.touch(1, 5)
    table.advance(1.0)
    assert table.state.phase is Phase.RACE
    table.advance(1.0)
    assert table.state.phase is Phase.SHOOT and table.state.race_winner == "Ana"


# -- whose hand: split pads (docs/mat.md, "Whose hand: split pads") ---------------------------
# Both race to the defender's bullets: "If it is unclear which player was fastest to the
# defender's cards, then the defender is considered to have been fast enough." A split pad's
# side names the hand, so the attacker's finger on the very bullet the defender turns counts.


def test_split_pads_credit_the_attackers_touch_on_the_bullet_the_defender_turns() -> None:
    whole, split = ready(TouchTable()), ready(SplitTouchTable())
    for table in (whole, split):
        _draw(table)
        table.touch(1, 3, hand=0)  # Ana's hand on Bo's slot 3 ...
        table.advance(0.2)
        table.touch(1, 3, hand=1)  # ... and Bo's on the same bullet 200 ms later
        table.flip(1, 3)
    race = next(c for c in split.applied if c["cmd"] == "race")
    assert race["winner"] == "attacker" and race["defender_ms"] - race["attacker_ms"] == 200
    assert race["how"] == "touch pads, whose hand from split pads"
    assert split.state.race_winner == "Ana"
    # A whole pad cannot tell: the first touch on the bullet turned is the defender's.
    race = next(c for c in whole.applied if c["cmd"] == "race")
    assert race["winner"] == "defender" and race["how"] == "touch pads"
    assert whole.state.race_winner == "Bo"


def test_split_pads_credit_the_defender_first_on_their_own_bullet() -> None:
    table = ready(SplitTouchTable())
    _draw(table)
    table.touch(1, 3, hand=1)  # Bo first
    table.advance(0.2)
    table.touch(1, 3, hand=0)  # Ana's hand lands on the same bullet after
    table.flip(1, 3)
    race = next(c for c in table.applied if c["cmd"] == "race")
    assert race["winner"] == "defender" and race["attacker_ms"] - race["defender_ms"] == 200
    assert table.state.race_winner == "Bo"


def test_a_defenders_near_touch_not_turned_is_not_the_attackers_hand() -> None:
    table = ready(SplitTouchTable())
    _draw(table)
    table.touch(1, 3, hand=1)  # Bo's own hand; he does not turn it
    table.advance(2.0)
    race = next(c for c in table.applied if c["cmd"] == "race")
    assert race["winner"] == "defender" and race["slot"] == 3
    assert race["how"] == "a touch, not turned, whose hand from split pads"
    assert table.state.hands["Bo"].touched == 3


def test_outside_the_race_a_hand_from_across_the_table_chooses_nothing() -> None:
    table = ready(SplitTouchTable())
    table.touch(1, 2, hand=0)  # Ana's hand reaching over Bo's bullet: not Bo's choice
    # ... and 10 ms later her fingertip spreads over the near half: the same finger
    table.advance(0.010)
    table.act(table.reader.observe_touch(table.state, 1, 2, table.clock_ms, table.now, side="near"))
    assert table.state.turn is None and not table.alerts
    table.advance(0.5)
    table.touch(1, 2)  # Bo's own touch chooses, as on a whole pad
    assert table.state.turn == "Bo" and table.state.hands["Bo"].touched == 2


def test_without_touch_pads_the_first_lift_or_flip_decides() -> None:
    table = ready(Table())
    _draw(table)
    table.lift(1, 4)  # Ana grabs one of Bo's bullets
    table.advance(0.3)
    table.flip(1, 3)
    assert table.state.race_winner == "Ana" and table.state.phase is Phase.SHOOT
    # the other way round: Bo turns his bullet first
    table = ready(Table())
    _draw(table)
    table.flip(1, 2)
    table.advance(0.3)
    assert table.state.race_winner == "Bo" and table.state.reveals[-1] == ("Bo", "blank-2")
    assert table.state.shots == (("Ana",),)


def test_the_shooters_die_is_the_roll_and_a_re_roll_offer_takes_the_next_throw() -> None:
    deck = plain_deck("cowboy", [{"id": "again", "title": "Again", "type": "re-roll"}])
    table = Table()
    table.send(new_game(deck))
    _load(table, 0, ["again", "draw-1", *ANA[2:]], "cowboy")
    _load(table, 1, BO, "desperado")
    table.advance(1.0)
    _draw(table)
    table.send({"cmd": "race", "winner": "attacker"})
    table.throw([2, 3])
    assert "2 dice in the tray" in table.alerts["dice"]
    table.throw([2])
    assert table.state.rolls == {"Ana": 2}  # a miss: Ana may re-roll
    table.throw([6])
    assert table.state.points["Ana"] == 1


def test_the_seats_leds_show_the_points() -> None:
    from tabletop.rules.games.showdown.game import SHOWDOWN

    table = ready(Table())
    _draw(table)
    table.send({"cmd": "race", "winner": "attacker"})
    table.throw([6])
    lights = SHOWDOWN.indicators(table.state, ["Ana", "Bo", "Cy"]).seats
    assert [(s.lit, s.blinking) for s in lights] == [(1, False), (0, False), (0, False)]


def test_cards_left_from_the_last_round_are_not_read_as_the_next_load() -> None:
    table = ready(Table())
    _draw(table)
    table.send({"cmd": "race", "winner": "attacker"})
    table.throw([6])
    assert table.state.round == 2 and table.state.phase is Phase.LOAD
    table.advance(2.0)
    assert not table.state.hands["Bo"].loaded  # Bo's unrevealed bullets still lie there
    cards = ["blank-6", "blank-7", "blank-8", "draw-1", "draw-2", "blank-2"]
    for slot, card in enumerate(cards, start=1):
        table.lift(1, slot)
        table.lay(1, slot, f"desperado/{card}", False)
    table.advance(1.0)
    assert table.state.hands["Bo"].loaded


def test_a_card_the_mat_never_saw_lifted_is_asked_for_again_in_words() -> None:
    # Round 2: Bo lays five new bullets but the card in slot 6 lay there all along (or was laid
    # back too quickly for the mat to see the slot empty). The table cannot count it as this
    # round's bullet; without a word it would wait for ever (issue 30: the Showdown stall).
    table = ready(Table())
    _draw(table)
    table.send({"cmd": "race", "winner": "attacker"})
    table.throw([6])
    assert table.state.round == 2 and table.state.phase is Phase.LOAD
    cards = ["blank-6", "blank-7", "blank-8", "draw-1", "draw-2"]
    for slot, card in enumerate(cards, start=1):
        table.lift(1, slot)
        table.lay(1, slot, f"desperado/{card}", False)
    table.advance(0.5)
    assert "slot.s2.6" not in table.alerts  # hands may still be moving cards
    table.advance(1.0)
    assert not table.state.hands["Bo"].loaded
    words = table.alerts["slot.s2.6"]
    assert words.startswith("Bo's slot 6: the mat has seen this card lying there since the last")
    assert words.endswith("lift it and lay it again")
    assert "blank" not in words and "desperado/" not in words  # a face-down card is not named
    table.lift(1, 6)
    table.lay(1, 6, "desperado/blank-5", False)
    table.advance(1.5)
    assert table.state.hands["Bo"].loaded
    assert "slot.s2.6" not in table.alerts


def test_a_turn_that_arrives_before_its_own_touch_waits_a_moment_for_it() -> None:
    """The turn is a snapshot and the touch an event: the defender's turn can reach the table
    before the touch the finger made first. Decided at once, the defender had no time and the
    attacker always won. "If it is unclear which player was fastest to the defender's cards,
    then the defender is considered to have been fast enough."""
    table = ready(TouchTable())
    _draw(table)
    table.touch(1, 4)  # Ana's hand
    table.advance(0.030)
    table.flip(1, 3)  # Bo's turn reaches the table first ...
    assert not [c for c in table.applied if c["cmd"] == "race"]
    table.touch(1, 3)  # ... then his touch, made 30 ms after Ana's: too close to call
    race = next(c for c in table.applied if c["cmd"] == "race")
    assert race["winner"] == "defender" and race["defender_ms"] - race["attacker_ms"] == 30


def test_a_turn_whose_touch_never_comes_is_decided_on_the_touches_there_are() -> None:
    table = ready(TouchTable())
    _draw(table)
    table.touch(1, 4)
    table.advance(0.030)
    table.flip(1, 3)
    table.advance(0.1)
    assert not [c for c in table.applied if c["cmd"] == "race"]
    table.advance(0.2)
    race = next(c for c in table.applied if c["cmd"] == "race")
    assert race["winner"] == "attacker" and "defender_ms" not in race


def test_a_restarted_daemon_s_reader_takes_the_mat_it_first_hears_for_no_race_move() -> None:
    """A rules daemon restarted during the race starts with a reader that has seen nothing:
    the mat's snapshot shows the defender's face-down bullets where they always lay. Taken for
    moves, the race went to the attacker ("a touch, not turned") with no one moving."""
    from tabletop.rules.games.showdown.reading import ShowdownReader

    table = ready(Table())
    _draw(table)
    table.reader = ShowdownReader(["Ana", "Bo"], 1.0)
    for (seat, slot), view in sorted(table.mat.items()):
        table.act(table.reader.observe_slot(table.state, seat, slot, view, table.now))
    table.advance(5.0)
    assert table.state.phase is Phase.RACE and table.refusals == []
    table.flip(1, 2)  # then Bo turns his bullet
    table.advance(0.3)
    assert table.state.race_winner == "Bo"
