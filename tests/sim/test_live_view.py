"""The live view of `tabletop sim` (rich), its closing summary in words, and `--speed`."""

from __future__ import annotations

import io
import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from rich.console import Console

from tabletop.rules import games
from tabletop.rules.games.errors import RulesError
from tabletop.sim import runner
from tabletop.sim.runner import MIN_PATIENCE_S, PATIENCE_S, SimulatedTable, Summary
from tabletop.sim.view import Frame, Header, LiveView, summary_words
from tests.games.highroll import HIGH_ROLL

HEADER = Header(
    table="main",
    game="Six Shooter",
    broker="mqtt://127.0.0.1:41883",
    mat="simulated, 3 seats x 6 slots + pad, on /dev/pts/7",
    camera="simulated, read by the dice vision",
    speed=20,
    console_url="http://127.0.0.1:8123/",
)
NAMES = ["Ana", "Bo", "Cy"]


@pytest.fixture
def high_roll() -> Iterator[None]:
    games.register(HIGH_ROLL)
    yield
    games.unregister(HIGH_ROLL.name)


def six_shooter_view() -> dict[str, Any]:
    """The public view of a Six Shooter game some random legal commands into play."""
    rules = games.get("sixshooter")
    engine = rules.new_engine()
    rng = random.Random(3)
    for _ in range(40):
        command = rules.random_command(engine.state, rng)
        if command is None or command.get("cmd") == "end_game":
            continue
        try:
            engine.execute(command)
        except RulesError:
            continue
    return dict(rules.public_view(engine.state))


def frame(state: dict[str, Any], alerts: list[dict[str, Any]], prompt: str) -> Frame:
    return Frame(
        state=state,
        prompt={"prompt": prompt, "who": ["Bo"], "pending": state.get("pending")},
        alerts={"alerts": alerts, "instructions": []},
        leds="Ana        ● ○ ○\nBo         ○ ○ ○\nCy         ◐ ◐ ◐",
        led_meaning="Strikes (all three blink: removed from play)",
        events=["Ana rolls 4", "Bo's slot 3 flips face-up: QS"],
        mat_status="connected",
    )


def test_the_live_view_shows_the_header_board_legend_alerts_and_prompt() -> None:
    console = Console(file=io.StringIO(), width=120, height=44, record=True)
    clock = iter([0.0, 1.5, 1.5, 3.25, 3.25, 4.0, 4.0, 5.0, 5.0, 6.0])
    view = LiveView(console, HEADER, games.get("sixshooter"), NAMES, clock=lambda: next(clock))
    view.start()
    state = six_shooter_view()
    slip = {"key": "s2.3", "message": "Bo's slot 3: turn QS face-down", "seat": 1, "slot": 3}
    view.show(frame(state, [slip], "Bo: roll the die"))
    view.show(frame(state, [], "Bo: roll the die"))
    console.print(view.render())
    view.stop()
    text = console.export_text()
    # The header: which table, game, broker, mat, camera, speed and web console.
    for words in (
        "table main",
        "game Six Shooter",
        "broker mqtt://127.0.0.1:41883",
        "mat simulated, 3 seats x 6 slots + pad, on /dev/pts/7, connected",
        "camera simulated, read by the dice vision",
        "speed 20x (the people; devices in real time)",
        "web console http://127.0.0.1:8123/ (game master: http://127.0.0.1:8123/gm)",
    ):
        assert words in text, words
    # The board as the game draws it, the LEDs and what they mean, and the legend.
    assert games.get("sixshooter").render_view(state).splitlines()[1].strip() in text
    assert "Ana        ● ○ ○" in text and "lit: Strikes" in text
    for mark, words in (("[ ##]", "face down"), ("[ --]", "an empty slot")):
        assert f"{mark} {words}" in text
    assert "◐     LED blinking" in text
    # The alert named its seat and slot when raised, and the view said when it cleared.
    assert "1.5 s raised  seat 2 (Bo), slot 3: Bo's slot 3: turn QS face-down" in text
    assert "3.2 s cleared seat 2 (Bo), slot 3" in text
    assert "Bo: roll the die   (who: Bo)" in text
    assert "Bo's slot 3 flips face-up: QS" in text


def test_an_alert_standing_now_is_shown_in_red_words_with_its_place() -> None:
    console = Console(file=io.StringIO(), width=160, height=40, record=True)
    view = LiveView(console, HEADER, games.get("sixshooter"), NAMES, clock=lambda: 0.0)
    dice = {"key": "dice", "message": "the die is cocked: throw it again", "seat": None}
    view.show(frame(six_shooter_view(), [dice], "Bo: roll the die"))
    console.print(view.render())
    assert "NOW the dice tray: the die is cocked: throw it again" in console.export_text()


