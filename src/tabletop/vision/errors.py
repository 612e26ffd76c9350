"""The vision package's exceptions: one root, so callers can catch everything it raises."""

from __future__ import annotations


class VisionError(Exception):
    """Root of every error the vision package raises on purpose."""


class ModelError(VisionError):
    """The classifier model is missing or cannot be read."""


class CalibrationError(VisionError):
    """A calibration file is missing, malformed, or does not fit the camera's frames."""


class SettingsError(VisionError):
    """Reader settings that cannot work (named in the message)."""
