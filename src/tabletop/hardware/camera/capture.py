"""Sources read through cv2.VideoCapture: a USB webcam, or a video file."""

from __future__ import annotations

import time

import cv2
import numpy as np

from .base import CameraNotFound, Frame, FrameSource


class VideoCaptureSource(FrameSource):
    """A webcam (device number or /dev path) or a video file, read frame by frame."""

    def __init__(
        self,
        target: int | str,
        url: str = "",
        width: int | None = None,
        height: int | None = None,
        loop: bool = False,
    ) -> None:
        self.target = target
        self.url = url or str(target)
        self.width = width
        self.height = height
        self.loop = loop
        self._capture: cv2.VideoCapture | None = None
        self._index = 0

    @property
    def is_file(self) -> bool:
        return isinstance(self.target, str) and not self.target.startswith("/dev/")

    @property
    def live(self) -> bool:
        """A webcam is live; a video file is a film that ends."""
        return not self.is_file

    def open(self) -> None:
        capture = cv2.VideoCapture(self.target)
        if not capture.isOpened():
            capture.release()
            what = "video file" if self.is_file else "camera"
            raise CameraNotFound(f"cannot open {what} {self.target!r} (source {self.url})")
        if self.width:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
        if self.height:
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        self._capture = capture
        self._index = 0

    def read(self) -> Frame | None:
        if self._capture is None:
            raise CameraNotFound(f"source {self.url} is not open")
        ok, image = self._capture.read()
        if not ok and self.loop and self.is_file and self._index > 0:
            self._capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, image = self._capture.read()
        if not ok or image is None:
            return None
        if self.is_file:
            fps = self._capture.get(cv2.CAP_PROP_FPS) or 30.0
            stamp = self._index / fps
        else:
            stamp = time.monotonic()
        frame = Frame(np.asarray(image, np.uint8), self._index, stamp)
        self._index += 1
        return frame

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None
