"""`tabletop rules` (the daemon) and the parser of `tabletop gm ...` (actions in gm.py)."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tabletop.errors import UserError
from tabletop.rules import games
from tabletop.rules.games.errors import RulesError
from tabletop.wire.broker_option import BrokerOption
from tabletop.wire.mqtt import MqttError
from tabletop.wire.topics import DEFAULT_TABLE, TABLE_ENV, TableIdError, check_table_id

from .errors import DaemonError
from .gm import GAME_ENV, chosen_game, run_follow, run_gm, run_send, run_state, table_id
from .referee import SNAPSHOT_EVERY

log = logging.getLogger(__name__)

DB_ENV = "TABLETOP_DB"
TIMEOUT_HELP = (
    "seconds to wait for the rules daemon's reply before giving up (default 10; the command "
    "may still be carried out if the reply is merely late)"
)


def _snapshot_every(text: str) -> int:
    """`--snapshot-every`: a whole number of commands, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of commands (0: never), got {text!r}"
        )
    return value


def default_db() -> str:
    """Where the game log lives unless --db or $TABLETOP_DB says otherwise."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return str(Path(base) / "tabletop" / "games.sqlite3")


def _add_connection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--table",
        default=os.environ.get(TABLE_ENV, DEFAULT_TABLE),
        help=f"table id (default ${TABLE_ENV} or {DEFAULT_TABLE!r})",
    )
    parser.add_argument(
        "--broker",
        default=None,
        metavar="URL",
        action=BrokerOption,
        help="mqtt://[user:pass@]host[:1883], mqtts://..., or embedded://host:port "
        "(default $TABLETOP_BROKER, else the embedded broker on 127.0.0.1:1883); a broker "
        "cluster's nodes: repeat --broker or give a comma-separated list, tried in turn",
    )


def register(subparsers: Any, argv: Sequence[str] = ()) -> None:
    """Adds the `rules` and `gm` subcommands (`gm`'s actions are those of the game `argv`
    names with `--game`, or of $TABLETOP_GAME, or of the default game)."""
    rules = subparsers.add_parser(
        "rules",
        help="run the rules daemon of a table (or of a room of tables) over MQTT",
        description="Serves a table's game (or many tables', with --tables or --all-tables) "
        "over MQTT: reads game/command, publishes "
        "game/reply, game/event, and the retained game/state and game/prompt (docs/mqtt.md). "
        "Every accepted command is written to the game log before anything is published.",
        epilog="examples:\n"
        "  tabletop rules                                      a table on this machine, with "
        "its own broker\n"
        "  tabletop rules --config /etc/tabletop/table.toml    the table its file describes\n"
        "  tabletop rules --tables t1,t2 --db /var/lib/tabletop/games.sqlite3   a room of two",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_connection_options(rules)
    room = rules.add_mutually_exclusive_group()
    room.add_argument(
        "--tables",
        metavar="IDS",
        help="serve these tables (comma-separated) from one process, over one MQTT connection",
    )
    room.add_argument(
        "--all-tables",
        action="store_true",
        help="serve every table in the log and every table a command arrives for "
        "(tabletop/v1/+/...; the broker user must be allowed every table)",
    )
    rules.add_argument(
        "--name",
        metavar="NAME",
        help="with --tables or --all-tables: the daemon's name on "
        "tabletop/v1/_room/daemon/NAME/availability (default the host name)",
    )
    rules.add_argument(
        "--db",
        default=os.environ.get(DB_ENV) or default_db(),
        metavar="PATH|URL",
        help=f"the game log: a SQLite file shared by any number of tables, or "
        f"postgresql://user:pass@host/db, shared by several daemons (default ${DB_ENV} or "
        f"{default_db()})",
    )
    rules.add_argument(
        "--sync",
        choices=("full", "normal"),
        default="full",
        help="full (default): every acknowledged command survives a power cut; normal: "
        "faster replies, survives a crash of the daemon but not of the machine",
    )
    rules.add_argument(
        "--snapshot-every",
        type=_snapshot_every,
        default=SNAPSHOT_EVERY,
        metavar="N",
        help=f"write each table's state into the log every N commands, so a restart reads only "
        f"what follows (default {SNAPSHOT_EVERY}; 0: never, every start reads the whole log)",
    )
    rules.add_argument(
        "--config",
        metavar="TABLE.toml",
        help="read the physical table too: the table id, seats, broker and grace period come "
        "from this file (examples/table.toml); mat and dice moves become game commands",
    )
    rules.add_argument(
        "--seats",
        metavar="NAMES",
        help="read the physical table with these players, seat 1 first, comma-separated "
        "(without --config)",
    )
    rules.add_argument(
        "--game",
        default=games.DEFAULT_GAME,
        metavar="NAME",
        help="the game a new game is, unless its new_game names one (default "
        f"{games.DEFAULT_GAME}; `tabletop games` lists them; with --config, its `game` key)",
    )
    rules.set_defaults(handler=run_daemon)

    game = chosen_game(list(argv))
    gm = subparsers.add_parser(
        "gm",
        help="game master's commands: start a game, call challenges, enter dice, follow the table",
        description="Sends one command to the table's rules daemon, waits for its reply and "
        "prints what happened (or why it was refused). The actions are the game's: "
        f"{game.info.title} here (--game NAME before the action picks another game).",
        epilog="examples (`tabletop gm COMMAND --help` shows one for each command):\n"
        "  tabletop gm state\n"
        "  tabletop gm follow --table t2\n"
        "  tabletop gm --game showdown roll 4",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    gm.add_argument(
        "--game",
        default=game.name,
        metavar="NAME",
        help=f"the game whose actions to offer (default ${GAME_ENV} or {games.DEFAULT_GAME}; "
        "`tabletop games` lists them)",
    )
    gm_commands = gm.add_subparsers(dest="gm_command", metavar="COMMAND", required=True)
    for action_spec in game.gm_actions():
        action = gm_commands.add_parser(
            action_spec.verb, help=action_spec.help, description=action_spec.help
        )
        _add_connection_options(action)
        action.add_argument("--timeout", type=float, default=10.0, help=TIMEOUT_HELP)
        action_spec.arguments(action)
        action.epilog = _verb_example(game.name, action_spec.verb, action)
        action.formatter_class = argparse.RawDescriptionHelpFormatter
        action.set_defaults(handler=run_gm, build=action_spec.build, game=game.name)
    send = gm_commands.add_parser(
        "send",
        help="send any command as JSON",
        epilog='example:\n  tabletop gm send \'{"cmd": "roll", "value": 4}\'',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_connection_options(send)
    send.add_argument("--timeout", type=float, default=10.0, help=TIMEOUT_HELP)
    send.add_argument("json_command", metavar="JSON", help='e.g. \'{"cmd": "roll", "value": 4}\'')
    send.set_defaults(handler=run_gm, build=run_send)
    undo = gm_commands.add_parser(
        "undo",
        help="take the game's last command back (a seat's phone's, or the game master's own)",
        description="Takes the game's last applied command back: its events leave the game, "
        "in memory and in every replay of the log (back to the game's start).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_connection_options(undo)
    undo.add_argument("--timeout", type=float, default=10.0, help=TIMEOUT_HELP)
    undo.epilog = _verb_example(game.name, "undo", undo)
    undo.set_defaults(handler=run_gm, build=_undo_command, game=game.name)
    state = gm_commands.add_parser(
        "state",
        help="show the table now",
        epilog="examples:\n  tabletop gm state\n  tabletop gm state --table t2 --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_connection_options(state)
    state.add_argument("--json", action="store_true", help="print game/state as it is")
    state.add_argument(
        "--timeout",
        type=float,
        default=5.0,
        help="seconds to wait for the table's state from the broker (default 5)",
    )
    state.set_defaults(handler=run_state)
    follow = gm_commands.add_parser(
        "follow",
        help="follow the table live (Ctrl-C stops)",
        epilog="examples:\n  tabletop gm follow\n"
        "  tabletop gm follow --broker mqtt://gm:PASSWORD@table.local:1883 --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_connection_options(follow)
    follow.add_argument("--json", action="store_true", help="print each message as JSON")
    follow.set_defaults(handler=run_follow)


def _undo_command(args: argparse.Namespace) -> dict[str, Any]:
    return {"cmd": "undo"}


# Sample words for a verb's example, by argument name (Ana and Bo are the examples' players),
# and, for an argument with a type of its own, the forms tried in turn until the type takes one.
_SAMPLES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("player", "first", "giver", "target", "winner"), ("Ana",)),
    **dict.fromkeys(("helper", "second", "opponent", "to"), ("Bo",)),
    **dict.fromkeys(("players", "participants"), ("Ana", "Bo")),
    "seats": ("Ana=20", "Bo=20"),
    "roster": ("examples/rosters/three-operators.toml",),
    "cards": ("draw-1", "draw-2"),
    "outcome": ("escaped",),
    "reason": ("dawn",),
    "id": ("bank",),
}
_TYPED_FORMS = ("4", "Ana=examples/decks/cowboy.toml", "Ana=4", "yes")


def _sample(action: argparse.Action) -> list[str]:
    """Words an example gives one positional argument: its first choice, a name, or a form
    its type accepts (as many as its nargs asks; none where it may be left out)."""
    if action.nargs in ("?", "*"):
        return []
    count = action.nargs if isinstance(action.nargs, int) else 1
    if action.choices:
        return [str(next(iter(action.choices)))] * count
    if action.dest in _SAMPLES and action.type is None:
        words = list(_SAMPLES[action.dest])
        return words if action.nargs == "+" else (words * count)[:count]
    for form in _TYPED_FORMS:
        try:
            if action.type is not None and callable(action.type):
                action.type(form)
        except (ValueError, TypeError, argparse.ArgumentTypeError):
            continue
        later = form.replace("Ana", "Bo").replace("cowboy", "desperado")
        return [later if index else form for index in range(count)]
    return [action.dest.upper()] * count


def _verb_example(game: str, verb: str, parser: argparse.ArgumentParser) -> str:
    """The example ending a `tabletop gm` verb's help: the verb with a word for each argument."""
    chosen = [] if game == games.DEFAULT_GAME else ["--game", game]
    words = [
        word for action in parser._actions if not action.option_strings for word in _sample(action)
    ]
    return "example:\n  " + " ".join(["tabletop", "gm", *chosen, verb, *words])


