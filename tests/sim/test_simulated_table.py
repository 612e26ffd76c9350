"""The whole simulated table through real MQTT: broker, rules daemon, bridge, the simulated mat
over its pty, simulated LEDs and people who play physically and make mistakes."""

from __future__ import annotations

import io
import json

import pytest

from tabletop.rules import games
from tabletop.rules.games.replay import replay_lines
from tabletop.sim.runner import SimulatedTable
from tests.games.highroll import HIGH_ROLL


def without_rejected(state: dict[str, object]) -> dict[str, object]:
    return {key: value for key, value in state.items() if key != "rejected"}


@pytest.mark.parametrize("seed", [11, 12])
def test_simulated_games_finish_replay_and_light_the_strikes(seed: int) -> None:
    view = io.StringIO()
    table = SimulatedTable(
        seats=3,
        games=1,
        seed=seed,
        mistake_rate=0.2,
        camera=False,
        challenges_per_adventure=5,
        view=view,
        speed=20,
    )
    summary = table.run()
    assert summary.games_finished == 1
    assert table.final_state is not None and table.final_state["phase"] == "finished"
    # The final state equals replaying the commands that were applied.
    replayed = replay_lines([json.dumps(command) for command in table.applied]).to_json()
    assert replayed["rejected"] == []
    assert without_rejected(replayed) == without_rejected(table.final_state)
    # Commands came from the mat as well as from the game master.
    sources = {command.get("source") for command in table.applied}
    assert "mat" in sources
    # Every LED frame after the start-up pattern shows a Strikes picture the table published,
    # and the last one shows the final Strikes.
    pictures = table.frame_history
    startup = 3 * 3 + 2  # each LED alone, all on, then all off
    game_frames = table.led_frames[startup:]
    assert game_frames, "the rules daemon's LED frames reached the LEDs"
    assert all(frame in pictures for frame in game_frames)
    assert game_frames[-1] == pictures[-1]
    # Mistakes were made, each raised an alert, and none was applied (the replay above would
    # differ otherwise).
    # (A slip still on the mat when the adventure ends is gathered with the cards, unseen.)
    assert summary.mistakes_caught >= 1
    assert summary.alerts_raised >= summary.mistakes_caught
    assert summary.alerts_resolved == summary.alerts_raised
    assert "seat LEDs" in view.getvalue()


def test_a_headless_run_shows_progress_on_stderr_and_the_summary_on_stdout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tabletop.cli import main

    # High Roll (a test-only game) is the shortest game: the progress is the point here.
    games.register(HIGH_ROLL)
    try:
        words = ["sim", "--headless", "--json", "--games", "2", "--seats", "2", "--no-camera"]
        assert main([*words, "--game", "highroll", "--seed", "5"]) == 0
    finally:
        games.unregister(HIGH_ROLL.name)
    out, err = capsys.readouterr()
    assert json.loads(out)["games_finished"] == 2
    lines = [line for line in err.splitlines() if line.startswith("High Roll games: ")]
    assert [line.split()[3] for line in lines] == ["1/2", "2/2"]


def test_the_simulated_table_serves_its_web_console_while_it_plays() -> None:
    import urllib.request

    table = SimulatedTable(
        seats=2, games=1, seed=5, camera=False, speed=20, console=True, challenges_per_adventure=2
    )
    pages: list[str] = []

    def fetch(_: object) -> None:
        assert table.console_url is not None
        with urllib.request.urlopen(table.console_url, timeout=5) as response:
            pages.append(response.read().decode())

    table.on_game_finished = fetch
    assert table.run().games_finished == 1
    assert table.console_url is not None and table.console_url.startswith("http://127.0.0.1:")
    assert pages and "<html" in pages[0].lower()


@pytest.mark.slow  # the camera renders and reads every throw
def test_the_live_table_keeps_its_console_after_the_last_game_and_serves_the_camera_picture() -> (
    None
):
    """Issue 32, lifecycle: the console outlives the last game until Ctrl-C (here: the test's
    `stop_lingering`), says so, and /dice.jpg serves the simulated camera's annotated picture."""
    import threading
    import urllib.request

    games.register(HIGH_ROLL)
    view = io.StringIO()
    table = SimulatedTable(
        game="highroll",
        seats=2,
        games=1,
        seed=5,
        speed=20,
        console=True,
        linger=True,
        view=view,
        challenges_per_adventure=1,  # one round won ends the game: the lingering is the point
    )
    seen: dict[str, object] = {}

    def look_after_the_games() -> None:
        if not table.lingering.wait(120):
            table.stop_lingering.set()
            return
        try:
            url = table.console_url
            assert url is not None
            with urllib.request.urlopen(url, timeout=5) as page:
                seen["page"] = page.status
            with urllib.request.urlopen(url + "dice.jpg", timeout=5) as picture:
                seen["type"] = picture.headers["Content-Type"]
                seen["jpeg"] = picture.read()[:3]
        finally:
            table.stop_lingering.set()

    looker = threading.Thread(target=look_after_the_games)
    looker.start()
    try:
        summary = table.run()
    finally:
        games.unregister(HIGH_ROLL.name)
        table.stop_lingering.set()
        looker.join(10)
    assert summary.games_finished == 1
    assert seen == {"page": 200, "type": "image/jpeg", "jpeg": b"\xff\xd8\xff"}
    assert "the games are over; the web console stays up until Ctrl-C" in view.getvalue()
