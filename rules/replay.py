"""Replays a file of JSON commands through the games, keeping going past refused lines.

The file's game is the one its `new_game` names (`"game": NAME`), Six Shooter if it names
none; a later `new_game` may name another once the game before it is over."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import games
from .errors import IllegalMove, RulesError
from .game import Engine, GameRules
from .refusals import Refusals


@dataclass(frozen=True, slots=True)
class Step:
    """One line of the file: the command read, and its events or the error that refused it."""

    line: int
    command: Any
    events: tuple[Any, ...] = ()
    error: str | None = None


@dataclass(slots=True)
class Replay:
    """The outcome of a replay: the game as it ended and every step taken."""

    rules: GameRules = field(default_factory=lambda: games.get(games.DEFAULT_GAME))
    game: Engine = field(init=False)
    steps: list[Step] = field(default_factory=list)
    refusals: Refusals = field(default_factory=Refusals)

    def __post_init__(self) -> None:
        self.game = self.rules.new_engine()

    def execute(self, raw: Any) -> tuple[Any, ...]:
        """Applies one command; a `new_game` naming another game starts it on its own engine."""
        if isinstance(raw, dict) and raw.get("cmd") == "new_game" and "game" in raw:
            rules = games.get(raw["game"], "game")
            command = {key: value for key, value in raw.items() if key != "game"}
            if rules is not self.rules:
                if not self.rules.is_over(self.game.state):
                    raise IllegalMove(
                        f"this table is playing {self.rules.info.title}: end that game first",
                        "game",
                    )
                engine = rules.new_engine()
                events = engine.execute(command)
                self.rules, self.game = rules, engine
                return events
            return self.game.execute(command)
        return self.game.execute(raw)

    @property
    def rejected(self) -> list[dict[str, Any]]:
        """One entry per refused line of the whole file: {"line": N, "error": "..."}."""
        return [{"line": s.line, "error": s.error} for s in self.steps if s.error is not None]

    def to_json(self) -> dict[str, Any]:
        """The final state as `tabletop replay --json` prints it: the last game's refusals."""
        return {**self.rules.referee_view(self.game.state), "rejected": self.refusals.to_json()}

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
            events = replay.execute(raw)
        except RulesError as error:
            replay.refused(Step(number, raw, error=str(error)))
        else:
            replay.applied(Step(number, raw, events))
    return replay
