"""Replays a file of JSON commands through the engine, keeping going past refused lines."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .errors import RulesError
from .refusals import Refusals
from .sixshooter import Event, Game, state_to_json


@dataclass(frozen=True, slots=True)
class Step:
    """One line of the file: the command read, and its events or the error that refused it."""

    line: int
    command: Any
    events: tuple[Event, ...] = ()
    error: str | None = None


@dataclass(slots=True)
class Replay:
    """The outcome of a replay: the game as it ended and every step taken."""

    game: Game = field(default_factory=Game)
    steps: list[Step] = field(default_factory=list)
    refusals: Refusals = field(default_factory=Refusals)

    @property
    def rejected(self) -> list[dict[str, Any]]:
        """One entry per refused line of the whole file: {"line": N, "error": "..."}."""
        return [{"line": s.line, "error": s.error} for s in self.steps if s.error is not None]

    def to_json(self) -> dict[str, Any]:
        """The final state as `tabletop replay --json` prints it: the last game's refusals."""
        return {**state_to_json(self.game.state), "rejected": self.refusals.to_json()}

    def refused(self, step: Step) -> None:
        """Records a refused line."""
        assert step.error is not None
        self.steps.append(step)
        self.refusals.add(step.line, step.error)

    def applied(self, step: Step) -> None:
        """Records an accepted line; a new game starts the list of refusals again."""
        self.steps.append(step)
        if isinstance(step.command, dict) and step.command.get("cmd") == "new_game":
            self.refusals.new_game()


def replay_lines(lines: Iterable[str]) -> Replay:
    """Applies each line's command in order; blank lines and lines starting with # are skipped."""
    replay = Replay()
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as error:
            replay.refused(
                Step(number, text, error=f"not valid JSON: {error.msg} at column {error.colno}")
            )
            continue
        try:
            events = replay.game.execute(raw)
        except RulesError as error:
            replay.refused(Step(number, raw, error=str(error)))
        else:
            replay.applied(Step(number, raw, events))
    return replay
