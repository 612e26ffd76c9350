"""Using Cards, All Or Nothing, Lucky Numbers and jokers (Six Shooter v0.03)."""

from __future__ import annotations

from typing import Any

import pytest

from tabletop.rules.games.errors import OutOfTurn
from tabletop.rules.games.sixshooter import Game, event_name, state_to_json
from tabletop.rules.games.sixshooter.errors import CardNotUsable, LuckyNumberError, WagerNotAllowed
from tabletop.rules.games.sixshooter.events import (
    CardUsed,
    ChallengeDeclared,
    JokerKept,
    LuckyDeclined,
    StrikeGained,
)
from tabletop.rules.games.sixshooter.state import GameState
from tests.rules.table import new_game, roll, run, slots

# Ana is Sly (spades), Lucky Number 7; Bo is Dangerous (clubs), Lucky Number 3.
HANDS = {
    "Ana": ["JS", "3H", "QD", "7S", "KC", "AS"],
    "Bo": ["2C", "JC", "4H", "5D", "6S", "3C"],
}


def method_of(player: str) -> str:
    return "slyness" if player == "Ana" else "danger"


def flip(game: Game, player: str, slot: int) -> None:
    """Turns a face-down card face-up through play: fail a challenge, roll that slot."""
    run(game, challenge(player, 4, method_of(player)), *roll(1, slot))


def challenge(player: str, critical: Any, method: str, **extra: Any) -> dict[str, Any]:
    return {"cmd": "challenge", "player": player, "method": method, "critical": critical, **extra}


def card(player: str, slot: int) -> dict[str, Any]:
    return {"player": player, "slot": slot}


def playing(**options: Any) -> Game:
    return new_game(HANDS, reveal={"Ana": 1, "Bo": 1}, **options)


def declared(game: Game) -> ChallengeDeclared:
    return [e for e in game.events if isinstance(e, ChallengeDeclared)][-1]


@pytest.mark.parametrize(("slot", "reduction"), [(2, 1), (1, 2), (3, 3), (5, 4), (6, 5)])
def test_card_values_reduce_the_critical_number(slot: int, reduction: int) -> None:
    """ "2-10 – reduced by 1. Jack – by 2. Queen – by 3. King – by 4. Ace – by 5." (Ana is Sly and
    uses Slyness, so any suit is allowed.)"""
    game = playing()
    if slot != 1:
        flip(game, "Ana", slot)
    run(game, challenge("Ana", 7, "slyness", card=card("Ana", slot)))
    assert declared(game).critical == 7 - reduction
    used = [e for e in game.events if isinstance(e, CardUsed)][-1]
    assert used.reduction == reduction and slots(game.state, "Ana")[slot - 1] == "--"


def test_a_used_card_is_discarded_before_the_roll() -> None:
    """ "You must declare your use of a card and discard it before you make a roll." """
    game = playing()
    run(game, challenge("Ana", 6, "slyness", card=card("Ana", 1)))
    names = [event_name(e) for e in game.events[-3:]]
    assert names == ["card_used", "challenge_declared", "roll_called"]
    assert game.state.discard[-1].code == "JS"


def test_only_face_up_cards_can_be_used() -> None:
    """ "you can use face-up cards from your hand" """
    game = playing()
    with pytest.raises(CardNotUsable, match="Ana's slot 2 is face-down"):
        game.execute(challenge("Ana", 5, "charm", card=card("Ana", 2)))
    run(game, challenge("Ana", 5, "slyness", card=card("Ana", 1)), *roll(6))
    with pytest.raises(CardNotUsable, match="Ana's slot 1 is empty"):
        game.execute(challenge("Ana", 5, "slyness", card=card("Ana", 1)))


def test_the_suit_must_match_the_method_unless_it_is_your_descriptor() -> None:
    """ "you can only use a card if its suit matches up with the method ... The one exception is when
    the method you are using matches your Operator's Descriptor, in which case you can use a card
    of any suit" """
    game = playing()
    flip(game, "Ana", 2)  # 3H face-up
    with pytest.raises(CardNotUsable, match="3H in Ana's slot 2 is not diamonds"):
        game.execute(challenge("Ana", 5, "sharpness", card=card("Ana", 2)))
    run(game, challenge("Ana", 5, "charm", card=card("Ana", 2)), *roll(6))  # hearts for Charm
    assert declared(game).critical == 4
    flip(game, "Bo", 6)  # 3C face-up... and Bo's own method is Danger
    run(game, challenge("Bo", 5, "danger", card=card("Bo", 1)), *roll(6))  # 2C: clubs anyway
    flip(game, "Bo", 3)  # 4H face-up
    run(game, challenge("Bo", 5, "danger", card=card("Bo", 3)), *roll(6))  # any suit for Danger
    assert declared(game).critical == 4


