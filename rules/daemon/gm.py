"""`tabletop gm ...`: the game master's actions, each a command sent to the table's daemon.

Each action builds one JSON command from its arguments, sends it with a fresh id (resent
while no reply comes), and prints the events it caused and what the table waits for next, or
the reason it was refused (exit status 1). `state` and `follow` read the table.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabletop.mqtt import BrokerUrlError, NotConnected, TlsRefused
from tabletop.topics import TableIdError, check_table_id

ROSTER_KEYS = ("players", "jokers", "seed", "deck", "options")
METHODS = ("danger", "sharpness", "slyness", "charm")


def table_id(args: argparse.Namespace) -> str:
    from tabletop.cli import UserError

    try:
        return check_table_id(args.table)
    except TableIdError as error:
        raise UserError(str(error)) from error


def _client(args: argparse.Namespace, follow_events: bool = False) -> Any:
    from tabletop.broker import client_url
    from tabletop.cli import UserError

    from .client import TableClient

    try:
        client = TableClient(client_url(args.broker), table_id(args), follow_events=follow_events)
        client.start(timeout=min(5.0, getattr(args, "timeout", 5.0)))
    except BrokerUrlError as error:
        raise UserError(str(error)) from error
    except TlsRefused as error:  # the broker is there; its TLS set-up is what to fix
        raise UserError(str(error)) from error
    except NotConnected as error:
        raise UserError(f"{error} (is `tabletop rules` or a broker running?)") from error
    return client


def run_gm(args: argparse.Namespace) -> int:
    """Sends the action's command, prints the events it caused and the prompt, or the refusal."""
    from tabletop.cli import UserError

    from .client import NoReply

    command = args.build(args)
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
    deadline = time.monotonic() + 2.0
    wanted = int(reply.get("events", 0))
    mine: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        mine = [e for e in client.events if e.get("seq") == reply.get("seq")]
        if len(mine) >= wanted:
            break
        client.pump(0.05)
    if reply.get("duplicate"):
        print("(already applied earlier; nothing changed)")
    for event in mine:
        print(f"  {event.get('text')}")
    client.settle(quiet=0.1, timeout=1.0)
    prompt = client.retained.get(client.topics.prompt)
    if isinstance(prompt, dict):
        print(f"waiting for: {prompt.get('prompt')}")


def run_state(args: argparse.Namespace) -> int:
    """Prints the retained state, as a table or as JSON."""
    from tabletop.cli import UserError

    from .client import NoReply

    client = _client(args)
    try:
        state = client.state(timeout=args.timeout)
        client.settle(quiet=0.05, timeout=0.5)
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


def render_state(state: dict[str, Any], prompt: Any = None) -> str:
    """The table as text, from the game/state JSON."""
    if state.get("phase") is None:
        return "No game at this table yet."
    lines = [f"Adventure {state.get('adventure')}, {str(state.get('phase')).replace('_', ' ')}"]
    players = state.get("players", [])
    width = max((len(p["name"]) for p in players), default=0)
    for player in players:
        marks = []
        for slot in player["slots"]:
            if slot["state"] == "face_up":
                marks.append(f"[{slot['card']:>3}]")
            else:
                marks.append("[ ##]" if slot["state"] == "face_down" else "[ --]")
        strikes = "X" * player["strikes"] + "." * (3 - player["strikes"])
        lucky = "/".join(map(str, player["lucky"])) or "-"
        status = "" if player["status"] == "active" else f"  ({player['status']})"
        lines.append(
            f"  {player['name']:<{width}}  {' '.join(marks)}  strikes {strikes}  lucky {lucky}"
            f"{status}"
        )
    lines.append(f"  deck {state.get('deck_count')}, discard {len(state.get('discard', []))}")
    if state.get("turn_order"):
        lines.append(f"  turn order {', '.join(state['turn_order'])}")
    if isinstance(prompt, dict):
        lines.append(f"  waiting for: {prompt.get('prompt')}")
    if state.get("rejected"):
        last = state["rejected"][-1]
        lines.append(
            f"  {len(state['rejected'])} command(s) refused so far; the last "
            f"(command {last['line']}): {last['error']}"
        )
    return "\n".join(lines)


# -- building commands from arguments ---------------------------------------------------------


def _card_ref(text: str) -> dict[str, Any]:
    owner, sep, slot = text.rpartition(":")
    if not sep or not owner or not slot.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: expected PLAYER:SLOT, e.g. Ana:3")
    return {"player": owner, "slot": int(slot)}


