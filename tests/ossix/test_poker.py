"""Dice poker of "Additional Rules" (Gambling): one test or more per rule, the table's part
(waiting, the reader's draw check, the gm verbs, the simulated evening) and a property test."""

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
from tabletop.rules.games.errors import IllegalMove, InvalidCommand, RulesError
from tabletop.rules.games.game import PeopleSettings, Reroll, Scoring, WaitKind
from tabletop.rules.games.ossix.engine import Game
from tabletop.rules.games.ossix.events import Event, EventKind
from tabletop.rules.games.ossix.game import OS_SIX
from tabletop.rules.games.ossix.people import random_command
from tabletop.rules.games.ossix.poker import CATEGORIES, Phase, Poker, best_rank, rank
from tabletop.rules.games.reading import Alert, AlertCleared, Execute
from tests.games.helpers import referee_at, send
from tests.ossix.test_table import FakeHands

# -- helpers -------------------------------------------------------------------------------


def table(*seats: tuple[str, int], options: dict[str, Any] | None = None, **start: Any) -> Game:
    """A game with Ana and Bo, and a game of poker seated clockwise as given, played open
    (every hand thrown in the tray) unless `start` says `open=False` (tests/ossix/
    test_concealed_poker.py plays the default, concealed hands)."""
    game = Game()
    game.execute({"cmd": "new_game", "players": ["Ana", "Bo"], "options": options or {}})
    seated = seats or (("Ana", 10), ("Bo", 10), ("Bart", 10))
    players = [{"name": n, "money": m} for n, m in seated]
    game.execute({"cmd": "poker_start", "players": players, "open": True, **start})
    return game


def poker(game: Game) -> Poker:
    found = game.state.poker
    assert found is not None
    return found


def poker_or_none(game: Game) -> Poker | None:
    return game.state.poker


def money(game: Game) -> dict[str, int]:
    return {s.name: s.money for s in poker(game).seats}


def throw(game: Game, *values: int) -> tuple[Event, ...]:
    return game.execute({"cmd": "roll", "values": list(values)})


def bet(game: Game, player: str, action: str, amount: int | None = None) -> tuple[Event, ...]:
    command: dict[str, Any] = {"cmd": "bet", "player": player, "action": action}
    if amount is not None:
        command["amount"] = amount
    return game.execute(command)


def dealt(game: Game, *hands: Sequence[int]) -> None:
    """Antes a hand and throws the hands, in the order the deal goes (left of the dealer)."""
    game.execute({"cmd": "ante"})
    for hand in hands:
        throw(game, *hand)


def won(events: Sequence[Event]) -> list[tuple[str | None, int | None, str | None]]:
    return [(e.player, e.number, e.target) for e in events if e.kind is EventKind.POT_WON]


def turn(game: Game) -> str | None:
    seat = poker(game).bettor()
    return None if seat is None else seat.name


# -- Poker Hand Rankings -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "name"),
    [
        ((1, 2, 3, 4, 6), "high card"),  # no suits: five different dice and no straight
        ((2, 2, 3, 5, 6), "one pair"),
        ((2, 2, 5, 5, 6), "two pair"),
        ((4, 4, 4, 1, 2), "three of a kind"),
        ((1, 2, 3, 4, 5), "straight"),
        ((6, 5, 4, 3, 2), "straight"),
        ((3, 3, 3, 6, 6), "full house"),
        ((5, 5, 5, 5, 1), "four of a kind"),
        ((6, 6, 6, 6, 6), "five of a kind"),
    ],
)
def test_each_hand_is_named_as_the_seed_ranks_it(dice: tuple[int, ...], name: str) -> None:
    assert rank(dice).name == name


def test_the_rankings_go_in_the_seeds_order_with_no_flush() -> None:
    assert CATEGORIES == (
        "high card",
        "one pair",
        "two pair",
        "three of a kind",
        "straight",
        "full house",
        "four of a kind",
        "five of a kind",
    )
    hands = [(1, 2, 3, 4, 6), (2, 2, 3, 5, 6), (2, 2, 5, 5, 6), (4, 4, 4, 1, 2)]
    hands += [(1, 2, 3, 4, 5), (3, 3, 3, 6, 6), (5, 5, 5, 5, 1), (1, 1, 1, 1, 1)]
    keys = [rank(h).key("values") for h in hands]
    assert keys == sorted(keys)


def test_the_high_straight_beats_the_low_one_and_dice_break_ties_within_a_rank() -> None:
    assert rank((2, 3, 4, 5, 6)).key("values") > rank((1, 2, 3, 4, 5)).key("values")
    assert rank((6, 6, 1, 2, 3)).key("values") > rank((2, 2, 4, 5, 6)).key("values")
    assert rank((3, 3, 1, 5, 6)).key("values") > rank((3, 3, 1, 4, 6)).key("values")  # kicker
    assert rank((2, 2, 2, 1, 1)).key("values") > rank((1, 1, 1, 6, 6)).key("values")
    # The option: every hand of one rank ties.
    assert rank((6, 6, 1, 2, 3)).key("category") == rank((2, 2, 4, 5, 6)).key("category")
    with pytest.raises(ValueError, match="five dice"):
        rank((1, 2, 3))


