"""The error a person at the keyboard can fix: every command line part raises it, `tabletop`
prints it as one line and exits 2. It lives here, importing nothing, so that any package may
raise it without importing the command line itself."""

from __future__ import annotations


class UserError(Exception):
    """A problem the person at the keyboard can fix; printed as one line, never as a traceback."""
