"""Every rule of seed 003, one test or more each; the quoted sentence is the rule under test."""

from __future__ import annotations

import pytest

from tabletop.rules.games.errors import IllegalMove, OutOfTurn
from tabletop.rules.games.showdown.engine import Game, discard_bounds
from tabletop.rules.games.showdown.events import (
    GameWon,
    RaceDecided,
    ReplyOpened,
    RoundEnded,
    RoundStarted,
    ShotResolved,
    ShotsCalled,
)
from tabletop.rules.games.showdown.game import SHOWDOWN
from tabletop.rules.games.showdown.state import Phase

from .helpers import BLANKS, card, loaded, new_game, plain_deck, play, reveal, roll

ANA_DRAWS_2 = ["blank-1", "draw-1", "blank-2", "blank-3", "blank-4", "blank-5"]
BO_DRAWS_3 = ["blank-1", "blank-2", "draw-1", "blank-3", "blank-4", "blank-5"]


def attack(game: Game) -> None:
    """Ana reveals slot 1, Bo slot 1, Ana slot 2 (her Draw)."""
    play(game, [reveal("Ana", 1), reveal("Bo", 1), reveal("Ana", 2)])


def points(game: Game) -> dict[str, int]:
    return dict(game.state.points)


# -- 1) load bullets ----------------------------------------------------------------------------


def test_each_player_loads_six_face_down_and_the_stare_down_starts_when_both_are_ready() -> None:
    game = Game()
    game.execute(new_game())
    assert game.state.phase is Phase.LOAD and game.state.to_load == {"Ana": 6, "Bo": 6}
    game.execute({"cmd": "load", "player": "Ana", "bullets": BLANKS})
    assert game.state.phase is Phase.LOAD  # "When both players are ready"
    game.execute(
        {
            "cmd": "load",
            "player": "Bo",
            "bullets": [{"slot": 6 - i, "card": c} for i, c in enumerate(BLANKS)],
        }
    )
    assert game.state.phase is Phase.STARE_DOWN and game.state.turn is None
    assert all(not b.face_up for b in game.state.hands["Bo"].bullets)
    assert game.state.hands["Bo"].bullet(6) is not None


@pytest.mark.parametrize(
    ("bullets", "words"),
    [
        (BLANKS[:5], "loads 6 bullets, not 5"),
        ([*BLANKS[:5], "blank-1"], "blank-1 is loaded twice"),
        ([*BLANKS[:5], "desperado/draw-1"], "is a desperado card, not from Ana's Cowboy deck"),
        ([*BLANKS[:5], "ace"], "Cowboy has no card ace"),
    ],
)
def test_bullets_that_are_not_six_of_the_players_own_cards_are_refused(
    bullets: list[str], words: str
) -> None:
    game = Game()
    game.execute(new_game())
    with pytest.raises(IllegalMove, match=words):
        game.execute({"cmd": "load", "player": "Ana", "bullets": bullets})
    assert not game.state.hands["Ana"].loaded


def test_once_ready_the_bullets_stay_and_nothing_is_revealed_before_both_are_ready() -> None:
    game = Game()
    game.execute(new_game())
    game.execute({"cmd": "load", "player": "Ana", "bullets": BLANKS})
    with pytest.raises(IllegalMove, match="declared ready"):
        game.execute({"cmd": "load", "player": "Ana", "bullets": BLANKS})
    with pytest.raises(IllegalMove, match="both players have loaded"):
        game.execute(reveal("Ana", 1))


# -- 2) stare down ------------------------------------------------------------------------------


def test_whoever_touches_first_goes_first_then_turns_strictly_alternate() -> None:
    game = loaded()
    game.execute({"cmd": "touch", "player": "Bo", "slot": 4, "at_ms": 1200})
    assert game.state.turn == "Bo"  # "Whoever goes first, goes first"
    with pytest.raises(OutOfTurn, match="cannot touch any of their bullets until it is their turn"):
        game.execute({"cmd": "touch", "player": "Ana", "slot": 1})
    game.execute(reveal("Bo", 4))
    assert game.state.turn == "Ana"  # "their turn ends and it becomes their opponents turn"
    with pytest.raises(OutOfTurn):
        game.execute(reveal("Bo", 5))
    game.execute(reveal("Ana", 1))
    assert game.state.turn == "Bo"


