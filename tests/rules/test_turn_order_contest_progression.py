"""Deciding Turn Order, Player Versus Player and Character Progression (Six Shooter v0.03)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabletop.rules.games.errors import InvalidCommand, NoGame, SetupError
from tabletop.rules.games.sixshooter import (
    Game,
    Phase,
    Status,
    event_from_json,
    event_name,
    event_to_json,
    state_to_json,
)
from tabletop.rules.games.sixshooter.errors import ContestError, LuckyNumberError, ProgressionError
from tabletop.rules.games.sixshooter.events import ContestEnded, ContestExchanged, TurnOrderDrawn
from tests.rules.table import new_game, roll, run, slots

HANDS = {
    "Ana": ["JS", "3H", "QD", "7S", "KC", "AS"],
    "Bo": ["2C", "JC", "4H", "5D", "6S", "3C"],
}
ROSTER3 = {"Ana": ("sly", [7]), "Bo": ("dangerous", [3]), "Cy": ("charming", [5])}
HANDS3 = {**HANDS, "Cy": ["2H", "8H", "9H", "10H", "QH", "KH"]}


def draws(game: Game) -> list[tuple[str, str, int]]:
    return [(e.player, e.card.code, e.value) for e in game.events if isinstance(e, TurnOrderDrawn)]


def test_higher_card_goes_first_and_drawn_cards_are_discarded() -> None:
    """ "have them draw from the center deck and immediately discard the cards they drew. The higher
    the value of the card a player draws, the higher they are in turn order." """
    game = new_game(
        HANDS3, roster=ROSTER3, then=["4D", "9C", "7D"], reveal={"Ana": 1, "Bo": 1, "Cy": 1}
    )
    run(game, {"cmd": "turn_order", "players": ["Ana", "Bo", "Cy"]})
    assert draws(game) == [("Ana", "4D", 4), ("Bo", "9C", 9), ("Cy", "7D", 7)]
    assert state_to_json(game.state)["turn_order"] == ["Bo", "Cy", "Ana"]
    assert [c.code for c in game.state.discard] == ["4D", "9C", "7D"]


def test_ties_redraw_among_the_tied_players() -> None:
    """ "If two or more players tie, have them draw again, with the one with the higher card going
    before the other in the turn order." """
    game = new_game(
        HANDS3,
        roster=ROSTER3,
        then=["9D", "2D", "9S", "5C", "8C"],
        reveal={"Ana": 1, "Bo": 1, "Cy": 1},
    )
    run(game, {"cmd": "turn_order", "players": ["Ana", "Bo", "Cy"]})
    assert draws(game)[3:] == [("Ana", "5C", 5), ("Cy", "8C", 8)]
    assert list(game.state.turn_order) == ["Cy", "Ana", "Bo"]


def test_ace_counts_high_and_a_joker_counts_zero() -> None:
    """Decision: Ace counts high (14) for turn order. "A joker has a value of 0 for determining turn
    order." Ace low is the named option ace_high = false."""
    game = new_game(HANDS, then=["AD", "JK1"], jokers=True, reveal={"Ana": 1, "Bo": 1})
    run(game, {"cmd": "turn_order", "players": ["Bo", "Ana"]})
    assert draws(game) == [("Bo", "AD", 14), ("Ana", "JK1", 0)]
    low = new_game(HANDS, then=["AD", "2D"], reveal={"Ana": 1, "Bo": 1}, ace_high=False)
    run(low, {"cmd": "turn_order", "players": ["Bo", "Ana"]})
    assert list(low.state.turn_order) == ["Ana", "Bo"]


def contest(**extra: Any) -> dict[str, Any]:
    return {"cmd": "contest", "players": ["Ana", "Bo"], **extra}


def test_contest_lower_roll_rolls_their_hand_until_a_strike() -> None:
    """ "The player with the lower roll must then Roll Their Hand. ... Continue as necessary until one
    player either concedes defeat or gains a Strike, at which point their Operator loses the
    contest." """
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 1})
    run(game, contest(), *roll(5, 2))  # Bo lower
    exchanged = [e for e in game.events if isinstance(e, ContestExchanged)][-1]
    assert exchanged.losers == ("Bo",)
    run(game, *roll(1))  # Bo rolls slot 1: 2C face-up -> discarded
    assert slots(game.state, "Bo")[0] == "--"
    assert state_to_json(game.state)["pending"]["purpose"] == "contest"
    run(game, *roll(3, 2), *roll(1))  # Bo lower again, slot 1 empty: a Strike
    ended = [e for e in game.events if isinstance(e, ContestEnded)][-1]
    assert ended.losers == ("Bo",) and ended.reason == "strike"
    assert game.state.contest is None and state_to_json(game.state)["pending"] is None