def test_helping_needs_card_suit_helper_descriptor_and_method_to_match() -> None:
    """ "You can also use a card to improve another Operator's odds, but only if the suit of the card
    you are using, your Operator's Descriptor, and the method they are using all match up." """
    game = playing()
    # Ana (Sly) helps Bo sneak with her jack of spades: spades, Sly, Slyness all match.
    run(game, challenge("Bo", 5, "slyness", card=card("Ana", 1)))
    assert declared(game).critical == 3
    run(game, *roll(6))
    flip(game, "Bo", 5)  # 6S face-up: spades, but Bo is Dangerous
    with pytest.raises(CardNotUsable, match="Bo cannot help Ana with 6S"):
        game.execute(challenge("Ana", 5, "slyness", card=card("Bo", 5)))
    # Bo's 2C is clubs and Bo is Dangerous, but Ana's method is Slyness.
    with pytest.raises(CardNotUsable, match="Bo cannot help Ana with 2C"):
        game.execute(challenge("Ana", 5, "slyness", card=card("Bo", 1)))


def test_only_one_card_per_roll_and_no_card_with_all_or_nothing() -> None:
    """ "Only 1 card can be used on any given roll." (the command names one card) and "Cards cannot
    be used on the same roll as All Or Nothing." """
    game = playing()
    with pytest.raises(WagerNotAllowed, match="cannot be used on the same roll as All Or Nothing"):
        game.execute(challenge("Ana", 5, "slyness", card=card("Ana", 1), wager=1))


def test_all_or_nothing_lowers_the_critical_number_one_per_strike_wagered() -> None:
    """ "they can wager any number of Strikes ... For each Strike wagered, the Critical Number of the
    roll is reduced by 1. If the Operator overcomes the challenge, the wagered Strikes do not take
    effect." """
    game = playing()
    run(game, challenge("Ana", 6, "slyness", wager=2))
    assert declared(game).critical == 4
    run(game, *roll(5))
    assert game.state.operators["Ana"].strikes == 0


def test_all_or_nothing_failure_takes_the_wager_and_rolls_the_hand() -> None:
    """ "If the Operator fails, then that player immediately gains a number of Strikes equal to the
    ones wagered" (decision: and still Rolls Their Hand)."""
    game = playing()
    run(game, challenge("Ana", 6, "slyness", wager=2), *roll(2))
    gained = [e for e in game.events if isinstance(e, StrikeGained)][-1]
    assert (gained.count, gained.total, gained.cause) == (2, 2, "all or nothing")
    assert state_to_json(game.state)["pending"]["purpose"] == "roll_hand"


def test_all_or_nothing_equal_roll_keeps_the_wager_off_but_rolls_the_hand() -> None:
    game = playing()
    run(game, challenge("Ana", 6, "slyness", wager=2), *roll(4))
    assert game.state.operators["Ana"].strikes == 0
    assert state_to_json(game.state)["pending"]["purpose"] == "roll_hand"


def test_wagered_and_current_strikes_total_at_most_3() -> None:
    """ "the Strikes wagered and the Strikes a player already has can total no more than 3" """
    game = playing()
    run(game, challenge("Ana", 6, "slyness", wager=1), *roll(1, 1))  # 1 Strike; 2S discarded
    with pytest.raises(WagerNotAllowed, match="has 1 Strike\\(s\\): wagering 3 would make 4"):
        game.execute(challenge("Ana", 6, "slyness", wager=3))
    run(game, challenge("Ana", 7, "slyness", wager=2), *roll(1))  # fails: 1 + 2 = 3 Strikes
    assert game.state.operators["Ana"].status.value == "removed"


def test_lucky_number_discard_offers_a_face_up_replacement_in_the_same_slot() -> None:
    """ "whenever their player discards a card with the matching value, whether it was the result of
    Rolling Their Hand or using that card ... the player can replace it by drawing a new card from
    the central deck and placing it face-up in their hand in the place of the old card." (v0.03)"""
    game = new_game(HANDS, reveal={"Ana": 4, "Bo": 1}, then=["KD"])  # Ana turns up 7S: lucky 7
    run(game, challenge("Ana", 6, "slyness", card=card("Ana", 4)))
    pending = state_to_json(game.state)["pending"]
    assert pending == {**pending, "type": "lucky", "player": "Ana", "slot": 4, "card": "7S"}
    with pytest.raises(
        OutOfTurn, match="cannot take a roll now: Ana: the 7 of spades matched your Lucky Number"
    ):
        game.execute({"cmd": "roll", "value": 3})
    run(game, {"cmd": "lucky", "player": "Ana", "replace": True})
    assert slots(game.state, "Ana")[3] == "KD"
    assert state_to_json(game.state)["pending"]["purpose"] == "challenge"


def test_lucky_number_by_rolling_the_hand_and_declining() -> None:
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 6})  # Bo turns up 3C: lucky 3
    run(game, challenge("Bo", 4, "danger"), *roll(2, 6))
    with pytest.raises(LuckyNumberError, match="Ana has no Lucky Number choice"):
        game.execute({"cmd": "lucky", "player": "Ana", "replace": True})
    run(game, {"cmd": "lucky", "player": "Bo", "replace": False})
    assert slots(game.state, "Bo")[5] == "--"
    assert state_to_json(game.state)["pending"] is None


