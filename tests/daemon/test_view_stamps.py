"""The public state names the command it reflects and the prompt that goes with it, so that
anyone holding `game/state` and `game/prompt` can tell whether they are of one moment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from daemon_helpers import QuietLink

from tabletop.daemon.server import TableOptions, TableServer
from tabletop.daemon.store import LogDatabase
from tabletop.wire.mqtt import Message


def test_the_public_state_names_its_command_and_its_prompt(tmp_path: Path, high_roll: None) -> None:
    database = LogDatabase(tmp_path / "log.db")
    database.open()
    link = QuietLink()
    server = TableServer("t1", link, database, "full", TableOptions(game="highroll"))  # type: ignore[arg-type]
    server.load()
    topics = server.topics

    def send(number: int, **command: Any) -> None:
        payload = json.dumps({"v": 1, "id": f"c{number}", **command}).encode()
        server.decide([Message(topics.command, payload)], float(number))
        server.publish_replies()
        server.publish_results()

    send(1, cmd="new_game", players=["Ana", "Bo"])
    state, prompt = link.bodies(topics.state)[-1], link.bodies(topics.prompt)[-1]
    assert prompt["who"] == ["Ana"] and prompt["seq"] == 1
    assert (state["seq"], state["prompt_seq"]) == (1, 1)
    prompts = len(link.bodies(topics.prompt))
    send(2, cmd="roll", value=9)  # refused: a new state, the same prompt (not published again)
    state = link.bodies(topics.state)[-1]
    assert (state["seq"], state["prompt_seq"]) == (2, 1)
    assert len(link.bodies(topics.prompt)) == prompts and link.bodies(topics.prompt)[-1]["seq"] == 1
    send(3, cmd="roll", value=4)  # Bo throws next: the prompt changes with this command
    state, prompt = link.bodies(topics.state)[-1], link.bodies(topics.prompt)[-1]
    assert prompt["who"] == ["Bo"] and prompt["seq"] == 3
    assert (state["seq"], state["prompt_seq"]) == (3, 3)
    # The referee's view stays what `tabletop replay --json` prints: no stamps.
    assert "seq" not in link.bodies(topics.referee_state)[-1]