def test_contest_equal_rolls_both_roll_their_hands() -> None:
    """ "If the rolls are equal, then both players must Roll Their Hand." """
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 1})
    run(game, contest(), *roll(4, 4))
    exchanged = [e for e in game.events if isinstance(e, ContestExchanged)][-1]
    assert exchanged.losers == ("Ana", "Bo")
    run(game, *roll(2, 2))
    assert slots(game.state, "Ana")[1] == "3H" and slots(game.state, "Bo")[1] == "JC"


def test_contest_scores_count_strikes_cards_and_wagers() -> None:
    """ "Strikes, using cards, and All Or Nothing all affect the outcome of your opponent player's die
    roll the same way they would the Critical Number of a challenge." Decision: each roll is read
    as the opponent's Critical Number: + the opponent's Strikes (never above 7), - the opponent's
    card reduction and wager; the lower one Rolls Their Hand."""
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 1})
    run(
        game,
        contest(method="slyness", cards={"Ana": {"player": "Ana", "slot": 1}}, wagers={"Bo": 2}),
    )
    run(game, *roll(2, 3))  # Ana's 2 - Bo's wager 2 = 0; Bo's 3 - Ana's jack 2 = 1: Ana lower
    exchanged = [e for e in game.events if isinstance(e, ContestExchanged)][-1]
    assert dict(exchanged.scores) == {"Ana": 0, "Bo": 1} and exchanged.losers == ("Ana",)
    assert game.state.operators["Bo"].strikes == 0


def test_strikes_never_raise_a_contest_roll_above_7() -> None:
    """ "Multiple Strikes (see below) will never increase a Critical Number above 7", and in a
    contest Strikes affect the opponent's roll "the same way they would the Critical Number"."""
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 2})  # Bo turns up JC
    run(game, {"cmd": "challenge", "player": "Bo", "method": "danger", "critical": 7, "wager": 2})
    run(game, *roll(1), *roll(3))  # fails: two Strikes; Bo's hand roll flips 4H
    assert game.state.operators["Bo"].strikes == 2
    run(game, contest(method="danger", cards={"Bo": {"player": "Bo", "slot": 2}}), *roll(6, 6))
    exchanged = [e for e in game.events if isinstance(e, ContestExchanged)][-1]
    # Ana's 6 + Bo's two Strikes is 8, held at 7, less Bo's jack: 5. Uncapped it would tie at 6.
    assert dict(exchanged.scores) == {"Ana": 5, "Bo": 6} and exchanged.losers == ("Ana",)


def test_contest_wager_lost_gives_strikes_and_ends_the_contest() -> None:
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 1})
    run(game, contest(wagers={"Bo": 1}), *roll(6, 2))
    assert game.state.operators["Bo"].strikes == 1
    ended = [e for e in game.events if isinstance(e, ContestEnded)][-1]
    assert ended.losers == ("Bo",)
    assert state_to_json(game.state)["pending"] == {
        **state_to_json(game.state)["pending"],
        "purpose": "roll_hand",
        "player": "Bo",
    }


def test_contest_boost_and_concede() -> None:
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 1})
    run(game, contest(method="danger"), *roll(6, 2), *roll(3))  # Bo flips 4H
    run(game, {"cmd": "boost", "player": "Bo", "card": {"player": "Bo", "slot": 3}})
    with pytest.raises(Exception, match="only 1 card can be used on any given roll"):
        game.execute({"cmd": "boost", "player": "Bo", "wager": 1})
    run(game, *roll(3))
    with pytest.raises(ContestError, match="Ana has already rolled in this exchange"):
        game.execute({"cmd": "boost", "player": "Ana", "wager": 1})
    run(game, {"cmd": "concede", "player": "Ana"})
    assert game.state.contest is None and not game.state.pending
    assert [e for e in game.events if isinstance(e, ContestEnded)][-1].reason == "conceded"


def end_with(game: Game) -> None:
    run(game, {"cmd": "end_adventure"})
    assert game.state.phase is Phase.BETWEEN_ADVENTURES


