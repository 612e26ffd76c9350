"""Frame sources for the dice camera, chosen by URL.

| URL | source |
| --- | --- |
| `usb:0`, `usb:/dev/video2`, `usb`, `0`, `/dev/video0` | a USB webcam through cv2.VideoCapture |
| `picamera`, `picamera:`, `picamera:1` | the Pi camera through picamera2 (imported on open) |
| `file:throws.mp4`, `throws.mp4` | a video file |
| `folder:shots/`, `shots/` | a folder of pictures, in name order |
| `sim`, `sim:`, `sim:?seed=3&throws=5&dice=2&cocked=0&hand=1&drift=0` | the simulated camera |

Options after `?` apply to every kind: `width`, `height` (usb, picamera), `fps` (folder, sim),
`loop=1` (file). The simulated camera also takes `keep=K` (every throw after the first is a
reroll: K dice stay, the others are thrown again), `edge=0..3` (the dice fly in from the left,
right, top or bottom; 4: a different edge each throw), `stay=N` (the throwing hand stays N
frames) and `heap=1` (the dice land in a heap). Anything else is refused with the list of
forms (`SOURCE_FORMS`); `parse_source` checks a URL without opening it (a table file is checked
at start so).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs

from .base import BadSourceURL, CameraError, CameraNotFound, Frame, FrameSource
from .capture import VideoCaptureSource
from .folder import FolderSource
from .picamera import PiCameraSource
from .sim import EDGES, SimTruth, SimulatedCamera, ThrowPlan

__all__ = [
    "SOURCE_FORMS",
    "BadSourceURL",
    "CameraError",
    "CameraNotFound",
    "Frame",
    "FrameSource",
    "SimTruth",
    "SimulatedCamera",
    "SourceSpec",
    "ThrowPlan",
    "open_source",
    "parse_source",
]

# What a person may write, for the message that refuses anything else.
SOURCE_FORMS = (
    "sim (the simulated camera), picamera or picamera:1 (the Pi camera), usb:0 or /dev/video0 "
    "(a webcam), a video file (throws.mp4, file:throws.mp4) or a folder of pictures (shots/, "
    "folder:shots)"
)
# The kinds a URL may name before its colon.
KINDS = ("sim", "usb", "picamera", "file", "folder")

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


# The options each kind takes (a path's are those of a file or a folder, seen on open).
_OPTIONS: dict[str, set[str]] = {
    "sim": _SIM_KEYS,
    "usb": {"width", "height"},
    "picamera": {"width", "height"},
    "file": {"loop"},
    "folder": {"fps"},
    "path": {"loop", "fps"},
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


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """A source URL read: its kind, what it names (a device, a path) and its options."""

    url: str
    kind: str  # sim, usb, picamera, file, folder, or path (a file or a folder: seen on open)
    target: str
    query: str

    @property
    def names_path(self) -> bool:
        """True when `target` is a path on this machine (a file, a folder or a device)."""
        return self.kind in {"file", "folder", "path"} or self.target.startswith("/")

    def with_target(self, target: str) -> str:
        """The URL with `target` in place of its path (a relative path made absolute)."""
        prefix = "" if self.kind == "path" else f"{self.kind}:"
        return f"{prefix}{target}" + (f"?{self.query}" if self.query else "")


def parse_source(url: str) -> SourceSpec:
    """Reads a source URL without opening anything; BadSourceURL lists the forms it takes."""
    text = url.strip()
    if not text:
        raise BadSourceURL(f"source {url!r}: empty; use {SOURCE_FORMS}")
    spec, _, query = text.partition("?")
    kind, colon, rest = spec.partition(":")
    if colon and len(kind) > 1 and kind.lower() in KINDS:
        kind = kind.lower()
        if kind == "sim" and rest.strip("/"):
            raise BadSourceURL(f"source {url}: sim takes options after ?, not {rest!r}")
        if kind in {"file", "folder"} and not rest:
            raise BadSourceURL(f"source {url}: {kind}: needs a path ({kind}:shots)")
        found = SourceSpec(url, kind, "" if kind == "sim" else rest, query)
    elif colon and len(kind) > 1 and not kind.startswith((".", "/", "~")):
        raise BadSourceURL(f"source {url}: unknown kind {kind!r}; the forms are {SOURCE_FORMS}")
    # No kind: a bare word, a number or a path (a Windows drive letter is a path).
    elif spec.lower() in {"sim", "usb", "picamera"}:
        found = SourceSpec(url, spec.lower(), "", query)
    elif spec.isdigit() or spec.startswith("/dev/"):
        found = SourceSpec(url, "usb", spec, query)
    else:
        found = SourceSpec(url, "path", spec, query)
    if found.kind == "picamera" and found.target and not found.target.isdigit():
        raise BadSourceURL(
            f"source {url}: picamera takes a camera number (picamera:1), not {found.target!r}"
        )
    usb = found.target
    if found.kind == "usb" and usb and not usb.isdigit() and not usb.startswith("/dev/"):
        raise BadSourceURL(
            f"source {url}: usb takes a camera number (usb:0) or a device "
            f"(usb:/dev/video2), not {found.target!r}"
        )
    _options(url, query, _OPTIONS[found.kind])  # a wrong option is refused before opening
    return found


def open_source(url: str) -> FrameSource:
    """The frame source a URL names (not yet opened: call open() or use `with`)."""
    source = parse_source(url)
    kind, rest, query = source.kind, source.target, source.query
    if kind == "path":
        if Path(rest).is_dir():
            kind = "folder"
        elif Path(rest).is_file():
            kind = "file"
        else:
            raise CameraNotFound(
                f"source {url}: no file or folder {rest}; the forms are {SOURCE_FORMS}"
            )
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
    if kind == "usb":
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
        return PiCameraSource(
            int(rest or 0), int(o.get("width", 640)), int(o.get("height", 480)), url
        )
    if kind == "folder":
        o = _options(url, query, {"fps"})
        return FolderSource(rest, url, o.get("fps", 10.0))
    o = _options(url, query, {"loop"})
    if not Path(rest).is_file():
        raise CameraNotFound(f"source {url}: no file {rest}")
    return VideoCaptureSource(rest, url, loop=bool(o.get("loop", 0)))