def test_a_reveal_with_no_touch_before_it_is_a_touch_and_a_reveal() -> None:
    game = loaded()
    game.execute(reveal("Ana", 3))
    assert game.state.reveals == (("Ana", "blank-3"),) and game.state.turn == "Bo"


def test_once_a_bullet_is_touched_the_player_cannot_change_their_mind() -> None:
    game = loaded()
    game.execute({"cmd": "touch", "player": "Ana", "slot": 2})
    with pytest.raises(IllegalMove, match="cannot change their mind"):
        game.execute({"cmd": "touch", "player": "Ana", "slot": 3})
    with pytest.raises(IllegalMove, match="reveal that one"):
        game.execute(reveal("Ana", 3))
    game.execute(reveal("Ana", 2))


def test_a_reveal_naming_another_card_than_the_one_loaded_is_refused() -> None:
    game = loaded()
    with pytest.raises(IllegalMove, match="loaded with another card"):
        game.execute({**reveal("Ana", 1), "card": "cowboy/blank-2"})


def test_when_every_bullet_is_revealed_without_a_draw_nobody_scores() -> None:
    game = loaded()
    for slot in range(1, 7):
        play(game, [reveal("Ana", slot), reveal("Bo", slot)])
    assert game.state.last_round is not None and game.state.last_round.scored == (
        ("Ana", 0),
        ("Bo", 0),
    )
    assert game.state.round == 2 and game.state.phase is Phase.LOAD


# -- 3) draw ------------------------------------------------------------------------------------


def test_a_draw_is_the_attackers_last_bullet_and_starts_the_race() -> None:
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    attack(game)
    state = game.state
    assert state.phase is Phase.RACE and state.attacker == "Ana" and state.defender == "Bo"
    detail = SHOWDOWN.waiting(state).detail or {}
    assert detail["lights"] == [{"player": "Bo", "slots": [2, 3, 4, 5, 6], "show": "race"}]
    with pytest.raises(IllegalMove, match="last bullet"):
        game.execute(reveal("Ana", 3))


def test_an_attacker_first_to_the_defenders_cards_takes_an_instant_shot() -> None:
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    attack(game)
    events = game.execute(
        {"cmd": "race", "winner": "attacker", "attacker_ms": 100, "defender_ms": 400}
    )
    assert events[0] == RaceDecided("Ana", 100, 400, "", 50)
    assert events[1] == ShotsCalled((("Ana",),))
    game.execute(roll(6))
    assert points(game) == {"Ana": 1, "Bo": 0}  # drew first: no bonus


def test_a_defender_fast_enough_reveals_and_any_other_card_gives_the_attacker_an_instant_shot() -> (
    None
):
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    attack(game)
    game.execute({"cmd": "race", "winner": "defender", "slot": 2})
    assert game.state.phase is Phase.DEFENDER_CHOOSES and game.state.hands["Bo"].touched == 2
    events = game.execute(reveal("Bo", 2))
    assert events[-1] == ShotsCalled((("Ana",),))


def test_a_defender_revealing_during_the_race_was_first() -> None:
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    attack(game)
    events = game.execute(reveal("Bo", 3))  # Bo's Draw
    assert isinstance(events[0], RaceDecided) and events[0].winner == "Bo"
    assert isinstance(events[-1], ShotsCalled) and events[-1].speeds == (("Ana", 1), ("Bo", 0))


def test_a_reach_without_a_draw_signals_the_shot_and_the_last_card_revealed_stands() -> None:
    # "If a player makes a move towards their opponent's cards without revealing a draw card,
    # they are considered to have signalled their intention to shoot, and so their last card
    # will be the last card they revealed for the round."
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    play(game, [reveal("Ana", 1), {"cmd": "reach", "player": "Ana"}])
    assert game.state.attacker == "Ana" and game.state.phase is Phase.RACE
    with pytest.raises(IllegalMove):
        game.execute(reveal("Ana", 2))
    play(game, [{"cmd": "race", "winner": "attacker"}, roll(6)])
    assert game.state.last_round is not None and game.state.last_round.hits == ("Ana",)


