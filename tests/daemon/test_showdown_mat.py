"""Six-Gun Showdown through the whole chain: the simulated mat (real firmware behind a pty, its
touch pads) -> bridge -> MQTT -> rules daemon -> alerts, and the mat's slot LEDs back.

A card of the other player's deck and a tag no map knows are alerts on their slot (blinking
red); the slots light up for whose turn it is and for the race, and the race is judged from
the mat's touch timestamps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from daemon_helpers import Broker, MatTable, client, pump_until

from tabletop.bridge.bridge import ALERT_COLOUR, SLOT_COLOURS
from tabletop.firmware.simhw import CHIP_RESPONSE_MS as RESPONSE_MS
from tabletop.hardware.mat.sim import SimulatedMat
from tabletop.rules.games.showdown.decks import deck_to_json, load_deck

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "decks"
SEATS = ["Ana", "Bo"]
ANA = ["draw-1", "focus-1", "focus-2", "reach-1", "reach-2", "distract-1"]
BO = ["focus-1", "focus-2", "reach-1", "reach-2", "distract-1", "flinch-1"]


class ShowdownTable(MatTable):
    def __init__(self, broker: Broker, table: str, db: Path) -> None:
        super().__init__(broker.url, table, db, "sim:?seats=2&slots=6&pad=0", game="showdown")

    def colour(self, zone: str) -> tuple[int, int, int, bool]:
        red, green, blue, mode = self.sim.leds.colours[self.sim.layout.index(zone)]
        return red, green, blue, bool(mode)

    def applied(self) -> list[dict[str, Any]]:
        """The commands the daemon applied, from its log."""
        records = self.daemon.daemon.referee.log.records()
        return [json.loads(record.payload) for record in records if record.ok]


@pytest.fixture
def running(broker: Broker, table: str, db: Path) -> Iterator[ShowdownTable]:
    table_ = ShowdownTable(broker, table, db)
    table_.start()
    try:
        yield table_
    finally:
        table_.close()


def _felt(sim: SimulatedMat, zone: str, hand: int | None = None, spread: bool = True) -> int:
    """On the mat's held clock: a finger lands on `zone` and the clock steps until the firmware
    has felt it and sent it; returns the mat's time the touch is dated."""
    sim.touch(zone, hand, spread=spread)
    sim.clock.advance(RESPONSE_MS)
    sim.wait_polled()
    return sim.touch_ms()


def _tap(sim: SimulatedMat, zone: str) -> None:
    """A finger on `zone` and off again, each felt by the firmware on the mat's held clock: a
    tap of 0.2 s on the real clock went unfelt when the host let the firmware poll too late."""
    sim.clock.hold()
    try:
        _felt(sim, zone)
        sim.clock.advance(200)
        sim.release(zone)
        sim.clock.advance(RESPONSE_MS)
        sim.wait_polled()
    finally:
        sim.clock.resume()


def _body(raw: Any) -> Any:
    return json.loads(raw) if isinstance(raw, str) else raw


def test_wrong_and_unknown_cards_alert_slots_light_and_the_race_is_judged_from_touches(
    running: ShowdownTable, broker: Broker, table: str
) -> None:
    with client(broker.url, table) as gm:
        alert_topic = f"{gm.topics.root}/table/alert"
        gm.link.subscribe(alert_topic)
        decks = [load_deck(EXAMPLES / f"{name}.toml") for name in ("cowboy", "desperado")]
        reply = gm.send(
            {
                "cmd": "new_game",
                "game": "showdown",
                "players": [
                    {"name": n, "deck": deck_to_json(d)} for n, d in zip(SEATS, decks, strict=True)
                ],
            }
        )
        assert reply["ok"], reply

        def alerts() -> dict[str, str]:
            body = _body(gm.retained.get(alert_topic)) or {"alerts": []}
            return {f"s{a['seat'] + 1}.{a['slot']}": a["message"] for a in body["alerts"]}

        sim = running.sim
        for slot, card in enumerate(ANA[:5], start=1):
            sim.place(f"s1.{slot}", f"cowboy/{card}", "down")
        # Bo's card in Ana's slot: an alert on that slot, its LED blinking red.
        sim.place("s1.6", "desperado/draw-1", "down")
        pump_until(gm, lambda: "s1.6" in alerts(), 10, "the wrong-deck alert")
        assert alerts()["s1.6"] == (
            "Ana's slot 6: this card is from Bo's deck; use Ana's Cowboy deck"
        )
        pump_until(gm, lambda: running.colour("s1.6") == ALERT_COLOUR, 10, "a red slot LED")
        # A tag nobody enrolled: an alert too (not an empty slot).
        sim.remove("s1.6")
        sim.place("s1.6", "#04AABBCCDDEE01", "down")
        pump_until(gm, lambda: "tag 04AABBCCDDEE01" in alerts().get("s1.6", ""), 10, "unknown")
        assert "enrol it with its deck file" in alerts()["s1.6"]
        sim.remove("s1.6")
        sim.place("s1.6", f"cowboy/{ANA[5]}", "down")
        pump_until(gm, lambda: "s1.6" not in alerts(), 10, "the alert cleared")
        for slot, card in enumerate(BO, start=1):
            sim.place(f"s2.{slot}", f"desperado/{card}", "down")

        def phase() -> Any:
            state = gm.retained.get(gm.state_topic)
            return state.get("phase") if isinstance(state, dict) else None

        pump_until(gm, lambda: phase() == "stare_down", 15, "both players loaded")
        # The stare down: every face-down bullet may be chosen, on both seats.
        turn = SLOT_COLOURS["turn"]
        pump_until(
            gm,
            lambda: running.colour("s1.3") == turn and running.colour("s2.5") == turn,
            10,
            "the slots of whose turn it is lit",
        )
        # Ana touches her Draw first and turns it: BANG, the race for Bo's bullets.
        _tap(sim, "s1.1")
        pump_until(gm, lambda: gm.state().get("turn") == "Ana", 10, "Ana's touch")
        sim.flip("s1.1")
        pump_until(gm, lambda: phase() == "race", 10, "the race")
        race = SLOT_COLOURS["race"]
        pump_until(gm, lambda: running.colour("s2.2") == race, 10, "Bo's slots racing")
        assert running.colour("s1.2") == (0, 0, 0, False)  # Ana's own: dark
        # Ana's hand lands on Bo's slot 3; Bo's on his slot 1 half a second later.
        # The race is about time: the mat's clock is held and stepped 500 ms between them.
        sim.clock.hold()
        attacker_ms = _felt(sim, "s2.3")
        sim.clock.advance(500 - RESPONSE_MS)
        defender_ms = _felt(sim, "s2.1")
        sim.clock.resume()
        sim.flip("s2.1")
        pump_until(gm, lambda: phase() == "shoot", 10, "the race judged")
        sim.release("s2.3")
        sim.release("s2.1")
        judged = [c for c in running.applied() if c["cmd"] == "race"]
        assert [c["how"] for c in judged] == ["touch pads"], judged
        # The result on the slots: Ana's Draw won (blinking green), Bo's bullets lost.
        won = SLOT_COLOURS["won"]
        pump_until(gm, lambda: running.colour("s1.1") == won, 10, "the winner's slot")
        assert running.colour("s2.4") == SLOT_COLOURS["lost"]
        state = gm.state()
        assert state["race_winner"] == "Ana"
        # The judgement used the mat's own clock: 500 ms apart, Ana first.
        assert (judged[-1]["attacker_ms"], judged[-1]["defender_ms"]) == (attacker_ms, defender_ms)
        assert defender_ms - attacker_ms == 500
        assert judged[-1]["winner"] == "attacker"