def test_lucky_seven_and_hold_em_take_the_best_five_of_seven() -> None:
    assert best_rank((1, 1, 2, 3, 4, 5, 6)).words() == "straight (6)"
    assert best_rank((6, 6, 6, 2, 2, 1, 1)).words() == "full house (6 2)"


# -- 1: Putting Money on the Table ----------------------------------------------------------


def test_poker_needs_two_players_each_with_money_on_the_table() -> None:
    game = Game()
    game.execute({"cmd": "new_game", "players": ["Ana"]})
    with pytest.raises(InvalidCommand, match="two players or more"):
        game.execute({"cmd": "poker_start", "players": [{"name": "Ana", "money": 5}]})
    with pytest.raises(InvalidCommand) as error:
        game.execute(
            {
                "cmd": "poker_start",
                "players": [{"name": "Ana", "money": 5}, {"name": "Bart", "money": 0}],
            }
        )
    assert error.value.field == "money"
    with pytest.raises(InvalidCommand, match="seated twice"):
        game.execute(
            {
                "cmd": "poker_start",
                "players": [{"name": "Ana", "money": 5}, {"name": "Ana", "money": 3}],
            }
        )
    assert game.state.poker is None


def test_money_stays_on_the_table_for_the_round_and_a_player_leaves_after_it() -> None:
    game = table()
    dealt(game, (1, 2, 3, 4, 6), (2, 2, 3, 5, 6), (3, 3, 1, 2, 4))
    with pytest.raises(IllegalMove, match="only after the hand ends"):
        game.execute({"cmd": "poker_leave", "player": "Bo"})
    bet(game, "Bo", "fold")
    bet(game, "Bart", "fold")  # Ana wins the antes
    assert money(game) == {"Ana": 12, "Bo": 9, "Bart": 9}
    events = game.execute({"cmd": "poker_leave", "player": "Bo"})
    assert events[0].number == 9 and money(game) == {"Ana": 12, "Bart": 9}


# -- 2: Determine Dealer and Ante -----------------------------------------------------------


def test_everyone_antes_and_the_deal_rotates_clockwise_after_each_round() -> None:
    game = table(dealer="Bo", ante=2)
    assert poker(game).seats[poker(game).dealer].name == "Bo"
    events = game.execute({"cmd": "ante"})
    assert events[0].values == (2, 2, 2) and poker(game).pot == 6
    awaited = poker(game).awaited_dice()
    assert awaited is not None and awaited[0] == "Bart"  # left of the dealer throws first
    throw(game, 1, 2, 3, 4, 6)
    throw(game, 1, 2, 3, 4, 6)
    throw(game, 1, 2, 3, 4, 6)
    assert turn(game) == "Bart"  # "starting with the character sitting left of the dealer"
    bet(game, "Bart", "fold")
    bet(game, "Ana", "fold")
    assert poker(game).seats[poker(game).dealer].name == "Bart"
    assert not poker(game).in_hand


def test_the_ante_defaults_to_the_tables_option() -> None:
    game = table(options={"poker_ante": 3})
    assert game.execute({"cmd": "ante"})[0].values == (3, 3, 3)
    with pytest.raises(IllegalMove, match="finish it first"):
        game.execute({"cmd": "ante"})


def test_a_player_with_less_than_the_ante_antes_all_in() -> None:
    game = table(("Ana", 10), ("Bo", 1), ante=2)
    assert game.execute({"cmd": "ante"})[0].values == (2, 1)
    bo = poker(game).seat("Bo")
    assert bo is not None and bo.all_in


# -- 3: The Deal ----------------------------------------------------------------------------


def test_each_player_throws_five_dice_in_turn_and_a_wrong_throw_is_refused() -> None:
    game = table()
    game.execute({"cmd": "ante"})
    with pytest.raises(InvalidCommand, match="expected 5 dice, got 4"):
        throw(game, 1, 2, 3, 4)
    with pytest.raises(IllegalMove, match="this throw is Bo's"):
        game.execute({"cmd": "roll", "values": [1, 2, 3, 4, 5], "player": "Ana"})
    throw(game, 6, 6, 6, 1, 2)
    bo = poker(game).seat("Bo")
    assert bo is not None and bo.dice == (6, 6, 6, 1, 2)


def test_no_action_roll_during_a_hand_but_between_hands_the_story_goes_on() -> None:
    game = table()
    game.execute({"cmd": "ante"})
    action = {"cmd": "action", "player": "Ana", "attribute": "mind", "score": 1}
    with pytest.raises(IllegalMove, match="during a hand of poker") as error:
        game.execute(action)
    assert error.value.rule == "gambling"
    game.execute({"cmd": "award_luck", "player": "Ana"})  # no dice: allowed
    game.execute({"cmd": "poker_end", "reason": "a brawl"})
    game.execute(action)
    assert game.state.pending is not None


