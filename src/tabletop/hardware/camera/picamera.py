"""The Raspberry Pi camera through picamera2, which is imported only when this source opens.

picamera2 comes from the OS packages (`sudo apt install python3-picamera2`), not from pip, so
the import happens in open(): everything else in the project works on machines without it.
"""

from __future__ import annotations

import time
from typing import Any

import cv2
import numpy as np

from .base import CameraError, CameraNotFound, Frame, FrameSource


class PiCameraSource(FrameSource):
    """Frames from the Pi camera module at a chosen size, as BGR arrays."""

    @property
    def live(self) -> bool:
        return True

    def __init__(self, camera: int = 0, width: int = 640, height: int = 480, url: str = "") -> None:
        self.camera = camera
        self.width = width
        self.height = height
        self.url = url or f"picamera:{camera}"
        self._picam: Any = None
        self._index = 0

    def open(self) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as error:
            raise CameraNotFound(
                "the Pi camera needs picamera2 (on Raspberry Pi OS: sudo apt install "
                "python3-picamera2, and make the venv with --system-site-packages)"
            ) from error
        try:
            picam = Picamera2(self.camera)
            config = picam.create_video_configuration(
                main={"size": (self.width, self.height), "format": "RGB888"}
            )
            picam.configure(config)
            picam.start()
        except (RuntimeError, IndexError, OSError) as error:
            raise CameraNotFound(
                f"cannot start Pi camera {self.camera}: {error} (is its ribbon cable seated, "
                "and does `rpicam-hello --list-cameras` list it?)"
            ) from error
        self._picam = picam
        self._index = 0

    def read(self) -> Frame | None:
        if self._picam is None:
            raise CameraNotFound(f"source {self.url} is not open")
        try:
            array = self._picam.capture_array()
        except (RuntimeError, OSError) as error:  # the camera went away under us
            raise CameraError(f"Pi camera {self.camera} stopped giving frames: {error}") from error
        # picamera2's "RGB888" is laid out B, G, R in memory: already OpenCV's order.
        image = np.asarray(array[:, :, :3], np.uint8)
        if image.shape[1] != self.width:
            image = np.asarray(cv2.resize(image, (self.width, self.height)), np.uint8)
        frame = Frame(image, self._index, time.monotonic())
        self._index += 1
        return frame

    def close(self) -> None:
        if self._picam is not None:
            self._picam.stop()
            self._picam.close()
            self._picam = None