def test_by_default_a_hit_after_a_reach_without_a_draw_scores_nothing() -> None:
    # "Fail to draw or hit your opponent, you don't score points for the round."
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    assert game.state.options["reach_scores"] is False
    play(game, [{"cmd": "reach", "player": "Bo"}, {"cmd": "race", "winner": "attacker"}, roll(6)])
    round_ = game.state.last_round
    assert round_ is not None and round_.hits == ("Bo",)  # Bo hit, but never drew
    assert points(game) == {"Ana": 0, "Bo": 0}


def test_a_defender_who_reached_to_shoot_back_and_hit_scores_nothing_by_default() -> None:
    # "Fail to draw or hit your opponent, you don't score points for the round."
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    attack(game)
    play(game, [{"cmd": "race", "winner": "attacker"}, roll(1)])  # Ana misses
    assert game.state.phase is Phase.REPLY
    play(game, [{"cmd": "reach", "player": "Bo"}, roll(6)])
    assert game.state.last_round is not None and game.state.last_round.hits == ("Bo",)
    assert points(game) == {"Ana": 0, "Bo": 0}


def test_a_table_may_choose_that_a_hit_after_a_reach_scores_its_point_but_no_bonus() -> None:
    # The option's reading: the reach "signalled their intention to shoot"; the bonus stays
    # with "If a player revealed their Draw card second and hit their opponent".
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3, reach_scores=True)
    attack(game)
    play(game, [{"cmd": "race", "winner": "attacker"}, roll(1)])
    play(game, [{"cmd": "reach", "player": "Bo"}, roll(6)])
    assert points(game) == {"Ana": 0, "Bo": 1}


def _reach_then_draw_and_hit(**options: object) -> Game:
    """Ana reaches without a Draw and misses; Bo reveals his Draw, the round's only one, and
    hits."""
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3, **options)
    play(game, [reveal("Ana", 1), {"cmd": "reach", "player": "Ana"}])
    play(game, [{"cmd": "race", "winner": "attacker"}, roll(1)])  # Ana misses
    assert game.state.phase is Phase.REPLY
    play(game, [reveal("Bo", 3), roll(6)])  # Bo's Draw: the shot back hits
    assert game.state.last_round is not None and game.state.last_round.hits == ("Bo",)
    return game


def test_by_default_a_draw_after_a_reach_without_a_draw_is_no_drawing_second_bonus() -> None:
    # "If a player revealed their Draw card second and hit their opponent, then they get a
    # second point as a bonus for drawing second": Bo's Draw is the round's only Draw card,
    # so no Draw was revealed before it (the reach revealed none); his hit scores one point.
    game = _reach_then_draw_and_hit()
    assert game.state.options["bonus_after_reach"] is False
    assert points(game) == {"Ana": 0, "Bo": 1}


def test_a_table_may_count_a_reach_as_the_first_draw_for_the_bonus() -> None:
    # The other reading: the reach "signalled their intention to shoot" first, so Bo, who drew
    # after it, "had drawn second" ("score 1 bonus point if you had drawn second").
    game = _reach_then_draw_and_hit(bonus_after_reach=True)
    assert points(game) == {"Ana": 0, "Bo": 2}


def test_a_defender_reveals_at_most_two_cards_after_the_attackers_draw() -> None:
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    attack(game)
    play(game, [{"cmd": "race", "winner": "defender"}, reveal("Bo", 2)])
    events = game.execute(roll(1))  # Ana misses
    assert events[-1] == ReplyOpened("Bo")
    events = game.execute(reveal("Bo", 4))  # the second card after the Draw: no more
    assert isinstance(events[-2], RoundEnded) and events[-2].hits == ()
    assert isinstance(events[-1], RoundStarted)