def _keyed(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise argparse.ArgumentTypeError(f"{text!r}: expected PLAYER=VALUE")
    return name, value


def _yes_no(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("yes", "y", "true", "1"):
        return True
    if lowered in ("no", "n", "false", "0"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r}: answer yes or no")


def _critical(text: str) -> int | str:
    if text.lower() == "impossible":
        return "impossible"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a number or 'impossible'") from None


def load_roster(path: str) -> dict[str, Any]:
    """Reads a roster file (TOML or JSON) into the fields of new_game; names the key at fault."""
    from tabletop.cli import UserError

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot read roster {path}: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise UserError(f"roster {path} is not UTF-8 text (byte {error.start})") from None
    try:
        data: Any = json.loads(text) if path.endswith(".json") else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as error:
        raise UserError(f"roster {path} is not valid {_kind(path)}: {error}") from error
    bad = _lone_surrogate(data, "")
    if bad is not None:
        # JSON's "\ud800" reads as a lone surrogate, which the daemon could never store
        raise UserError(f"roster {path}: {bad} holds a lone surrogate, which no text can carry")
    if isinstance(data, list):
        data = {"players": data}
    if not isinstance(data, dict):
        raise UserError(f"roster {path}: expected a table of players, got {type(data).__name__}")
    unknown = sorted(set(data) - set(ROSTER_KEYS))
    if unknown:
        raise UserError(
            f"roster {path}: unknown key {unknown[0]!r} (expected {', '.join(ROSTER_KEYS)})"
        )
    if not isinstance(data.get("players"), list) or not data["players"]:
        raise UserError(f"roster {path}: 'players' must list at least one player")
    return data


def _lone_surrogate(value: Any, where: str) -> str | None:
    """Where in a roster a text UTF-8 cannot encode is (`players[1].name`), or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where or "the roster"
    elif isinstance(value, dict):
        for key, inner in value.items():
            found = _lone_surrogate(key, f"a key of {where or 'the roster'}") or _lone_surrogate(
                inner, f"{where}.{key}" if where else str(key)
            )
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found = _lone_surrogate(inner, f"{where}[{index}]")
            if found is not None:
                return found
    return None


def _kind(path: str) -> str:
    return "JSON" if path.endswith(".json") else "TOML"


def _new(args: argparse.Namespace) -> dict[str, Any]:
    roster = load_roster(args.roster)
    command: dict[str, Any] = {"cmd": "new_game", **roster}
    if args.seed is not None:
        command["seed"] = args.seed
    if args.jokers:
        command["jokers"] = True
    return command


def _challenge(args: argparse.Namespace) -> dict[str, Any]:
    command: dict[str, Any] = {
        "cmd": "challenge",
        "player": args.player,
        "method": args.method,
        "critical": args.critical,
    }
    if args.card is not None:
        command["card"] = args.card
    if args.wager:
        command["wager"] = args.wager
    if args.stage:
        command["stage"] = args.stage
    return command


def _contest(args: argparse.Namespace) -> dict[str, Any]:
    command: dict[str, Any] = {"cmd": "contest", "players": [args.first, args.second]}
    if args.method:
        command["method"] = args.method
    if args.card:
        try:
            command["cards"] = {name: _card_ref(value) for name, value in args.card}
        except argparse.ArgumentTypeError as error:
            raise _user_error(f"--card {error}") from None
    if args.wager:
        try:
            command["wagers"] = {name: int(value) for name, value in args.wager}
        except ValueError:
            raise _user_error("--wager PLAYER=N needs a whole number") from None
    return command


def _boost(args: argparse.Namespace) -> dict[str, Any]:
    command: dict[str, Any] = {"cmd": "boost", "player": args.player}
    if args.card is not None:
        command["card"] = args.card
    if args.wager:
        command["wager"] = args.wager
    return command


def _roll(args: argparse.Namespace) -> dict[str, Any]:
    if len(args.values) == 1:
        return {"cmd": "roll", "value": args.values[0]}
    return {"cmd": "roll", "values": args.values}


def _send(args: argparse.Namespace) -> dict[str, Any]:
    from tabletop.cli import UserError

    try:
        command = json.loads(args.json_command)
    except ValueError as error:
        raise UserError(f"not valid JSON: {error}") from error
    if not isinstance(command, dict):
        raise UserError('expected a JSON object such as {"cmd": "roll", "value": 4}')
    return command


Arguments = Callable[[argparse.ArgumentParser], None]
Builder = Callable[[argparse.Namespace], dict[str, Any]]


def _args(*specs: tuple[tuple[str, ...], dict[str, Any]]) -> Arguments:
    def add(parser: argparse.ArgumentParser) -> None:
        for names, options in specs:
            parser.add_argument(*names, **options)

    return add


def _a(*names: str, **options: Any) -> tuple[tuple[str, ...], dict[str, Any]]:
    return names, options


_PLAYER = _a("player", help="the player's name")
GM_ACTIONS: tuple[tuple[str, str, Arguments, Builder], ...] = (
    (
        "new",
        "start a game from a roster file (TOML or JSON: players, jokers, seed, options)",
        _args(
            _a("roster", help="roster file"),
            _a("--seed", type=int, default=None, help="shuffle seed (overrides the roster's)"),
            _a("--jokers", action="store_true", help="play with the two jokers"),
        ),
        _new,
    ),
    (
        "reveal",
        "a player's setup choice: turn one card face-up",
        _args(_PLAYER, _a("slot", type=int, help="slot 1-6")),
        lambda a: {"cmd": "reveal", "player": a.player, "slot": a.slot},
    ),
    (
        "order",
        "players who want the same challenge draw for turn order",
        _args(_a("players", nargs="+", help="the players drawing")),
        lambda a: {"cmd": "turn_order", "players": a.players},
    ),
    (
        "stage",
        "open a multi-stage challenge needing a number of successes in all",
        _args(_a("id", help="a name for it"), _a("needed", type=int, help="successes needed")),
        lambda a: {"cmd": "multi_stage", "id": a.id, "needed": a.needed},
    ),
    (
        "challenge",
        "call a challenge against a Critical Number",
        _args(
            _PLAYER,
            _a("method", choices=METHODS),
            _a("critical", type=_critical, help="the Critical Number, or 'impossible'"),
            _a("--card", type=_card_ref, metavar="OWNER:SLOT", help="a face-up card to use"),
            _a("--wager", type=int, default=0, help="All Or Nothing: Strikes wagered"),
            _a("--stage", help="counts toward this multi-stage challenge"),
        ),
        _challenge,
    ),
    (
        "roll",
        "enter a die result by hand for the roll the table waits for",
        _args(_a("values", type=int, nargs="+", help="the die (1-6), or several for a pool")),
        _roll,
    ),
    (
        "lucky",
        "answer a Lucky Number offer: draw a replacement (yes) or not (no)",
        _args(_PLAYER, _a("answer", type=_yes_no, help="yes or no")),
        lambda a: {"cmd": "lucky", "player": a.player, "replace": a.answer},
    ),
    (
        "contest",
        "start a player-versus-player contest (rolls come in the order given)",
        _args(
            _a("first"),
            _a("second"),
            _a("--method", choices=METHODS),
            _a("--card", type=_keyed, action="append", metavar="PLAYER=OWNER:SLOT"),
            _a("--wager", type=_keyed, action="append", metavar="PLAYER=N"),
        ),
        _contest,
    ),
    (
        "boost",
        "a contestant uses a card or wagers Strikes on the next exchange",
        _args(
            _PLAYER,
            _a("--card", type=_card_ref, metavar="OWNER:SLOT"),
            _a("--wager", type=int, default=0),
        ),
        _boost,
    ),
    (
        "concede",
        "a contestant concedes the contest",
        _args(_PLAYER),
        lambda a: {"cmd": "concede", "player": a.player},
    ),
    (
        "end-adventure",
        "end the adventure: Character Progression follows",
        _args(),
        lambda a: {"cmd": "end_adventure"},
    ),
    (
        "grant",
        "give an Operator an extra Lucky Number (end of adventure)",
        _args(_a("giver"), _a("to"), _a("number", type=int)),
        lambda a: {"cmd": "grant_lucky", "from": a.giver, "to": a.to, "number": a.number},
    ),
    (
        "return",
        "a removed Operator loses a Lucky Number to return next adventure",
        _args(_PLAYER, _a("drop_lucky", type=int, help="the Lucky Number given up")),
        lambda a: {"cmd": "return", "player": a.player, "drop_lucky": a.drop_lucky},
    ),
    (
        "retire",
        "a removed Operator retires for good",
        _args(_PLAYER),
        lambda a: {"cmd": "retire", "player": a.player},
    ),
    (
        "start-adventure",
        "start the next adventure: Strikes reset, cards dealt again",
        _args(),
        lambda a: {"cmd": "start_adventure"},
    ),
    ("end-game", "end the game for good", _args(), lambda a: {"cmd": "end_game"}),
    (
        "send",
        "send any command as JSON",
        _args(_a("json_command", metavar="JSON", help='e.g. \'{"cmd": "roll", "value": 4}\'')),
        _send,
    ),
)


def _user_error(message: str) -> Exception:
    from tabletop.cli import UserError

    return UserError(message)