# -- 4: Opening Bets ------------------------------------------------------------------------


def test_check_bet_call_raise_and_fold_until_all_have_called_checked_or_folded() -> None:
    game = table()
    dealt(game, (2, 2, 3, 5, 6), (1, 1, 4, 5, 6), (3, 3, 3, 1, 2))
    assert turn(game) == "Bo"
    with pytest.raises(IllegalMove, match="it is Bo's turn to bet, not Ana's"):
        bet(game, "Ana", "check")
    with pytest.raises(IllegalMove, match="nothing to call"):
        bet(game, "Bo", "call")
    with pytest.raises(IllegalMove, match="no bet yet"):
        bet(game, "Bo", "raise", 2)
    bet(game, "Bo", "check")
    bet(game, "Bart", "bet", 2)
    with pytest.raises(IllegalMove, match=r"can't check: the bet is \$2"):
        bet(game, "Ana", "check")
    with pytest.raises(IllegalMove, match="can't bet: there is a bet"):
        bet(game, "Ana", "bet", 3)
    bet(game, "Ana", "raise", 2)  # to $4
    bet(game, "Bo", "fold")
    assert turn(game) == "Bart"  # a raise: the others must match it or fold
    bet(game, "Bart", "call")
    assert poker(game).phase is Phase.DRAW  # "the pot is right"
    assert money(game) == {"Ana": 5, "Bo": 9, "Bart": 5}


def test_the_least_bet_is_one_dollar() -> None:
    game = table()
    dealt(game, (2, 2, 3, 5, 6), (1, 1, 4, 5, 6), (3, 3, 3, 1, 2))
    with pytest.raises(IllegalMove, match=r"the least bet is \$1") as error:
        bet(game, "Bo", "bet", 0)
    assert error.value.rule == "$1 minimum bet"
    with pytest.raises(InvalidCommand) as bad:
        game.execute({"cmd": "bet", "player": "Bo", "action": "bet", "amount": 1.5})
    assert bad.value.field == "amount"


def test_a_raise_must_be_at_least_the_previous_bet_or_raise() -> None:
    game = table(("Ana", 30), ("Bo", 30), ("Bart", 30))
    dealt(game, (2, 2, 3, 5, 6), (1, 1, 4, 5, 6), (3, 3, 3, 1, 2))
    bet(game, "Bo", "bet", 2)
    with pytest.raises(IllegalMove, match=r"can't raise by less than \$2") as error:
        bet(game, "Bart", "raise", 1)
    assert error.value.rule == "minimum raise"
    bet(game, "Bart", "raise", 5)
    with pytest.raises(IllegalMove, match=r"can't raise by less than \$5"):
        bet(game, "Ana", "raise", 4)
    bet(game, "Ana", "raise", 5)
    assert poker(game).bet == 12


def test_without_the_minimum_raise_option_any_whole_dollar_raises() -> None:
    game = table(options={"poker_minimum_raise": False})
    dealt(game, (2, 2, 3, 5, 6), (1, 1, 4, 5, 6), (3, 3, 3, 1, 2))
    bet(game, "Bo", "bet", 3)
    bet(game, "Bart", "raise", 1)
    assert poker(game).bet == 4


def test_a_bet_above_the_money_on_the_table_is_refused_go_all_in() -> None:
    game = table(("Ana", 5), ("Bo", 5))
    dealt(game, (2, 2, 3, 5, 6), (1, 1, 4, 5, 6))
    with pytest.raises(IllegalMove, match=r"only \$4 on the table"):
        bet(game, "Bo", "bet", 5)


# -- 5: The Draw ----------------------------------------------------------------------------


def drawing() -> Game:
    game = table()
    dealt(game, (2, 2, 3, 5, 6), (1, 1, 4, 5, 6), (3, 3, 3, 1, 2))
    for player in ("Bo", "Bart", "Ana"):
        bet(game, player, "check")
    return game


def test_up_to_three_dice_are_thrown_again_and_the_kept_ones_must_stay() -> None:
    game = drawing()
    awaited = poker(game).awaited_dice()
    assert awaited == ("Bo", 5, True)
    with pytest.raises(IllegalMove, match="keep at least two"):
        game.execute({"cmd": "draw", "player": "Bo", "keep": [2]})
    with pytest.raises(IllegalMove, match="has no 6 6 to keep"):
        game.execute({"cmd": "draw", "player": "Bo", "keep": [6, 6]})
    game.execute({"cmd": "draw", "player": "Bo", "keep": [2, 2, 6]})
    with pytest.raises(IllegalMove, match="kept 2 2 6 but the tray shows"):
        throw(game, 2, 5, 6, 1, 1)
    events = throw(game, 2, 2, 6, 6, 1)
    assert events[0].kind is EventKind.POKER_DRAWN and events[0].number == 2
    # Without a word of what is kept, at least two of the hand must be in the throw.
    with pytest.raises(IllegalMove, match="keep at least two of your dice"):
        throw(game, 2, 2, 3, 3, 1)  # Bart's hand was 1 1 4 5 6: only a 1 stayed
    throw(game, 1, 1, 4, 2, 2)


