"""Opens the mat's serial link by URL: a device path, any pyserial URL, or the simulated mat.

/dev/ttyACM0, /dev/serial/by-id/usb-tabletop_mat-if00   a real mat (or a pty)
socket://host:port, rfc2217://...                       pyserial's URL handlers
sim:, sim, sim://, sim:?seats=2&slots=6                  a simulated mat started in-process
"""

from __future__ import annotations

import errno
import os
from typing import TYPE_CHECKING, Protocol

import serial

from .errors import LinkError, PortBusyError

if TYPE_CHECKING:
    from .sim import SimulatedMat

BAUDRATE = 115200  # USB CDC ignores it; a UART bridge needs it
READ_TIMEOUT_S = 0.02
# What a mat's port may be, for the message that refuses anything else.
PORT_FORMS = (
    "a device path (/dev/tabletop-mat, /dev/ttyACM0), sim: (the simulated mat), "
    "socket://HOST:PORT or rfc2217://HOST:PORT"
)


class PortURLError(LinkError):
    """A port URL that names no port at all: a typo to fix, not a device to wait for."""


class Port(Protocol):
    """What the driver needs of a serial port (pyserial's Serial has it)."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def reset_input_buffer(self) -> None: ...

    def close(self) -> None: ...


def open_port(url: str) -> Port:
    """Opens `url` for this process alone; raises LinkError with the reason when it cannot.

    A device is locked (pyserial's exclusive=True takes an flock on it): two readers on one
    mat would each get part of its bytes and both see damage, so the second is refused.
    """
    try:
        port: Port = serial.serial_for_url(
            url, baudrate=BAUDRATE, timeout=READ_TIMEOUT_S, exclusive=True
        )
    except (serial.SerialException, OSError, ValueError) as error:
        if getattr(error, "errno", None) in (errno.EAGAIN, errno.EWOULDBLOCK):
            raise PortBusyError(
                f"{url} is already in use by another program (a second `tabletop mat monitor`, "
                "the bridge or `tabletop cards enrol`?): only one may read the mat at a time; "
                "stop the other one first"
            ) from None
        raise LinkError(_why_not(url, error)) from None
    return port


def _why_not(url: str, error: Exception) -> str:
    """Why `url` did not open, in words that say what to do."""
    code = getattr(error, "errno", None)
    if isinstance(error, ValueError) and "://" in url:
        raise PortURLError(f"{url} is not a port; use {PORT_FORMS}") from None
    if code == errno.ENOENT or ("://" not in url and not os.path.exists(url)):
        return (
            f"cannot open {url}: it does not exist: the mat is not plugged in, or has another name "
            "(ls /dev/serial/by-id/; deploy/99-tabletop-mat.rules names it /dev/tabletop-mat)"
        )
    if code == errno.ENOTTY or "Inappropriate ioctl" in str(error):
        return (
            f"cannot open {url}: it is not a serial port: name the mat's device "
            "(ls /dev/serial/by-id/)"
        )
    if code in (errno.EACCES, errno.EPERM):
        return (
            f"cannot open {url}: permission denied: add the bridge's user to the dialout group "
            "(sudo usermod -aG dialout USER, then log in again)"
        )
    return f"cannot open {url}: {error}"


def is_simulated(url: str) -> bool:
    """True for the simulated mat's URL in any of its spellings: sim, sim:, sim://, sim:?..."""
    return url.partition("?")[0].strip().lower() in {"sim", "sim:", "sim://"}


def resolve_url(url: str) -> tuple[str, SimulatedMat | None]:
    """Returns the URL to open, starting a simulated mat first for "sim:" (its device path)."""
    if is_simulated(url):
        from .sim import SimulatedMat

        mat = SimulatedMat.from_url("sim:" + url.partition("?")[1] + url.partition("?")[2])
        return mat.start(), mat
    return url, None
