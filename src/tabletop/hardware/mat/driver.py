"""The host driver: owns the port and the reader thread; `MatSession` does the thinking.

The reader thread reads whatever bytes arrived, hands them to the session, writes what the
session wants sent and queues the events it returns. When the port fails (the mat was
unplugged) it closes it and tries to open the same path again until the device is back, as a
USB mat re-enumerates: at once, then backing off to every REOPEN_MAX_S. `problem` says, in
words a person can act on, why the port is not open (the bridge logs and publishes it).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import queue
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import serial

from tabletop.hardware import MAT_ENV

from .cardmap import CardMap, default_card_map
from .errors import LinkError, PortBusyError
from .events import MatEvent
from .framing import FrameDecoder
from .protocol import LedSetting, MessageType, Pong, Result, ScanSetting, configure, ping, set_leds
from .protocol import snapshot_request as snapshot_request_message
from .session import MatSession, SessionStats
from .transport import Port, PortURLError, open_port, resolve_url
from .zones import MatLayout

if TYPE_CHECKING:
    from .sim import SimulatedMat

log = logging.getLogger(__name__)

REOPEN_S = 0.2  # the first retry: a re-enumerating USB mat is back within a second or so
REOPEN_MAX_S = 2.0  # the retries back off to this
SIMULATED = "sim:"


def open_mat(
    url: str | None = None, cards: CardMap | None = None, split_seats: int | None = None
) -> MatDriver:
    """The one factory: a driver for `url`, else $TABLETOP_MAT, else a simulated mat ("sim:").

    `split_seats` (a bit per seat, None: as the mat was built) tells the mat which seats'
    touch pads are split. The driver is not started; use it in a `with` block or call start().
    A simulated mat taken for want of a URL is said in the log: a maker who forgot the port
    must not take the simulated mat for the real one.
    """
    chosen = url or os.environ.get(MAT_ENV)
    if not chosen:
        log.warning(
            "no mat port given and $%s is not set: using a simulated mat (%s); name the real "
            "one (/dev/tabletop-mat) to read cards",
            MAT_ENV,
            SIMULATED,
        )
    return MatDriver(chosen or SIMULATED, cards, split_seats)


class MatDriver:
    """A sensor mat opened by URL, read on its own thread; `events()` yields what happens."""

    def __init__(
        self, url: str, cards: CardMap | None = None, split_seats: int | None = None
    ) -> None:
        self.url = url
        self.cards = cards if cards is not None else default_card_map()
        self.session = MatSession(url, self.cards, split_seats=split_seats)
        self.results: queue.Queue[Result] = queue.Queue()
        self.pongs: queue.Queue[Pong] = queue.Queue()
        self._events: queue.Queue[MatEvent] = queue.Queue()
        self._port: Port | None = None
        self._path = url
        self._sim: SimulatedMat | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._write_lock = threading.Lock()
        self._nonces = itertools.count(1)
        self._busy_reported = False
        self._problem: str | None = "not started"
        self._reopen_s = REOPEN_S

    # ---- lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        """Resolves the URL (starting a simulated mat for "sim:") and starts the reader thread.

        Raises PortBusyError when another program holds the port: waiting for it would look
        like a dead mat; PortURLError for a URL that names no port (a typo). A port that is not
        there yet is waited for by the reader thread (`problem` says why it is not open).
        """
        self._path, self._sim = resolve_url(self.url)
        self.session.port = self._path
        self._stop.clear()
        try:
            self._open(refuse_busy=True)
        except (PortBusyError, PortURLError):
            if self._sim is not None:
                self._sim.stop()
                self._sim = None
            raise
        self._thread = threading.Thread(target=self._run, name=f"mat {self.url}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stops the reader thread and closes the port (and a simulated mat it started)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        self._close_port()
        if self._sim is not None:
            self._sim.stop()
            self._sim = None

    def __enter__(self) -> MatDriver:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- state ---------------------------------------------------------------------

    @property
    def path(self) -> str:
        """The device actually opened (the simulated mat's pty for "sim:")."""
        return self._path

    @property
    def simulator(self) -> SimulatedMat | None:
        """The simulated mat this driver started for a "sim:" URL."""
        return self._sim

    @property
    def connected(self) -> bool:
        return self.session.up

    @property
    def problem(self) -> str | None:
        """Why the port is not open now (it does not exist, permission, unplugged), or None
        when it is open (whether the mat on it answers is `connected`)."""
        return self._problem

    @property
    def layout(self) -> MatLayout | None:
        return self.session.layout

    @property
    def stats(self) -> SessionStats:
        return self.session.stats

    @property
    def decoder(self) -> FrameDecoder:
        return self.session.decoder

    # ---- events and commands ---------------------------------------------------------

    def get_event(self, timeout: float | None = None) -> MatEvent | None:
        """Returns the next event, or None when none came within `timeout` seconds."""
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    def events(self, timeout: float | None = None) -> Iterator[MatEvent]:
        """Yields events as they come; stops after `timeout` seconds without one (None: never)."""
        while True:
            event = self.get_event(timeout)
            if event is None:
                return
            yield event

    def request_snapshot(self) -> None:
        self._send(*snapshot_request_message())

    def set_leds(self, leds: list[LedSetting]) -> None:
        self._send(*set_leds(leds))

    def configure(self, settings: dict[ScanSetting, int]) -> None:
        self._send(*configure(settings))

    def ping(self) -> int:
        """Sends a PING; its PONG arrives on `pongs`. Returns the nonce."""
        nonce = next(self._nonces) & 0xFFFFFFFF
        self._send(*ping(nonce))
        return nonce

    def _send(self, msg_type: MessageType, payload: bytes) -> None:
        self.session.send(msg_type, payload)
        self._flush()

    def _flush(self) -> None:
        with self._write_lock:
            frames = self.session.take_outgoing()
            port = self._port
            if port is None or not frames:
                return
            try:
                port.write(b"".join(frames))
            except (serial.SerialException, OSError) as error:
                log.debug("write to %s failed: %s", self._path, error)

    # ---- the reader thread ------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._port is None:
                if not self._open():
                    self._stop.wait(self._reopen_s)
                    self._reopen_s = min(REOPEN_MAX_S, self._reopen_s * 2)
                continue
            try:
                port = self._port
                data = port.read(max(1, port.in_waiting))
            except (serial.SerialException, OSError) as error:
                self._close_port()
                gone = not os.path.exists(self._path)
                reason = "device disconnected (unplugged?)" if gone else f"port failed: {error}"
                self._problem = f"{self._path}: {reason}"
                self._deliver(self.session.lost(reason))
                continue
            try:
                self._deliver(self.session.receive(data, time.monotonic()))
            except Exception:
                # A bug must not silence the table: log it, drop what was buffered, go on.
                log.exception("%s: internal error while reading the mat", self._path)
                self.session.decoder.reset()
            self._flush()

    def _deliver(self, events: list[MatEvent]) -> None:
        for event in events:
            self._events.put(event)
        for reply in self.session.replies:
            if isinstance(reply, Result):
                self.results.put(reply)
            else:
                self.pongs.put(reply)
        self.session.replies.clear()

    def _open(self, refuse_busy: bool = False) -> bool:
        try:
            port = open_port(self._path)
        except PortBusyError as error:
            self._problem = str(error)
            if refuse_busy:
                raise
            if not self._busy_reported:  # once, not every REOPEN_S
                self._busy_reported = True
                log.warning("%s; waiting for it", error)
            return False
        except PortURLError:
            if refuse_busy:  # at start: a typo is refused, not waited for
                raise
            return False
        except LinkError as error:
            self._problem = str(error)
            log.debug("%s", error)
            return False
        self._busy_reported = False
        self._problem = None
        self._reopen_s = REOPEN_S
        with contextlib.suppress(serial.SerialException, OSError):
            port.reset_input_buffer()
        with self._write_lock:
            self._port = port
        self.session.opened(time.monotonic())
        self._flush()
        return True

    def _close_port(self) -> None:
        with self._write_lock:
            port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()
