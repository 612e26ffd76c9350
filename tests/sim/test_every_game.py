"""Every game the table hosts, played to the end on the simulated table (issue 14, item 6): the
same runner, daemon, bridge and reader serve each through `rules.game` alone, High Roll (a game
written only for the tests) included."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rules import games
from tabletop.sim.runner import SimulatedTable
from tests.games.highroll import HIGH_ROLL


@pytest.fixture(autouse=True)
def high_roll() -> Iterator[None]:
    games.register(HIGH_ROLL)
    yield
    games.unregister(HIGH_ROLL.name)


# High Roll throws few dice, so it is the one played through the simulated camera and the real
# dice vision (the slowest part); the others hand the thrown values to the bridge.
CAMERA = "highroll"


@pytest.mark.parametrize("game", ["sixshooter", "ossix", "steamfunkateers", "highroll"])
def test_every_game_plays_to_the_end_and_every_alert_is_resolved(game: str) -> None:
    table = SimulatedTable(
        game=game,
        seats=2 if game == CAMERA else 3,
        games=1,
        seed=4,
        mistake_rate=0.2,
        camera=game == CAMERA,
        challenges_per_adventure=2 if game == CAMERA else 4,  # High Roll: rounds to win
        speed=20,
    )
    summary = table.run()
    assert summary.games_finished == 1
    assert table.final_state is not None and table.final_state["phase"] == "finished"
    # The people's mistakes are physical (a slip on the mat, a die too many): the table
    # catches them with alerts, never with a refused command.
    assert summary.commands_refused == 0, summary.refusals
    assert summary.mistakes_made >= 1
    assert 1 <= summary.mistakes_caught <= summary.mistakes_made
    assert summary.alerts_raised >= summary.mistakes_caught
    assert summary.alerts_resolved == summary.alerts_raised
    # Throws were read from the tray (filmed and read by the vision for the camera's game)
    # and moved the game on.
    assert summary.die_to_state_ms
