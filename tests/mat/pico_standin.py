"""A Pico on a pty for `tabletop mat flash`'s tests: the real MicroPython REPL, then the mat.

Before a reset the port is MicroPython 1.27 itself (the npm WebAssembly build in Node.js,
tests/mat/micropython/board.mjs) behind a real pty, so mpremote's library talks its raw REPL
byte for byte and the files land in (and are hashed by) MicroPython. `machine.reset()` drops the
port as USB does and boots what was flashed: with the firmware's main.py, the mat's firmware
runs, here as the simulated mat (the same firmware modules on simulated readers; the WebAssembly
build has no SPI) at the same path; without it, the REPL again, with its files kept.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import selectors
import shutil
import subprocess
import threading
import time
import tty
from pathlib import Path

from tabletop.hardware.mat.sim import SimulatedMat

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "tests" / "mat" / "micropython" / "board.mjs"
RESET_EXIT = 3
FIRMWARE_MAIN = b"from firmware.main import run"


class PicoStandIn:
    """A Pico at `<folder>/ttyMAT0`: MicroPython's REPL until reset, then what it flashed."""

    def __init__(self, folder: Path, corrupt_writes: int = 0) -> None:
        self.folder = folder
        self.state_file = folder / "flash.json"
        self.path = str(folder / "ttyMAT0")
        # The first `corrupt_writes` file writes get one byte changed on the line.
        self.corrupt_writes = corrupt_writes
        self.resets = 0
        self.mat: SimulatedMat | None = None
        self._node: subprocess.Popen[bytes] | None = None
        self._fds: tuple[int, int] | None = None
        self._pump: threading.Thread | None = None
        self._stop = threading.Event()
        self._booted = threading.Event()
        self._resetter: threading.Thread | None = None

    # ---- power ------------------------------------------------------------------------

    def start(self) -> str:
        self._boot_repl()
        return self.path

    def stop(self) -> None:
        self._stop.set()
        if self._resetter is not None:
            self._resetter.join(timeout=30)
        if self._pump is not None and self._pump is not threading.current_thread():
            self._pump.join(timeout=10)
        self._unplug_repl()
        if self.mat is not None:
            self.mat.stop()
            self.mat = None

    def files(self) -> dict[str, bytes]:
        """What the flash holds (after a reset), {path: bytes}, folders left out."""
        saved = json.loads(self.state_file.read_text()) if self.state_file.exists() else {}
        return {
            path.lstrip("/"): base64.b64decode(data)
            for path, data in saved.items()
            if not path.endswith("/")
        }

    def wait_booted(self, timeout: float = 30.0) -> bool:
        return self._booted.wait(timeout)

    def _boot_repl(self) -> None:
        node = shutil.which("node")
        assert node is not None, "node is not on PATH; scripts/test.sh needs Node.js 20 or newer"
        master, slave = os.openpty()
        tty.setraw(slave)
        self._fds = (master, slave)
        self._node = subprocess.Popen(
            [node, str(BOARD), str(self.state_file)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=BOARD.parent,
        )
        assert self._node.stderr is not None
        ready = self._node.stderr.readline()
        assert ready.strip() == b"board ready", ready + self._node.stderr.read()
        link = Path(self.path)
        link.unlink(missing_ok=True)
        link.symlink_to(os.ttyname(slave))
        self._stop.clear()
        self._pump = threading.Thread(target=self._run, daemon=True, name="pico stand-in")
        self._pump.start()

    def _unplug_repl(self) -> None:
        Path(self.path).unlink(missing_ok=True)
        if self._node is not None:
            if self._node.poll() is None:
                self._node.kill()
            self._node.wait(timeout=10)
            for stream in (self._node.stdin, self._node.stdout, self._node.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            self._node = None
        if self._fds is not None:
            for fd in self._fds:
                os.close(fd)
            self._fds = None

    def _reset(self) -> None:
        """machine.reset(): off USB, then boot main.py (the firmware) or the REPL again."""
        self.resets += 1
        self._unplug_repl()
        main = self.files().get("main.py", b"")
        if FIRMWARE_MAIN in main:
            self.mat = SimulatedMat(link_dir=str(self.folder), miss_rate=0.0)
            self.mat.start()
        else:
            self._boot_repl()
        self._booted.set()

    # ---- the line -----------------------------------------------------------------------

    def _corrupt(self, data: bytes) -> bytes:
        # A file's bytes travel as `w(b'...')` commands: change one letter inside the literal.
        at = data.find(b"w(b'")
        if self.corrupt_writes <= 0 or at < 0 or len(data) < at + 8:
            return data
        self.corrupt_writes -= 1
        out = bytearray(data)
        index = at + 6
        out[index] = ord("Q") if out[index] != ord("Q") else ord("R")
        return bytes(out)

    def _run(self) -> None:
        assert self._node is not None and self._fds is not None
        node, master = self._node, self._fds[0]
        assert node.stdin is not None and node.stdout is not None
        board_out = node.stdout.fileno()
        pending = b""
        with selectors.DefaultSelector() as selector:
            selector.register(master, selectors.EVENT_READ)
            selector.register(board_out, selectors.EVENT_READ)
            while not self._stop.is_set():
                for key, _ in selector.select(timeout=0.1):
                    if key.fd == master:
                        try:
                            data = os.read(master, 4096)
                        except OSError:
                            data = b""
                        pending += data
                        # Whole commands (ended by Ctrl-D) go on at once, for _corrupt.
                        if b"\x04" in pending or b"w(b'" not in pending:
                            with contextlib.suppress(OSError):
                                node.stdin.write(self._corrupt(pending))
                                node.stdin.flush()
                            pending = b""
                    else:
                        data = os.read(board_out, 4096)
                        if not data:  # the board exited: a reset, or it died
                            code = node.wait(timeout=10)
                            if code == RESET_EXIT and not self._stop.is_set():
                                self._resetter = threading.Thread(target=self._reset, daemon=True)
                                self._resetter.start()
                            return
                        with contextlib.suppress(OSError):
                            os.write(master, data)


def wait_for(condition: object, timeout: float = 30.0) -> None:
    """Waits for `condition()` with a deadline that is only a safety net."""
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)
