"""The bridge's dice source: frames from the configured camera through the vision pipeline.

The watcher is told what throw the table waits for: the bridge follows the retained
`game/prompt` (`expectation_from_prompt`) and hands it over in an `AwaitedThrow`, which the
camera's thread reads before every frame. A throw that does not fit (the wrong number of dice,
dice of the last throw still in the tray) is then announced `unclear` with the reason, which
the rules daemon turns into an alert.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from tabletop.vision.reading import Expectation

from .health import CameraStatus, Problem

if TYPE_CHECKING:
    from tabletop.vision.watch import ThrowWatcher

log = logging.getLogger(__name__)
MAX_DICE = 40
# A live camera that will not open, or stopped, is opened again after this, then twice as
# long each time, up to REOPEN_MOST_S (a camera found again is read at once).
REOPEN_S = 1.0
REOPEN_MOST_S = 30.0

ANNOUNCED = ("rolled", "cocked", "unreadable", "unclear", "hand", "cleared", "rolling")
# A settled throw comes with its annotated picture, under this key (the bridge publishes it on
# dice/picture, not inside the JSON event).
PICTURED = ("rolled", "cocked", "unreadable", "unclear")
PICTURE = "picture"
# ... and the frame itself, as the camera took it (no box drawn), under this key: the bridge
# publishes it on dice/photo (`photo_message`) for the game master's corrections.
PHOTO = "photo"


def photo_of(image: Any) -> dict[str, Any]:
    """The raw frame of a settled throw, for `photo_message`: its JPEG and its size."""
    from tabletop.vision.annotate import throw_photo

    height, width = image.shape[:2]
    return {"jpeg": throw_photo(image), "width": int(width), "height": int(height)}


def photo_message(header: Mapping[str, Any], throw: Mapping[str, Any], photo: Any) -> bytes | None:
    """The `dice/photo` payload (docs/mqtt.md): the throw's frame as the camera took it (a
    base64 JPEG at the camera's size), its size, and the throw's dice with their boxes in
    that photo's pixels, so a page can draw them and a correction can name a die by its
    centre; None when `photo` is not what `photo_of` gives."""
    import base64
    import json

    if not isinstance(photo, Mapping) or not isinstance(photo.get("jpeg"), bytes):
        return None
    body = {
        **header,
        "event": throw.get("event"),
        "frame": throw.get("frame"),
        "t": throw.get("t"),
        "width": photo.get("width"),
        "height": photo.get("height"),
        "dice": [
            {key: die.get(key) for key in ("value", "status", "confidence", "box")}
            for die in throw.get("dice", [])
            if isinstance(die, Mapping)
        ],
        "jpeg": base64.b64encode(photo["jpeg"]).decode("ascii"),
    }
    return json.dumps(body, separators=(",", ":")).encode()


class PromptError(ValueError):
    """A `game/prompt` payload that does not say what throw is awaited (named in the message)."""


def expectation_from_prompt(prompt: object) -> Expectation | None:
    """The throw a `game/prompt` payload awaits (docs/mqtt.md), or None when it awaits none.

    `dice.count` dice in the tray once they rest, thrown by `dice.who`. `dice.rethrow`, when the
    game says it, is how many of them are thrown: fewer than `count` in a reroll (the others stay
    where they lie), `count` for a fresh throw. Without it, a `rerollable` throw may leave dice
    of the last throw lying (a poker draw: the player chooses), any other throw may not."""
    if not isinstance(prompt, Mapping):
        raise PromptError(f"expected a JSON object, got {type(prompt).__name__}")
    version = prompt.get("v", 1)
    if version != 1 or isinstance(version, bool):
        raise PromptError(f"v: payload version {version!r} is not supported (1 is)")
    if prompt.get("waiting") != "dice" or prompt.get("dice") is None:
        return None
    dice = prompt["dice"]
    if not isinstance(dice, Mapping):
        raise PromptError(f"dice: expected an object or null, got {dice!r}")
    count = _count(dice.get("count"), "dice.count", MAX_DICE)
    who = dice.get("who")
    if who is not None and not isinstance(who, str):
        raise PromptError(f"dice.who: expected a name or null, got {who!r}")
    rerollable = dice.get("rerollable", False)
    if not isinstance(rerollable, bool):
        raise PromptError(f"dice.rerollable: expected true or false, got {rerollable!r}")
    if dice.get("rethrow") is None:
        return Expectation(count, who or "", None, may_keep=rerollable)
    rethrow = _count(dice["rethrow"], "dice.rethrow", count)
    return Expectation(count, who or "", rethrow if rethrow < count else None)


def _count(value: object, where: str, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise PromptError(f"{where}: expected a whole number from 1 to {most}, got {value!r}")
    return value


class AwaitedThrow:
    """The throw the table waits for, handed from the bridge's MQTT side (`set`) to the thread
    that feeds the watcher (`arm`, before every frame)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._expectation: Expectation | None = None
        self._version = 0
        self._armed = 0

    @property
    def expectation(self) -> Expectation | None:
        with self._lock:
            return self._expectation

    def set(self, expectation: Expectation | None) -> None:
        """What the latest prompt awaits (None: no throw)."""
        with self._lock:
            self._expectation = expectation
            self._version += 1

    def arm(self, watcher: ThrowWatcher) -> None:
        """Tells the watcher what to expect: a new prompt replaces what it expected; once a
        throw's announcement used the expectation up, the same throw is expected again, since
        the prompt stands until the game moves on (a throw found unclear is thrown again)."""
        with self._lock:
            version, wanted = self._version, self._expectation
        if version != self._armed:
            self._armed = version
            watcher.expect(wanted)
        elif watcher.expectation is None and wanted is not None:
            watcher.expect(wanted)