def test_after_a_miss_the_defender_may_reveal_a_draw_and_shoot_back_for_two_points() -> None:
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    attack(game)
    play(game, [{"cmd": "race", "winner": "attacker"}, roll(2), reveal("Bo", 2)])
    assert game.state.phase is Phase.REPLY
    events = game.execute(reveal("Bo", 3))
    assert events[-1] == ShotsCalled((("Bo",),))
    game.execute(roll(6))
    assert points(game) == {"Ana": 0, "Bo": 2}  # hit, and drew second


def test_the_defender_may_stop_revealing() -> None:
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    attack(game)
    play(game, [{"cmd": "race", "winner": "attacker"}, roll(1), {"cmd": "pass", "player": "Bo"}])
    assert game.state.round == 2 and points(game) == {"Ana": 0, "Bo": 0}


def test_a_defender_with_no_face_down_bullet_left_cannot_race() -> None:
    game = loaded(["blank-1", "blank-2", "blank-3", "blank-4", "blank-5", "draw-1"])
    for slot in range(1, 6):
        play(game, [reveal("Bo", slot), reveal("Ana", slot)])
    game.execute(reveal("Bo", 6))
    events = game.execute(reveal("Ana", 6))
    assert events[-1] == ShotsCalled((("Ana",),)) and game.state.race_winner == "Ana"


# -- 4) shoot -----------------------------------------------------------------------------------


def _deck_with(*extra: dict[str, object]) -> dict[str, object]:
    return plain_deck("cowboy", list(extra))


@pytest.mark.parametrize(("value", "hit"), [(4, True), (3, False)])
def test_an_instant_shot_hits_on_a_total_of_six_or_more(value: int, hit: bool) -> None:
    deck = _deck_with(card("eye", "focus", accuracy=2))
    game = loaded(["eye", "draw-1", *BLANKS[:4]], BO_DRAWS_3, ana_deck=deck)
    attack(game)
    play(game, [{"cmd": "race", "winner": "attacker"}])
    events = game.execute(roll(value))
    assert ShotResolved("Ana", value, 2, hit) in events


@pytest.mark.parametrize(
    ("face", "value", "hit"), [(6, 6, True), (1, 1, True), (0, 6, False), (6, 5, False)]
)
def test_the_dies_hit_face_hits_whatever_the_total(face: int, value: int, hit: bool) -> None:
    deck = _deck_with(card("shaky", "focus", accuracy=-2))
    game = loaded(["shaky", "draw-1", *BLANKS[:4]], BO_DRAWS_3, ana_deck=deck, hit_face=face)
    attack(game)
    game.execute({"cmd": "race", "winner": "attacker"})
    assert ShotResolved("Ana", value, -2, hit) in game.execute(roll(value))


def _simultaneous(bo_extra: dict[str, object] | None = None) -> Game:
    bo_deck = plain_deck("desperado", [bo_extra] if bo_extra else [])
    first = str(bo_extra["id"]) if bo_extra else "blank-1"
    game = loaded(ANA_DRAWS_2, [first, "blank-2", "draw-1", *BLANKS[2:5]], bo_deck=bo_deck)
    attack(game)
    game.execute(reveal("Bo", 3))
    return game


def test_simultaneous_shots_go_by_speed_with_one_more_for_the_attacker() -> None:
    game = _simultaneous()
    assert game.state.shots == (("Ana",), ("Bo",))  # Ana 0 + 1 against Bo 0
    game.execute(roll(6))
    assert points(game) == {"Ana": 1, "Bo": 0}  # the round ends: Bo never shoots


def test_the_faster_defender_shoots_first_and_a_miss_lets_the_other_shoot() -> None:
    game = _simultaneous(card("quick", "reach", speed=2))
    assert game.state.shots == (("Bo",), ("Ana",))
    play(game, [roll(1), roll(6)])
    assert points(game) == {"Ana": 1, "Bo": 0}


def test_equal_speed_fires_together_and_both_can_be_hit() -> None:
    game = _simultaneous(card("quick", "reach", speed=1))
    assert game.state.shots == (("Ana", "Bo"),)
    game.execute(roll(6))
    assert game.state.phase is Phase.SHOOT  # Bo still fires
    game.execute(roll(6))
    assert points(game) == {"Ana": 1, "Bo": 2}


