"""What the bridge says when a part of the table fails: one line per problem, and availability.

Each part (the mat, the dice camera, the broker) is either working or has a `Problem`: what
is wrong, the setting that names the part, and what to do. `Health` logs a problem once when it
starts (and again when its words change), reminds at growing intervals while it lasts, says
when the part is back, and writes the `bridge/availability` payload (docs/mqtt.md):

    online
    degraded: mat, camera
    mat: mat.port = "/dev/ttyACM0": /dev/ttyACM0 does not exist: ...
    camera: camera.source = "usb:0": stopped giving frames ...

`CameraStatus` carries what the camera's thread finds to the bridge's thread, in order, so a
camera that comes back for a moment is said too.
"""

from __future__ import annotations

import collections
import errno
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

log = logging.getLogger("tabletop.bridge.bridge")

# The parts that `bridge/availability` names when they are missing, in this order.
PARTS: Final = ("mat", "camera")
ONLINE: Final = "online"
DEGRADED: Final = "degraded"
# A problem still there is said again after this long, then after twice as long, ...
REMIND_FIRST_S: Final = 30.0
REMIND_MOST_S: Final = 600.0


@dataclass(frozen=True, slots=True)
class Problem:
    """A part that does not work: which, the setting that names it, what is wrong and what to
    do (one line, in words a person can act on)."""

    part: str
    setting: str
    what: str

    def line(self) -> str:
        return f"{self.part} ({self.setting}): {self.what}"


class Health:
    """The problems the bridge knows of now, logged as they come and go."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.problems: dict[str, Problem] = {}
        self._remind_at: dict[str, tuple[float, float]] = {}  # part -> (when, interval)

    def set(self, part: str, problem: Problem | None) -> bool:
        """Records `part`'s state now; True when it changed (logged)."""
        old = self.problems.get(part)
        if problem == old:
            return False
        if problem is None:
            del self.problems[part]
            self._remind_at.pop(part, None)
            assert old is not None
            log.warning("bridge: %s is back (%s)", part, old.setting)
            return True
        self.problems[part] = problem
        self._remind_at[part] = (self.clock() + REMIND_FIRST_S, REMIND_FIRST_S)
        log.warning("bridge: %s", problem.line())
        return True

    def remind(self) -> None:
        """Says again each problem still there whose time has come."""
        now = self.clock()
        for part, (when, interval) in list(self._remind_at.items()):
            if now >= when:
                problem = self.problems[part]
                log.warning("bridge: still: %s", problem.line())
                longer = min(REMIND_MOST_S, interval * 2)
                self._remind_at[part] = (now + longer, longer)

    def availability(self) -> bytes:
        """The `bridge/availability` payload: `online`, or `degraded: ...` with a line per part."""
        missing = [part for part in PARTS if part in self.problems]
        if not missing:
            return ONLINE.encode()
        lines = [f"{DEGRADED}: {', '.join(missing)}"]
        for part in missing:
            lines.append(f"{part}: {self.problems[part].setting}: {self.problems[part].what}")
        return "\n".join(lines).encode("utf-8")


class CameraStatus:
    """What the camera's thread found (failures and frames), read by the bridge's thread."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._problem: Problem | None = None
        self._changes: collections.deque[Problem | None] = collections.deque()
        self._last_frame: float | None = None
        self._since = clock()
        self.live = False  # set by the camera's thread once its source is made

    def failed(self, problem: Problem) -> None:
        """The camera cannot give frames now (the camera's thread)."""
        with self._lock:
            if self._problem != problem:
                self._problem = problem
                self._changes.append(problem)

    def frame(self) -> None:
        """A frame came (the camera's thread): a camera that had a problem is back."""
        with self._lock:
            self._last_frame = self.clock()
            if self._problem is not None:
                self._problem = None
                self._changes.append(None)

    def stalled(self, after: float, setting: str) -> None:
        """A live camera that gave no frame for `after` seconds, its thread stuck in a read
        (a camera that hangs rather than fails), is said to have stopped."""
        with self._lock:
            if not self.live or self._problem is not None:
                return
            quiet = self.clock() - (self._last_frame or self._since)
            if quiet < after:
                return
        self.failed(
            Problem(
                "camera",
                setting,
                f"no frame for {quiet:.0f} s (the camera hangs: check its cable; restart the "
                "bridge if it does not come back)",
            )
        )

    def changes(self) -> list[Problem | None]:
        """What happened since the last call, in order (None: the camera is back)."""
        with self._lock:
            found = list(self._changes)
            self._changes.clear()
            return found


def broker_problem(host: str, port: int, refusal: str | None, setting: str) -> Problem:
    """Why the broker cannot be reached, found by trying its port (blocks up to a second or
    two: call it off the bridge's thread)."""
    where = f"{host}:{port}"
    if refusal is not None and "TLS" not in refusal:
        return Problem(
            "broker",
            setting,
            f"the broker at {where} refused the bridge's login ({refusal}): check [broker.bridge] "
            "username and password_file against the broker's users (tabletop broker passwd "
            "bridge; with Mosquitto also its password_file), then restart the bridge; "
            "trying again",
        )
    try:
        with socket.create_connection((host, port), timeout=1.5):
            pass
    except socket.gaierror as error:
        return Problem(
            "broker",
            setting,
            f"cannot find the host {host!r} ({error.strerror}): fix the broker's address; "
            "trying again",
        )
    except ConnectionRefusedError:
        return Problem(
            "broker",
            setting,
            f"nothing listens on {where}: start the broker (systemctl status mosquitto, or "
            "tabletop rules for the embedded one) or fix the address; trying again",
        )
    except TimeoutError:
        return Problem(
            "broker",
            setting,
            f"no answer from {where} (a wrong address, a firewall, the machine off?); trying again",
        )
    except OSError as error:
        why = errno.errorcode.get(error.errno or 0, "") or str(error)
        return Problem("broker", setting, f"cannot reach {where} ({why}); trying again")
    if refusal is not None:  # a TLS port told by the link; said once the port is reached
        return Problem("broker", setting, refusal)
    return Problem(
        "broker",
        setting,
        f"{where} accepts connections but gives no MQTT session (is it an MQTT broker's port?); "
        "trying again",
    )