def test_standing_pat_keeps_all_five_with_no_throw() -> None:
    game = drawing()
    events = game.execute({"cmd": "draw", "player": "Bo", "keep": [2, 2, 3, 5, 6]})
    assert [e.kind for e in events] == [EventKind.POKER_KEPT]
    assert poker(game).awaited_dice() == ("Bart", 5, True)


def test_the_draw_is_a_rerollable_throw_read_die_by_die() -> None:
    game = drawing()
    waiting = OS_SIX.waiting(game.state)
    assert waiting.kind is WaitKind.DICE and waiting.dice is not None
    assert (waiting.dice.count, waiting.dice.scoring, waiting.dice.rerollable) == (
        5,
        Scoring.EACH,
        True,
    )
    assert waiting.detail is not None and waiting.detail["hand"] == [2, 2, 3, 5, 6]


# -- 6: Final Bets and all in ---------------------------------------------------------------


def test_all_in_short_of_the_bet_stays_in_and_wins_only_what_it_matched() -> None:
    game = table(("Ana", 20), ("Bo", 4), ("Bart", 20))
    dealt(game, (6, 6, 6, 6, 1), (2, 2, 3, 4, 1), (1, 1, 2, 3, 5))
    # Bo (four of a kind) holds $3 after the ante; Bart bets more than that.
    bet(game, "Bo", "check")
    bet(game, "Bart", "bet", 5)
    bet(game, "Ana", "call")
    bet(game, "Bo", "all_in")  # $3: "they may remain in the game even if they can't match"
    assert poker(game).phase is Phase.DRAW
    for player in ("Bo", "Bart", "Ana"):
        hand = poker(game).seat(player)
        assert hand is not None
        game.execute({"cmd": "draw", "player": player, "keep": list(hand.dice)})
    bet(game, "Bart", "bet", 2)
    events = bet(game, "Ana", "call")
    # Main pot: $4 from each (12) to Bo; side pot: Ana's and Bart's $4 more each (8), Bart's
    # pair of 2s beats Ana's pair of 1s.
    assert won(events) == [("Bo", 12, "the main pot"), ("Bart", 8, "side pot 1")]
    assert money(game) == {"Ana": 12, "Bo": 12, "Bart": 20}


def test_an_uncalled_bet_comes_back_and_a_lone_player_wins_unseen() -> None:
    game = table(("Ana", 20), ("Bo", 3), ("Bart", 20))
    dealt(game, (6, 6, 6, 6, 1), (2, 2, 3, 4, 1), (1, 1, 2, 3, 5))
    bet(game, "Bo", "all_in")
    bet(game, "Bart", "raise", 5)
    bet(game, "Ana", "fold")
    for player in ("Bo", "Bart"):
        hand = poker(game).seat(player)
        assert hand is not None
        game.execute({"cmd": "draw", "player": player, "keep": list(hand.dice)})
    events = game.events[-3:]
    assert won(events) == [("Bo", 7, "the main pot"), ("Bart", 5, "side pot 1")]
    assert events[1].text == "uncalled: returned"
    game2 = table()
    dealt(game2, (6, 6, 6, 6, 1), (2, 2, 3, 4, 1), (1, 1, 2, 3, 5))
    bet(game2, "Bo", "bet", 1)
    bet(game2, "Bart", "fold")
    events = bet(game2, "Ana", "fold")
    assert won(events) == [("Bo", 4, "the pot")]
    assert events[1].text == "everyone else folded"  # "does not have to reveal their hand"


def test_a_player_who_loses_all_in_is_out_and_one_left_ends_the_poker() -> None:
    game = table(("Ana", 5), ("Bo", 5))
    dealt(game, (2, 2, 3, 4, 1), (6, 6, 6, 6, 1))
    bet(game, "Bo", "all_in")
    bet(game, "Ana", "call")
    game.execute({"cmd": "draw", "player": "Bo", "keep": [2, 2, 3, 4, 1]})
    events = game.execute({"cmd": "draw", "player": "Ana", "keep": [6, 6, 6, 6, 1]})
    kinds = [e.kind for e in events]
    assert kinds[-2:] == [EventKind.HAND_ENDED, EventKind.POKER_ENDED]
    assert events[-2].players == ("Bo",)
    assert events[-1].players == ("Ana",) and events[-1].values == (10,)
    assert game.state.poker is None


# -- 7: The Reveal, ties ----------------------------------------------------------------------


