"""A folder of pictures played as frames, in name order."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .base import CameraError, CameraNotFound, Frame, FrameSource

PICTURE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


class FolderSource(FrameSource):
    """Every picture in a folder, sorted by name, at a nominal frame rate."""

    def __init__(self, folder: str | Path, url: str = "", fps: float = 10.0) -> None:
        self.folder = Path(folder)
        self.url = url or str(folder)
        self.fps = fps
        self._files: list[Path] = []
        self._index = 0

    def open(self) -> None:
        if not self.folder.is_dir():
            raise CameraNotFound(f"no folder {self.folder} (source {self.url})")
        self._files = sorted(
            p for p in self.folder.iterdir() if p.suffix.lower() in PICTURE_SUFFIXES
        )
        if not self._files:
            raise CameraNotFound(f"folder {self.folder} holds no pictures (source {self.url})")
        self._index = 0

    def read(self) -> Frame | None:
        if self._index >= len(self._files):
            return None
        path = self._files[self._index]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise CameraError(f"{path} is not a picture OpenCV can read")
        frame = Frame(np.asarray(image, np.uint8), self._index, self._index / self.fps, path)
        self._index += 1
        return frame
