"""The camera part: a frame, its exposure and focus, the empty tray, the calibration, a throw.

Each measure is taken on the camera's own frames, read as the bridge reads them (the same
source URL, calibration and dice reader). The limits, in grey levels of the frame shrunk to at
most 640 pixels wide:
- exposure: a mean under 15 or over 240, or over a quarter of the picture clipped (at most 5
  or at least 250), is a lens cap, no light or a camera blinded by a lamp;
- focus: the variance of the Laplacian under 15. The simulated camera's frames give 50-99,
  the same frames blurred by a Gaussian of 3 pixels 0.4-0.6 (measured here; a sharp real
  webcam gives some hundreds);
- the empty tray: `tabletop.vision.calibration.find_tray` finds a floor (not the whole picture), and
  the rest detector, against the calibration's empty tray when there is one, says empty.
The throw: the person throws one die (the simulated camera throws by itself), and the watcher
must announce it read (`rolled`) within the step's time.
"""

from __future__ import annotations

import time
from typing import Any, Final

import cv2
import numpy as np

from tabletop.hardware import CAMERA_ENV
from tabletop.hardware.camera import CameraError, Frame, FrameSource, open_source
from tabletop.vision.calibration import Calibration, find_tray
from tabletop.vision.errors import CalibrationError

from .context import Context
from .person import Person

PART: Final = "camera"
DARKEST_MEAN: Final = 15.0
BRIGHTEST_MEAN: Final = 240.0
MOST_CLIPPED: Final = 0.25
SHARPEST_BLUR: Final = 15.0  # the Laplacian's variance under which a picture is out of focus
EMPTY_FRAMES: Final = 6  # frames of the empty tray looked at (the simulated camera films 6)


def check(context: Context) -> None:
    """Opens the table's camera and checks it, as the bridge will read it."""
    url = context.camera_source
    try:
        source = open_source(url)
        source.open()
    except CameraError as error:
        context.checklist.failed(PART, "open", str(error), _open_fix(url))
        return
    except Exception as error:  # a camera library's own failure: the person needs one line
        context.checklist.failed(
            PART, "open", f"source {url}: {type(error).__name__}: {error}", _open_fix(url)
        )
        return
    try:
        _check_open(context, source)
    finally:
        source.close()


def _open_fix(url: str) -> str:
    if url.startswith("picamera"):
        return (
            "check the ribbon cable (contacts towards the board), `rpicam-hello --list-cameras`, "
            "and that the venv sees the OS's picamera2 (python3 -m venv --system-site-packages)"
        )
    if url.startswith("usb") or url.isdigit() or url.startswith("/dev/video"):
        return "plug the webcam in; `ls /dev/video*` lists the cameras; try usb:1 for the next one"
    return (
        "set [camera] source to sim: (the simulated camera), usb:N, picamera, a video file or a "
        "folder of pictures"
    )


def _check_open(context: Context, source: FrameSource) -> None:
    checklist = context.checklist
    url = context.camera_source
    frames: list[Frame] = []
    try:
        for frame in source:
            frames.append(frame)
            if len(frames) >= EMPTY_FRAMES:
                break
    except CameraError as error:
        checklist.failed(PART, "frame", str(error), _open_fix(url))
        return
    if not frames:
        checklist.failed(
            PART,
            "frame",
            f"{url} opened but gave no picture",
            "another program may hold the camera (stop the bridge: sudo systemctl stop "
            "tabletop-bridge); a video file or folder may be empty",
        )
        return
    image = frames[-1].image
    height, width = image.shape[:2]
    swapped = context.swapped(CAMERA_ENV, "camera.source")
    checklist.passed(PART, "frame", f"{width}x{height} from {url}{swapped}")
    grey = _grey(image)
    _exposure(context, grey)
    _focus(context, grey)
    calibration = _calibration(context, width, height)
    _empty_tray(context, [f.image for f in frames], calibration)
    _throw(context, source, calibration)


