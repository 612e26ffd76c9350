"""What the tests of every game share: a referee on a fresh log, a command sent to it, the
referee rebuilt from its log, and an event log passed through its JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tabletop.daemon.referee import Referee
from tabletop.daemon.store import GameLog
from tabletop.rules.games.game import Engine, GameRules


@contextmanager
def referee_at(tmp_path: Path) -> Iterator[Referee]:
    """A referee of table t1 on a fresh log under `tmp_path`, closed afterwards."""
    log = GameLog(tmp_path / "games.sqlite3", "t1")
    log.open()
    found = Referee(log)
    found.load()
    yield found
    found.log.close()


def send(referee: Referee, command: dict[str, object]) -> dict[str, object]:
    """The reply to `command`, committed as the daemon commits it."""
    reply = referee.handle(json.dumps(command).encode()).reply
    referee.commit()
    return reply


def reopened(referee: Referee) -> tuple[GameRules, dict[str, Any]]:
    """Closes the referee's log and loads a new referee from it, as a restarted daemon does:
    the new one's game and state."""
    path, table = referee.log.path, referee.log.table
    referee.log.close()
    log = GameLog(path, table)
    log.open()
    again = Referee(log)
    again.load()
    rebuilt = again.rules, again.state_json()
    log.close()
    return rebuilt


def through_json(rules: GameRules, events: Sequence[Any]) -> Engine:
    """An engine rebuilt from `events` written to JSON text and read back, as the log does."""
    lines = [json.dumps(rules.event_to_json(event)) for event in events]
    return rules.new_engine([rules.event_from_json(json.loads(line)) for line in lines])
