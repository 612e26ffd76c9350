"""`tabletop mat flash`: puts the mat's firmware on a Pico that runs MicroPython, and checks it.

Talks to the Pico's REPL through mpremote's library (its serial transport and file commands):
enters the raw REPL with a soft reset, copies `src/tabletop/firmware/*.py` to
`:firmware/`, checks every file by SHA-256 computed on the Pico, writes `main.py`
(which starts the firmware) last, resets the board and waits for the firmware's HELLO on the same
port. main.py is removed first and written only after every other file checked, so a flash cut short
never starts half a firmware.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import serial
from serial.tools import list_ports

from tabletop import firmware

from .errors import LinkError, MatError
from .framing import FrameDecoder, encode_frame
from .protocol import Hello, MessageType, decode_message, hello_request
from .transport import open_port

FIRMWARE_DIR = Path(firmware.__file__).resolve().parent
# What the Pico runs at power-up; the REPL comes back with the maintenance jumper fitted.
MAIN_PY = b"from firmware.main import run\n\nrun()\n"
DEVICE_DIR = "firmware"
LEFT_BEHIND = {"simhw.py"}
# Raspberry Pi's USB vendor id: a Pico running MicroPython shows as 2e8a:0005.
PICO_VID = 0x2E8A
TESTED_MICROPYTHON = (1, 27)
CHUNK = 256  # bytes per write on the REPL: mpremote's own size, safe in the plain raw REPL
WRITE_TRIES = 2
MAINTENANCE_HINT = (
    "fit the maintenance jumper (GP1 to GND), unplug the mat and plug it in again, then flash"
)
NEW_PICO_HINT = (
    "a new Pico needs MicroPython first: hold BOOTSEL, plug it in, copy the Pico's .uf2 from "
    "micropython.org onto the RPI-RP2 drive (docs/mat.md, Firmware)"
)


class FlashError(MatError):
    """Flashing stopped: the port, the REPL, a file's check or the firmware's start failed."""


@dataclass(frozen=True, slots=True)
class FirmwareFile:
    """One file to put on the Pico: its path there and its bytes."""

    device_path: str
    data: bytes

    @property
    def sha256(self) -> bytes:
        return hashlib.sha256(self.data).digest()


@dataclass(frozen=True, slots=True)
class FlashResult:
    """What was flashed and what answered after the reset."""

    port: str
    micropython: str
    files: tuple[FirmwareFile, ...]
    removed: tuple[str, ...]
    hello: Hello

    @property
    def size(self) -> int:
        return sum(len(f.data) for f in self.files)


def firmware_files(source: Path = FIRMWARE_DIR) -> list[FirmwareFile]:
    """The firmware package's modules and, last, the main.py that starts it. The simulated
    hardware (simhw.py, for the simulator and the tests) stays behind: nothing on the mat
    imports it."""
    modules = sorted(p for p in source.glob("*.py") if p.name not in LEFT_BEHIND)
    if not modules:
        raise FlashError(f"no firmware modules in {source}")
    files = [FirmwareFile(f"{DEVICE_DIR}/{path.name}", path.read_bytes()) for path in modules]
    files.append(FirmwareFile("main.py", MAIN_PY))
    return files


def find_pico() -> str:
    """The one Pico on USB (vendor 2e8a); FlashError naming what to do when there are none or
    several."""
    found = sorted(p.device for p in list_ports.comports() if p.vid == PICO_VID)
    if not found:
        raise FlashError(
            "no Pico found on USB (vendor 2e8a): plug the mat in, or name the port with "
            f"--port /dev/ttyACM0; {NEW_PICO_HINT}"
        )
    if len(found) > 1:
        raise FlashError(f"several Picos on USB ({', '.join(found)}): choose one with --port")
    return found[0]


T = TypeVar("T")


def _quiet(call: Callable[[], T]) -> T:
    """Runs a transport call that prints what the board sent when it gives up (mpremote's
    habit); the FlashError raised after it says what to do instead."""
    with contextlib.redirect_stdout(io.StringIO()):
        return call()


class MatFlasher:
    """Puts the firmware on the Pico at `port`: see the module's docstring for the steps."""

    def __init__(
        self,
        port: str,
        *,
        files: list[FirmwareFile] | None = None,
        report: Callable[[str], None] = print,
        repl_timeout_s: float = 5.0,
        hello_timeout_s: float = 20.0,
    ) -> None:
        self.port = port
        self.files = files
        self.report = report
        self.repl_timeout_s = repl_timeout_s
        self.hello_timeout_s = hello_timeout_s

    def run(self) -> FlashResult:
        """Flashes, checks, resets and waits for HELLO; raises FlashError with what to do."""
        from mpremote.transport import TransportError  # type: ignore[import-untyped]
        from mpremote.transport_serial import SerialTransport  # type: ignore[import-untyped]

        files = self.files if self.files is not None else firmware_files()
        self._check_port()
        try:
            transport = SerialTransport(self.port, exclusive=True)
        except TransportError as error:
            raise FlashError(f"{self.port}: {error}") from None
        # The plain raw REPL, which every MicroPython has, rather than the faster raw-paste
        # mode: the firmware is about 100 kB, a few seconds either way.
        transport.use_raw_paste = False
        try:
            try:
                _quiet(
                    lambda: transport.enter_raw_repl(
                        soft_reset=True, timeout_overall=self.repl_timeout_s
                    )
                )
            except TransportError:
                transport.close()
                raise FlashError(self._why_no_repl()) from None
            try:
                version = self._micropython(transport)
                removed = self._copy(transport, files)
            except TransportError as error:
                raise FlashError(f"{self.port}: the Pico stopped answering: {error}") from None
            self.report("resetting the Pico")
            try:
                # machine.reset() never answers: the board drops off USB and boots main.py.
                transport.exec_raw_no_follow("import machine\nmachine.reset()")
            except TransportError as error:
                raise FlashError(f"{self.port}: the reset was refused: {error}") from None
            except (serial.SerialException, OSError):
                # The board dropped off USB before its "OK" to the command came back: that is
                # the reset asked for (whether the OK arrives first is a race; under load the
                # port went first and a good flash was reported as failed). The HELLO below
                # tells whether the firmware started.
                pass
        finally:
            with contextlib.suppress(OSError, serial.SerialException):
                transport.close()
        hello = self._wait_for_hello()
        return FlashResult(self.port, version, tuple(files), tuple(removed), hello)

    # ---- steps ---------------------------------------------------------------------------

    def _check_port(self) -> None:
        if "://" not in self.port and not os.path.exists(self.port):
            raise FlashError(
                f"no serial port {self.port}: is the Pico plugged in (ls /dev/serial/by-id/)? "
                f"Without --port, flash looks for it on USB; {NEW_PICO_HINT}"
            )
        try:
            open_port(self.port).close()  # names a port another program holds
        except LinkError as error:
            raise FlashError(str(error)) from None

    def _why_no_repl(self) -> str:
        """Why the raw REPL did not answer: the mat's firmware answering instead, or nothing."""
        hello = self._probe_hello(deadline=time.monotonic() + 2.0, reopen=False)[0]
        if hello is not None:
            return (
                f"{self.port} is a mat running its firmware ({hello.firmware}), which turns the "
                f"REPL off: {MAINTENANCE_HINT}"
            )
        return (
            f"{self.port} does not answer as a MicroPython REPL (no raw REPL prompt in "
            f"{self.repl_timeout_s:g} s): is it the Pico? If the mat's firmware runs on it, "
            f"{MAINTENANCE_HINT}; {NEW_PICO_HINT}"
        )

    def _micropython(self, transport: Any) -> str:
        text: bytes = transport.exec(
            "import sys\nv=sys.implementation\n"
            "print('%d.%d.%d' % v.version[:3], getattr(v, '_machine', sys.platform))"
        )
        version, _, machine = text.decode().strip().partition(" ")
        self.report(f"MicroPython {version} on {machine}")
        major_minor = tuple(int(n) for n in version.split(".")[:2])
        if major_minor != TESTED_MICROPYTHON:
            self.report(
                "note: the firmware is tested on MicroPython "
                f"{'.'.join(map(str, TESTED_MICROPYTHON))}; this board runs {version}"
            )
        return version

    def _copy(self, fs: Any, files: list[FirmwareFile]) -> list[str]:
        total = sum(len(f.data) for f in files)
        self._check_space(fs, total)
        # main.py off while the modules change: a cut-short flash must not start half a
        # firmware. Errors are caught on the board: errno numbers differ between ports.
        fs.exec(
            "import os\ntry:\n os.remove('main.py')\nexcept OSError:\n pass\n"
            f"try:\n os.mkdir('{DEVICE_DIR}')\nexcept OSError:\n pass"
        )
        wanted = {f.device_path for f in files}
        removed = []
        for entry in fs.fs_listdir(DEVICE_DIR):
            path = f"{DEVICE_DIR}/{entry.name}"
            # A stale module (or a compiled .mpy of one) would still be imported.
            if path not in wanted and not entry.st_mode & 0x4000:
                fs.fs_rmfile(path)
                removed.append(path)
                self.report(f"removed {path} (not in this firmware)")
        done = 0
        for number, item in enumerate(files, 1):
            self._write_checked(fs, item)
            done += len(item.data)
            self.report(
                f"[{number}/{len(files)}] {item.device_path}: {len(item.data):,} bytes, "
                f"sha256 {item.sha256.hex()[:12]} checked ({done:,} of {total:,} bytes)"
            )
        return removed

    def _check_space(self, transport: Any, needed: int) -> None:
        try:
            text = transport.exec("import os\ns=os.statvfs('/')\nprint(s[0]*s[3])")
            free = int(text.decode().strip())
        except Exception:  # a port without statvfs: the writes will tell
            return
        if free < needed:
            raise FlashError(
                f"the Pico's file system has {free:,} bytes free; the firmware needs "
                f"{needed:,}: remove files you added (mpremote ls, mpremote rm) and flash again"
            )

    def _write_checked(self, fs: Any, item: FirmwareFile) -> None:
        for attempt in range(1, WRITE_TRIES + 1):
            fs.fs_writefile(item.device_path, item.data, chunk_size=CHUNK)
            found = fs.fs_hashfile(item.device_path, "sha256")
            if found == item.sha256:
                return
            self.report(
                f"{item.device_path}: the copy on the Pico has sha256 {bytes(found).hex()[:12]}, "
                f"not {item.sha256.hex()[:12]} (try {attempt} of {WRITE_TRIES})"
            )
        raise FlashError(
            f"{item.device_path}: the copy on the Pico differs from this file after "
            f"{WRITE_TRIES} tries: try another USB cable or port; the Pico's flash may be worn"
        )

    def _wait_for_hello(self) -> Hello:
        self.report(f"waiting for the firmware's HELLO on {self.port}")
        deadline = time.monotonic() + self.hello_timeout_s
        hello, text = self._probe_hello(deadline, reopen=True)
        if hello is not None:
            return hello
        last = [line for line in text.splitlines() if line.strip()]
        said = f"; the Pico said: {last[-1].strip()}" if last else ""
        raise FlashError(
            f"the firmware is on the Pico but it did not say HELLO within "
            f"{self.hello_timeout_s:g} s of the reset{said}. Is the maintenance jumper still "
            "fitted? Remove it and plug the mat in again; then `tabletop mat monitor "
            f"{self.port}` shows what it sends"
        )

    def _probe_hello(self, deadline: float, reopen: bool) -> tuple[Hello | None, str]:
        """Asks for HELLO until `deadline`; (the HELLO or None, the text the board sent)."""
        decoder = FrameDecoder()
        request = encode_frame(*hello_request())
        text = bytearray()
        port = None
        try:
            while time.monotonic() < deadline:
                if port is None:
                    try:
                        port = open_port(self.port)
                    except LinkError:
                        if not reopen:
                            return None, ""
                        time.sleep(0.1)  # the Pico comes back on USB after its reset
                        continue
                    sent_at = 0.0
                if time.monotonic() - sent_at > 0.5:
                    port.write(request)
                    sent_at = time.monotonic()
                try:
                    data = port.read(max(1, port.in_waiting))
                except (OSError, serial.SerialException):
                    with contextlib.suppress(OSError, serial.SerialException):
                        port.close()
                    port = None
                    continue
                for frame in decoder.feed(data):
                    if frame.msg_type == MessageType.HELLO:
                        message = decode_message(frame.msg_type, frame.payload)
                        if isinstance(message, Hello):
                            return message, ""
                text.extend(data)
        finally:
            if port is not None:
                with contextlib.suppress(OSError, serial.SerialException):
                    port.close()
        return None, _printable(bytes(text))


def _printable(data: bytes) -> str:
    """The text lines among the bytes a board sent (a traceback from main.py, most likely)."""
    return "\n".join(run.decode() for run in re.findall(rb"[ -~]{6,}", data))