def test_the_closing_summary_is_in_words() -> None:
    summary = Summary(
        games_requested=2,
        games_finished=2,
        commands_applied=57,
        alerts_raised=3,
        alerts_resolved=3,
        mistakes_made=4,
        mistakes_caught=3,
        die_to_state_ms=[12.0, 20.0],
        seconds=12.34,
    )
    words = summary_words(summary.to_json(), "Six Shooter")
    assert words.splitlines()[:3] == [
        "2 of 2 Six Shooter games played to the end in 12.3 s.",
        "The rules daemon applied 57 commands and refused none.",
        "The people made 4 mistakes on purpose and put right 3 the table caught; 3 alerts "
        "raised, all resolved.",
    ]
    assert "a die at rest to the new state 16.0 ms" in words
    summary.commands_refused, summary.refusals = 1, ["end the game first"]
    summary.alerts_resolved = 2
    words = summary_words(summary.to_json(), "Six Shooter")
    assert "refused 1; the first: end the game first." in words
    assert "2 resolved, 1 still open." in words


def test_a_real_run_leaves_its_last_frame_with_the_prompt_in_step_with_the_board() -> None:
    out = io.StringIO()
    console = Console(file=out, width=120, height=40, record=True)
    table = SimulatedTable(
        seats=2, games=1, seed=5, camera=False, challenges_per_adventure=2, speed=20, view=console
    )
    assert table.run().games_finished == 1
    text = console.export_text()
    assert "game Six Shooter" in text and "broker mqtt://127.0.0.1:" in text
    assert "camera off: the values go straight to the bridge" in text
    # The last frame: the board of the finished game, and the prompt of that moment.
    assert "Adventure 2, finished" in text
    assert "the game is over" in text
    assert "The game is over" in text  # the last event


def test_plain_headless_prints_words_and_json_only_when_asked(
    high_roll: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from tabletop.cli import main

    words = ["sim", "--headless", "--game", "highroll", "--seats", "2", "--no-camera"]
    assert main(words) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 of 1 High Roll game played to the end in ")
    assert "refused none." in out
    assert main([*words, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games_finished"] == 1


def test_speed_scales_the_peoples_pauses_and_patience_not_below_the_floor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)  # the people's pauses sleep
    for speed in (1, 4, 20):
        table = SimulatedTable(speed=speed)
        table.people_settings().pause(2.0)
        assert slept[-1] == pytest.approx(2.0 / speed)
        assert table.patience == max(PATIENCE_S / speed, MIN_PATIENCE_S)
    assert SimulatedTable(speed=1).patience == PATIENCE_S
    assert SimulatedTable(speed=1000).patience == MIN_PATIENCE_S
    with pytest.raises(ValueError, match="speed"):
        SimulatedTable(speed=0)


def test_a_reaction_the_mat_times_passes_in_human_time_at_any_speed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 31: "At the race, people react in human time whatever the speed" (the mat dates
    touches with its own real clock): a race's 250 ms reaction sleeps 250 ms at speed 20."""
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)
    for speed in (1, 20):
        settings = SimulatedTable(speed=speed).people_settings()
        settings.react(0.25)
        assert slept[-1] == pytest.approx(0.25)
        settings.pause(0.25)
        assert slept[-1] == pytest.approx(0.25 / speed)


def test_the_command_line_speed_defaults_to_20_headless_and_to_real_time_live(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tabletop.cli import main

    speeds: list[float] = []

    class Recorded(SimulatedTable):
        def run(self) -> Summary:
            speeds.append(self.speed)
            return Summary(self.games, games_finished=self.games)

    monkeypatch.setattr(runner, "SimulatedTable", Recorded)
    assert main(["sim", "--headless"]) == 0
    assert main(["sim"]) == 0
    assert main(["sim", "--headless", "--speed", "3"]) == 0
    assert speeds == [20.0, 1.0, 3.0]
    assert main(["sim", "--speed", "0"]) != 0
    assert "--speed 0.0: expected a positive number" in capsys.readouterr().err


def test_the_clock_runs_on_and_says_how_long_nothing_has_moved() -> None:
    """Issue 30: in a stall the live clock stopped, so nobody could tell a table waiting from
    a frozen program. The view is drawn again each second and says how long nothing moved."""
    now = [100.0]
    output = io.StringIO()
    console = Console(file=output, width=120, height=48, force_terminal=False)
    view = LiveView(console, HEADER, games.get("sixshooter"), NAMES, clock=lambda: now[0])
    view.start()
    view.show(frame(six_shooter_view(), [], "Bo, lay your card"))
    now[0] += 5
    assert "nothing has moved" not in view._clocks()
    now[0] += 40
    view.tick()
    assert view._clocks() == "running 45 s · nothing has moved for 45 s"
    screen = Console(file=io.StringIO(), width=120, height=48)
    screen.print(view.render())
    assert "nothing has moved for 45 s" in screen.file.getvalue()  # type: ignore[attr-defined]
    view.show(frame(six_shooter_view(), [], "Cy, lay your card"))
    now[0] += 1
    assert view._clocks() == "running 46 s"
    view.stop()