def test_lucky_replacement_can_be_automatic_by_option() -> None:
    game = new_game(HANDS, reveal={"Ana": 4, "Bo": 1}, then=["KD"], lucky_replacement="always")
    run(game, challenge("Ana", 6, "slyness", card=card("Ana", 4)))
    assert slots(game.state, "Ana")[3] == "KD"
    assert state_to_json(game.state)["pending"]["purpose"] == "challenge"


LOW = {"Ana": "S", "Bo": "C", "Cy": "H", "Dee": "D"}
HIGH = {"Eli": "S", "Fay": "C", "Gus": "H", "Hal": "D"}
EIGHT_HANDS = {  # every card but the four aces
    **{name: [f"{r}{s}" for r in ("7", "2", "3", "4", "5", "6")] for name, s in LOW.items()},
    **{name: [f"{r}{s}" for r in ("8", "9", "10", "J", "Q", "K")] for name, s in HIGH.items()},
}


def assert_no_empty_deck_waits(game: Game) -> None:
    """After every event, an empty deck with a discard pile to shuffle is reshuffled next."""
    state = GameState()
    events = list(game.events)
    for event, following in zip(events, [*events[1:], None], strict=True):
        state.apply(event)
        if not state.deck and state.discard:
            assert following is not None and event_name(following) == "deck_reshuffled"


def test_the_deck_is_reshuffled_the_moment_it_runs_out() -> None:
    """ "If, at any point during the game, the deck runs out of cards, shuffle the discard pile and
    use it as the deck." Decision: when a draw takes the deck's last card, the discard pile is
    shuffled into the deck at once, not at the next draw; a later Lucky Number replacement is
    drawn from that deck and is never the card it replaces."""
    roster = {name: ("sly", [n]) for name, n in zip(EIGHT_HANDS, range(2, 10), strict=True)}
    roster["Ana"] = ("sly", [7])
    roster["Fay"] = ("sly", [2])
    game = new_game(EIGHT_HANDS, roster=roster, reveal={name: 1 for name in EIGHT_HANDS})
    assert sorted(c.code for c in game.state.deck) == ["AC", "AD", "AH", "AS"]
    run(game, {"cmd": "turn_order", "players": ["Bo", "Cy", "Dee", "Eli"]})  # four aces: a tie
    names = [event_name(e) for e in game.events]
    assert "deck_reshuffled" in names
    assert_no_empty_deck_waits(game)
    assert game.state.deck  # never left empty while the discard pile holds cards
    run(game, challenge("Ana", 6, "slyness", card=card("Ana", 1)))  # 7S: Ana's Lucky Number
    run(game, {"cmd": "lucky", "player": "Ana", "replace": True})
    assert event_name(game.events[-1]) == "lucky_replaced"
    assert slots(game.state, "Ana")[0] in {"AC", "AD", "AH", "AS"}
    assert "7S" in {c.code for c in game.state.discard}
    assert_no_empty_deck_waits(game)


def test_a_lucky_card_never_comes_back_as_its_own_replacement() -> None:
    """ "replace it by drawing a new card from the central deck": with every card dealt (nine
    players, jokers in) the deck is empty and the discard pile too, so the discarded Lucky
    Number card is the only card not in a hand; it cannot be its own replacement."""
    hands = {**EIGHT_HANDS, "Ida": ["AS", "AC", "AH", "AD", "JK1", "JK2"]}
    roster = {name: ("sly", [n]) for name, n in zip(hands, range(2, 11), strict=True)}
    roster["Ana"] = ("sly", [7])
    roster["Fay"] = ("sly", [2])
    game = new_game(hands, roster=roster, jokers=True, reveal={name: 1 for name in hands})
    assert not game.state.deck and not game.state.discard
    run(game, challenge("Ana", 6, "slyness", card=card("Ana", 1)))  # 7S: Ana's Lucky Number
    with pytest.raises(LuckyNumberError, match="7S cannot replace itself"):
        game.execute({"cmd": "lucky", "player": "Ana", "replace": True, "card": "7S"})
    run(game, {"cmd": "lucky", "player": "Ana", "replace": True})
    last = game.events[-1]
    assert isinstance(last, LuckyDeclined) and last.reason == "no card left to draw"
    assert slots(game.state, "Ana")[0] == "--"
    assert [c.code for c in game.state.discard] == ["7S"]


def test_jokers_are_kept_when_rolling_the_hand_and_cannot_be_used() -> None:
    """ "A joker can never be discarded from your hand. You cannot use it, and if you would normally
    lose it through Rolling Your Hand, you instead hang onto it." """
    hands = {"Ana": ["JK1", "3H", "QD", "7S", "KC", "AS"], "Bo": HANDS["Bo"]}
    game = new_game(hands, jokers=True, reveal={"Ana": 1, "Bo": 1})
    with pytest.raises(CardNotUsable, match="^JK1 .* jokers cannot be used"):
        game.execute(challenge("Ana", 5, "slyness", card=card("Ana", 1)))
    run(game, challenge("Ana", 5, "slyness"), *roll(1, 1))
    assert isinstance(game.events[-1], JokerKept)
    assert slots(game.state, "Ana")[0] == "JK1"
