"""Frame sources for the dice camera, chosen by URL.

| URL | source |
| --- | --- |
| `usb:0`, `usb:/dev/video2`, `0` | a USB webcam through cv2.VideoCapture |
| `picamera`, `picamera:1` | the Raspberry Pi camera through picamera2 (imported on open) |
| `file:throws.mp4`, `throws.mp4` | a video file |
| `folder:shots/`, `shots/` | a folder of pictures, in name order |
| `sim:?seed=3&throws=5&dice=2&cocked=0&hand=1&drift=0` | the simulated camera |

Options after `?` apply to every kind: `width`, `height` (usb, picamera), `fps` (folder, sim),
`loop=1` (file).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

from .base import BadSourceURL, CameraError, CameraNotFound, Frame, FrameSource
from .capture import VideoCaptureSource
from .folder import FolderSource
from .picamera import PiCameraSource
from .sim import SimTruth, SimulatedCamera, ThrowPlan

__all__ = [
    "BadSourceURL",
    "CameraError",
    "CameraNotFound",
    "Frame",
    "FrameSource",
    "SimTruth",
    "SimulatedCamera",
    "ThrowPlan",
    "open_source",
]

_SIM_KEYS = {"seed", "throws", "dice", "cocked", "hand", "drift", "fps", "width", "height"}


def _options(url: str, query: str, allowed: set[str]) -> dict[str, float]:
    options: dict[str, float] = {}
    for key, values in parse_qs(query, keep_blank_values=True).items():
        if key not in allowed:
            known = ", ".join(sorted(allowed)) or "none"
            raise BadSourceURL(f"source {url}: unknown option {key!r} (known: {known})")
        try:
            options[key] = float(values[-1])
        except ValueError as error:
            raise BadSourceURL(f"source {url}: option {key!r} must be a number") from error
    return options


def open_source(url: str) -> FrameSource:
    """The frame source a URL names (not yet opened: call open() or use `with`)."""
    spec, _, query = url.partition("?")
    kind, colon, rest = spec.partition(":")
    if not colon or len(kind) == 1:  # a bare path or number (a Windows drive letter is a path)
        kind, rest = "", spec
    if kind == "sim":
        o = _options(url, query, _SIM_KEYS)
        plan = ThrowPlan(
            dice=int(o.get("dice", 1)),
            cocked=int(o.get("cocked", 0)),
            hand_first=bool(o.get("hand", 1)),
            light_drift=o.get("drift", 0.0),
        )
        return SimulatedCamera(
            [plan] * int(o.get("throws", 3)),
            seed=int(o.get("seed", 0)),
            width=int(o.get("width", 640)),
            height=int(o.get("height", 480)),
            fps=o.get("fps", 30.0),
            url=url,
        )
    if kind == "usb" or (kind == "" and rest.isdigit()):
        o = _options(url, query, {"width", "height"})
        target: int | str = int(rest) if rest.isdigit() else rest
        if rest == "":
            target = 0
        width, height = o.get("width"), o.get("height")
        return VideoCaptureSource(
            target, url, int(width) if width else None, int(height) if height else None
        )
    if kind == "picamera":
        o = _options(url, query, {"width", "height"})
        if rest and not rest.isdigit():
            raise BadSourceURL(f"source {url}: picamera takes a camera number, not {rest!r}")
        return PiCameraSource(
            int(rest or 0), int(o.get("width", 640)), int(o.get("height", 480)), url
        )
    if kind == "folder" or (kind == "" and Path(rest).is_dir()):
        o = _options(url, query, {"fps"})
        return FolderSource(rest, url, o.get("fps", 10.0))
    if kind in {"file", ""}:
        o = _options(url, query, {"loop"})
        if not Path(rest).is_file():
            raise CameraNotFound(f"source {url}: no file {rest}")
        return VideoCaptureSource(rest, url, loop=bool(o.get("loop", 0)))
    raise BadSourceURL(
        f"source {url}: unknown kind {kind!r} (use usb:, picamera:, file:, folder: or sim:)"
    )