def test_a_face_card_or_ace_face_up_lets_a_player_grant_a_lucky_number() -> None:
    """ "if a player has at least one unused face card or Ace face-up in their hand, they can give one
    Operator at the table (including their own) an extra Lucky Number" """
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 1})  # Ana JS face-up, Bo 2C face-up
    end_with(game)
    with pytest.raises(ProgressionError, match="Bo has no unused face card or Ace face-up"):
        game.execute({"cmd": "grant_lucky", "from": "Bo", "to": "Bo", "number": 9})
    run(game, {"cmd": "grant_lucky", "from": "Ana", "to": "Bo", "number": 9})
    assert game.state.operators["Bo"].lucky == [3, 9]
    with pytest.raises(ProgressionError, match="already given"):
        game.execute({"cmd": "grant_lucky", "from": "Ana", "to": "Ana", "number": 9})


def test_more_than_two_lucky_numbers_only_when_everyone_has_as_many() -> None:
    """ "An Operator can have up to two Lucky Numbers at any given time with no restrictions. Past
    that point, an Operator cannot gain more Lucky Numbers unless all other Operators have at least
    as many Lucky Numbers as they do" """
    roster = {"Ana": ("sly", [7, 8]), "Bo": ("dangerous", [3])}
    game = new_game(HANDS, roster=roster, reveal={"Ana": 1, "Bo": 2}, campaign=True)  # jacks up
    end_with(game)
    with pytest.raises(LuckyNumberError, match="until every other Operator has at least 2 \\(Bo"):
        game.execute({"cmd": "grant_lucky", "from": "Ana", "to": "Ana", "number": 9})
    with pytest.raises(LuckyNumberError, match="already has Lucky Number 3"):
        game.execute({"cmd": "grant_lucky", "from": "Bo", "to": "Bo", "number": 3})
    run(game, {"cmd": "grant_lucky", "from": "Bo", "to": "Bo", "number": 4})
    run(game, {"cmd": "grant_lucky", "from": "Ana", "to": "Ana", "number": 9})
    assert game.state.operators["Ana"].lucky == [7, 8, 9]


def test_a_lower_cap_is_a_named_option() -> None:
    """ "If the GM wishes, they may set the cap lower to better fit the game." """
    game = new_game(
        HANDS,
        roster={"Ana": ("sly", [7, 8]), "Bo": ("dangerous", [3, 4])},
        reveal={"Ana": 1, "Bo": 2},
        campaign=True,
        lucky_cap=2,
    )
    end_with(game)
    with pytest.raises(LuckyNumberError, match="2 Lucky Numbers, this table's cap"):
        game.execute({"cmd": "grant_lucky", "from": "Ana", "to": "Ana", "number": 9})


@pytest.mark.parametrize("version, third", [("0.02", False), ("0.03", True)])
def test_version_0_02_is_a_named_option_with_a_cap_of_two(version: str, third: bool) -> None:
    """v0.02: "No Operator can have more than two Lucky Numbers at any given time." v0.03: "Past
    that point, an Operator cannot gain more Lucky Numbers unless all other Operators have at
    least as many"."""
    game = new_game(
        HANDS,
        roster={"Ana": ("sly", [7, 8]), "Bo": ("dangerous", [3, 4])},
        reveal={"Ana": 1, "Bo": 2},
        campaign=True,
        version=version,
    )
    assert state_to_json(game.state)["options"]["version"] == version
    end_with(game)
    grant = {"cmd": "grant_lucky", "from": "Ana", "to": "Ana", "number": 9}
    if third:
        run(game, grant)
        assert game.state.operators["Ana"].lucky == [7, 8, 9]
    else:
        with pytest.raises(LuckyNumberError, match="2 Lucky Numbers, this table's cap"):
            game.execute(grant)


def test_an_unknown_version_is_refused_by_name() -> None:
    with pytest.raises(
        InvalidCommand, match="options.version: expected one of '0.03', '0.02', got '0.1'"
    ):
        new_game(HANDS, version="0.1")


