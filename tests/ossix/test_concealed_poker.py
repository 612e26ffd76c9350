"""Concealed dice poker, the default (issue 48 item 6): "each player and the GM roll 5D6,
keeping their dice concealed" (seed 001, Gambling). Each hand is entered (`poker_hand`), the
room sees "5 dice, hidden" until the reveal, the gambler and the game master see the dice; at
the reveal the hands go into the tray and the camera's read is checked against what was
entered, a mismatch being the game master's alert alone. Played open stays an option."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

import pytest

from tabletop.daemon.table import PhysicalTable
from tabletop.rules.games.errors import IllegalMove, InvalidCommand, RulesError
from tabletop.rules.games.game import WaitKind
from tabletop.rules.games.ossix.engine import Game
from tabletop.rules.games.ossix.events import EventKind
from tabletop.rules.games.ossix.game import OS_SIX
from tabletop.rules.games.ossix.poker import Phase, Poker
from tabletop.rules.games.reading import Alert, AlertCleared, Execute
from tabletop.wire.topics import TableTopics
from tests.games.helpers import referee_at, send

ANA = [3, 3, 5, 6, 6]  # a full house... of 3 3 and 6 6: two pair (6 3 5)
BO = [2, 2, 6, 1, 4]  # one pair
BART = [1, 1, 1, 4, 4]  # a full house


def concealed(**start: Any) -> Game:
    """Ana, Bo and the GM's Bart at a concealed table (the default), Bart dealing: the deal
    goes Ana, Bo, Bart."""
    game = Game()
    game.execute({"cmd": "new_game", "players": ["Ana", "Bo"]})
    seats = [{"name": n, "money": 10} for n in ("Ana", "Bo", "Bart")]
    game.execute({"cmd": "poker_start", "players": seats, "dealer": "Bart", **start})
    return game


def table(game: Game) -> Poker:
    found = game.state.poker
    assert found is not None
    return found


def hand(game: Game, player: str, values: list[int]) -> tuple[Any, ...]:
    return game.execute({"cmd": "poker_hand", "player": player, "values": values})


def dealt() -> Game:
    game = concealed()
    game.execute({"cmd": "ante"})
    hand(game, "Bo", BO)  # any order at the deal: each throws behind their own hand
    hand(game, "Ana", ANA)
    hand(game, "Bart", BART)
    return game


def bet(game: Game, player: str, action: str, amount: int | None = None) -> None:
    command: dict[str, Any] = {"cmd": "bet", "player": player, "action": action}
    if amount is not None:
        command["amount"] = amount
    game.execute(command)


def seat_of(view: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in view["poker"]["seats"] if s["name"] == name)


def test_poker_is_concealed_by_default_and_open_is_an_option() -> None:
    game = concealed()
    assert table(game).open is False
    assert OS_SIX.public_view(game.state)["poker"]["open"] is False
    assert OS_SIX.referee_view(game.state)["options"]["poker_open"] is False
    played_open = concealed(open=True)
    assert table(played_open).open is True
    game = Game()
    game.execute({"cmd": "new_game", "players": ["Ana"], "options": {"poker_open": True}})
    game.execute(
        {
            "cmd": "poker_start",
            "players": [{"name": "Ana", "money": 5}] * 1 + [{"name": "Bo", "money": 5}],
        }
    )
    assert table(game).open is True  # the table's option, when the poker names none
    with pytest.raises(InvalidCommand, match="open: expected true"):
        concealed(open="yes")


def test_the_deal_is_entered_by_every_gambler_in_any_order_not_thrown_in_the_tray() -> None:
    game = concealed()
    game.execute({"cmd": "ante"})
    waiting = OS_SIX.public_waiting(game.state)
    assert waiting.kind is WaitKind.CHOICE and waiting.dice is None  # the camera expects none
    assert waiting.who == ("Ana", "Bo", "Bart")
    assert waiting.words == (
        "Ana, Bo and Bart: throw 5 dice behind your hand and enter them (the hands stay concealed)"
    )
    assert waiting.detail is not None and waiting.detail["type"] == "poker_hand"
    with pytest.raises(IllegalMove, match="no dice are awaited"):
        game.execute({"cmd": "roll", "values": ANA})  # not the tray
    hand(game, "Bo", BO)
    assert OS_SIX.public_waiting(game.state).who == ("Ana", "Bart")
    hand(game, "Ana", ANA)
    hand(game, "Bart", BART)
    assert table(game).phase is Phase.BETTING
    assert OS_SIX.waiting(game.state).who == ("Ana",)  # left of the dealer bets first


def test_a_hand_entered_wrong_is_refused_in_words() -> None:
    game = concealed()
    game.execute({"cmd": "ante"})
    with pytest.raises(IllegalMove, match="^Ana's hand needs 5 dice, 1-6$"):
        hand(game, "Ana", [3, 3, 5, 6])
    with pytest.raises(InvalidCommand, match="Ana's hand needs 5 dice, 1-6"):
        hand(game, "Ana", [3, 3, 5, 6, 7])
    with pytest.raises(IllegalMove, match="^Zed is not in this hand$"):
        hand(game, "Zed", ANA)
    hand(game, "Ana", ANA)
    with pytest.raises(IllegalMove, match="Ana's hand is already entered"):
        hand(game, "Ana", BO)
    # Hold 'Em's pocket dice are two, Lucky Seven's seven.
    pocket = concealed(variant="hold_em")
    pocket.execute({"cmd": "ante"})
    with pytest.raises(IllegalMove, match="^Ana's hand needs 2 dice, 1-6$"):
        hand(pocket, "Ana", ANA)
    hand(pocket, "Ana", [6, 6])
    with pytest.raises(IllegalMove, match="already entered: it changes no more this hand"):
        hand(pocket, "Ana", [1, 1])
    # Played open, a hand is thrown in the tray, never entered.
    played_open = concealed(open=True)
    played_open.execute({"cmd": "ante"})
    with pytest.raises(IllegalMove, match="played open"):
        hand(played_open, "Ana", ANA)


def test_the_room_sees_how_many_dice_each_holds_the_player_and_the_gm_see_them() -> None:
    game = concealed()
    game.execute({"cmd": "ante"})
    hand(game, "Ana", ANA)
    room = OS_SIX.public_view(game.state)
    ana, bo = seat_of(room, "Ana"), seat_of(room, "Bo")
    assert (ana["dice"], ana["dice_hidden"], ana["hand"], ana["concealed"]) == (None, 5, None, True)
    assert (bo["dice"], bo["dice_hidden"]) == (None, 0)  # none yet
    own = OS_SIX.seat_view(game.state, "Ana")
    assert seat_of(own, "Ana")["dice"] == ANA and seat_of(own, "Ana")["dice_hidden"] == 0
    assert seat_of(own, "Ana")["hand"] == "two pair (6 3 5)"
    other = OS_SIX.seat_view(game.state, "Bo")
    assert seat_of(other, "Ana")["dice"] is None and seat_of(other, "Ana")["dice_hidden"] == 5
    assert "Ana          $9      5 dice, hidden" in OS_SIX.render_view(room)
    gm = OS_SIX.referee_view(game.state)
    assert seat_of(gm, "Ana")["dice"] == ANA and seat_of(gm, "Ana")["concealed"] is True
    # Nothing the room reads names a concealed die: the view, the prompt, the events.
    hand(game, "Bo", BO)
    hand(game, "Bart", BART)
    public = json.dumps(
        [
            OS_SIX.public_view(game.state),
            OS_SIX.seat_view(game.state, "Bo"),
            [OS_SIX.public_event(e, game.state) for e in game.events],
        ]
    )
    assert "[3, 3, 5, 6, 6]" not in public and "3 3 5 6 6" not in public
    assert "[1, 1, 1, 4, 4]" not in public and "1 1 1 4 4" not in public
    texts = [OS_SIX.public_event(e, game.state)["text"] for e in game.events[-3:]]
    assert texts[0] == "Ana's hand is in (5 dice, hidden)"
    assert OS_SIX.describe_event(game.events[-1]) == "Bart's hand is in: 1 1 1 4 4"


def drawing() -> Game:
    """Everyone checks the opening round: the draw, Ana first."""
    game = dealt()
    for player in ("Ana", "Bo", "Bart"):
        bet(game, player, "check")
    assert table(game).phase is Phase.DRAW
    return game


def test_the_draw_is_the_whole_new_hand_entered_holding_the_dice_kept() -> None:
    game = drawing()
    waiting = OS_SIX.public_waiting(game.state)
    assert waiting.kind is WaitKind.CHOICE and waiting.who == ("Ana",) and waiting.dice is None
    assert waiting.detail is not None and waiting.detail["hand"] is None
    assert OS_SIX.waiting(game.state).detail["hand"] == ANA  # type: ignore[index]
    with pytest.raises(IllegalMove, match="it is Ana's draw, not Bo's"):
        hand(game, "Bo", BO)
    with pytest.raises(IllegalMove, match="keep at least two"):
        hand(game, "Ana", [1, 1, 2, 2, 4])
    events = hand(game, "Ana", [3, 3, 6, 6, 6])  # threw the 5 again
    assert OS_SIX.public_event(events[0], game.state)["text"] == "Ana draws 1 (hidden)"
    game.execute({"cmd": "draw", "player": "Bo", "keep": [2, 2, 6]})
    kept = OS_SIX.public_event(game.events[-1], game.state)["text"]
    assert kept == "Bo keeps 3 dice (hidden)"
    assert seat_of(OS_SIX.public_view(game.state), "Bo")["kept"] is None
    assert seat_of(OS_SIX.seat_view(game.state, "Bo"), "Bo")["kept"] == [2, 2, 6]
    with pytest.raises(IllegalMove, match="^the hand must keep the 2 2 6 Bo kept$"):
        hand(game, "Bo", [2, 2, 5, 5, 1])
    hand(game, "Bo", [2, 2, 6, 6, 1])
    game.execute({"cmd": "draw", "player": "Bart", "keep": BART})  # stands pat
    assert table(game).phase is Phase.BETTING


def revealing() -> Game:
    """The final round checked round: the reveal, Bo folded before it."""
    game = drawing()
    hand(game, "Ana", [3, 3, 6, 6, 6])  # a full house
    game.execute({"cmd": "draw", "player": "Bo", "keep": BO})
    game.execute({"cmd": "draw", "player": "Bart", "keep": BART})
    bet(game, "Ana", "bet", 2)
    bet(game, "Bo", "fold")
    bet(game, "Bart", "call")
    return game


def test_the_reveal_shows_the_hands_still_in_and_lays_each_in_the_tray_in_turn() -> None:
    game = revealing()
    assert table(game).phase is Phase.REVEAL
    revealed = [e for e in game.events if e.kind is EventKind.POKER_REVEALED]
    assert [e.players for e in revealed] == [("Ana", "Bart")]
    text = OS_SIX.public_event(revealed[0], game.state)["text"]
    assert text == "the reveal: Ana 3 3 6 6 6: full house (6 3); Bart 1 1 1 4 4: full house (1 4)"
    room = OS_SIX.public_view(game.state)
    assert (
        seat_of(room, "Ana")["dice"] == [3, 3, 6, 6, 6] and seat_of(room, "Ana")["dice_hidden"] == 0
    )
    assert seat_of(room, "Ana")["hand"] == "full house (6 3)"
    assert seat_of(room, "Bo")["dice"] is None  # a folded hand is never revealed
    waiting = OS_SIX.public_waiting(game.state)
    assert waiting.kind is WaitKind.DICE and waiting.who == ("Ana",)
    assert waiting.dice is not None and waiting.dice.count == 5
    assert waiting.detail == {
        "type": "poker_reveal",
        "player": "Ana",
        "dice": 5,
        "hand": [3, 3, 6, 6, 6],
        "kept": None,
    }
    assert waiting.words == "Ana: lay your hand (3 3 6 6 6) in the tray for the camera"
    game.execute({"cmd": "roll", "values": [6, 3, 6, 3, 6]})  # in any order
    assert OS_SIX.describe_event(game.events[-1]) == (
        "Ana's hand is in the tray: 6 3 6 3 6, as entered"
    )
    events = game.execute({"cmd": "roll", "values": BART})
    # The pots are paid by the hands entered: Ana's full house of sixes beats Bart's of ones.
    won = [(e.player, e.number) for e in events if e.kind is EventKind.POT_WON]
    assert won == [("Ana", 3 + 2 + 2)]
    assert table(game).phase is Phase.BETWEEN
    between = seat_of(OS_SIX.public_view(game.state), "Ana")
    assert (between["dice"], between["dice_hidden"]) == (None, 0)  # no hand now


def test_everyone_else_folding_wins_unseen_with_no_reveal() -> None:
    game = dealt()
    bet(game, "Ana", "bet", 1)
    bet(game, "Bo", "fold")
    bet(game, "Bart", "fold")
    kinds = [e.kind for e in game.events]
    assert EventKind.POKER_REVEALED not in kinds and EventKind.POT_WON in kinds


def test_the_camera_checks_the_reveal_and_a_mismatch_is_the_game_masters_alert_only() -> None:
    game = revealing()
    physical = PhysicalTable(TableTopics("t1"), ["Ana", "Bo"], 0.3, OS_SIX)
    actions = physical.reader.observe_dice(game.state, [3, 3, 6, 6, 1], 0.0)
    alerts = [a for a in actions if isinstance(a, Alert)]
    assert alerts == [
        Alert(
            "poker.mismatch.Ana",
            "Ana entered 3 3 6 6 6 but the tray shows 3 3 6 6 1: look at the dice; the pots "
            "are paid by the hand entered",
            private=True,
        )
    ]
    physical.record(actions)
    referee_words = [a["message"] for a in physical.alert_payload()["alerts"]]
    assert referee_words == [alerts[0].message]
    assert physical.alert_payload(frozenset())["alerts"] == []  # not on the room's screen
    # The reveal goes on: the tray's read is the next command, and the GM's log says it.
    executed = [a.command for a in actions if isinstance(a, Execute)]
    assert executed == [{"cmd": "roll", "values": [3, 3, 6, 6, 1], "source": "dice"}]
    game.execute(executed[0])
    assert OS_SIX.describe_event(game.events[-1]) == (
        "Ana's hand in the tray shows 3 3 6 6 1, not the hand entered (3 3 6 6 6)"
    )
    assert OS_SIX.public_event(game.events[-1], game.state)["text"] == "Ana's hand is in the tray"
    # Bart's matches: no alert.
    actions = physical.reader.observe_dice(game.state, [4, 1, 4, 1, 1], 1.0)
    assert not [a for a in actions if isinstance(a, Alert)]
    for action in actions:
        if isinstance(action, Execute):
            game.execute(action.command)
    # The next hand clears it.
    game.execute({"cmd": "ante"})
    cleared = physical.reader.applied(game.state, {"cmd": "ante"}, 2.0)
    assert AlertCleared("poker.mismatch.Ana") in cleared
    physical.record(cleared)
    assert physical.alert_payload()["alerts"] == []


def test_dice_in_the_tray_while_hands_are_entered_are_told_to_stay_concealed() -> None:
    game = concealed()
    game.execute({"cmd": "ante"})
    reader = OS_SIX.table_reader(["Ana", "Bo"], 0.3)
    actions = reader.observe_dice(game.state, ANA, 0.0)
    assert [a for a in actions if isinstance(a, Execute)] == []
    assert "behind your hand" in next(a for a in actions if isinstance(a, Alert)).message


def _parse(verb: str, argv: list[str]) -> dict[str, Any]:
    action = next(a for a in OS_SIX.gm_actions() if a.verb == verb)
    parser = argparse.ArgumentParser(prog=verb)
    action.arguments(parser)
    return action.build(parser.parse_args(argv))


def test_the_game_master_enters_a_hand_by_a_verb() -> None:
    verb = next(a for a in OS_SIX.gm_actions() if a.verb == "hand")
    assert verb.title == "Poker: enter a concealed hand"
    assert "poker_hand" in verb.answers and "poker_draw" in verb.answers
    assert _parse("hand", ["Bart", "1", "1", "1", "4", "4"]) == {
        "cmd": "poker_hand",
        "player": "Bart",
        "values": BART,
    }
    assert _parse("poker", ["Ana=10", "Bo=8", "--open"])["open"] is True
    assert "open" not in _parse("poker", ["Ana=10", "Bo=8"])


def test_random_concealed_play_is_legal_and_rebuilds_from_its_log() -> None:
    rng = random.Random(48)
    game = OS_SIX.new_engine()
    seen: set[EventKind] = set()
    for _ in range(4000):
        command = OS_SIX.random_command(game.state, rng)
        assert command is not None
        try:
            events = game.execute(command)
        except RulesError as error:  # random play is legal play
            pytest.fail(f"{command} refused: {error}")
        seen |= {e.kind for e in events}
        now = game.state.poker
        if now is not None and not now.open:
            room = json.dumps(OS_SIX.public_view(game.state))
            for s in now.seats:
                if now.hidden(s):
                    assert seat_of(OS_SIX.public_view(game.state), s.name)["dice"] is None, room
    assert {EventKind.POKER_ENTERED, EventKind.POKER_REVEALED, EventKind.POKER_SHOWN} <= seen
    logged = [
        OS_SIX.event_from_json(json.loads(json.dumps(OS_SIX.event_to_json(e)))) for e in game.events
    ]
    assert OS_SIX.new_engine(logged).state == game.state


def test_the_daemons_referee_publishes_the_room_without_the_dice_and_each_seat_its_own(
    tmp_path: Path,
) -> None:
    with referee_at(tmp_path) as referee:
        for command in (
            {"cmd": "new_game", "game": "ossix", "players": ["Ana", "Bo"]},
            {
                "cmd": "poker_start",
                "players": [{"name": "Ana", "money": 9}, {"name": "Bo", "money": 9}],
            },
            {"cmd": "ante"},
            {"cmd": "poker_hand", "player": "Ana", "values": ANA},
        ):
            assert send(referee, command)["ok"], command
        room = json.dumps([referee.public_state_json(), referee.prompt_json()])
        assert "[3, 3, 5, 6, 6]" not in room and '"dice_hidden": 5' in room
        assert seat_of(referee.seat_state_json("Ana"), "Ana")["dice"] == ANA
        assert seat_of(referee.seat_state_json("Bo"), "Ana")["dice"] is None
        assert seat_of(referee.state_json(), "Ana")["dice"] == ANA
        assert referee.prompt_json()["who"] == ["Bo"]  # still to enter
