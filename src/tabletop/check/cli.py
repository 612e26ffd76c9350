"""`tabletop check --config TABLE.toml`: the table's bring-up checklist, part by part."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from pathlib import Path
from typing import Any, Final

from tabletop.errors import UserError

# The parts in the order they are checked: the broker first (everything talks through it),
# the card map before the mat (the mat's face levels are judged against it).
PARTS: Final = ("broker", "cards", "mat", "leds", "camera")
EXAMPLES: Final = """\
examples:
  tabletop check --config /etc/tabletop/table.toml            every part, asking at the table
  tabletop check --config table.toml --part mat --zone s1.3    one zone of the mat again
  tabletop check --config table.toml --yes --json              what needs no person, as JSON

exit status: 0 every check passed; 1 one failed; 3 none failed but steps needing a person
were skipped (--yes, or standard input not a terminal); 2 a file or option to fix."""


def register(subparsers: Any) -> None:
    """Adds the `check` subcommand."""
    parser = subparsers.add_parser(
        "check",
        help="check a table's parts one by one: broker, mat, LEDs, camera, card map",
        description="Checks each part of the table its file describes and prints a checklist "
        "of pass or fail, with what to do for each failure: the broker login of each role, the "
        "mat (HELLO, layout, every reader, each face sensor and touch pad, the guidance LEDs), "
        "the seat LEDs, the camera (a frame, exposure, focus, the empty tray, the calibration, "
        "a test throw) and the card map. Steps that need a person ask on the terminal; the "
        "simulated mat and camera (sim:) play the person themselves.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", required=True, metavar="TABLE.toml", help="the table's file")
    parser.add_argument("--json", action="store_true", help="the checklist as JSON on stdout")
    parser.add_argument(
        "--part",
        action="append",
        choices=PARTS,
        help="check only this part (repeat for more; default: every part)",
    )
    parser.add_argument(
        "--yes",
        action="store_true",
        help="ask nothing: skip the steps that need a person (the checklist says which)",
    )
    parser.add_argument(
        "--zone",
        action="append",
        metavar="ZONE",
        help="walk only this mat zone (s1.3, pad; repeat for more; default: every seat's)",
    )
    parser.add_argument(
        "--step-seconds",
        type=float,
        default=60.0,
        metavar="S",
        help="how long a step waits for the person's hands (default 60)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Runs the chosen parts' checks and prints the checklist; returns its exit status."""
    from tabletop.config.table import ConfigError, load_config

    from .context import Context
    from .person import Person, PersonGone
    from .report import Checklist

    if args.step_seconds <= 0:
        raise UserError(f"--step-seconds: must be more than 0, not {args.step_seconds:g}")
    path = Path(args.config)
    try:
        config = load_config(path)
    except ConfigError as error:
        raise UserError(str(error)) from error
    # Each finding is said as it is found: in text, that is the checklist itself on stdout;
    # with --json, progress on stderr, beside the questions, and the JSON at the end.
    checklist = Checklist(echo=sys.stderr if args.json else sys.stdout)
    if not args.json:
        print(f"tabletop check: table {config.table!r} ({path})", flush=True)
    context = Context(
        config,
        path,
        Person.at_terminal(args.yes),
        checklist,
        step_s=args.step_seconds,
        zones=tuple(args.zone or ()),
    )
    chosen = [part for part in PARTS if args.part is None or part in args.part]
    # The links' own warnings (a refused login, a lost mat) would say again, untidily, what
    # the checklist says with its fix.
    quiet = [
        logging.getLogger(name) for name in ("tabletop.wire.mqtt", "tabletop.hardware.mat.session")
    ]
    levels = [logger.level for logger in quiet]
    for logger in quiet:
        logger.setLevel(logging.CRITICAL)
    try:
        for part in chosen:
            context.person.tell(f"-- {part}")
            module = importlib.import_module(f"tabletop.check.{part}")
            try:
                module.check(context)
            except PersonGone as error:
                checklist.skipped(part, "person", str(error))
                context.person.absent = str(error)
    except KeyboardInterrupt:
        checklist.skipped("check", "interrupted", "stopped with Ctrl-C before every part ran")
    finally:
        for logger, level in zip(quiet, levels, strict=True):
            logger.setLevel(level)
    if args.json:
        print(checklist.dumps(config.table, str(path)))
    else:
        print(checklist.summary())
    return checklist.exit_status
