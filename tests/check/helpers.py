"""The pieces the `tabletop check` tests share: a simulated mat in its own process, a table
file, and `tabletop check` run as a person runs it (with a terminal, a pty, when asked)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

DEADLINE_S = 60.0  # a safety net only: every wait below ends when its condition holds
TABLETOP = [sys.executable, "-m", "tabletop"]


class Output:
    """Everything a stream said so far, read on a thread, searched by `wait_for`."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.text = ""
        self.closed = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:
                chunk = b""
            with self._changed:
                if not chunk:
                    self.closed = True
                    self._changed.notify_all()
                    return
                self.text += chunk.decode("utf-8", errors="replace")
                self._changed.notify_all()

    def wait_for(self, pattern: str, start: int = 0) -> re.Match[str]:
        """Waits until the text from `start` on matches `pattern`; fails with what was said."""
        deadline = time.monotonic() + DEADLINE_S
        with self._changed:
            while True:
                found = re.compile(pattern, re.M).search(self.text, start)
                if found is not None:
                    return found
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise AssertionError(f"never said {pattern!r}; said:\n{self.text}")
                self._changed.wait(left)

    def join(self) -> None:
        self._thread.join(DEADLINE_S)


class MatSim:
    """`tabletop mat sim` in its own process: the table's device path and its commands."""

    def __init__(self, folder: Path, *args: str) -> None:
        self.folder = folder
        self.args = args
        self.process: subprocess.Popen[str] | None = None
        self.path = ""

    def start(self) -> MatSim:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [*TABLETOP, "mat", "sim", "--dir", str(self.folder), *self.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        self.path = self.process.stdout.readline().strip()
        if not self.path:
            self.stop()
            raise AssertionError("the simulated mat printed no device path")
        return self

    def command(self, line: str) -> str:
        """Sends one command; returns its reply line (which must not be an error)."""
        assert self.process is not None and self.process.stdin and self.process.stdout
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline().strip()
        assert reply.startswith("ok"), f"{line!r}: {reply!r}"
        return reply

    def lit(self, *colours: str) -> str:
        """Waits until the guidance LEDs show each `zone=rrggbb`; returns the `leds` reply."""
        deadline = time.monotonic() + DEADLINE_S
        while True:
            reply = self.command("leds")
            if all(colour in reply for colour in colours):
                return reply
            assert time.monotonic() < deadline, f"never lit {colours}: {reply}"
            time.sleep(0.02)  # the firmware sets them between two scan steps

    def stop(self) -> None:
        if self.process is None:
            return
        try:
            self.command("quit")
        except (AssertionError, OSError, ValueError):
            self.process.kill()
        self.process.wait(DEADLINE_S)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.process = None


def table_file(
    folder: Path,
    *,
    port: str,
    game: str = "ossix",
    seats: Sequence[str] = ("Ana",),
    draw_pad: bool = False,
    camera: str = "sim:",
    broker: str = "",
    extra: str = "",
) -> Path:
    """Writes a table's file; `broker` is the [broker] section's body."""
    path = folder / "table.toml"
    seat_text = "".join(f'[[seats]]\nname = "{name}"\n\n' for name in seats)
    path.write_text(
        f'game = "{game}"\n\n[table]\nid = "checked"\n\n{seat_text}'
        f'[mat]\nport = "{port}"\ndraw_pad = {str(draw_pad).lower()}\n\n'
        f'[camera]\nsource = "{camera}"\n\n[leds]\nbackend = "sim"\n\n'
        f"[broker]\n{broker}\n{extra}",
        encoding="utf-8",
    )
    return path


def environment() -> dict[str, str]:
    """The check's environment: no broker, mat or LED override from the caller's."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("TABLETOP_BROKER", "TABLETOP_MAT", "TABLETOP_LEDS", "TABLETOP_CARDS")
    }
    env["PYTHONUNBUFFERED"] = "1"
    return env


def run_check(*args: str, **swapped: str) -> subprocess.CompletedProcess[str]:
    """`tabletop check ARGS` with standard input that is not a terminal; `swapped` are
    environment variables to set (TABLETOP_MAT="sim:")."""
    return subprocess.run(
        [*TABLETOP, "check", *args],
        check=False,  # the exit status is what the tests look at
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=DEADLINE_S * 2,
        env={**environment(), **swapped},
    )


class Terminal:
    """`tabletop check` with a pty as its terminal (standard input), as a person runs it:
    `err` is what it says to the person (questions), `out` the checklist."""

    def __init__(self, *args: str) -> None:
        self.master, slave = os.openpty()
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        self.process = subprocess.Popen(
            [*TABLETOP, "check", *args],
            stdin=slave,
            stdout=out_write,
            stderr=err_write,
            env=environment(),
        )
        for fd in (slave, out_write, err_write):
            os.close(fd)
        self.out = Output(out_read)
        self.err = Output(err_read)

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def finish(self) -> int:
        """Waits for the check to end; returns its exit status."""
        status = self.process.wait(DEADLINE_S * 2)
        self.out.join()
        self.err.join()
        for fd in (self.master, self.out.fd, self.err.fd):
            os.close(fd)
        return status

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.finish()
