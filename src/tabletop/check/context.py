"""What every part's check is handed: the table's file, the person, the checklist."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tabletop.config.table import TableConfig
from tabletop.hardware import CAMERA_ENV, MAT_ENV

from .person import Person
from .report import Checklist

# The environment swaps the devices the file names, as it does for `tabletop bridge`
# (tabletop.hardware: MAT_ENV, CAMERA_ENV), so the check looks at what the bridge would open.


@dataclass(slots=True)
class Context:
    """One run of `tabletop check`."""

    config: TableConfig
    path: Path  # the table's file
    person: Person
    checklist: Checklist
    step_s: float = 60.0  # how long a step waits for the person's hands
    zones: tuple[str, ...] = ()  # the zones the mat's walk visits (empty: every seat's)

    def resolve(self, name: str) -> Path:
        """A path the table file names, relative to the file's folder (as an absolute one
        stays), so the check finds what `tabletop bridge` started from anywhere finds."""
        path = Path(name).expanduser()
        return path if path.is_absolute() else self.path.resolve().parent / path

    @property
    def command(self) -> str:
        """How to run this check again, for the fixes that say so."""
        return f"tabletop check --config {self.path}"

    @property
    def mat_port(self) -> str:
        """The mat's port: $TABLETOP_MAT, else mat.port (`sim://` is the simulated mat)."""
        port = os.environ.get(MAT_ENV) or self.config.mat.port
        return "sim:" if port == "sim://" else port

    @property
    def camera_source(self) -> str:
        """The camera's source: $TABLETOP_CAMERA, else camera.source."""
        return os.environ.get(CAMERA_ENV) or self.config.camera.source

    def swapped(self, variable: str, setting: str) -> str:
        """Words for a finding when the environment swapped the device the file names."""
        if not os.environ.get(variable):
            return ""
        return f" (${variable}, instead of {setting})"
