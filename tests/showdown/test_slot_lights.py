"""The mat's slot LEDs in Six-Gun Showdown: whose turn it is, the race and its result, as the
game's indicators give them, the daemon sends them (`leds/frame` "slots") and the bridge reads
them."""

from __future__ import annotations

import json

import pytest

from tabletop.bridge.bridge import _slot_lights
from tabletop.daemon.table import PhysicalTable, _slot_view
from tabletop.rules.games.game import SlotLight, SlotShow
from tabletop.rules.games.reading import EMPTY, SlotView
from tabletop.rules.games.showdown.game import SHOWDOWN
from tabletop.wire.topics import TableTopics

from .helpers import loaded, play, reveal

ANA_DRAWS_2 = ["blank-1", "draw-1", "blank-2", "blank-3", "blank-4", "blank-5"]
BO_DRAWS_3 = ["blank-1", "blank-2", "draw-1", "blank-3", "blank-4", "blank-5"]
SEATS = ("Ana", "Bo")


def lights(game_state: object) -> set[tuple[int, int, SlotShow]]:
    indicators = SHOWDOWN.indicators(game_state, SEATS)
    return {(light.seat, light.slot, light.show) for light in indicators.slots}


def test_the_stare_down_lights_every_face_down_bullet_then_only_whose_turn_it_is() -> None:
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    assert lights(game.state) == {(s, n, SlotShow.TURN) for s in (0, 1) for n in range(1, 7)}
    play(game, [reveal("Ana", 1)])
    assert lights(game.state) == {(1, n, SlotShow.TURN) for n in range(1, 7)}


def test_the_race_lights_the_defenders_bullets_and_its_result_the_winner() -> None:
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    play(game, [reveal("Ana", 1), reveal("Bo", 1), reveal("Ana", 2)])
    assert lights(game.state) == {(1, n, SlotShow.RACE) for n in range(2, 7)}
    game.execute({"cmd": "race", "winner": "attacker", "attacker_ms": 100, "defender_ms": 400})
    # Ana's Draw (slot 2) won; Bo's face-down bullets lost.
    assert lights(game.state) == {(0, 2, SlotShow.WON)} | {
        (1, n, SlotShow.LOST) for n in range(2, 7)
    }


def test_a_defender_fast_enough_has_the_chosen_bullet_lit_as_the_winner() -> None:
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    play(game, [reveal("Ana", 1), reveal("Bo", 1), reveal("Ana", 2)])
    game.execute({"cmd": "race", "winner": "defender", "slot": 4})
    assert lights(game.state) == {(1, 4, SlotShow.WON)}


def test_a_seat_the_daemon_does_not_have_is_left_dark() -> None:
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    indicators = SHOWDOWN.indicators(game.state, ("Bo", "Cy"))  # Ana plays at no seat here
    assert {light.seat for light in indicators.slots} == {0}


def test_the_led_frame_carries_the_slot_lights() -> None:
    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    play(game, [reveal("Ana", 1)])
    table = PhysicalTable(TableTopics("t1"), list(SEATS), 0.3, SHOWDOWN)
    payload = table.led_payload(game.state)
    assert payload["slots"] == [{"seat": 1, "slot": n, "show": "turn"} for n in range(1, 7)]
    assert payload["seats"] == [["off"] * 3, ["off"] * 3]
    json.dumps(payload)  # what goes on the wire


def test_the_bridge_reads_the_slot_lights_and_leaves_an_unknown_show_dark() -> None:
    raw = [
        SlotLight(0, 2, SlotShow.WON).to_json(),
        {"seat": 1, "slot": 3, "show": "sparkle"},  # a newer game's: dark, not an error
    ]
    assert _slot_lights(raw) == {"s1.2": "won"}
    with pytest.raises(ValueError, match="seat from 0"):
        _slot_lights([{"seat": -1, "slot": 1, "show": "turn"}])
    with pytest.raises(KeyError):
        _slot_lights([{"seat": 0, "slot": 1}])


def test_an_unknown_tag_on_a_slot_is_not_an_empty_slot() -> None:
    held = {"card": None, "uid": "04AABBCCDDEE01", "face": "down"}
    assert _slot_view(held, "zones.s1.1.card") == SlotView(None, False, "?04AABBCCDDEE01")
    assert _slot_view({}, "zones.s1.1.card") == EMPTY


def test_a_game_that_ends_clears_the_readers_alerts() -> None:
    from tabletop.rules.games.cards import parse_card
    from tabletop.rules.games.reading import AlertCleared
    from tabletop.rules.games.showdown.reading import ShowdownReader

    game = loaded(ANA_DRAWS_2, BO_DRAWS_3)
    reader = ShowdownReader(list(SEATS))
    raised = reader.observe_slot(game.state, 0, 1, SlotView(parse_card("QS"), True), 1.0)
    assert any(getattr(a, "key", "") == "card.s1.1" for a in raised)
    game.execute({"cmd": "end_game"})
    assert game.state.over
    assert AlertCleared("card.s1.1") in reader.evaluate(game.state, 2.0)
    assert reader.alerts == {}
