"""Opens the mat's serial link by URL: a device path, any pyserial URL, or the simulated mat.

/dev/ttyACM0, /dev/serial/by-id/usb-tabletop_mat-if00   a real mat (or a pty)
socket://host:port, rfc2217://...                       pyserial's URL handlers
sim:                                                    a simulated mat started in-process
"""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING, Protocol

import serial

from .errors import LinkError, PortBusyError

if TYPE_CHECKING:
    from .sim import SimulatedMat

BAUDRATE = 115200  # USB CDC ignores it; a UART bridge needs it
READ_TIMEOUT_S = 0.02


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
        raise LinkError(f"cannot open {url}: {error}") from None
    return port


def resolve_url(url: str) -> tuple[str, SimulatedMat | None]:
    """Returns the URL to open, starting a simulated mat first for "sim:" (its device path)."""
    if url == "sim:" or url.startswith("sim:?"):
        from .sim import SimulatedMat

        mat = SimulatedMat.from_url(url)
        return mat.start(), mat
    return url, None
