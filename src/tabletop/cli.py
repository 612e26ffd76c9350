"""The `tabletop` command line: builds one parser from the subcommands each package registers.

Each entry in COMMAND_MODULES is a module with `register(subparsers)`, which adds its
subcommand(s) and sets `handler` to a function taking the parsed arguments and returning an
exit status. Modules are imported only to build the parser, so nothing touches hardware
before a subcommand runs; and when the command line names a subcommand, only the module that
owns it is imported, so the rules daemon never loads OpenCV and NumPy (half its memory).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import inspect
import logging
import os
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

from tabletop.errors import UserError

# Each subcommand and the module that registers it.
SUBCOMMAND_MODULES: dict[str, str] = {
    "replay": "tabletop.daemon.replay_cli",
    "games": "tabletop.daemon.replay_cli",
    "rules": "tabletop.daemon.cli",
    "gm": "tabletop.daemon.cli",
    "broker": "tabletop.broker_cli",
    "mat": "tabletop.hardware.mat.cli",
    "cards": "tabletop.hardware.mat.cli",
    "dice": "tabletop.vision.cli",
    "bridge": "tabletop.bridge.cli",
    "sim": "tabletop.sim.cli",
    "console": "tabletop.console.cli",
    "check": "tabletop.check.cli",
}
COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(SUBCOMMAND_MODULES.values()))


PROJECT = "tabletop-bridge"


def _version() -> str:
    """The project's version: the checkout's pyproject.toml, else the installed metadata.

    The checkout comes first because an editable install's metadata keeps the version it was
    installed with: after a bump in pyproject.toml (CHANGELOG.md), `tabletop --version` must say
    the new one without a reinstall. An installed wheel has no pyproject.toml beside it.
    """
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        project = {}
    if project.get("name") == PROJECT and isinstance(project.get("version"), str):
        return str(project["version"])
    try:
        return importlib.metadata.version(PROJECT)
    except importlib.metadata.PackageNotFoundError:
        return "(unknown: not installed, and no pyproject.toml beside the package)"


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Returns the parser for every `tabletop` subcommand, or only for the one `argv` names."""
    parser = argparse.ArgumentParser(
        prog="tabletop",
        description="Bridge between a physical game table and its rules engine.",
        epilog="examples (`tabletop COMMAND --help` shows more for each command):\n"
        "  tabletop sim                                      a whole simulated table, "
        "no hardware\n"
        "  tabletop check --config /etc/tabletop/table.toml  a real table, part by part\n"
        "  tabletop rules --config /etc/tabletop/table.toml",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="more log output (repeat for debug)"
    )
    parser.add_argument("--version", action="version", version=f"tabletop {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    named = next((word for word in argv or () if not word.startswith("-")), None)
    modules = [SUBCOMMAND_MODULES[named]] if named in SUBCOMMAND_MODULES else COMMAND_MODULES
    for name in modules:
        register = importlib.import_module(name).register
        if "argv" in inspect.signature(register).parameters:
            register(subparsers, argv=list(argv or ()))  # its choices depend on the words
        else:
            register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one `tabletop` subcommand and returns its exit status."""
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(words)
    args = parser.parse_args(words)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        status: int = args.handler(args)
    except UserError as error:
        print(f"tabletop {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`tabletop games | head`): not an error of ours to print. Point
        # stdout at /dev/null so the interpreter's last flush does not raise it again, and end
        # as a program stopped by SIGPIPE does (128 + 13).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return status
