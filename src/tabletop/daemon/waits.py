"""No silent wait: the table says in words when the game has waited too long for someone.

A table that waits without a word is the worst thing a game master can meet: the screen stops
moving and nobody knows why. `WaitWatch` keeps, for one table, since when the game has waited
for the same thing (the public prompt: its words, its kind and who is to act) with no command
applied. When that lasts longer than the game can expect of the one it waits for, it raises the
`wait` alert naming who or what the table waits for, in the prompt's words; the alert clears as
soon as anything moves. It holds no clock: callers pass `now` (seconds, monotonic).

The public prompt names no hidden card, so the alert is safe on the public `table/alert` topic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from tabletop.rules.games.game import WAIT_ALERT, WaitKind
from tabletop.rules.games.reading import Action, Alert, AlertCleared

__all__ = ["WAIT_ALERT", "WaitWatch", "patience_scaled", "wait_words"]

# How long a table waits, by what it waits for, before it says so (seconds at a real table).
# A throw is done in well under a minute; laying or turning cards and choosing take a person
# longer; the game master may be explaining a rule. No game: nothing is awaited.
DEFAULT_PATIENCE_S: Final[Mapping[WaitKind, float]] = {
    WaitKind.DICE: 90.0,
    WaitKind.CARD: 180.0,
    WaitKind.CHOICE: 180.0,
    WaitKind.GAME_MASTER: 300.0,
}


# The least patience at any speed: a throw read by the camera on a loaded 2-core host can take
# seconds, and a wait alert is for a table that has truly stopped.
MIN_PATIENCE_S: Final = 10.0


def patience_scaled(scale: float) -> dict[WaitKind, float]:
    """The default patience divided by `scale` (the simulated table's people are `scale`
    times quicker than people), never under `MIN_PATIENCE_S`: the devices, the camera and a
    busy host keep their own time."""
    if not scale > 0:
        raise ValueError(f"scale: expected a positive number, got {scale!r}")
    return {
        kind: max(MIN_PATIENCE_S, seconds / scale) for kind, seconds in DEFAULT_PATIENCE_S.items()
    }


def _minutes(seconds: float) -> str:
    if seconds < 120:
        return f"{round(seconds)} s"
    return f"{round(seconds / 60)} min"


def wait_words(prompt: Mapping[str, Any], waited: float) -> str:
    """The alert's words: for whom or what, for how long, the prompt, and what to check."""
    who = [str(name) for name in prompt.get("who") or [] if isinstance(name, str)]
    kind = prompt.get("waiting")
    words = str(prompt.get("prompt") or "").strip()
    awaited = " and ".join(who) if who else ("the game master" if kind == "game_master" else "")
    what = {
        "dice": "a throw of the dice",
        "card": "a card laid, turned or lifted on the mat",
        "choice": "a choice",
        "game_master": "the game master's call",
    }.get(str(kind), "a move")
    head = f"the table has waited over {_minutes(waited)} for {awaited or what}"
    if awaited:
        head += f" ({what})"
    check = {
        "dice": "if the dice were thrown, the camera did not read them: check the tray and "
        "the camera, or enter the throw (tabletop gm roll)",
        "card": "if it was done, the mat did not see it: lift the card and lay it again, "
        "check the mat's connection, or enter the move (tabletop gm)",
    }.get(str(kind), "the game master can enter the move (tabletop gm)")
    return f"{head}: {words}; {check}" if words else f"{head}; {check}"


@dataclass(slots=True)
class WaitWatch:
    """Since when one table has waited for the same thing, and its `wait` alert."""

    patience: Mapping[WaitKind, float] = field(default_factory=lambda: dict(DEFAULT_PATIENCE_S))
    _awaited: tuple[Any, ...] | None = None
    _since: float = 0.0
    _raised: str | None = None

    def check(self, prompt: Mapping[str, Any], moves: int, now: float) -> list[Action]:
        """The alert to raise, refresh or clear, given the public prompt now and the number of
        commands applied so far (any applied command is the table moving)."""
        awaited = (
            prompt.get("waiting"),
            prompt.get("prompt"),
            tuple(prompt.get("who") or ()),
            moves,
        )
        if awaited != self._awaited:
            self._awaited = awaited
            self._since = now
            if self._raised is not None:
                self._raised = None
                return [AlertCleared(WAIT_ALERT)]
            return []
        try:
            limit = self.patience.get(WaitKind(prompt.get("waiting")))
        except ValueError:
            limit = None
        if limit is None:
            return []
        # Said each time another whole `limit` has passed, with the time it passed: words
        # that changed every second would keep every screen redrawing, and a table still
        # waiting after it was told is told again (a throw made again and lost again).
        passed = int((now - self._since) // limit)
        if passed < 1:
            return []
        words = wait_words(prompt, passed * limit)
        if words == self._raised:
            return []
        self._raised = words
        return [Alert(WAIT_ALERT, words)]

    @property
    def raised(self) -> bool:
        """Whether the `wait` alert is up."""
        return self._raised is not None
