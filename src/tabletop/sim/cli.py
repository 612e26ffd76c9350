"""`tabletop sim`: plays whole games on a simulated table (Six Shooter unless --game says)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tabletop.errors import UserError
from tabletop.rules.games import DEFAULT_GAME


def register(subparsers: Any) -> None:
    """Adds the `sim` subcommand."""
    parser = subparsers.add_parser(
        "sim",
        help="play whole games on a simulated table (broker, rules daemon, bridge, mat, LEDs)",
        description="Runs every program of a real table with simulated devices and simulated "
        "players who play physically, sometimes making mistakes the table must catch.",
        epilog="examples:\n"
        "  tabletop sim                                 one game of four, live, in real time\n"
        "  tabletop sim --game showdown --seats 2\n"
        "  tabletop sim --headless --games 10 --json    ten games as fast as they go",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--game",
        default=DEFAULT_GAME,
        metavar="NAME",
        help=f"the game to play (default {DEFAULT_GAME}; `tabletop games` lists them)",
    )
    parser.add_argument(
        "--seats",
        type=int,
        default=4,
        choices=range(2, 7),
        metavar="2-6",
        help="players at the table (default 4)",
    )
    parser.add_argument("--games", type=int, default=1, help="games to play (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="makes a run repeatable (default 1)")
    parser.add_argument(
        "--mistakes", type=float, default=0.03, help="chance of a mistake per throw (default 0.03)"
    )
    parser.add_argument(
        "--no-camera",
        action="store_true",
        help="hand thrown values straight to the bridge instead of rendering each throw and "
        "reading it with the vision pipeline (faster on a slow machine)",
    )
    parser.add_argument(
        "--headless",
        action="store_true",
        help="no live view: progress on stderr, a summary in words at the end",
    )
    parser.add_argument(
        "--console",
        action="store_true",
        help="with --headless, serve the web console too while the games play (the live "
        "view always serves it, and keeps it up after the last game until Ctrl-C)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the closing summary as one JSON object instead of words",
    )
    parser.add_argument(
        "--speed",
        type=float,
        default=None,
        metavar="N",
        help="simulated people think and act N times faster; the mat, the camera and the "
        "rules daemon keep their own time (default 20 with --headless, else 1: real time)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Plays the games and prints the summary."""
    from rich.console import Console

    from tabletop.rules import games
    from tabletop.rules.games.errors import RulesError
    from tabletop.sim.runner import SimulatedTable
    from tabletop.sim.view import summary_words

    try:
        games.get(args.game, "--game")
    except RulesError as error:
        raise UserError(str(error)) from error
    speed = args.speed if args.speed is not None else (20.0 if args.headless else 1.0)
    if not speed > 0:
        raise UserError(f"--speed {args.speed}: expected a positive number, e.g. 1 or 20")
    view = None if args.headless else Console()
    table = SimulatedTable(
        game=args.game,
        speed=speed,
        console=args.console or not args.headless,
        linger=not args.headless,
        seats=args.seats,
        games=args.games,
        seed=args.seed,
        mistake_rate=args.mistakes,
        view=view,
        camera=not args.no_camera,
    )
    if args.headless:
        # Progress on stderr (a bar on a terminal, lines in a log); the summary on stdout.
        from tabletop.vision.progress import progress

        with progress(args.games, f"{table.rules.info.title} games") as step:
            table.on_game_finished = lambda so_far: step(
                f"alerts {so_far.alerts_raised}, resolved {so_far.alerts_resolved}"
            )
            summary = table.run()
    else:
        summary = table.run()
    if args.json:
        print(json.dumps(summary.to_json(), indent=None if args.headless else 2))
    else:
        print(summary_words(summary.to_json(), table.rules.info.title))
    if summary.stalls:
        return 2  # the table stalled: stderr says what it waited for
    return 0 if summary.games_finished == args.games else 1