def checked_to_the_reveal(game: Game) -> tuple[Event, ...]:
    events: tuple[Event, ...] = ()
    while poker(game).in_hand:
        awaited = poker(game).awaited_dice()
        if awaited is not None:
            seat = poker(game).seat(awaited[0])
            assert seat is not None
            keep = list(seat.dice)
            events = game.execute({"cmd": "draw", "player": seat.name, "keep": keep})
        else:
            name = turn(game)
            assert name is not None
            events = bet(game, name, "check")
    return events


def test_the_best_hand_wins_and_ties_split_the_pot_evenly() -> None:
    game = table(("Ana", 10), ("Bo", 10), ("Bart", 10), ("Cy", 10))
    dealt(game, (2, 3, 4, 5, 6), (6, 5, 4, 3, 2), (1, 1, 1, 1, 2), (1, 2, 3, 4, 5))
    events = checked_to_the_reveal(game)
    # Cy's four of a kind beats the straights: Cy takes the $4 of antes.
    assert won(events) == [("Cy", 4, "the pot")]


def test_tied_hands_split_and_the_odd_dollar_goes_left_of_the_dealer() -> None:
    game = table(("Ana", 10), ("Bo", 10), ("Bart", 10))
    dealt(game, (2, 3, 4, 5, 6), (6, 5, 4, 3, 2), (1, 1, 2, 3, 4))
    events = checked_to_the_reveal(game)
    assert won(events) == [("Bo", 2, "the pot"), ("Bart", 1, "the pot")]
    assert money(game) == {"Ana": 9, "Bo": 11, "Bart": 10}


def test_the_odd_dollar_may_stay_in_the_pot_for_the_next_hand() -> None:
    game = table(("Ana", 10), ("Bo", 10), ("Bart", 10), options={"poker_odd_dollar": "next_pot"})
    dealt(game, (2, 3, 4, 5, 6), (6, 5, 4, 3, 2), (1, 1, 2, 3, 4))
    events = checked_to_the_reveal(game)
    assert won(events) == [("Bo", 1, "the pot"), ("Bart", 1, "the pot")]
    assert poker(game).carry == 1 and poker(game).pot == 1
    game.execute({"cmd": "ante"})
    assert poker(game).pot == 4


def test_with_the_category_option_any_two_pairs_tie() -> None:
    game = table(("Ana", 10), ("Bo", 10), options={"poker_ties": "category"})
    dealt(game, (6, 6, 1, 2, 3), (2, 2, 1, 3, 4))
    events = checked_to_the_reveal(game)
    assert won(events) == [("Bo", 1, "the pot"), ("Ana", 1, "the pot")]


# -- Hold 'Em and Lucky Seven -----------------------------------------------------------------


def test_hold_em_two_pocket_dice_the_dealers_flop_turn_and_river_four_rounds() -> None:
    game = table(("Ana", 10), ("Bo", 10), variant="hold_em")
    game.execute({"cmd": "ante"})
    assert poker(game).awaited_dice() == ("Bo", 2, False)
    throw(game, 6, 6)
    throw(game, 1, 2)
    for community in ((6, 3, 4), (5,), (1,)):
        bet(game, "Bo", "check")
        bet(game, "Ana", "check")
        assert poker(game).awaited_dice() == ("Ana", len(community), False)  # the dealer
        waiting = OS_SIX.waiting(game.state)
        assert waiting.dice is not None and waiting.dice.scoring is Scoring.EACH
        throw(game, *community)
    assert poker(game).street == 4 and poker(game).community == (6, 3, 4, 5, 1)
    bet(game, "Bo", "check")
    events = bet(game, "Ana", "check")
    # Community 6 3 4 5 1: Ana's 1 2 makes a straight, Bo's 6 6 only three sixes.
    assert won(events) == [("Ana", 2, "the pot")]


def test_lucky_seven_seven_dice_one_round_of_betting_and_no_draw() -> None:
    game = table(("Ana", 10), ("Bo", 10), variant="lucky_seven")
    dealt(game, (1, 1, 1, 2, 3, 4, 6), (2, 2, 2, 5, 5, 1, 1))
    assert poker(game).street == 1
    bet(game, "Bo", "bet", 2)
    events = bet(game, "Ana", "call")
    assert won(events) == [("Ana", 6, "the pot")]  # a full house from the seven


def test_the_variant_defaults_to_the_tables_option_and_is_checked() -> None:
    game = table(options={"poker_variant": "lucky_seven"})
    assert poker(game).variant == "lucky_seven"
    game2 = Game()
    game2.execute({"cmd": "new_game", "players": ["Ana"]})
    with pytest.raises(InvalidCommand, match="variant"):
        seats = [{"name": "Ana", "money": 5}, {"name": "Bo", "money": 5}]
        game2.execute({"cmd": "poker_start", "players": seats, "variant": "stud"})


# -- Ending the game of poker --------------------------------------------------------------


