"""The ground floor: the error a person at the keyboard can fix.

Every command line part raises `UserError`; `tabletop` prints it as one line and exits 2. It
lives in a package of its own that imports nothing, so that every package (hardware, vision,
bridge, rules, console, tabletop) may raise it without any arrow running back up to the
command line."""

from __future__ import annotations


class UserError(Exception):
    """A problem the person at the keyboard can fix; printed as one line, never as a traceback."""
