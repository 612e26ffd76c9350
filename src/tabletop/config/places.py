"""Where a table's programs keep their files unless the table's file or a flag says otherwise.

Under the data directory (`$XDG_DATA_HOME`, else ~/.local/share), `tabletop/`: the console
writes the game master's corrections there and the bridge enrols the camera from them, so both
must agree on the place.
"""

from __future__ import annotations

import os
from pathlib import Path


def data_home() -> Path:
    """The data directory every program of the table keeps its files under."""
    return Path(os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"))


def corrections_folder(table: str, configured: str | Path | None = None) -> Path:
    """Where a table's corrections are kept: `configured` (--corrections, or the table file's
    `camera.corrections`) when given, else beside the game log, under the data directory."""
    if configured is not None:
        return Path(configured)
    return data_home() / "tabletop" / "corrections" / table