# -- the daemon -------------------------------------------------------------------------------


def run_daemon(args: argparse.Namespace) -> int:
    """Runs the daemon until SIGINT or SIGTERM, then publishes `offline` and exits 0.

    Says on stderr which broker it uses and why (tabletop.wire.broker.choose_broker); an embedded
    broker it starts is recorded for `tabletop gm` and `tabletop bridge` to find.
    """
    from tabletop.wire.broker import choose_broker, forget_broker, record_broker
    from tabletop.wire.roles import User

    from .server import TableOptions
    from .service import RoomDaemon, RulesDaemon, default_daemon_name

    seats: list[str] | None = None
    grace = 1.5
    game, options = args.game, None
    users: tuple[User, ...] = ()
    source = "--broker" if args.broker is not None else None
    config = None
    if args.config:
        # The table's one file is read by one loader for every program; it lives with the
        # bridge, which reads most of it.
        from tabletop.config.table import ConfigError, load_config

        try:
            config = load_config(args.config)
        except ConfigError as error:
            raise UserError(str(error)) from error
        args.table = config.table
        seats, grace = config.seat_names, config.rules.grace_seconds
        game, options = config.rules.game, config.rules.options
        if args.broker is None and config.broker.url is not None:
            args.broker, source = config.broker.url, f"[broker] url of {args.config}"
        users = config.broker.users
    elif args.seats:
        seats = [name.strip() for name in args.seats.split(",") if name.strip()]
    table = table_id(args)
    try:
        games.get(game, "--game")
    except RulesError as error:
        raise UserError(str(error)) from error
    try:
        choice = choose_broker(args.broker, source, users)
    except MqttError as error:
        raise UserError(str(error)) from error
    url, embedded = choice.url, choice.embedded
    try:
        if config is not None:
            # The daemon logs in as its own user ([broker.rules]), never as the bridge.
            url = config.broker.url_for("rules", url)
    except Exception as error:
        if embedded is not None:
            embedded.stop()
        raise UserError(str(error)) from error
    daemon: RoomDaemon
    tables = _room_tables(args)
    if tables is None and not args.all_tables:
        daemon = RulesDaemon(
            url,
            table,
            args.db,
            args.sync,
            seats=seats,
            grace=grace,
            game=game,
            options=options,
            snapshot_every=args.snapshot_every,
        )
        what = f"table {table!r}"
    else:
        name = args.name or default_daemon_name()
        try:
            check_table_id(name)
        except TableIdError as error:
            raise UserError(f"--name: {error}") from error
        setup = TableOptions(
            tuple(seats) if seats else None,
            grace,
            game,
            options,
            snapshot_every=args.snapshot_every,
        )
        daemon = RoomDaemon(url, tables, args.db, args.sync, setup=setup, name=name)
        what = f"daemon {name!r}, " + ("every table" if tables is None else f"{len(tables)} tables")
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        daemon.start()
    except (DaemonError, MqttError) as error:  # MqttError: a TLS set-up that cannot work
        daemon.close()
        if embedded is not None:
            embedded.stop()
        raise UserError(str(error)) from error
    if embedded is not None:
        record_broker(embedded.url, "tabletop rules", bool(users))
    print(
        f"rules daemon: {what}, log {daemon.database}, broker {url}"
        f"{' (embedded)' if embedded else ''}\nrules daemon: {choice.reason}",
        file=sys.stderr,
        flush=True,
    )
    try:
        daemon.run(stop)
    finally:
        daemon.close()
        if embedded is not None:
            embedded.stop()
            forget_broker()
    return 0


def _room_tables(args: argparse.Namespace) -> list[str] | None:
    """The tables of --tables, checked; None without it."""
    if not getattr(args, "tables", None):
        return None
    tables = [name.strip() for name in args.tables.split(",") if name.strip()]
    if not tables:
        raise UserError("--tables: name at least one table, e.g. --tables a,b,c")
    for name in tables:
        try:
            check_table_id(name)
        except TableIdError as error:
            raise UserError(f"--tables: {error}") from error
    return tables