def test_a_hand_broken_off_gives_everyone_back_what_they_put_in() -> None:
    game = table()
    dealt(game, (6, 6, 6, 6, 1), (2, 2, 3, 4, 1), (1, 1, 2, 3, 5))
    bet(game, "Bo", "bet", 3)
    events = game.execute({"cmd": "poker_end", "reason": "Bart is accused of cheating"})
    assert events[0].values == (10, 10, 10)
    assert game.state.poker is None
    game.execute({"cmd": "duel", "player": "Ana", "opponent": "Bart"})  # and the duel follows


def test_no_poker_during_a_duel_and_one_game_of_poker_at_a_time() -> None:
    game = table()
    with pytest.raises(IllegalMove, match="a game of poker is on"):
        game.execute({"cmd": "poker_start", "players": [{"name": "X", "money": 1}] * 2})
    game.execute({"cmd": "poker_end"})
    game.execute({"cmd": "duel", "player": "Ana", "opponent": "Bart"})
    seats = [{"name": "Ana", "money": 5}, {"name": "Bo", "money": 5}]
    with pytest.raises(IllegalMove, match="duel comes first"):
        game.execute({"cmd": "poker_start", "players": seats})
    with pytest.raises(IllegalMove, match="no poker is being played"):
        game.execute({"cmd": "ante"})


# -- the table ------------------------------------------------------------------------------


def test_a_bet_waits_for_the_players_choice_or_the_game_master_for_an_npc() -> None:
    game = table()
    dealt(game, (6, 6, 6, 6, 1), (2, 2, 3, 4, 1), (1, 1, 2, 3, 5))
    waiting = OS_SIX.waiting(game.state)
    assert (waiting.kind, waiting.who) == (WaitKind.CHOICE, ("Bo",))
    assert waiting.words == "Bo to bet: check, bet $1 or more, or go all in"
    bet(game, "Bo", "bet", 2)
    waiting = OS_SIX.waiting(game.state)
    assert (waiting.kind, waiting.who) == (WaitKind.GAME_MASTER, ("Bart",))  # the GM's NPC
    assert waiting.words == "Bart to bet: call $2, raise by $2 or more, fold or go all in"
    assert waiting.detail == {
        "type": "poker_bet",
        "player": "Bart",
        "to_call": 2,
        "min_raise": 2,
        "money": 9,
    }


def test_the_public_view_shows_the_poker_table_open() -> None:
    game = table()
    dealt(game, (6, 6, 6, 6, 1), (2, 2, 3, 4, 1))
    view = OS_SIX.public_view(game.state)
    assert view == OS_SIX.referee_view(game.state)  # one overhead camera: played open
    table_view = view["poker"]
    assert (table_view["pot"], table_view["phase"], table_view["variant"]) == (3, "deal", "draw")
    bo = table_view["seats"][1]
    assert bo["dice"] == [6, 6, 6, 6, 1] and bo["hand"] == "four of a kind (6 1)"
    assert view["waiting"] == "Ana: throw 5 dice for your poker hand"
    assert "pot $3" in OS_SIX.render(game.state)


def test_the_reader_checks_the_draw_against_what_the_camera_saw_stay() -> None:
    game = drawing()
    reader = OS_SIX.table_reader(["Ana", "Bo"], 1.0)
    state = game.state
    moved = reader.observe_dice(state, [2, 2, 6, 1, 1], 0.0, Reroll((2, 2), (6,), (1, 1)))
    assert moved == [
        Alert(
            "dice",
            "Bo: a kept die was moved (6); the kept dice must not move: the game master enters "
            "the hand if it cannot be set right",
        )
    ]
    four = reader.observe_dice(state, [2, 1, 1, 1, 1], 0.0, Reroll((2,), (), (1, 1, 1, 1)))
    assert four == [Alert("dice", "Bo: 4 dice were thrown; the draw is up to three")]
    foreign = reader.observe_dice(state, [4, 4, 1, 1, 1], 0.0, Reroll((4, 4), (), (1, 1, 1)))
    assert isinstance(foreign[0], Alert) and "not all from the hand 2 2 3 5 6" in foreign[0].message
    good = reader.observe_dice(state, [2, 2, 1, 1, 1], 0.0, Reroll((2, 2), (), (1, 1, 1)))
    assert good == [
        AlertCleared("dice"),
        Execute({"cmd": "roll", "values": [2, 2, 1, 1, 1], "source": "dice"}),
    ]
    # Named kept dice: the camera must see exactly those stay.
    game.execute({"cmd": "draw", "player": "Bo", "keep": [2, 2, 6]})
    other = reader.observe_dice(game.state, [2, 2, 6, 1, 1], 0.0, Reroll((2, 2), (), (6, 1, 1)))
    assert isinstance(other[0], Alert) and other[0].message.startswith(
        "Bo kept 2 2 6 but the camera saw 2 2 stay"
    )
    # Without the camera comparing: the kept dice must at least be in the throw.
    blind = reader.observe_dice(game.state, [2, 5, 6, 1, 1], 0.0)
    assert isinstance(blind[0], Alert) and "leave the kept dice as they lie" in blind[0].message
    wrong = reader.observe_dice(game.state, [2, 2, 6, 1], 0.0)
    assert wrong == [Alert("dice", "Bo: 4 dice in the tray, throw 5")]
    fine = reader.observe_dice(game.state, [2, 2, 6, 3, 3], 0.0)
    assert isinstance(fine[1], Execute)
    game.execute(fine[1].command)