class SplitShowdownTable(ShowdownTable):
    """The same table on a mat whose pads are split in near and far halves."""

    def __init__(self, broker: Broker, table: str, db: Path) -> None:
        MatTable.__init__(
            self, broker.url, table, db, "sim:?seats=2&slots=6&pad=0&split=all", game="showdown"
        )


def test_the_attackers_touch_on_the_very_bullet_the_defender_turns_is_credited_to_the_attacker(
    broker: Broker, table: str, db: Path
) -> None:
    """Issue 31 item 11: "an attacker who touches the very bullet the defender then turns has
    the earlier time credited to the defender" on whole pads; split pads name the hand."""
    running = SplitShowdownTable(broker, table, db)
    running.start()
    try:
        with client(broker.url, table) as gm:
            decks = [load_deck(EXAMPLES / f"{name}.toml") for name in ("cowboy", "desperado")]
            players = [
                {"name": n, "deck": deck_to_json(d)} for n, d in zip(SEATS, decks, strict=True)
            ]
            assert gm.send({"cmd": "new_game", "game": "showdown", "players": players})["ok"]
            sim = running.sim
            for slot, card in enumerate(ANA, start=1):
                sim.place(f"s1.{slot}", f"cowboy/{card}", "down")
            for slot, card in enumerate(BO, start=1):
                sim.place(f"s2.{slot}", f"desperado/{card}", "down")

            def phase() -> Any:
                state = gm.retained.get(gm.state_topic)
                return state.get("phase") if isinstance(state, dict) else None

            pump_until(gm, lambda: phase() == "stare_down", 15, "both players loaded")
            _tap(sim, "s1.1")  # Ana chooses her Draw and turns it: the race
            pump_until(gm, lambda: gm.state().get("turn") == "Ana", 10, "Ana's touch")
            sim.flip("s1.1")
            pump_until(gm, lambda: phase() == "race", 10, "the race")
            # Ana's hand (seat 1) lands on Bo's slot 4 and leaves; Bo's own hand lands on the
            # same bullet 300 ms after hers, and he turns it. Each fingertip stays on the half
            # it reached: a host too slow to poll the pads within SECOND_HAND_MS would take a
            # finger spreading to the other half for a second hand (the spreading finger is
            # tested in tests/showdown/test_race.py and the firmware's touch tests).
            sim.clock.hold()  # the mat's clock, stepped: the margin is exact under any load
            attacker_ms = _felt(sim, "s2.4", hand=0, spread=False)
            sim.clock.advance(150 - RESPONSE_MS)
            sim.release("s2.4")
            sim.clock.advance(RESPONSE_MS)
            sim.wait_polled()
            sim.clock.advance(150 - RESPONSE_MS)
            defender_ms = _felt(sim, "s2.4", spread=False)
            sim.clock.resume()
            sim.flip("s2.4")
            pump_until(gm, lambda: phase() == "shoot", 10, "the race judged")
            sim.release("s2.4")
            (race,) = [c for c in running.applied() if c["cmd"] == "race"]
            assert race["how"] == "touch pads, whose hand from split pads", race
            assert race["winner"] == "attacker" and gm.state()["race_winner"] == "Ana"
            assert (race["attacker_ms"], race["defender_ms"]) == (attacker_ms, defender_ms)
            assert defender_ms - attacker_ms == 300
    finally:
        running.close()
