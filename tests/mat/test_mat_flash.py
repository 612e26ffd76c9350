"""`tabletop mat flash` against the real MicroPython REPL behind a pty (tests/mat/pico_standin.py).

mpremote's library talks MicroPython 1.27's raw REPL (the npm WebAssembly build) byte for byte;
the files land in MicroPython's file system and are hashed there; after the reset the firmware's
HELLO comes from the simulated mat at the same path.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pico_standin import PicoStandIn

from tabletop.hardware.mat.flash import (
    MAIN_PY,
    FirmwareFile,
    FlashError,
    MatFlasher,
    firmware_files,
)
from tabletop.hardware.mat.sim import SimulatedMat
from tabletop.hardware.mat.zones import MatLayout

ROOT = Path(__file__).resolve().parents[2]


def few_files() -> list[FirmwareFile]:
    """Three of the firmware's files and main.py: the whole flash path, in a few seconds."""
    keep = {
        "firmware/__init__.py",
        "firmware/ticks.py",
        "firmware/zones.py",
        "main.py",
    }
    return [f for f in firmware_files() if f.device_path in keep]


@pytest.fixture
def pico(tmp_path: Path) -> Iterator[PicoStandIn]:
    board = PicoStandIn(tmp_path)
    board.start()
    yield board
    board.stop()


def test_flash_copies_checks_resets_and_hears_hello(pico: PicoStandIn) -> None:
    said: list[str] = []
    files = few_files()
    result = MatFlasher(pico.path, files=files, report=said.append).run()
    assert result.hello.seats == 6 and result.hello.firmware.startswith("tabletop-mat")
    assert result.micropython == "1.27.0"
    assert pico.resets == 1
    # What MicroPython's file system held at the reset, byte for byte.
    assert pico.files() == {f.device_path: f.data for f in files}
    assert pico.files()["main.py"] == MAIN_PY
    assert said[0] == "MicroPython 1.27.0 on JS with Emscripten"
    progress = [line for line in said if line.startswith("[")]
    assert len(progress) == len(files)
    assert progress[-1].startswith(f"[4/4] main.py: {len(MAIN_PY)} bytes, sha256 ")
    assert progress[-1].endswith(f"({result.size:,} of {result.size:,} bytes)")


@pytest.mark.slow
def test_flash_puts_the_whole_firmware_on_the_board(pico: PicoStandIn) -> None:
    result = MatFlasher(pico.path, report=lambda line: None).run()
    flashed = pico.files()
    here = {
        f"firmware/{p.name}": p.read_bytes()
        for p in (ROOT / "src" / "tabletop" / "firmware").glob("*.py")
    }
    del here["firmware/simhw.py"]  # the simulator's readers stay on the host
    assert {k: v for k, v in flashed.items() if k != "main.py"} == here
    assert result.size == sum(len(v) for v in flashed.values())


def test_a_byte_damaged_on_the_line_is_caught_by_the_hash_and_written_again(
    tmp_path: Path,
) -> None:
    board = PicoStandIn(tmp_path, corrupt_writes=1)
    board.start()
    said: list[str] = []
    try:
        MatFlasher(board.path, files=few_files(), report=said.append).run()
    finally:
        board.stop()
    retries = [line for line in said if "(try 1 of 2)" in line]
    assert len(retries) == 1 and retries[0].startswith(
        "firmware/__init__.py: the copy on the"
    )
    assert board.files() == {f.device_path: f.data for f in few_files()}


def test_a_file_that_keeps_arriving_damaged_stops_the_flash_before_main_py(
    tmp_path: Path,
) -> None:
    board = PicoStandIn(tmp_path, corrupt_writes=1000)
    board.start()
    try:
        with pytest.raises(
            FlashError, match=r"firmware/__init__.py: .* after 2 tries: try "
        ):
            MatFlasher(board.path, files=few_files(), report=lambda line: None).run()
        assert board.resets == 0  # never reset into half a firmware
    finally:
        board.stop()


