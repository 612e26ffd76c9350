"""The bridge enrols the camera again from the game master's corrections, when asked.

The console keeps each throw the game master corrected in the table's corrections folder, with
its `labels.csv` (src/tabletop/console/corrections.py). A request on `bridge/enrol` (docs/mqtt.md;
`tabletop bridge enrol` sends one) asks the running bridge to enrol from that folder as `tabletop
dice enrol` does, with its check (src/tabletop/vision/enrol.py): each photo is read by a model
fitted without it, and by the shipped model. The work runs on a thread of its own, so the camera
goes on reading the dice with the model it has; `bridge/enrol/status` (retained) says how far it is,
then how it went in words.

Only where the check finds the table's model better on both counts (more dice read right, no
more wrong values) is it written, to the table's `camera.dice_model` folder, or with none named
to `dice-model/` in the corrections folder (which the bridge reads at its next start too), and
the camera reads with it from its next frame. Otherwise nothing is written, and the camera
reads as before. Nothing here happens unasked: the bridge never enrols by itself.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from tabletop.wire.payload import read_json

from .dice import TableValues

log = logging.getLogger(__name__)

LABELS: Final = "labels.csv"  # the console's (tabletop.console.corrections.LABELS)
BESIDE: Final = "dice-model"  # the model's folder in the corrections folder, with no dice_model
MIN_PHOTOS: Final = 3  # the check reads each photo with a model fitted without it
MAX_ID: Final = 64
NICENESS: Final = 10  # the enrolment thread's, over the bridge's own
STOP_WAIT_S: Final = 10.0  # how long close() waits for an enrolment to stop at its next photo


class RequestError(ValueError):
    """A request payload that is not one (the message says what is wrong)."""


def read_request(payload: bytes) -> str | None:
    """The id of a `bridge/enrol` request (None: none given); RequestError naming the part.

    A request is `{"v": 1, "id": "..."}`, both optional (`{}` is a request)."""
    try:
        body = read_json(payload)
    except ValueError as error:
        raise RequestError(f"not JSON ({error})") from None
    if not isinstance(body, dict):
        raise RequestError(f"expected a JSON object, got {type(body).__name__}")
    version = body.get("v", 1)
    if version != 1 or isinstance(version, bool):
        raise RequestError(f"v: payload version {version!r} is not supported (1 is)")
    request = body.get("id")
    if request is not None and (not isinstance(request, str) or not 0 < len(request) <= MAX_ID):
        raise RequestError(f"id: expected a text of 1 to {MAX_ID} characters, got {request!r}")
    unknown = sorted(set(body) - {"v", "id"})
    if unknown:
        raise RequestError(f"{', '.join(unknown)}: not part of a request (v and id are)")
    return request


class _Stopped(Exception):
    """The bridge is stopping: the enrolment stops at its next photo."""


@dataclass(slots=True)
class Reenrolment:
    """Enrols the table from `corrections` when asked (`request`, on the bridge's thread), on a
    thread of its own; `statuses()` gives what to publish on `bridge/enrol/status`.

    `model` is where a kept model is written (`configured`: the table file names it as
    `camera.dice_model`; else it is `BESIDE` in the corrections folder). `values` is what
    the camera reads with: a kept model is offered to it."""

    corrections: Path | None
    model: Path
    values: TableValues
    configured: bool = False
    calibration: Any = None  # the table's Calibration, for the check's reading
    min_photos: int = MIN_PHOTOS
    enrol: Callable[..., Any] | None = None  # tabletop.vision.enrol.enrol (a test's stand-in)
    _statuses: queue.Queue[dict[str, Any]] = field(default_factory=queue.Queue)
    _thread: threading.Thread | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _progress: str = ""
    _busy: bool = False

    @property
    def running(self) -> bool:
        """An enrolment is under way (until its outcome is said)."""
        return self._busy

    def statuses(self) -> list[dict[str, Any]]:
        """What happened since the last call, oldest first (each a status payload's body)."""
        out = []
        while True:
            try:
                out.append(self._statuses.get_nowait())
            except queue.Empty:
                return out

    def _say(self, state: str, request: str | None, message: str, **more: Any) -> None:
        self._statuses.put({"state": state, "id": request, "message": message, **more})

    def ready(self) -> None:
        """Says, once the bridge starts, what the camera reads with and where it would enrol
        from (and that the bridge takes requests from now on)."""
        reads = self.values.model_path or "the shipped dice model"
        where = self.corrections if self.corrections is not None else "no corrections folder"
        self._say(
            "ready",
            None,
            f"the camera reads with {reads}; ask to enrol it from the corrections in {where}",
        )

    def request(self, payload: bytes, *, retained: bool = False) -> None:
        """A `bridge/enrol` message: starts an enrolment, or says in words why not. An empty
        payload is none (a retained request being cleared)."""
        if not payload:
            return
        try:
            request = read_request(payload)
        except RequestError as error:
            message = f"the request to enrol the camera was refused: {error}"
            log.warning("bridge: %s", message)
            self._say("refused", None, message)
            return
        if retained:
            message = (
                "a retained request to enrol the camera was refused: it would enrol again at "
                "every start of the bridge; send the request without retain (tabletop bridge "
                "enrol does), and clear the retained one"
            )
            log.warning("bridge: %s", message)
            self._say("refused", request, message)
            return
        if self.running:
            message = (
                f"already enrolling the camera ({self._progress}): ask again once it has finished"
            )
            self._say("refused", request, message)
            return
        labels = self._labels(request)
        if labels is None:
            return
        self._stop.clear()
        self._busy = True
        self._thread = threading.Thread(
            target=self._work, args=(request, labels), name="bridge-enrol", daemon=True
        )
        self._thread.start()

    def _labels(self, request: str | None) -> tuple[Path, int] | None:
        """The corrections' labels.csv and its photos, or None once it said why not."""
        from tabletop.vision.enrol import EnrolError, read_labels

        if self.corrections is None:
            self._say(
                "refused",
                request,
                "this bridge has no corrections folder to enrol from: set [camera] corrections "
                "in the table file to the folder where the console keeps them",
            )
            return None
        if not self.corrections.is_dir():
            self._say(
                "refused",
                request,
                f"no corrections folder {self.corrections} yet: the console keeps there the "
                "throws the game master corrects on the camera's photos ([camera] corrections "
                "in the table file names it); correct some, then ask again",
            )
            return None
        labels = self.corrections / LABELS
        if not labels.is_file():
            self._say(
                "refused",
                request,
                f"no corrected throws to enrol from: {labels} is not there yet (the game "
                "master's corrections of the camera's photos are kept there)",
            )
            return None
        try:
            photos = len({die.image for die in read_labels(labels)})
        except EnrolError as error:
            self._say("refused", request, f"cannot enrol from the corrections: {error}")
            return None
        if photos < self.min_photos:
            self._say(
                "refused",
                request,
                f"{labels} holds {photos} corrected photo{'' if photos == 1 else 's'}; enrolling "
                f"needs at least {self.min_photos} (its check reads each photo with a model "
                "fitted without it): correct more throws on the game master's page and ask "
                "again",
                photos=photos,
            )
            return None
        return labels, photos

    def _work(self, request: str | None, found: tuple[Path, int]) -> None:
        labels, photos = found
        learnt = checked = 0
        where = self.model

        def progress(message: str) -> None:
            if self._stop.is_set():
                raise _Stopped
            self._progress = message
            self._say("running", request, message, done=learnt + checked, of=2 * photos)

        def step(note: str) -> None:
            nonlocal learnt
            learnt += 1
            progress(f"{learnt} of {photos} corrected photos learnt")

        def checking(note: str) -> None:
            nonlocal checked
            checked += 1
            progress(f"checking: {checked} of {photos} photos read by a model fitted without them")

        log.info("bridge: enrolling the camera from %s (%d photos)", labels, photos)
        _yield_to_the_camera()
        scratch: Path | None = None
        outcome: list[tuple[str, str | None, str, dict[str, Any]]] = []

        def done(state: str, request: str | None, message: str, **more: Any) -> None:
            outcome.append((state, request, message, more))

        from tabletop.vision.enrol import EnrolError, enrol

        try:
            progress(f"enrolling from {photos} corrected photos in {labels.parent}")
            where.parent.mkdir(parents=True, exist_ok=True)
            scratch = Path(tempfile.mkdtemp(prefix=".enrolling-", dir=where.parent))
            calibration = self.calibration
            report = (self.enrol or enrol)(
                labels,
                scratch,
                step=step,
                checking=checking,
                calibration_of=lambda photo: calibration,
            )
            check = report.held_out
            told = _told(check, photos)
            if report.kept == "table":
                self._write(scratch, where)
                from tabletop.vision.classify import ValueClassifier
                from tabletop.vision.enrol import table_model

                values = ValueClassifier(table_model(where))
                values.load()
                self.values.offer(values)
                named = "camera.dice_model" if self.configured else "no camera.dice_model is named"
                message = (
                    f"{told}: kept; written to {where} ({named}), and the camera reads with it "
                    "from its next frame"
                )
                more: dict[str, Any] = {"model": str(where)}
            else:
                reads = self.values.model_path or "the shipped dice model"
                message = f"{told}: not kept; nothing was written, the camera reads with {reads}"
                more = {}
            log.info("bridge: enrolled the camera: %s", message)
            held_out = check.to_json() if check is not None else None
            done(
                "kept" if report.kept == "table" else "not kept",
                request,
                message,
                held_out=held_out,
                **more,
            )
        except _Stopped:
            log.info("bridge: the camera's enrolment stopped with the bridge; nothing written")
        except (EnrolError, OSError) as error:
            message = f"the camera's enrolment from {labels} failed: {error}"
            log.warning("bridge: %s", message)
            done("failed", request, message)
        except Exception as error:  # a bug here must not stop the bridge, nor go unsaid
            log.exception("bridge: the camera's enrolment failed")
            done(
                "failed",
                request,
                f"the camera's enrolment failed ({type(error).__name__}: {error}): a bug, its "
                "traceback is in the bridge's log; the camera reads as before",
            )
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
            self._progress = ""
            self._busy = False
        if outcome:  # said once the work is over: a request after it is heard
            self._say(*outcome[0][:3], **outcome[0][3])

    @staticmethod
    def _write(scratch: Path, where: Path) -> None:
        """The enrolment's files into `where`, each replaced in one step (a folder that holds
        other files keeps them)."""
        from tabletop.vision.enrol import ENROLMENT_FILE, FITTED_FILE, MODEL_FILE

        where.mkdir(parents=True, exist_ok=True)
        # The record last: until it is there, no reader takes the folder for a new enrolment.
        for name in (FITTED_FILE, MODEL_FILE, ENROLMENT_FILE):
            os.replace(scratch / name, where / name)

    def close(self) -> None:
        """Stops an enrolment at its next photo, and waits for it (nothing is written)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=STOP_WAIT_S)


def _yield_to_the_camera() -> None:
    """Lowers this thread's CPU priority (Linux: a thread's own niceness), so that the camera's
    thread, the mat and MQTT go first on a Pi's few cores; elsewhere it runs as it is."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICENESS)


def _told(check: Any, photos: int) -> str:
    """The check in words: the table's model against the shipped one, on the same dice."""
    if check is None:  # not with MIN_PHOTOS of 2 or more
        return f"{photos} photo: nothing to check a model on"
    table, shipped = check.enrolled, check.shipped
    dice = shipped.right + shipped.wrong + shipped.not_read
    leaning = (
        f" (a die leaning on something given a value counts as wrong; {shipped.cocked} were)"
        if shipped.cocked
        else ""
    )
    return (
        f"on the {photos} corrected photos, each read by a model fitted without it, the "
        f"table's own model reads {table.right} of {dice} dice right, {table.wrong_or_cocked} "
        f"wrong, against the shipped model's {shipped.right} and {shipped.wrong_or_cocked}"
        f"{leaning}"
    )


def model_folder(dice_model: str | None, corrections: Path | None) -> tuple[Path | None, bool]:
    """Where a kept model goes: the table's `camera.dice_model` (True), else `BESIDE` in the
    corrections folder (False); None with neither."""
    if dice_model is not None:
        return Path(dice_model), True
    if corrections is not None:
        return corrections / BESIDE, False
    return None, False
