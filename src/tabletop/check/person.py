"""The person at the table: told what to do and asked on the terminal, or absent.

The check asks only on a terminal: with --yes, or with standard input that is not a terminal
(a script, a pipe, systemd), every step that needs a person is skipped and the checklist says
why. While the check waits for the person's hands (a card laid, a pad touched), a line typed
on the terminal (`skip` or just Enter) skips that step, so nobody is held by a dead part.
"""

from __future__ import annotations

import os
import select
import sys
from typing import TextIO

YES = ("y", "yes")
NO = ("n", "no")


class PersonGone(Exception):
    """Standard input closed while the check asked a question (the person left)."""


class Person:
    """Someone at the terminal, or nobody (`absent` says why: "--yes was given")."""

    def __init__(self, stdin: TextIO, out: TextIO, absent: str | None = None) -> None:
        self.stdin = stdin
        self.out = out
        self.absent = absent

    @classmethod
    def at_terminal(cls, yes: bool) -> Person:
        """The person at this terminal; absent with --yes or when stdin is no terminal."""
        stdin, out = sys.stdin, sys.stderr
        absent = None
        if yes:
            absent = "--yes was given"
        elif not stdin.isatty():
            absent = "standard input is not a terminal"
        return cls(stdin, out, absent)

    @property
    def present(self) -> bool:
        return self.absent is None

    def tell(self, text: str) -> None:
        """Says something to the person (on standard error: the checklist owns stdout)."""
        print(text, file=self.out, flush=True)

    def confirm(self, question: str) -> bool:
        """Asks a yes-or-no question until answered; raises PersonGone when stdin closes."""
        while True:
            print(f"{question} [y/n] ", end="", file=self.out, flush=True)
            line = self._readline()
            if not line:
                raise PersonGone("standard input closed while a question was asked")
            answer = line.strip().lower()
            if answer in YES:
                return True
            if answer in NO:
                return False
            self.tell("please answer y or n")

    def typed(self) -> bool:
        """True when the person typed a line (Enter, or `skip`): skip the step waited on."""
        try:
            fd = self.stdin.fileno()
        except (AttributeError, OSError, ValueError):
            return False
        ready, _, _ = select.select([fd], [], [], 0)
        if ready:
            os.read(fd, 1024)  # the line itself (end of input skips too: nobody will act)
        return bool(ready)

    def _readline(self) -> str:
        """One line from the terminal, read from its descriptor (as `typed` reads), so no
        buffer holds back what the person typed."""
        try:
            fd = self.stdin.fileno()
        except (AttributeError, OSError, ValueError):
            return self.stdin.readline()
        data = b""
        while not data.endswith(b"\n"):
            chunk = os.read(fd, 1)
            if not chunk:
                break
            data += chunk
        return data.decode("utf-8", errors="replace")
