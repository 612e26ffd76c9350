"""The frame-source interface every camera backend implements, and its errors."""

from __future__ import annotations

import abc
from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]


class CameraError(Exception):
    """Root of every error a frame source raises on purpose."""


class CameraNotFound(CameraError):
    """The device, file or folder named by a source URL is not there or cannot be opened."""


class BadSourceURL(CameraError):
    """A source URL that names no known backend or has a malformed option."""


@dataclass(frozen=True)
class Frame:
    """One picture from a source: BGR pixels, its number, when it was taken, and (simulated) truth.

    `truth` is None from real cameras; the simulated camera puts what it drew there.
    """

    image: Image
    index: int
    timestamp: float
    truth: Any = None


class FrameSource(abc.ABC):
    """A camera, a video, a folder or the simulator: open it, read frames until None, close it."""

    url: str = ""

    @property
    def live(self) -> bool:
        """True for a device (or a folder a capture tool fills) that may stop and come back:
        its end means it stopped (a bumped cable), and it is opened again. A film (a video
        file, the simulated camera) ends when it has played."""
        return False

    @abc.abstractmethod
    def open(self) -> None:
        """Acquires the device or file; raises CameraNotFound when it cannot."""

    @abc.abstractmethod
    def read(self) -> Frame | None:
        """The next frame, or None when the source has ended."""

    def close(self) -> None:  # noqa: B027 - most sources have nothing to release
        """Releases the device; safe to call twice."""

    def __enter__(self) -> FrameSource:
        self.open()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame
