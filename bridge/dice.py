"""The bridge's dice source: frames from the configured camera through the vision pipeline."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

log = logging.getLogger(__name__)

ANNOUNCED = ("rolled", "cocked", "unreadable", "unclear", "hand", "cleared", "rolling")
# A settled throw comes with its annotated picture, under this key (the bridge publishes it on
# dice/picture, not inside the JSON event).
PICTURED = ("rolled", "cocked", "unreadable", "unclear")
PICTURE = "picture"


def camera_throws(
    source_url: str, calibration_path: str | None
) -> Callable[[threading.Event], Iterator[dict[str, Any]]]:
    """A dice source for the bridge: opens `source_url` (usb:0, picamera, a file, sim:...) when
    the bridge starts, and yields every throw the watcher announces, as JSON objects."""

    def throws(stop: threading.Event) -> Iterator[dict[str, Any]]:
        import cv2

        from hardware.camera import open_source
        from vision.annotate import throw_picture
        from vision.calibration import Calibration
        from vision.reader import DiceReader
        from vision.rest import RestDetector
        from vision.watch import ThrowWatcher

        cv2.setNumThreads(1)  # the mat and MQTT share the Pi's cores
        calibration = Calibration.load(calibration_path) if calibration_path else None
        detector = RestDetector(background=calibration.background if calibration else None)
        watcher = ThrowWatcher(DiceReader(calibration=calibration), detector)
        with open_source(source_url) as source:
            for frame in source:
                if stop.is_set():
                    return
                for event in watcher.feed(frame.image, frame.timestamp):
                    if event.kind.value in ANNOUNCED:
                        throw = event.to_json()
                        if event.kind.value in PICTURED:
                            throw[PICTURE] = throw_picture(
                                frame.image, event.reading, _caption(throw)
                            )
                        yield throw
        log.warning("bridge: the camera %s has no more frames", source_url)

    return throws


def _caption(throw: dict[str, Any]) -> str:
    """The picture's caption: what the watcher announced, in a few words."""
    if throw.get("event") == "rolled":
        return "rolled " + " ".join(str(v) for v in throw.get("values", []))
    reason = throw.get("reason")
    return f"{throw.get('event')}: {reason}" if reason else str(throw.get("event"))