def test_both_miss_and_the_round_ends() -> None:
    game = _simultaneous()
    events = play(game, [roll(1), roll(2)])
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.hits == () and game.state.round == 2


def test_a_re_roll_card_throws_its_owners_die_again_once() -> None:
    deck = _deck_with(card("again", "re-roll", rerolls="self"))
    game = loaded(["again", "draw-1", *BLANKS[:4]], BO_DRAWS_3, ana_deck=deck)
    attack(game)
    play(game, [{"cmd": "race", "winner": "attacker"}, roll(1)])
    assert game.state.phase is Phase.SHOOT  # waiting for Ana's choice
    with pytest.raises(IllegalMove, match="re-roll"):
        game.execute(roll(5))
    events = game.execute({"cmd": "reroll", "player": "Ana", "value": 2})
    assert events[-1] == ReplyOpened("Bo")  # still a miss, and the card is spent: no offer
    assert ("Ana", "again") in game.state.rerolls_used


def test_an_opponents_re_roll_may_spoil_a_hit_or_let_it_stand() -> None:
    deck = plain_deck("desperado", [card("jinx", "re-roll", rerolls="opponent")])
    game = loaded(ANA_DRAWS_2, ["jinx", *BO_DRAWS_3[1:]], bo_deck=deck)
    attack(game)
    play(game, [{"cmd": "race", "winner": "attacker"}, roll(6)])
    assert game.state.phase is Phase.SHOOT
    with pytest.raises(IllegalMove, match="Bo's"):
        game.execute({"cmd": "keep", "player": "Ana"})
    game.execute({"cmd": "keep", "player": "Bo"})
    assert points(game) == {"Ana": 1, "Bo": 0}


@pytest.mark.parametrize(("bo_next", "accuracy"), [("draw-1", 3), ("blank-1", 0)])
def test_a_flinch_counts_only_if_the_opponents_next_card_is_a_draw(
    bo_next: str, accuracy: int
) -> None:
    deck = _deck_with(card("twitch", "flinch", accuracy=3))
    bo = [
        bo_next,
        *[
            c
            for c in ["blank-1", "blank-2", "blank-3", "blank-4", "blank-5", "draw-1"]
            if c != bo_next
        ][:5],
    ]
    game = loaded(["twitch", "draw-2", *BLANKS[:4]], bo, ana_deck=deck)
    play(game, [reveal("Ana", 1), reveal("Bo", 1)])
    assert game.state.accuracy("Ana") == accuracy


def test_distract_changes_the_opponents_numbers_and_modifiers_are_the_revealers() -> None:
    deck = _deck_with(card("sand", "distract", speed=1, opponent_speed=-2, opponent_accuracy=-1))
    game = loaded(["sand", *ANA_DRAWS_2[1:]], BO_DRAWS_3, ana_deck=deck)
    game.execute(reveal("Ana", 1))
    state = game.state
    assert (state.speed("Ana"), state.speed("Bo"), state.accuracy("Bo")) == (1, -2, -1)


# -- end of round, end of game ------------------------------------------------------------------


def _round(game: Game, winner: str | None) -> None:
    """Both load a Draw in slot 1; Ana draws; `winner` hits (Bo by shooting back)."""
    n = game.state.round
    for player in ("Ana", "Bo"):
        game.execute({"cmd": "load", "player": player, "bullets": ["draw-1", *BLANKS[:5]]})
    play(game, [reveal("Ana", 1), {"cmd": "race", "winner": "attacker"}])
    if winner == "Ana":
        game.execute(roll(6))
    else:
        game.execute(roll(1))
        if winner == "Bo":
            play(game, [reveal("Bo", 1), roll(6)])
        else:
            game.execute({"cmd": "pass", "player": "Bo"})
    assert game.state.round == n + 1 or game.state.over


def _single_shot_game(**options: object) -> Game:
    game = Game()
    deck = plain_deck("cowboy", kind="single-shot")
    game.execute(new_game(deck, plain_deck("desperado", kind="single-shot"), **options))
    return game