def table_values(dice_model: str | None) -> Any:
    """The value reader for the table: its enrolled dice, or the shipped reader (a table
    whose enrolment is missing or stale still reads dice; the log says why)."""
    from pathlib import Path

    from tabletop.vision.classify import ValueClassifier
    from tabletop.vision.enrol import EnrolError, cocked_enrolled, table_model

    if dice_model is None:
        return ValueClassifier()
    try:
        values = ValueClassifier(table_model(Path(dice_model)))
        if cocked_enrolled(Path(dice_model)) == 0:
            # Measured (docs/vision.md, "Cocked dice"): at a wide lens or a shaken webcam,
            # such a model gives more leaning dice a value than the shipped one.
            log.warning(
                "[camera] dice_model: %s was enrolled with no die labelled cocked, so it may "
                "give a die leaning on something a value; enrol again with some (a die marked "
                "Cocked on the console's photo is one)",
                dice_model,
            )
        return values
    except EnrolError as error:
        log.warning("[camera] dice_model: %s; reading with the shipped dice model", error)
        return ValueClassifier()


class TableValues:
    """The value reader the camera reads with, and the one it is to read with from its next
    frame (`offer`, from the bridge's enrolment): the camera's thread takes it between frames
    (`settle`), so no throw is read half with one model and half with the other."""

    def __init__(self, current: Any) -> None:
        self._lock = threading.Lock()
        self._current = current
        self._pending: Any = None
        self.switched = 0  # how many times the camera took a new model

    @property
    def current(self) -> Any:
        """The ValueClassifier the camera reads with now."""
        with self._lock:
            return self._current

    @property
    def model_path(self) -> Any:
        """The file the camera's model is read from now (None: the shipped model)."""
        with self._lock:
            return (self._pending or self._current).model_path

    def offer(self, values: Any) -> None:
        """The model to read with from the camera's next frame (already loaded)."""
        with self._lock:
            self._pending = values

    def settle(self, reader: Any = None) -> bool:
        """On the camera's thread, between frames: takes an offered model, into `reader` too
        (a `DiceReader`, and the reader of its flat pictures); True when it did."""
        with self._lock:
            pending, self._pending = self._pending, None
            if pending is None:
                return False
            self._current = pending
            self.switched += 1
        for one in (reader, getattr(reader, "_flat_reader", None)):
            if one is not None:
                one.values = pending
        return True


