"""A folder of pictures played as frames, in name order."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .base import CameraError, CameraNotFound, Frame, FrameSource

PICTURE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


class FolderSource(FrameSource):
    """Every picture in a folder, sorted by name, at a nominal frame rate.

    Live: a folder may be one a capture tool fills. Opened again, it goes on after the last
    picture it played (its frame numbers and times too), so a folder that ran dry and was
    filled again plays only what is new.
    """

    @property
    def live(self) -> bool:
        return True

    def __init__(self, folder: str | Path, url: str = "", fps: float = 10.0) -> None:
        self.folder = Path(folder)
        self.url = url or str(folder)
        self.fps = fps
        self._files: list[Path] = []
        self._next = 0  # the next of _files to play
        self._count = 0  # frames played since this source was made
        self._last: str | None = None  # the name of the last picture played

    def open(self) -> None:
        if not self.folder.is_dir():
            raise CameraNotFound(f"no folder {self.folder} (source {self.url})")
        files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in PICTURE_SUFFIXES)
        if self._last is not None:
            last = self._last
            files = [p for p in files if p.name > last]
        if not files:
            after = "" if self._last is None else f" after {self._last}"
            raise CameraNotFound(
                f"folder {self.folder} holds no pictures{after} (source {self.url})"
            )
        self._files = files
        self._next = 0

    def read(self) -> Frame | None:
        if self._next >= len(self._files):
            return None
        path = self._files[self._next]
        self._next += 1
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise CameraError(f"{path} is not a picture OpenCV can read")
        frame = Frame(np.asarray(image, np.uint8), self._count, self._count / self.fps, path)
        self._count += 1
        self._last = path.name
        return frame