def test_three_rounds_and_the_highest_score_wins() -> None:
    game = _single_shot_game()
    for winner in ("Ana", None, "Ana"):
        _round(game, winner)
    assert game.state.over and game.state.winner == "Ana" and points(game) == {"Ana": 2, "Bo": 0}
    assert isinstance(game.events[-1], GameWon)


def test_a_tie_after_three_rounds_plays_more_rounds_until_one_leads() -> None:
    game = _single_shot_game()
    for winner in ("Ana", "Ana", "Bo"):
        _round(game, winner)
    assert points(game) == {"Ana": 2, "Bo": 2} and not game.state.over and game.state.round == 4
    _round(game, None)
    assert not game.state.over and game.state.round == 5
    _round(game, "Bo")
    assert game.state.winner == "Bo"


def test_full_game_decks_spend_revealed_bullets_single_shot_decks_get_them_back() -> None:
    game = Game()
    game.execute(new_game(plain_deck("cowboy"), plain_deck("desperado", kind="single-shot")))
    _round(game, "Ana")
    assert "draw-1" not in game.state.available["Ana"]
    assert "draw-1" in game.state.available["Bo"]  # "returned to their deck"
    with pytest.raises(IllegalMove, match="spent"):
        game.execute({"cmd": "load", "player": "Ana", "bullets": ["draw-1", *BLANKS[:5]]})


def test_a_single_shot_deck_against_a_full_deck_discards_at_least_half_of_its_revealed() -> None:
    game = Game()
    game.execute(new_game(plain_deck("cowboy", kind="single-shot"), plain_deck("desperado")))
    for player in ("Ana", "Bo"):
        game.execute(
            {"cmd": "load", "player": player, "bullets": [*BLANKS[:2], "draw-1", *BLANKS[2:5]]}
        )
    play(
        game,
        [reveal("Ana", 1), reveal("Bo", 1), reveal("Ana", 2), reveal("Bo", 2), reveal("Ana", 3)],
    )
    play(game, [{"cmd": "race", "winner": "attacker"}, roll(6)])
    assert game.state.phase is Phase.DISCARD and game.state.discards_due == ("Ana",)
    assert discard_bounds(game.state, "Ana") == (2, 3)
    with pytest.raises(IllegalMove, match="discards 2 to 3"):
        game.execute({"cmd": "discard", "player": "Ana", "cards": ["blank-1"]})
    with pytest.raises(IllegalMove, match="not revealed"):
        game.execute({"cmd": "discard", "player": "Ana", "cards": ["blank-1", "blank-5"]})
    game.execute({"cmd": "discard", "player": "Ana", "cards": ["blank-1", "draw-1"]})
    assert game.state.round == 2 and len(game.state.available["Ana"]) == 8


def test_the_discard_stops_at_a_deck_of_four_and_both_may_agree_to_it() -> None:
    six = {**plain_deck("cowboy", kind="single-shot")}
    six["cards"] = [card("draw-1", "draw"), *[card(f"blank-{i}", "focus") for i in range(1, 6)]]
    game = Game()
    game.execute(
        new_game(six, plain_deck("desperado", kind="single-shot"), single_shot_discard="always")
    )
    for player in ("Ana", "Bo"):
        game.execute({"cmd": "load", "player": player, "bullets": [*BLANKS[:5], "draw-1"]})
    for slot in range(1, 6):
        play(game, [reveal("Ana", slot), reveal("Bo", slot)])
    play(game, [reveal("Ana", 6), {"cmd": "race", "winner": "attacker"}, roll(6)])
    assert game.state.discards_due == ("Ana", "Bo")
    assert discard_bounds(game.state, "Ana") == (2, 2)  # 6 revealed, but the deck stops at 4


def test_a_single_shot_game_keeps_every_card_unless_the_players_agree() -> None:
    game = _single_shot_game()
    _round(game, "Ana")
    assert game.state.phase is Phase.LOAD and len(game.state.available["Ana"]) == 10
