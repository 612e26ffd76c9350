"""Replays a file of JSON commands through the games, keeping going past refused lines.

The file's game is the one its `new_game` names (`"game": NAME`), Six Shooter if it names
none; a later `new_game` may name another once the game before it is over. Every line is
checked as the daemon checks a `game/command`: a key its command does not take is refused by
name, and so is a number too long to be any field's."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from . import registry as games
from .errors import IllegalMove, RulesError
from .game import Engine, GameRules, UnknownKey, execute_every_key

# As the daemon's `tabletop.wire.payload.MAX_DIGITS` (the rules import nothing outside themselves).
MAX_DIGITS: Final = 100


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
                events = execute_every_key(engine, command)
                self.rules, self.game = rules, engine
                return events
            return self._execute(command)
        return self._execute(raw)

    def _execute(self, command: Any) -> tuple[Any, ...]:
        before = len(self.game.events)
        try:
            return execute_every_key(self.game, command)
        except UnknownKey:
            # Refused after the engine decided: take its events back out.
            self.game = self.rules.new_engine(self.game.events[:before])
            raise

    @property
    def rejected(self) -> list[dict[str, Any]]:
        """One entry per refused line of the whole file: {"line": N, "error": "..."}."""
        return [{"line": s.line, "error": s.error} for s in self.steps if s.error is not None]

    def to_json(self) -> dict[str, Any]:
        """The final state as `tabletop replay --json` prints it, with every refused line of
        the file (those before its last `new_game` too: a replay checks a whole file)."""
        return {**self.rules.referee_view(self.game.state), "rejected": self.rejected}

    def refused(self, step: Step) -> None:
        """Records a refused line."""
        assert step.error is not None
        self.steps.append(step)

    def applied(self, step: Step) -> None:
        """Records an accepted line."""
        self.steps.append(step)


def replay_lines(lines: Iterable[str]) -> Replay:
    """Applies each line's command in order; blank lines and lines starting with # are skipped."""
    replay = Replay()
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            raw = json.loads(text, parse_int=_whole_number)
        except json.JSONDecodeError as error:
            replay.refused(
                Step(number, text, error=f"not valid JSON: {error.msg} at column {error.colno}")
            )
            continue
        except _TooLong as error:
            replay.refused(Step(number, text, error=str(error)))
            continue
        try:
            events = replay.execute(raw)
        except RulesError as error:
            replay.refused(Step(number, raw, error=str(error)))
        else:
            replay.applied(Step(number, raw, events))
    return replay


class _TooLong(ValueError):
    """A whole number with more digits than any field takes."""


def _whole_number(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise _TooLong(
            f"a number of {digits} digits ({text[:12]}…) is longer than any field takes "
            f"(at most {MAX_DIGITS} digits)"
        )
    return int(text)