def camera_throws(
    source_url: str,
    calibration_path: str | None,
    awaited: AwaitedThrow | None = None,
    dice_model: str | None = None,
    *,
    status: CameraStatus | None = None,
    setting: str | None = None,
    values: TableValues | None = None,
) -> Callable[[threading.Event], Iterator[dict[str, Any]]]:
    """A dice source for the bridge: opens `source_url` (usb:0, picamera, a file, sim:...) when
    the bridge starts, and yields every throw the watcher announces, as JSON objects. With
    `awaited`, the watcher expects the throw the table's prompt waits for; with `dice_model`
    (a `tabletop dice enrol` folder) it reads the table's own dice, falling back to the
    shipped reader, with a warning saying why, when that folder cannot be used.

    A live camera (a webcam, the Pi camera, a folder) that will not open or stops giving
    frames is told to `status` (named by `setting`, `camera.source = "..."`) and opened again,
    backing off from REOPEN_S to REOPEN_MOST_S, until it gives frames again; a film (a video
    file, the simulated camera) ends when it has played, and the log says so.

    With `values` (a `TableValues`), the camera reads with its current model (then `dice_model`
    is not read) and takes a model offered to it before its next frame."""
    named = setting or f'camera.source = "{source_url}"'

    def throws(stop: threading.Event) -> Iterator[dict[str, Any]]:
        import cv2

        from tabletop.hardware.camera import CameraError, FrameSource, open_source
        from tabletop.vision.annotate import throw_picture
        from tabletop.vision.calibration import Calibration
        from tabletop.vision.errors import CalibrationError
        from tabletop.vision.watch import table_watcher

        cv2.setNumThreads(1)  # the mat and MQTT share the Pi's cores
        table = values if values is not None else TableValues(table_values(dice_model))
        calibration = None
        if calibration_path:
            try:
                calibration = Calibration.load(calibration_path)
            except CalibrationError as error:
                log.warning(
                    "bridge: reading the dice uncalibrated: %s (calibrate again: tabletop dice "
                    "calibrate)",
                    error,
                )

        def watching(calibration: Calibration | None) -> ThrowWatcher:
            return table_watcher(calibration, table.current)

        def failed(what: str) -> None:
            if status is not None:
                status.failed(Problem("camera", named, what))
            else:
                log.warning("bridge: camera (%s): %s", named, what)

        watcher = watching(calibration)
        source: FrameSource | None = None
        wait = REOPEN_S
        while not stop.is_set():
            try:
                if source is None:
                    source = open_source(source_url)
                    if status is not None:
                        status.live = source.live
                source.open()
            except CameraError as error:
                failed(f"{error}{_fix(source_url)}; trying again")
                stop.wait(wait)
                wait = min(REOPEN_MOST_S, wait * 2)
                continue
            except Exception as error:  # OpenCV's or picamera2's own, for a device to fix
                failed(f"cannot open it ({type(error).__name__}: {error}); trying again")
                stop.wait(wait)
                wait = min(REOPEN_MOST_S, wait * 2)
                continue
            try:
                while not stop.is_set():
                    try:
                        frame = source.read()
                    except CameraError as error:
                        failed(f"{error}; opening it again")
                        break
                    if frame is None:
                        if source.live:
                            failed(
                                "stopped giving frames (a bumped or pulled cable?): check it; "
                                "opening it again"
                            )
                        break
                    wait = REOPEN_S
                    if status is not None:
                        status.frame()
                    if calibration is not None:
                        height, width = frame.image.shape[:2]
                        if (width, height) != (calibration.width, calibration.height):
                            # A calibration of other frames fits none of these (its tray, its
                            # board's view): a camera that reads uncalibrated beats one that
                            # stops.
                            log.warning(
                                "bridge: the camera gives %dx%d frames, the calibration %s is "
                                "for %dx%d: reading the dice uncalibrated (calibrate again: "
                                "tabletop dice calibrate)",
                                width,
                                height,
                                calibration_path,
                                calibration.width,
                                calibration.height,
                            )
                            calibration = None
                            watcher = watching(None)
                    if table.settle(watcher.reader):
                        log.info(
                            "bridge: the camera reads the dice with %s from this frame",
                            table.model_path or "the shipped dice model",
                        )
                    if awaited is not None:
                        awaited.arm(watcher)
                    for event in watcher.feed(frame.image, frame.timestamp):
                        if event.kind.value in ANNOUNCED:
                            throw = event.to_json()
                            if event.kind.value in PICTURED:
                                throw[PICTURE] = throw_picture(
                                    frame.image, event.reading, throw_caption(throw)
                                )
                                throw[PHOTO] = photo_of(frame.image)
                            yield throw
            finally:
                source.close()
            if stop.is_set():
                return
            if not source.live:
                # A film has played: said, not waited for (played again, its throws would
                # be thrown again at the table).
                log.warning(
                    "bridge: camera (%s): %s has played all its frames; no more dice are read "
                    '(a real camera: [camera] source = "usb:0" or "picamera")',
                    named,
                    "the simulated camera" if source_url.startswith("sim") else "the video",
                )
                return
            stop.wait(wait)
            wait = min(REOPEN_MOST_S, wait * 2)

    return throws


def _fix(source_url: str) -> str:
    """What to do about a camera that will not open, by its kind (the Pi camera's own
    messages say it)."""
    kind = source_url.partition(":")[0].partition("?")[0].lower()
    if kind == "picamera":
        return ""
    if kind == "usb" or kind.isdigit() or source_url.startswith("/dev/"):
        return "; plug the webcam in (ls /dev/video*), or set [camera] source"
    return "; check the path, or set [camera] source"


def throw_caption(throw: dict[str, Any]) -> str:
    """The picture's caption: what the watcher announced, in a few words."""
    if throw.get("event") == "rolled":
        return "rolled " + " ".join(str(v) for v in throw.get("values", []))
    reason = throw.get("reason")
    return f"{throw.get('event')}: {reason}" if reason else str(throw.get("event"))
