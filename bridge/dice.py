"""The bridge's dice source: frames from the configured camera through the vision pipeline."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

log = logging.getLogger(__name__)

ANNOUNCED = ("rolled", "cocked", "unreadable", "unclear", "hand", "cleared", "rolling")


def camera_throws(
    source_url: str, calibration_path: str | None
) -> Callable[[threading.Event], Iterator[dict[str, Any]]]:
    """A dice source for the bridge: opens `source_url` (usb:0, picamera, a file, sim:...) when
    the bridge starts, and yields every throw the watcher announces, as JSON objects."""

    def throws(stop: threading.Event) -> Iterator[dict[str, Any]]:
        import cv2

        from hardware.camera import open_source
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
                        yield event.to_json()
        log.warning("bridge: the camera %s has no more frames", source_url)

    return throws
