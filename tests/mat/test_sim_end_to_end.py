"""The simulated mat -> a real pty -> the host driver, as at the table; and the CLI around them."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabletop.hardware.mat import MatDriver, MatLayout, open_mat
from tabletop.hardware.mat.events import CardEvent, EventKind, LinkEvent, MatEvent, ResyncEvent
from tabletop.hardware.mat.protocol import LedSetting, MessageType, Result, ResultCode, ScanSetting
from tabletop.hardware.mat.sim import SimulatedMat

LAYOUT = MatLayout(2, 3, True)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[SimulatedMat, MatDriver]]:
    mat = SimulatedMat(LAYOUT, link_dir=str(tmp_path), miss_rate=0.01)
    path = mat.start()
    driver = MatDriver(path)
    driver.start()
    try:
        first = wait_for(driver, lambda e: isinstance(e, LinkEvent))
        assert first.kind is EventKind.LINK_UP
        yield mat, driver
    finally:
        driver.close()
        mat.stop()


def wait_for(driver: MatDriver, match: object, timeout: float = 30.0) -> MatEvent:
    """Returns the first event `match` accepts; fails with what came instead.

    The deadline is a safety net for a loaded host, not a speed figure."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = driver.get_event(0.05)
        if event is None:
            continue
        if match(event):  # type: ignore[operator]
            return event
        seen.append(event.to_json())
    raise AssertionError(f"no matching event in {timeout} s; saw {seen}")


def result_for(driver: MatDriver, msg_type: MessageType, skip_ok: bool = False) -> Result:
    """Returns the mat's RESULT for `msg_type` (the host's own CONFIGURE on connect also gets
    one, which `skip_ok` passes over)."""
    while True:
        result = driver.results.get(timeout=30)
        if result.for_type == msg_type and not (skip_ok and result.code is ResultCode.OK):
            return result


def drain(driver: MatDriver) -> list[MatEvent]:
    """Every event the mat sent before it answers a PING sent now.

    The reader thread queues frames in the order they came, so once the PONG is in, whatever
    the mat said before it is queued too: a barrier, where waiting for a quiet spell would be a
    guess at how fast the host is."""
    nonce = driver.ping()
    while driver.pongs.get(timeout=30).nonce != nonce:
        pass
    events = []
    while (event := driver.get_event(0)) is not None:
        events.append(event)
    return events


def until(driver: MatDriver, done: object, timeout: float = 30.0) -> list[MatEvent]:
    """The events up to the first moment `done(events so far)` holds, then the rest the mat had
    sent by then (`drain`); fails with what came if it never holds."""
    events: list[MatEvent] = []
    deadline = time.monotonic() + timeout
    while not done(events):  # type: ignore[operator]
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"not done in {timeout} s; saw {[e.to_json() for e in events]}")
        event = driver.get_event(min(left, 0.5))
        if event is not None:
            events.append(event)
    return events + drain(driver)


def card_events(driver: MatDriver, count: int = 1) -> list[dict[str, object]]:
    """The next `count` card events, and any other the mat had sent by the time they came."""
    events = until(driver, lambda seen: sum(isinstance(e, CardEvent) for e in seen) >= count)
    return [e.to_json() for e in events if isinstance(e, CardEvent)]


def test_cards_laid_flipped_and_removed_come_out_as_events(
    rig: tuple[SimulatedMat, MatDriver],
) -> None:
    mat, driver = rig
    mat.place("s2.3", "QS", "up")
    mat.place("pad", "10H", "down")
    got = card_events(driver, 2)
    assert sorted(got, key=str) == sorted(
        [
            {"event": "placed", "zone": "s2.3", "card": "QS", "face": "up"},
            {"event": "placed", "zone": "pad", "card": "10H", "face": "down"},
        ],
        key=str,
    )
    mat.flip("s2.3")
    assert card_events(driver) == [
        {"event": "flipped", "zone": "s2.3", "card": "QS", "face": "down"}
    ]
    mat.remove("pad")
    assert card_events(driver) == [{"event": "removed", "zone": "pad", "card": "10H"}]


def test_an_unknown_tag_is_reported_with_its_uid(rig: tuple[SimulatedMat, MatDriver]) -> None:
    mat, driver = rig
    mat.place("s1.1", "#04:de:ad:be:ef:00:01")
    assert card_events(driver) == [
        {"event": "unknown_card", "zone": "s1.1", "uid": "04DEADBEEF0001", "face": "up"}
    ]


def test_unplug_and_replug_keep_the_cards_and_invent_no_events(
    rig: tuple[SimulatedMat, MatDriver],
) -> None:
    mat, driver = rig
    mat.place("s1.2", "AS")
    wait_for(driver, lambda e: isinstance(e, CardEvent))
    mat.unplug()
    down = wait_for(driver, lambda e: isinstance(e, LinkEvent))
    assert down.to_json()["reason"] == "device disconnected (unplugged?)"
    mat.place("s2.1", "KD")  # laid while the mat was unplugged
    time.sleep(0.3)
    mat.replug()
    up = wait_for(driver, lambda e: isinstance(e, LinkEvent))
    assert up.kind is EventKind.LINK_UP
    # Across the restart only the card laid meanwhile is news; AS stayed where it was.
    assert card_events(driver) == [{"event": "placed", "zone": "s2.1", "card": "KD", "face": "up"}]
    assert driver.stats.link_ups == 2