def test_a_new_game_starts_each_operator_with_one_lucky_number() -> None:
    """ "Each Operator starts with a Descriptor, an Archetype, and a Lucky Number." Carrying
    Lucky Numbers gained in an earlier game over is the explicit `campaign` field, checked with
    the rules for gaining them."""
    two = {"Ana": ("sly", [7, 8]), "Bo": ("dangerous", [3])}
    with pytest.raises(SetupError, match='Ana starts with 2 Lucky Numbers.*"campaign": true'):
        new_game(HANDS, roster=two)
    with pytest.raises(SetupError, match="Bo starts with no Lucky Numbers"):
        new_game(HANDS, roster={"Ana": ("sly", [7]), "Bo": ("dangerous", [])})
    assert new_game(HANDS, roster=two, campaign=True).state.operators["Ana"].lucky == [7, 8]
    # Bo returned by losing his last Lucky Number: he carries none over.
    none = {"Ana": ("sly", [7]), "Bo": ("dangerous", [])}
    assert new_game(HANDS, roster=none, campaign=True).state.operators["Bo"].lucky == []
    three = {"Ana": ("sly", [7, 8, 9]), "Bo": ("dangerous", [3])}
    with pytest.raises(SetupError, match="Ana has 3 Lucky Numbers.*Bo has fewer than 2"):
        new_game(HANDS, roster=three, campaign=True)
    with pytest.raises(SetupError, match="Ana has 2 Lucky Numbers; this table's cap is 1"):
        new_game(HANDS, roster=two, campaign=True, lucky_cap=1)
    with pytest.raises(SetupError, match="Ana has 3 Lucky Numbers; this table's cap is 2"):
        new_game(HANDS, roster=three, campaign=True, version="0.02")


def strike_out(game: Game, player: str) -> None:
    """Three Strikes through All Or Nothing."""
    method = "slyness" if player == "Ana" else "danger"
    run(
        game,
        {"cmd": "challenge", "player": player, "method": method, "critical": 7, "wager": 3},
        *roll(1),
    )


def test_three_strikes_lose_a_lucky_number_to_return_or_retire() -> None:
    """ "can choose to lose a Lucky Number rather than being retired permanently, letting them rejoin
    the group at the start of the next adventure ... All Strikes are reset at the start of each
    adventure. If a character has three Strikes and no Lucky Number, they are still retired
    permanently." """
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 1})
    strike_out(game, "Ana")
    end_with(game)
    assert state_to_json(game.state)["pending"]["type"] == "return_or_retire"
    with pytest.raises(ProgressionError, match="waiting for Ana to return"):
        game.execute({"cmd": "start_adventure"})
    with pytest.raises(LuckyNumberError, match="no Lucky Number 4 \\(held: 7\\)"):
        game.execute({"cmd": "return", "player": "Ana", "drop_lucky": 4})
    run(game, {"cmd": "return", "player": "Ana", "drop_lucky": 7}, {"cmd": "start_adventure"})
    ana = game.state.operators["Ana"]
    assert (ana.status, ana.strikes, ana.lucky, game.state.adventure) == (Status.ACTIVE, 0, [], 2)
    assert game.state.phase is Phase.SETUP and all(s.card for s in ana.slots)
    run(
        game,
        {"cmd": "reveal", "player": "Ana", "slot": 1},
        {"cmd": "reveal", "player": "Bo", "slot": 1},
    )
    strike_out(game, "Ana")
    end_with(game)
    assert game.state.operators["Ana"].status is Status.RETIRED
    assert [event_name(e) for e in game.events][-1] == "adventure_ended"


def test_the_game_ends_when_every_operator_is_retired() -> None:
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 1})
    strike_out(game, "Ana")
    strike_out(game, "Bo")
    run(
        game,
        {"cmd": "end_adventure"},
        {"cmd": "retire", "player": "Ana"},
        {"cmd": "retire", "player": "Bo"},
    )
    assert game.state.phase is Phase.FINISHED
    with pytest.raises(NoGame, match="the game is over"):
        game.execute({"cmd": "challenge", "player": "Ana", "method": "charm", "critical": 2})


def test_an_old_log_with_a_bare_lucky_cap_still_replays() -> None:
    """Durable logs must replay: a log written before `version` existed played v0.02 as
    `lucky_cap = 2`; it still folds to the same cap."""
    game = new_game(HANDS, reveal={"Ana": 1, "Bo": 2}, lucky_cap=2)
    lines = [json.loads(json.dumps(event_to_json(e))) for e in game.events]
    assert lines[0]["options"].pop("version") == "0.03"  # what an old log lacks
    rebuilt = Game.from_events([event_from_json(line) for line in lines])
    assert rebuilt.state.options.lucky_limit == 2
    end_with(rebuilt)
    run(rebuilt, {"cmd": "grant_lucky", "from": "Ana", "to": "Ana", "number": 9})
    with pytest.raises(LuckyNumberError, match="2 Lucky Numbers, this table's cap"):
        rebuilt.execute({"cmd": "grant_lucky", "from": "Bo", "to": "Ana", "number": 10})