def test_stale_modules_go_and_an_old_main_py_is_replaced(tmp_path: Path) -> None:
    old = {"/firmware/": "", "/firmware/gone.py": "x = 1\n", "/main.py": "print('old')\n"}
    (tmp_path / "flash.json").write_text(
        json.dumps({k: base64.b64encode(v.encode()).decode() for k, v in old.items()})
    )
    board = PicoStandIn(tmp_path)
    board.start()
    said: list[str] = []
    try:
        result = MatFlasher(board.path, files=few_files(), report=said.append).run()
    finally:
        board.stop()
    assert result.removed == ("firmware/gone.py",)
    assert "removed firmware/gone.py (not in this firmware)" in said
    assert "firmware/gone.py" not in board.files()
    assert board.files()["main.py"] == MAIN_PY


def test_a_board_that_does_not_start_the_firmware_is_named(pico: PicoStandIn) -> None:
    files = [f for f in few_files() if f.device_path != "main.py"]
    files.append(FirmwareFile("main.py", b"print('not the mat')\n"))
    flasher = MatFlasher(pico.path, files=files, report=lambda line: None, hello_timeout_s=3)
    with pytest.raises(FlashError, match="did not say HELLO within 3 s of the reset"):
        flasher.run()
    assert pico.wait_booted() and pico.mat is None  # back at the REPL, as a Pico would be


def test_a_mat_running_its_firmware_is_told_to_fit_the_maintenance_jumper(
    tmp_path: Path,
) -> None:
    mat = SimulatedMat(MatLayout(1, 2, True), link_dir=str(tmp_path), miss_rate=0.0)
    path = mat.start()
    try:
        with pytest.raises(FlashError) as caught:
            MatFlasher(path, report=lambda line: None, repl_timeout_s=1).run()
    finally:
        mat.stop()
    message = str(caught.value)
    assert "is a mat running its firmware (tabletop-mat" in message
    assert "fit the maintenance jumper (GP1 to GND)" in message


def test_a_port_that_is_not_there_is_one_line_with_what_to_do(tmp_path: Path) -> None:
    missing = str(tmp_path / "ttyACM9")
    with pytest.raises(FlashError, match=r"no serial port .*ttyACM9: is the Pico plugged in"):
        MatFlasher(missing, report=lambda line: None).run()


def _tabletop(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TABLETOP_MAT"}
    return subprocess.run(
        [sys.executable, "-m", "tabletop", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
        check=False,
    )


def test_the_command_flashes_the_port_it_is_given(pico: PicoStandIn, tmp_path: Path) -> None:
    source = tmp_path / "my-firmware"
    source.mkdir()
    (source / "ticks.py").write_bytes(
        (ROOT / "src" / "tabletop" / "firmware" / "ticks.py").read_bytes()
    )
    done = _tabletop("mat", "flash", "--port", pico.path, "--source", str(source))
    assert done.returncode == 0, done.stderr
    assert "[2/2] main.py" in done.stdout
    assert "HELLO from tabletop-mat" in done.stdout and "6 seats x 6 slots" in done.stdout
    assert set(pico.files()) == {"firmware/ticks.py", "main.py"}


def test_the_command_says_what_is_wrong_without_a_traceback(tmp_path: Path) -> None:
    done = _tabletop("mat", "flash", "--port", str(tmp_path / "ttyACM9"))
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "no serial port" in lines[0], done.stderr


class _UsbPort:
    """What pyserial's list_ports gives for one USB serial port (the fields flash reads)."""

    def __init__(self, device: str, vid: int | None) -> None:
        self.device = device
        self.vid = vid


def test_without_a_port_flash_takes_the_one_pico_on_usb(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.hardware.mat import flash

    ports = [_UsbPort("/dev/ttyUSB0", 0x10C4), _UsbPort("/dev/ttyACM1", 0x2E8A)]
    monkeypatch.setattr(flash.list_ports, "comports", lambda: ports)
    assert flash.find_pico() == "/dev/ttyACM1"
    ports.append(_UsbPort("/dev/ttyACM0", 0x2E8A))
    with pytest.raises(FlashError, match=r"several Picos on USB \(/dev/ttyACM0, /dev/ttyACM1\)"):
        flash.find_pico()
    ports[1:] = []
    with pytest.raises(FlashError, match="no Pico found on USB .* hold BOOTSEL"):
        flash.find_pico()