def test_the_reader_alerts_a_throw_while_a_bet_is_awaited() -> None:
    game = table()
    dealt(game, (6, 6, 6, 6, 1), (2, 2, 3, 4, 1), (1, 1, 2, 3, 5))
    reader = OS_SIX.table_reader(["Ana", "Bo"], 1.0)
    assert reader.observe_dice(game.state, [1, 2], 0.0) == [
        Alert("dice", "dice were thrown but no poker dice are awaited now")
    ]


def _parse(verb: str, argv: list[str]) -> dict[str, Any]:
    action = next(a for a in OS_SIX.gm_actions() if a.verb == verb)
    parser = argparse.ArgumentParser(prog=verb)
    action.arguments(parser)
    return action.build(parser.parse_args(argv))


def test_the_gm_verbs_play_a_hand() -> None:
    game = Game()
    game.execute({"cmd": "new_game", "players": ["Ana", "Bo"]})
    commands = [
        _parse("poker", ["Ana=10", "Bo=8", "Black Bart=20", "--dealer", "Black Bart", "--open"]),
        _parse("ante", []),
        _parse("roll", ["6", "6", "2", "3", "4"]),
        _parse("roll", ["5", "5", "1", "2", "3"]),
        _parse("roll", ["1", "1", "1", "4", "4"]),
        _parse("check", ["Ana"]),
        _parse("bet", ["Bo", "2"]),
        _parse("raise", ["Black Bart", "2"]),
        _parse("call", ["Ana"]),
        _parse("allin", ["Bo"]),
        _parse("fold", ["Black Bart"]),
        _parse("call", ["Ana"]),
        _parse("draw", ["Ana", "6", "6"]),
        _parse("roll", ["6", "6", "6", "1", "2"]),
        _parse("draw", ["Bo", "5", "5", "1", "2", "3"]),
    ]
    for command in commands:
        game.execute(command)
    assert not poker(game).in_hand and money(game)["Ana"] == 10 - 8 + 8 + 8 + 5
    events = game.execute(_parse("leave", ["Black Bart"]))  # Bo is out: one player left
    assert [e.kind for e in events] == [EventKind.POKER_LEFT, EventKind.POKER_ENDED]
    assert events[1].values == (23,) and game.state.poker is None
    assert _parse("pokerend", ["the saloon closes"]) == {
        "cmd": "poker_end",
        "reason": "the saloon closes",
    }
    with pytest.raises(InvalidCommand, match="'Ana' has no =MONEY"):
        _parse("poker", ["Ana"])
    with pytest.raises(InvalidCommand, match="expected NAME=MONEY"):
        _parse("poker", ["Ana=lots"])
    # A web form splits the words on spaces: a name of two words still reads.
    split = _parse("poker", ["Ana=10", "Black", "Bart=20"])
    assert split["players"] == [{"name": "Ana", "money": 10}, {"name": "Black Bart", "money": 20}]


# -- random legal play ------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=50, max_value=600))
def test_random_legal_play_conserves_the_money_on_the_poker_table(seed: int, length: int) -> None:
    rng = random.Random(seed)
    game = OS_SIX.new_engine()
    before_hand = 0
    for _ in range(length):
        command = OS_SIX.random_command(game.state, rng)
        assert command is not None
        try:
            events = game.execute(command)
        except RulesError as error:  # random play is legal play: a refusal is a bug
            pytest.fail(f"{command} refused: {error}")
        for character in game.state.characters:
            assert 0 <= character.luck <= 3 and 0 <= character.strain <= 12
        table_now = game.state.poker
        if table_now is None:
            continue
        on_table = sum(s.money for s in table_now.seats) + table_now.pot
        assert on_table == table_now.stakes - table_now.taken  # stacks and pot: nothing lost
        assert all(s.money >= 0 and s.put_in >= 0 for s in table_now.seats)
        kinds = [e.kind for e in events]
        if EventKind.HAND_STARTED in kinds:
            before_hand = on_table
        if EventKind.HAND_ENDED in kinds:
            assert on_table == before_hand  # every dollar of the hand went to someone
    logged = [
        OS_SIX.event_from_json(json.loads(json.dumps(OS_SIX.event_to_json(e)))) for e in game.events
    ]
    assert OS_SIX.new_engine(logged).state == game.state


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=40), min_size=2, max_size=6),
    st.sampled_from(["draw", "hold_em", "lucky_seven"]),
    st.integers(min_value=0, max_value=2**32),
)
def test_every_hand_pays_out_exactly_what_was_put_in(
    stakes: list[int], variant: str, seed: int
) -> None:
    rng = random.Random(seed)
    seats = [(f"P{i}", money) for i, money in enumerate(stakes)]
    game = table(*seats, variant=variant, ante=rng.randint(1, 3))
    hands = 0
    while game.state.poker is not None and hands < 30:
        before = sum(money(game).values()) + poker(game).pot
        game.execute({"cmd": "ante"})
        hands += 1
        while (now := game.state.poker) is not None and now.in_hand:
            game.execute(random_command(game.state, rng))
            current = game.state.poker
            if current is not None:
                assert sum(s.money for s in current.seats) + current.pot == before
        after = poker_or_none(game)
        if after is None:  # fewer than two players with money: the poker ended by itself
            last = game.events[-1]
            assert last.kind is EventKind.POKER_ENDED
            total_after = sum(last.values) + (last.number or 0)
        else:
            total_after = sum(s.money for s in after.seats) + after.pot
        assert total_after == before


