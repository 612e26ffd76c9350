"""The `tabletop` command line: builds one parser from the subcommands each package registers.

Each entry in COMMAND_MODULES is a module with `register(subparsers)`, which adds its
subcommand(s) and sets `handler` to a function taking the parsed arguments and returning an
exit status. Modules are imported only to build the parser, so nothing touches hardware
before a subcommand runs.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

COMMAND_MODULES: tuple[str, ...] = (
    "rules.cli",
    "rules.daemon.cli",
    "tabletop.broker",
    "hardware.mat.cli",
    "vision.cli",
    "bridge.cli",
    "tabletop.sim.cli",
)


class UserError(Exception):
    """A problem the person at the keyboard can fix; printed as one line, never as a traceback."""


def build_parser() -> argparse.ArgumentParser:
    """Returns the parser for every `tabletop` subcommand."""
    parser = argparse.ArgumentParser(
        prog="tabletop",
        description="Bridge between a physical game table and its rules engine.",
    )
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="more log output (repeat for debug)"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one `tabletop` subcommand and returns its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        status: int = args.handler(args)
    except UserError as error:
        print(f"tabletop {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return status
