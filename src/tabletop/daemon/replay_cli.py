"""`tabletop replay`: plays a JSONL file of commands and prints the game."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tabletop.errors import UserError
from tabletop.rules import games
from tabletop.rules.games.replay import replay_lines


def register(subparsers: Any) -> None:
    """Adds the `replay` and `games` subcommands."""
    parser = subparsers.add_parser(
        "replay",
        help="apply a file of JSON commands and print the game",
        description="Applies the commands of a JSONL file in order (one JSON object a line; "
        "blank lines and # comments are skipped). A refused line changes nothing and the "
        "replay goes on.",
        epilog="examples:\n"
        "  tabletop replay examples/games/first-adventure.jsonl\n"
        "  tabletop replay --json - < my-game.jsonl",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", help="JSONL file of commands, or - for standard input")
    parser.add_argument(
        "--json", action="store_true", help="print the final state as one JSON object"
    )
    parser.set_defaults(handler=run)
    listing = subparsers.add_parser(
        "games",
        help="list the games this table can host",
        description="Lists the installed games: name (for `game =` in the table's file, "
        '`--game` and new_game\'s "game"), title, rules version, the seed text they '
        "implement, and their options (house rules) with defaults.",
        epilog="examples:\n  tabletop games\n  tabletop games --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    listing.set_defaults(handler=run_games)


def run_games(args: argparse.Namespace) -> int:
    """Prints the installed games."""
    found = games.available()
    if args.json:
        print(json.dumps([info.to_json() for info in found]))
        return 0
    for info in found:
        default = " (default)" if info.name == games.DEFAULT_GAME else ""
        print(f"{info.name}{default}: {info.title} {_version(info.version)}, seed {info.seed}")
        for option in info.options:
            choices = f" [{', '.join(map(str, option.choices))}]" if option.choices else ""
            print(f"    {option.name} = {json.dumps(option.default)}{choices}: {option.help}")
    return 0


def _version(version: str) -> str:
    """A game's version as people write it: "v0.03" for a number, "page 2" as it is."""
    return f"v{version}" if version[:1].isdigit() else version


def run(args: argparse.Namespace) -> int:
    """Replays the file; exits 0 even when lines were refused (they are reported)."""
    try:
        if args.file == "-":
            lines = sys.stdin.read().splitlines()
        else:
            with open(args.file, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
    except OSError as error:
        raise UserError(f"cannot read {args.file}: {error.strerror}") from error
    replay = replay_lines(lines)
    if args.json:
        print(json.dumps(replay.to_json()))
        return 0
    for step in replay.steps:
        command = step.command.get("cmd", "?") if isinstance(step.command, dict) else "?"
        if step.error is not None:
            print(f"line {step.line}: {command}: REFUSED: {step.error}")
            continue
        print(f"line {step.line}: {command}")
        for event in step.events:
            print(f"    {replay.rules.describe_event(event)}")
    print()
    print(replay.rules.render(replay.game.state))
    if replay.rejected:
        print(f"\n{len(replay.rejected)} line(s) refused.")
    return 0