def test_every_poker_event_reads_in_words() -> None:
    game = OS_SIX.new_engine()
    rng = random.Random(11)
    for _ in range(3000):
        command = OS_SIX.random_command(game.state, rng)
        assert command is not None
        game.execute(command)
    kinds = {e.kind for e in game.events}
    poker_kinds = {k for k in EventKind if k.value.startswith(("poker", "hand", "pot"))}
    assert poker_kinds <= kinds
    for event in game.events:
        if event.kind in poker_kinds:
            assert "EventKind" not in OS_SIX.describe_event(event)


# -- the simulated evening ------------------------------------------------------------------


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    with referee_at(tmp_path) as found:
        yield found


@pytest.mark.parametrize("reads", ["public", "referee"])
def test_the_simulated_evening_has_a_duel_and_a_hand_of_poker(referee: Referee, reads: str) -> None:
    # `tabletop sim` hands its people the referee's state (they know what they laid face down)
    # with the public prompt; the concealed poker's public prompt leaves the dice out.
    hands = FakeHands()
    sent: list[dict[str, Any]] = []
    people = OS_SIX.simulated_people(
        ["Ana", "Bo", "Cy"],
        hands,
        random.Random(4),
        sent.append,
        PeopleSettings(mistake_rate=0.1, length=12),
    )
    reader = OS_SIX.table_reader(["Ana", "Bo", "Cy"], 1.0)
    alerts: dict[str, str] = {}
    people.start_game(7)
    for step in range(3000):
        for command in sent:
            reply = send(referee, command)
            assert reply["ok"], (command, reply)
            people.replied(True)
        sent.clear()
        for values in hands.throws:
            for action in reader.observe_dice(referee.game.state, values, float(step)):
                if isinstance(action, Alert):
                    alerts[action.key] = action.message
                elif isinstance(action, AlertCleared):
                    alerts.pop(action.key, None)
                else:
                    assert send(referee, action.command)["ok"]
        hands.throws.clear()
        state = referee.public_state_json() if reads == "public" else referee.state_json()
        if not people.step(state, referee.prompt_json(), dict(alerts)):
            break
    assert referee.state_json()["phase"] == "finished"
    kinds = [e.kind for e in referee.game.events]
    assert EventKind.DUEL_STARTED in kinds and EventKind.DUEL_ENDED in kinds
    # The evening's poker is concealed (the default): hands entered, the reveal in the tray.
    assert EventKind.POKER_ENTERED in kinds and EventKind.POT_WON in kinds
    assert EventKind.POKER_ENDED in kinds
    assert people.mistakes_caught == people.mistakes_made and not alerts


def test_the_web_consoles_forms_enter_a_bet_by_a_player_or_the_gm() -> None:
    from tabletop.console.forms import forms_for

    forms = forms_for(OS_SIX.gm_actions())
    game = Game()
    game.execute({"cmd": "new_game", "players": ["Ana", "Bo"], "options": {"poker_open": True}})
    game.execute(forms["poker"].command({"seats": "Ana=10 Black Bart=20"}))
    game.execute(forms["ante"].command({}))
    throw(game, 6, 6, 1, 2, 3)
    throw(game, 5, 5, 1, 2, 3)
    game.execute(forms["bet"].command({"player": "Black Bart", "amount": "2"}))
    game.execute(forms["raise"].command({"player": "Ana", "amount": "2"}))
    assert poker(game).bet == 4 and turn(game) == "Black Bart"


def test_a_seats_view_says_when_its_throw_or_bet_is_awaited() -> None:
    game = table()
    game.execute({"cmd": "ante"})
    assert OS_SIX.seat_view(game.state, "Bo")["your_turn"]
    assert not OS_SIX.seat_view(game.state, "Ana")["your_turn"]
    dealt_all = ((2, 2, 3, 5, 6), (1, 1, 4, 5, 6), (3, 3, 3, 1, 2))
    for hand in dealt_all:
        throw(game, *hand)
    assert OS_SIX.seat_view(game.state, "Bo")["your_turn"]  # left of the dealer bets first