def test_line_noise_costs_resyncs_but_never_a_false_event(
    rig: tuple[SimulatedMat, MatDriver],
) -> None:
    mat, driver = rig
    mat.place("s1.1", "JK1")
    wait_for(driver, lambda e: isinstance(e, CardEvent))
    mat.set_noise(0.01)
    mat.place("s1.3", "2C", "down")
    time.sleep(2.5)  # the line is noisy this long: the stimulus, not a wait for an outcome
    mat.set_noise(0.0)
    events = until(driver, lambda seen: any(isinstance(e, CardEvent) for e in seen))
    cards = [e.to_json() for e in events if isinstance(e, CardEvent)]
    assert cards == [{"event": "placed", "zone": "s1.3", "card": "2C", "face": "down"}]
    assert any(isinstance(e, ResyncEvent) for e in events)
    assert driver.decoder.stats.damaged > 0
    assert mat.noise.corrupted > 0


def test_a_hung_reader_is_reported_and_recovers(rig: tuple[SimulatedMat, MatDriver]) -> None:
    mat, driver = rig
    mat.place("s2.2", "5S")
    wait_for(driver, lambda e: isinstance(e, CardEvent))
    mat.hang_reader("s2.2")
    events = until(driver, lambda seen: any(e.to_json()["event"] == "zone_ok" for e in seen))
    kinds = [e.to_json() for e in events if not isinstance(e, ResyncEvent)]
    assert {"event": "zone_fault", "zone": "s2.2"} in kinds
    assert {"event": "zone_ok", "zone": "s2.2"} in kinds
    assert not [k for k in kinds if k["event"] in ("removed", "placed")]


def test_commands_reach_the_mat(rig: tuple[SimulatedMat, MatDriver]) -> None:
    mat, driver = rig
    driver.set_leds([LedSetting(LAYOUT.index("s1.2"), 0, 255, 0, blink=True)])
    assert result_for(driver, MessageType.SET_LEDS).code is ResultCode.OK
    assert mat.leds.colours[1] == (0, 255, 0, 1)
    driver.configure({ScanSetting.ABSENT_MISSES: 99})
    refused = result_for(driver, MessageType.CONFIGURE, skip_ok=True)
    assert refused.code is ResultCode.BAD_VALUE
    assert "absent_misses must be 1-10" in refused.text
    nonce = driver.ping()
    assert driver.pongs.get(timeout=30).nonce == nonce


def test_sim_and_monitor_commands_talk_through_a_pty(tmp_path: Path) -> None:
    tabletop = [sys.executable, "-m", "tabletop"]
    with subprocess.Popen(
        [*tabletop, "mat", "sim", "--seats", "2", "--dir", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as sim:
        assert sim.stdin is not None and sim.stdout is not None
        path = sim.stdout.readline().strip()
        assert path == str(tmp_path / "ttyMAT0")
        with subprocess.Popen(
            [*tabletop, "mat", "monitor", path, "--json", "--count", "3", "--seconds", "120"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as monitor:
            assert monitor.stdout is not None
            # Each step waits for the monitor to show the last one: a flip made before the
            # mat reported the card would be one "placed face down" instead of two events.
            lines = [monitor.stdout.readline()]  # link_up: the monitor holds the port
            replies = []
            steps = (("place s2.4 QS", True), ("place s9.1 QS", False), ("flip s2.4", True))
            for line, shows in steps:
                sim.stdin.write(line + "\n")
                sim.stdin.flush()
                replies.append(sim.stdout.readline())
                if shows:
                    lines.append(monitor.stdout.readline())
            out, err = monitor.communicate(timeout=120)
            out = "".join(lines) + out
        assert replies[0].startswith("ok place s2.4 QS at=")
        assert replies[1].startswith("error: no zone 's9.1' on this mat")
        assert replies[2].startswith("ok flip s2.4 at=")
        assert monitor.returncode == 0, err
        events = [json.loads(line) for line in out.splitlines()]
        assert [e["event"] for e in events] == ["link_up", "placed", "flipped"]
        assert events[1] == {"event": "placed", "zone": "s2.4", "card": "QS", "face": "up"}
        sim.stdin.write("quit\n")
        sim.stdin.flush()
        assert sim.stdout.readline() == "ok quit\n"
        assert sim.wait(timeout=5) == 0


def test_monitor_refuses_a_missing_port_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tabletop", "mat", "monitor", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("tabletop mat: cannot open")
    assert "use --wait" in done.stderr and "Traceback" not in done.stderr


def test_a_sim_url_starts_a_simulated_mat_behind_the_driver() -> None:
    with MatDriver("sim:?seats=1&slots=2") as driver:
        assert wait_for(driver, lambda e: isinstance(e, LinkEvent)).kind is EventKind.LINK_UP
        assert driver.layout == MatLayout(1, 2, True)
        simulator = driver.simulator
        assert simulator is not None
        simulator.place("s1.2", "JK2", "down")
        assert card_events(driver) == [
            {"event": "placed", "zone": "s1.2", "card": "JK2", "face": "down"}
        ]
    assert driver.simulator is None and not Path(simulator.path).exists()


def test_open_mat_takes_the_url_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLETOP_MAT", "/dev/ttyACM7")
    assert open_mat().url == "/dev/ttyACM7"
    assert open_mat("socket://mat:9000").url == "socket://mat:9000"
    monkeypatch.delenv("TABLETOP_MAT")
    assert open_mat().url == "sim:"


def test_a_one_seat_mat_without_a_draw_pad_says_hello() -> None:
    """Its second SPI bus has no reader at all: the firmware's scanner of that bus has nothing
    to read, where it raised IndexError on its core and the mat never said HELLO."""
    with MatDriver("sim:?seats=1&slots=2&pad=0") as driver:
        assert wait_for(driver, lambda e: isinstance(e, LinkEvent)).kind is EventKind.LINK_UP
        assert driver.layout == MatLayout(1, 2, False)
        simulator = driver.simulator
        assert simulator is not None
        simulator.place("s1.1", "QS")
        assert card_events(driver) == [
            {"event": "placed", "zone": "s1.1", "card": "QS", "face": "up"}
        ]
