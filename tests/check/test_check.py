"""`tabletop check` on the simulated table, green and with faults injected (issue 46, item 3).

The check runs as a person runs it: its own process, reading the table's file; the simulated
mat in another process (`tabletop mat sim`, a pty), whose commands the test types as the
person's hands; a pty as the check's terminal when it asks something. Faults: a dead reader
(the simulated mat hangs it while the check watches), a stuck pad (a finger that stays), no
camera, a wrong password, no broker.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tabletop.wire.broker import EmbeddedBroker

from .conftest import PASSWORDS, broker_section
from .helpers import TABLETOP, MatSim, Terminal, run_check, table_file


def checks(output: str) -> dict[str, dict[str, Any]]:
    """The JSON checklist's checks by `part check`."""
    report = json.loads(output)
    return {f"{c['part']} {c['check']}": c for c in report["checks"]}


def test_the_simulated_table_is_green(tmp_path: Path, broker: EmbeddedBroker) -> None:
    # Six Shooter on the in-process simulated mat, whose hands the check lends the person.
    config = table_file(
        tmp_path,
        port="sim:",
        game="sixshooter",
        seats=("Ana", "Bo"),
        draw_pad=True,
        broker=broker_section(broker, tmp_path, PASSWORDS["bridge"]),
    )
    done = run_check(
        "--config", str(config), "--json", "--part", "broker", "--part", "cards",
        "--part", "mat", "--part", "leds", "--zone", "s2.6", "--zone", "pad",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    found = checks(done.stdout)
    assert json.loads(done.stdout)["ok"] is True
    assert {c["status"] for c in found.values()} == {"pass"}
    for name in ("broker login as rules", "broker login as bridge", "broker login as console"):
        assert name in found
    assert "user 'bridge'" in found["broker login as bridge"]["detail"]
    assert found["cards every card known"]["detail"].startswith("the 54 playing cards")
    assert "6x6 + pad" in found["mat hello"]["detail"]
    # The walk read the card both ways up and felt the pad, on each zone asked for only.
    assert "face down level" in found["mat s2.6"]["detail"]
    assert "pad touched and let go" in found["mat pad"]["detail"]
    assert "mat s1.1" not in found
    assert "read back from the simulated mat" in found["mat guidance LEDs"]["detail"]
    assert "leds seat 2 (Bo)" in found


def test_a_dead_reader_is_named_with_its_fix(tmp_path: Path, mat_sim: MatSim) -> None:
    config = table_file(tmp_path, port=mat_sim.path)
    terminal = Terminal("--config", str(config), "--part", "mat", "--yes")
    try:
        terminal.err.wait_for("watching the mat's readers")
        mat_sim.command("hang s1.2")  # it stops answering on SPI while the check watches
        status = terminal.finish()
    finally:
        terminal.kill()
    out = terminal.out.text
    assert status == 1, out
    readers = terminal.out.wait_for(r"^FAIL  mat     readers: (.*)\n\s+fix: (.*)$")
    assert readers.group(1).startswith("s1.2: reader not answering")
    assert "s1.2's reader" in readers.group(2) and "SPI" in readers.group(2)
    # --yes: the steps needing hands are skipped, and the checklist says why.
    assert "SKIP  mat     zones:" in out and "(--yes was given)" in out
    assert "fail" in out.splitlines()[-1]


def test_a_stuck_pad_is_named(tmp_path: Path, mat_sim: MatSim) -> None:
    config = table_file(tmp_path, port=mat_sim.path)
    terminal = Terminal("--config", str(config), "--part", "mat", "--json", "--yes")
    try:
        terminal.err.wait_for("watching the mat's readers")
        mat_sim.command("touch s1.1")  # and never let go
        status = terminal.finish()
    finally:
        terminal.kill()
    assert status == 1
    found = checks(terminal.out.text)
    assert found["mat pads at rest"]["status"] == "fail"
    assert found["mat pads at rest"]["detail"].startswith("s1.1: touched while nobody")
    assert "stuck pad" in found["mat pads at rest"]["fix"]
    assert found["mat readers"]["status"] == "pass"


def test_a_person_walks_the_mat(tmp_path: Path, mat_sim: MatSim) -> None:
    # The test is the person: it reads what the check asks and does it on the simulated mat.
    config = table_file(tmp_path, port=mat_sim.path)
    terminal = Terminal("--config", str(config), "--part", "mat", "--json")
    try:
        for zone in ("s1.1", "s1.2"):
            at = terminal.err.wait_for(rf"{zone}: lay a card on it face DOWN").end()
            mat_sim.lit(f"{zone}=ffffff")  # the zone asked for is lit white
            mat_sim.command(f"place {zone} QS down")
            at = terminal.err.wait_for(rf"{zone}: turn the card face UP", at).end()
            mat_sim.command(f"flip {zone}")
            at = terminal.err.wait_for(rf"{zone}: touch its pad and keep", at).end()
            mat_sim.command(f"touch {zone}")
            at = terminal.err.wait_for(rf"{zone}: felt it; now let go", at).end()
            mat_sim.command(f"release {zone}")
            at = terminal.err.wait_for(rf"{zone}: lift the card", at).end()
            mat_sim.command(f"remove {zone}")
        terminal.err.wait_for(r"Is every slot lit, seat 1 red, the pad white\? \[y/n\]")
        mat_sim.lit("s1.1=ff0000", "s1.2=ff0000", "pad=ffffff")
        terminal.type("y")
        status = terminal.finish()
    finally:
        terminal.kill()
    found = checks(terminal.out.text)
    assert status == 0, terminal.out.text
    assert found["mat s1.1"]["status"] == "pass"
    assert "face down level" in found["mat s1.2"]["detail"]
    assert "pad touched and let go" in found["mat s1.2"]["detail"]
    assert found["mat guidance LEDs"]["detail"].endswith("as confirmed")


@pytest.mark.slow  # 9 s here: two steps wait out their 2 s
def test_a_pad_that_stays_touched_and_dark_leds_fail(tmp_path: Path, mat_sim: MatSim) -> None:
    config = table_file(tmp_path, port=mat_sim.path)
    terminal = Terminal(
        "--config", str(config), "--part", "mat", "--json", "--zone", "s1.2",
        "--step-seconds", "2",
    )  # fmt: skip
    try:
        at = terminal.err.wait_for(r"s1.2: lay a card on it face DOWN").end()
        mat_sim.command("place s1.2 QS down")
        at = terminal.err.wait_for(r"s1.2: turn the card face UP", at).end()
        mat_sim.command("flip s1.2")
        terminal.err.wait_for(r"s1.2: touch its pad", at)
        mat_sim.command("touch s1.2")  # the finger never leaves: a stuck pad
        terminal.err.wait_for(r"Is every slot lit.*\[y/n\]")
        terminal.type("n")
        status = terminal.finish()
    finally:
        terminal.kill()
    assert status == 1
    found = checks(terminal.out.text)
    assert "never let go" in found["mat s1.2"]["detail"]
    assert "stuck" in found["mat s1.2"]["fix"]
    assert found["mat guidance LEDs"]["status"] == "fail"
    assert "Guidance LEDs" in found["mat guidance LEDs"]["fix"]


def test_no_camera(tmp_path: Path) -> None:
    config = table_file(tmp_path, port="sim:", camera="usb:/dev/video99")
    done = run_check("--config", str(config), "--part", "camera", "--json")
    assert done.returncode == 1
    opened = checks(done.stdout)["camera open"]
    assert opened["status"] == "fail"
    assert "/dev/video99" in opened["detail"]
    assert "ls /dev/video*" in opened["fix"]
    assert "Traceback" not in done.stderr


def test_a_wrong_password(tmp_path: Path, broker: EmbeddedBroker) -> None:
    section = broker_section(broker, tmp_path, "not-the-password")
    config = table_file(tmp_path, port="sim:", broker=section)
    done = run_check("--config", str(config), "--part", "broker")
    assert done.returncode == 1
    assert "PASS  broker  login as rules: user 'rules' logged in" in done.stdout
    line = next(x for x in done.stdout.splitlines() if "login as bridge" in x)
    assert line.startswith("FAIL") and "refused" in line
    assert "fix: the password for 'bridge' (broker.bridge)" in done.stdout
    assert "tabletop broker passwd bridge" in done.stdout


def test_no_broker(tmp_path: Path, broker: EmbeddedBroker) -> None:
    config = table_file(tmp_path, port="sim:", broker='url = "mqtt://127.0.0.1:9"\n')
    done = run_check("--config", str(config), "--part", "broker", "--json")
    assert done.returncode == 1
    reachable = checks(done.stdout)["broker reachable"]
    assert reachable["detail"].startswith("nothing answers at 127.0.0.1:9")
    assert "tabletop rules --config" in reachable["fix"]


def test_steps_skipped_without_a_terminal_exit_3(tmp_path: Path, mat_sim: MatSim) -> None:
    config = table_file(tmp_path, port=mat_sim.path)
    done = run_check("--config", str(config), "--part", "mat", "--part", "leds")
    assert done.returncode == 3, done.stdout
    assert "(standard input is not a terminal)" in done.stdout
    assert "FAIL" not in done.stdout
    summary = done.stdout.splitlines()[-1]
    assert " 0 failed, " in summary and "need a person at the table" in summary


def test_a_bad_table_file_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "x"\n[mat]\nport = 3\n', encoding="utf-8")
    done = run_check("--config", str(config))
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0
    assert "seats: missing" in done.stderr or "mat.port" in done.stderr


def test_the_simulated_camera_reads_a_throw(tmp_path: Path) -> None:
    source = "sim:?width=320&height=240"
    subprocess.run(
        [*TABLETOP, "dice", "calibrate", "--source", source, "--out", str(tmp_path / "tray.json")],
        check=True,
        capture_output=True,
        timeout=120,
    )
    extra = f'[camera]\nsource = "{source}"\ncalibration = "{tmp_path / "tray.json"}"\n'
    config = tmp_path / "table.toml"
    config.write_text(
        f'game = "ossix"\n[table]\nid = "checked"\n[[seats]]\nname = "Ana"\n{extra}',
        encoding="utf-8",
    )
    done = run_check("--config", str(config), "--part", "camera", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    found = checks(done.stdout)
    assert found["camera frame"]["detail"].startswith("320x240")
    assert found["camera calibration"]["status"] == "pass"
    assert found["camera empty tray"]["detail"].endswith("empty")
    assert found["camera throw"]["detail"].endswith("as the simulated camera drew it")


def test_a_dark_blurred_camera_fails_with_its_fixes(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    shots = tmp_path / "shots"
    shots.mkdir()
    for index in range(3):  # a lens cap: black frames, nothing in focus, no tray
        cv2.imwrite(str(shots / f"{index}.png"), np.full((240, 320, 3), 3, np.uint8))
    config = table_file(tmp_path, port="sim:", camera=f"folder:{shots}")
    done = run_check("--config", str(config), "--part", "camera", "--json")
    assert done.returncode == 1
    found = checks(done.stdout)
    assert found["camera frame"]["status"] == "pass"
    assert "too dark" in found["camera exposure"]["detail"]
    assert "lens cap" in found["camera exposure"]["fix"]
    assert found["camera focus"]["status"] == "fail"
    assert "tabletop dice calibrate" in found["camera calibration"]["fix"]
    assert found["camera empty tray"]["detail"].startswith("no tray floor found")
    # A real camera's throw needs a person; without a terminal it is skipped, and says why.
    assert found["camera throw"]["status"] == "skip"
    assert "standard input is not a terminal" in found["camera throw"]["detail"]


def test_the_environment_swaps_the_devices_as_for_the_bridge(tmp_path: Path) -> None:
    # The Pi's file on a laptop: the mat and camera it names are not here; the environment
    # swaps them for simulated ones, as `tabletop bridge` takes them, and the check says so.
    config = table_file(tmp_path, port="/dev/tabletop-mat", camera="picamera")
    done = run_check(
        *("--config", str(config), "--json", "--yes", "--part", "mat", "--zone", "pad"),
        TABLETOP_MAT="sim:?seats=1&slots=2",
    )
    found = checks(done.stdout)
    assert found["mat hello"]["detail"].endswith("($TABLETOP_MAT, instead of mat.port)")
    assert found["mat pad"]["status"] == "pass"
    assert done.returncode == 0, done.stdout
    done = run_check("--config", str(config), "--json", "--part", "camera", TABLETOP_CAMERA="x")
    assert "source x" in checks(done.stdout)["camera open"]["detail"]


def test_enter_skips_a_step_and_the_check_says_so(tmp_path: Path, mat_sim: MatSim) -> None:
    config = table_file(tmp_path, port=mat_sim.path)
    terminal = Terminal("--config", str(config), "--part", "mat", "--json", "--zone", "s1.1")
    try:
        terminal.err.wait_for(r"s1.1: lay a card on it face DOWN")
        terminal.type("")  # nothing at hand: Enter skips it
        terminal.err.wait_for(r"Is every slot lit.*\[y/n\]")
        terminal.type("maybe")  # not an answer: asked again
        terminal.err.wait_for(r"please answer y or n")
        terminal.type("y")
        status = terminal.finish()
    finally:
        terminal.kill()
    found = checks(terminal.out.text)
    assert found["mat s1.1"]["status"] == "skip"
    assert found["mat guidance LEDs"]["status"] == "pass"
    assert status == 3


def test_gpio_leds_that_cannot_open_fail_in_one_line(tmp_path: Path) -> None:
    # The laptop's file with the Pi's LEDs asked for: RPi.GPIO is not here (nor the pins).
    config = table_file(tmp_path, port="sim:")
    done = run_check("--config", str(config), "--part", "leds", "--json", TABLETOP_LEDS="gpio")
    assert done.returncode == 1
    opened = checks(done.stdout)["leds open"]
    assert opened["status"] == "fail"
    assert "pins" in opened["detail"] or "RPi.GPIO" in opened["detail"]
    assert "python3-rpi-lgpio" in opened["fix"]
    assert "Traceback" not in done.stderr
