"""The rules daemon's exceptions: one root, so the command line can report any of them in a line."""

from __future__ import annotations


class DaemonError(Exception):
    """Root of every error the rules daemon raises on purpose."""
