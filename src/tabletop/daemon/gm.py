"""`tabletop gm ...`: the game master's actions, each a command sent to the table's daemon.

Each action builds one JSON command from its arguments, sends it with a fresh id (resent
while no reply comes), and prints the events it caused and what the table waits for next, or
the reason it was refused (exit status 1). `state` and `follow` read the table.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
from typing import Any

from tabletop.errors import UserError
from tabletop.rules import games
from tabletop.rules.games.errors import RulesError
from tabletop.rules.games.game import GameRules
from tabletop.wire.mqtt import BrokerUrlError, LoginRefused, NotConnected, TlsRefused
from tabletop.wire.topics import TableIdError, check_table_id

GAME_ENV = "TABLETOP_GAME"


def table_id(args: argparse.Namespace) -> str:
    try:
        return check_table_id(args.table)
    except TableIdError as error:
        raise UserError(str(error)) from error


def _client(args: argparse.Namespace, follow_events: bool = False) -> Any:
    from tabletop.wire.broker import client_url

    from .client import TableClient

    try:
        client = TableClient(client_url(args.broker), table_id(args), follow_events=follow_events)
        client.start(timeout=min(5.0, getattr(args, "timeout", 5.0)))
    except BrokerUrlError as error:
        raise UserError(str(error)) from error
    except TlsRefused as error:  # the broker is there; its TLS set-up is what to fix
        raise UserError(str(error)) from error
    except LoginRefused as error:  # the broker answered: no use waiting for it
        raise UserError(
            f"{error}: check the user name and password in --broker (or $TABLETOP_BROKER)"
        ) from error
    except NotConnected as error:
        raise UserError(f"{error} (is `tabletop rules` or a broker running?)") from error
    return client


def run_gm(args: argparse.Namespace) -> int:
    """Sends the action's command, prints the events it caused and the prompt, or the refusal."""
    from .client import NoReply

    try:
        games.get(getattr(args, "game", games.DEFAULT_GAME), "--game")
        command = args.build(args)
    except RulesError as error:
        raise UserError(str(error)) from error
    if command.get("cmd") == "new_game" and "game" not in command and hasattr(args, "game"):
        command["game"] = args.game
    client = _client(args, follow_events=True)
    try:
        try:
            reply = client.send(command, timeout=args.timeout)
        except NoReply as error:
            raise UserError(str(error)) from error
        if not reply.get("ok"):
            print(f"refused: {reply.get('error')}", file=sys.stderr)
            return 1
        _print_outcome(client, reply)
    finally:
        client.close()
    return 0


def _print_outcome(client: Any, reply: dict[str, Any]) -> None:
    from .client import NoReply

    # The command's events and the views it changed are in after a sync; a daemon gone
    # away since it replied leaves what came.
    with contextlib.suppress(NoReply):
        client.sync(timeout=5.0)
    mine = [e for e in client.events if e.get("seq") == reply.get("seq")]
    if reply.get("duplicate"):
        print("(already applied earlier; nothing changed)")
    for event in mine:
        print(f"  {event.get('text')}")
    prompt = client.retained.get(client.topics.prompt)
    if isinstance(prompt, dict):
        print(f"waiting for: {prompt.get('prompt')}")


def run_state(args: argparse.Namespace) -> int:
    """Prints the retained state, as a table or as JSON."""
    from .client import NoReply

    client = _client(args)
    try:
        state = client.state(timeout=args.timeout)
        client.gather_retained()
        prompt = client.retained.get(client.topics.prompt)
    except NoReply as error:
        raise UserError(f"{error}: has the rules daemon of this table ever run?") from error
    finally:
        client.close()
    if args.json:
        print(json.dumps(state))
    else:
        print(render_state(state, prompt))
    return 0


def run_follow(args: argparse.Namespace) -> int:
    """Prints events, refusals, prompts and the daemon's availability as they happen."""
    client = _client(args, follow_events=True)
    topics = client.topics
    # Ctrl-C (or SIGTERM) asks the loop to stop between messages: a KeyboardInterrupt raised
    # inside the MQTT library could leave it holding a lock, and the program would not quit.
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        for message in client.messages(poll=0.2, stop=stop):
            if args.json:
                print(f"{message.topic} {message.payload.decode('utf-8', errors='replace')}")
            elif message.topic == client.event_topic:
                for event in json.loads(message.payload).get("events", []):
                    print(f"  {event.get('text')}")
            elif message.topic == topics.reply:
                reply = client.replies[-1]
                if not reply.get("ok") and not reply.get("duplicate"):
                    print(f"  refused (command {reply.get('seq')}): {reply.get('error')}")
            elif message.topic == topics.prompt:
                prompt = client.retained.get(topics.prompt)
                if isinstance(prompt, dict):
                    print(f"waiting for: {prompt.get('prompt')}")
            elif message.topic == topics.rules_availability:
                print(f"[rules daemon {client.retained.get(topics.rules_availability)}]")
            sys.stdout.flush()
    except KeyboardInterrupt:
        pass
    finally:
        client.close()
    return 0


def render_state(state: dict[str, Any], prompt: Any = None, game: str | None = None) -> str:
    """The table as text, from the game/state JSON, drawn by its game (the prompt names it)."""
    if isinstance(prompt, dict) and isinstance(prompt.get("game"), str):
        game = prompt["game"]
    try:
        rules = games.get(game or games.DEFAULT_GAME)
    except RulesError:
        rules = games.get(games.DEFAULT_GAME)
    if state.get("phase") is None:
        return "No game at this table yet."
    lines = [rules.render_view(state)]
    if isinstance(prompt, dict):
        lines.append(f"  waiting for: {prompt.get('prompt')}")
    if state.get("rejected"):
        last = state["rejected"][-1]
        lines.append(
            f"  {len(state['rejected'])} command(s) refused so far; the last "
            f"(command {last['line']}): {last['error']}"
        )
    return "\n".join(lines)


def run_send(args: argparse.Namespace) -> dict[str, Any]:
    """`gm send JSON`: any command, as the JSON object it is."""
    try:
        command = json.loads(args.json_command)
    except ValueError as error:
        raise UserError(f"not valid JSON: {error}") from error
    if not isinstance(command, dict):
        raise UserError('expected a JSON object such as {"cmd": "roll", "value": 4}')
    return command


def chosen_game(argv: list[str]) -> GameRules:
    """The game whose verbs `tabletop gm` offers: `--game NAME` (before the action), else
    $TABLETOP_GAME, else the default game. An unknown name falls back to the default here;
    argparse then reports it (see `run_gm`)."""
    name = os.environ.get(GAME_ENV, games.DEFAULT_GAME)
    for index, word in enumerate(argv):
        if word == "--game" and index + 1 < len(argv):
            name = argv[index + 1]
        elif word.startswith("--game="):
            name = word.partition("=")[2]
    try:
        return games.get(name)
    except RulesError:
        return games.get(games.DEFAULT_GAME)
