"""What every part's check is handed: the table's file, the person, the checklist."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bridge.config import TableConfig

from .person import Person
from .report import Checklist


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
