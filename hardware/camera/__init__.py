"""Frame sources for the dice camera, chosen by URL.

| URL | source |
| --- | --- |
| `usb:0`, `usb:/dev/video2`, `0` | a USB webcam through cv2.VideoCapture |
| `picamera`, `picamera:1` | the Raspberry Pi camera through picamera2 (imported on open) |
| `file:throws.mp4`, `throws.mp4` | a video file |
| `folder:shots/`, `shots/` | a folder of pictures, in name order |
| `sim:?seed=3&throws=5&dice=2&cocked=0&hand=1&drift=0` | the simulated camera |

Options after `?` apply to every kind: `width`, `height` (usb, picamera), `fps` (folder, sim),
`loop=1` (file). The simulated camera also takes `keep=K` (every throw after the first is a
reroll: K dice stay, the others are thrown again), `edge=0..3` (the dice fly in from the left,
right, top or bottom; 4: a different edge each throw), `stay=N` (the throwing hand stays N
frames) and `heap=1` (the dice land in a heap).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

from .base import BadSourceURL, CameraError, CameraNotFound, Frame, FrameSource
from .capture import VideoCaptureSource
from .folder import FolderSource
from .picamera import PiCameraSource
from .sim import EDGES, SimTruth, SimulatedCamera, ThrowPlan

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

_SIM_KEYS = {
    "seed",
    "throws",
    "dice",
    "cocked",
    "hand",
    "drift",
    "fps",
    "width",
    "height",
    "keep",
    "edge",
    "stay",
    "heap",
}


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
        dice, keep, edge = int(o.get("dice", 1)), int(o.get("keep", 0)), int(o.get("edge", 0))
        if not 1 <= dice <= 40 or not 0 <= keep < dice:
            raise BadSourceURL(f"source {url}: dice must be 1 to 40 and keep 0 to dice - 1")
        if not 0 <= edge <= len(EDGES):
            raise BadSourceURL(f"source {url}: edge must be 0 to {len(EDGES)}")
        plans = [
            ThrowPlan(
                dice=dice - keep if number else dice,
                keep=keep if number else 0,
                cocked=int(o.get("cocked", 0)),
                hand_first=bool(o.get("hand", 1)),
                light_drift=o.get("drift", 0.0),
                edge=EDGES[number % len(EDGES) if edge == len(EDGES) else edge],
                hand_stays=int(o.get("stay", 0)),
                heap=bool(o.get("heap", 0)),
            )
            for number in range(int(o.get("throws", 3)))
        ]
        return SimulatedCamera(
            plans,
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