def _grey(image: Any) -> Any:
    height, width = image.shape[:2]
    if width > 640:
        image = cv2.resize(image, (640, round(height * 640 / width)), interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _exposure(context: Context, grey: Any) -> None:
    mean = float(grey.mean())
    clipped = float(((grey <= 5) | (grey >= 250)).mean())
    detail = f"mean grey {mean:.0f} of 255, {clipped:.0%} clipped"
    if mean < DARKEST_MEAN:
        context.checklist.failed(
            PART, "exposure", f"{detail}: too dark", "take the lens cap off; light the tray"
        )
    elif mean > BRIGHTEST_MEAN or clipped > MOST_CLIPPED:
        context.checklist.failed(
            PART,
            "exposure",
            f"{detail}: over- or under-exposed",
            "move the lamp so it does not shine into the lens or glare on the tray floor",
        )
    else:
        context.checklist.passed(PART, "exposure", detail)


def _focus(context: Context, grey: Any) -> None:
    sharpness = float(cv2.Laplacian(grey, cv2.CV_64F).var())
    detail = (
        f"sharpness {sharpness:.0f} (the Laplacian's variance; under {SHARPEST_BLUR:g}: blurred)"
    )
    if sharpness < SHARPEST_BLUR:
        context.checklist.failed(
            PART,
            "focus",
            detail,
            "focus the lens on the tray floor (turn its ring), wipe it, and mount the camera "
            "at least its closest focus distance above the tray",
        )
    else:
        context.checklist.passed(PART, "focus", detail)


def _calibration(context: Context, width: int, height: int) -> Calibration | None:
    config = context.config
    calibrate = (
        f"tabletop dice calibrate --source {context.camera_source} --out "
        f"{config.camera.calibration or '/etc/tabletop/tray.json'}"
    )
    if config.camera.calibration is None:
        context.checklist.failed(
            PART,
            "calibration",
            "no [camera] calibration: the dice are read without knowing the tray",
            f"with the tray empty, run `{calibrate}` and set [camera] calibration to that file",
        )
        return None
    path = context.resolve(config.camera.calibration)
    try:
        calibration = Calibration.load(path)
    except CalibrationError as error:
        context.checklist.failed(
            PART, "calibration", str(error), f"with the tray empty, run `{calibrate}`"
        )
        return None
    if (calibration.width, calibration.height) != (width, height):
        context.checklist.failed(
            PART,
            "calibration",
            f"{path} is for {calibration.width}x{calibration.height} frames, the camera gives "
            f"{width}x{height}",
            f"calibrate again at this size: `{calibrate}`",
        )
        return None
    view = "; with the camera's view from a board" if calibration.view is not None else ""
    context.checklist.passed(PART, "calibration", f"{path}: tray floor at {calibration.tray}{view}")
    return calibration


def _empty_tray(context: Context, images: list[Any], calibration: Calibration | None) -> None:
    from tabletop.vision.rest import RestDetector, TrayState

    median = np.median(np.stack(images), axis=0).astype(np.uint8)
    height, width = median.shape[:2]
    tray = find_tray(median)
    if tray == (0, 0, width, height):
        context.checklist.failed(
            PART,
            "empty tray",
            "no tray floor found: no large even region around the middle of the picture",
            "aim the camera at the tray's middle, its floor filling most of the picture; a "
            "floor of one even colour unlike the table around it reads best",
        )
        return
    detector = RestDetector(background=calibration.background if calibration else None)
    states = [detector.observe(image).state for image in images]
    if states[-1] is not TrayState.EMPTY:
        context.checklist.failed(
            PART,
            "empty tray",
            f"the tray at {tray} does not look empty ({states[-1].value})",
            "take the dice and anything else out of the tray"
            + (", or calibrate again if the tray or the light changed" if calibration else ""),
        )
        return
    context.checklist.passed(PART, "empty tray", f"floor found at {tray}, empty")


def _throw(context: Context, source: FrameSource, calibration: Calibration | None) -> None:
    from tabletop.hardware.camera import SimulatedCamera
    from tabletop.vision.classify import ValueClassifier
    from tabletop.vision.watch import ThrowEventKind, table_watcher

    person: Person = context.person
    simulated = isinstance(source, SimulatedCamera)
    if not simulated and not person.present:
        context.checklist.skipped(
            PART,
            "throw",
            f"a test throw needs a person to throw a die ({person.absent})",
            f"run `{context.command} --part camera` on a terminal at the table",
        )
        return
    values: Any = ValueClassifier()
    if context.config.camera.dice_model is not None:
        from tabletop.vision.enrol import EnrolError, table_model

        try:
            values = ValueClassifier(table_model(context.resolve(context.config.camera.dice_model)))
        except EnrolError as error:
            context.checklist.failed(
                PART,
                "dice model",
                str(error),
                "enrol the table's dice again (`tabletop dice enrol`), or leave dice_model out",
            )
    watcher = table_watcher(calibration, values)
    if simulated:
        person.tell("the simulated camera throws a die for you")
    else:
        person.tell(f"throw one die into the tray (waiting {context.step_s:g} s; Enter skips)")
    deadline = time.monotonic() + context.step_s
    said: list[str] = []
    try:
        for frame in source:
            for event in watcher.feed(frame.image, frame.timestamp):
                if event.kind is ThrowEventKind.ROLLED:
                    _read(context, event.values, frame.truth if simulated else None)
                    return
                if event.kind in (
                    ThrowEventKind.COCKED,
                    ThrowEventKind.UNREADABLE,
                    ThrowEventKind.UNCLEAR,
                ):
                    said.append(f"{event.kind.value}{f' ({event.reason})' if event.reason else ''}")
                    if not simulated:
                        person.tell(f"  the camera saw: {said[-1]}; throw again")
            if time.monotonic() > deadline:
                break
            if not simulated and person.typed():
                context.checklist.skipped(PART, "throw", "skipped at the terminal")
                return
    except CameraError as error:
        context.checklist.failed(PART, "throw", str(error), _open_fix(context.camera_source))
        return
    context.checklist.failed(
        PART,
        "throw",
        f"no throw read in {context.step_s:g} s"
        + (f"; the camera saw {', '.join(said)}" if said else ""),
        "throw the die into the middle of the tray and keep hands out until it lies still; "
        "a cocked or unreadable die: light the tray evenly and check the focus",
    )


def _read(context: Context, values: tuple[int, ...], truth: Any) -> None:
    """A throw read; the simulated camera's is checked against what it drew."""
    read = " ".join(map(str, values))
    if truth is None:
        context.checklist.passed(PART, "throw", f"read {read}")
        return
    drawn = tuple(sorted(v for v in truth.values if v is not None))
    if tuple(values) == drawn:
        context.checklist.passed(PART, "throw", f"read {read}, as the simulated camera drew it")
    else:
        context.checklist.failed(
            PART,
            "throw",
            f"read {read}; the simulated camera drew {' '.join(map(str, drawn))}",
            "a misread of the simulated dice: report it with the camera's source URL",
        )
