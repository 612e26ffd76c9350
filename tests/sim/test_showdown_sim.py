"""`tabletop sim --game showdown`: two simulated gunslingers play a whole game over the real
pty (the simulated mat's firmware and touch pads), the bridge, MQTT and the rules daemon."""

from __future__ import annotations

import json

import pytest

from tabletop.rules.games.replay import replay_lines
from tabletop.rules.games.showdown.events import RoundEnded
from tabletop.sim.runner import SimulatedTable


@pytest.mark.slow
def test_a_showdown_is_played_whole_on_the_simulated_table() -> None:
    table = SimulatedTable(game="showdown", seats=2, games=1, seed=2, camera=False, speed=20)
    summary = table.run()
    assert summary.games_finished == 1, summary.to_json()
    assert table.final_state is not None and table.final_state["phase"] == "finished"
    # Every alert the table raised was resolved (a finished game clears what was left).
    assert summary.alerts_resolved == summary.alerts_raised
    # ... and each came of a slip the people made on purpose (a bullet turned out of turn: the
    # refusal, and the slot's alert), not of people acting on a state the table had not yet
    # caught up with (they once turned a bullet they had just revealed back face down).
    assert summary.alerts_raised <= 2 * summary.mistakes_made, summary.to_json()
    # The log rebuilds the game: the final state is the replay of what was applied.
    replay = replay_lines([json.dumps(command) for command in table.applied])
    assert replay.rejected == []
    final = {key: value for key, value in table.final_state.items() if key != "rejected"}
    assert replay.rules.referee_view(replay.game.state) == final
    # Points only from hits: every round's points went to players who hit in it.
    ended = [e for step in replay.steps for e in step.events if isinstance(e, RoundEnded)]
    assert len(ended) >= 3
    totals: dict[str, int] = {}
    for round_ in ended:
        for player, points in round_.scored:
            assert points == 0 or player in round_.hits, round_
            totals[player] = totals.get(player, 0) + points
    assert totals == dict(replay.game.state.points)
    # The people's hands touched the pads and the daemon judged races from the mat's times.
    touches = [c for c in table.applied if c["cmd"] == "touch"]
    assert touches and all(isinstance(c["at_ms"], int) for c in touches)
    # The simulated mat's pads are split: the races say the hands were named by their side.
    races = [c for c in table.applied if c["cmd"] == "race"]
    assert any(c.get("how") == "touch pads, whose hand from split pads" for c in races), races
    for race in races:
        timed = "defender_ms" in race and "attacker_ms" in race
        if str(race.get("how")).startswith("touch pads") and timed:
            gap = race["defender_ms"] - race["attacker_ms"]
            assert race["winner"] == ("attacker" if gap > 50 else "defender"), race


@pytest.mark.slow
def test_the_second_game_of_the_default_seed_is_played_to_the_end() -> None:
    """The stall of issue 30: `tabletop sim --game showdown --seats 2 --games 2` (seed 1) hung
    at the start of game 2. The people laid a new game's bullet in the slot where the same card
    lay at the end of the last game, too quickly for the mat to see the slot empty, so the
    table never counted it and waited without a word."""
    table = SimulatedTable(game="showdown", seats=2, games=2, seed=1, camera=False, speed=20)
    summary = table.run()
    assert summary.stalls == [], summary.to_json()
    assert summary.games_finished == 2, summary.to_json()
    assert summary.alerts_resolved == summary.alerts_raised


@pytest.mark.slow
def test_a_table_where_nothing_moves_stops_and_says_what_it_waited_for(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The mat unplugged for good in the middle of the game: the daemon says so, and the
    simulated table, where nothing moves any more, stops with the prompt and the state."""
    import threading
    import time

    table = SimulatedTable(
        game="showdown", seats=2, games=1, seed=2, camera=False, speed=20, stall_after=8.0
    )

    def unplug_once_loaded() -> None:
        # In the middle of the game: once the people have laid their first bullets.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            mat = table.mat_simulator
            if mat is not None and sum(p.action == "place" for p in mat.history) >= 2:
                mat.unplug()
                return
            time.sleep(0.05)

    cable = threading.Thread(target=unplug_once_loaded)
    cable.start()
    summary = table.run()
    cable.join()
    assert summary.games_finished == 0
    [stall] = summary.stalls
    assert stall["waited_s"] >= 8.0 and stall["game"] == 1
    assert stall["prompt"] and stall["waiting"] in ("card", "dice")
    assert any("sensor mat is not connected" in words for words in stall["alerts"]), stall
    err = capsys.readouterr().err
    assert "the table stalled in game 1: nothing moved for" in err
    assert "last state: {" in err
