"""`tabletop console`: serves the table's web console (the room view and the game master's)."""

from __future__ import annotations

import argparse
import os
import signal
import threading
from typing import Any

from tabletop.errors import UserError
from tabletop.rules import games
from tabletop.wire.broker_option import BrokerOption
from tabletop.wire.topics import DEFAULT_TABLE, TABLE_ENV

DEFAULT_BIND = "127.0.0.1:8080"


def register(subparsers: Any) -> None:
    """Adds the `console` subcommand."""
    parser = subparsers.add_parser(
        "console",
        help="serve the table's web console: the room view (/) and the game master's (/gm)",
        description="A web server following one table over MQTT: the room view at / shows "
        "what everyone may see; the game master's view at /gm, behind a login of a broker "
        "user with the role gm, shows the referee's view and takes the game's actions.",
        epilog="examples:\n"
        "  tabletop console                                   http://127.0.0.1:8080/ on this "
        "machine\n"
        "  tabletop console --config /etc/tabletop/table.toml --bind 0.0.0.0:8443 \\\n"
        "      --certfile /etc/tabletop/console.crt --keyfile /etc/tabletop/console.key \\\n"
        "      --server-name table.local                      the Pi's, for the whole network",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--config",
        metavar="TABLE.toml",
        help="the table's file (table, broker, users; the room view logs in as "
        "[broker.console], a viewer)",
    )
    parser.add_argument(
        "--broker",
        metavar="URL",
        action=BrokerOption,
        help="mqtt://[user:pass@]host[:port] (without --config, or to override its [broker] "
        "url); repeat it, or give a comma-separated list, for a broker cluster's nodes",
    )
    parser.add_argument(
        "--table", default=None, help=f"table id (default ${TABLE_ENV} or {DEFAULT_TABLE!r})"
    )
    parser.add_argument(
        "--game",
        default=None,
        help="the game whose actions the forms offer before a "
        f"prompt names one (default: the file's game, else {games.DEFAULT_GAME})",
    )
    parser.add_argument(
        "--bind",
        default=DEFAULT_BIND,
        metavar="HOST:PORT",
        help=f"where to serve (default {DEFAULT_BIND}; port 0 for a free one). Any address "
        "but a loopback one needs --certfile and --keyfile, and users in the table's file",
    )
    parser.add_argument(
        "--certfile",
        metavar="CERT.pem",
        help="serve over TLS (https://) with this certificate, PEM (with --keyfile)",
    )
    parser.add_argument("--keyfile", metavar="KEY.pem", help="the certificate's private key, PEM")
    parser.add_argument(
        "--server-name",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the pages are opened by (table.local, 192.168.1.20); repeat for "
        "several (default: none but loopback names and the --bind address; a request for "
        "any other name is refused)",
    )
    parser.add_argument(
        "--corrections",
        metavar="DIR",
        help="where the throws a game master corrects on the photo are kept, with their "
        "labels.csv for `tabletop dice enrol --labels DIR/labels.csv` (default: the table "
        "file's camera.corrections, else $XDG_DATA_HOME/tabletop/corrections/TABLE)",
    )
    parser.set_defaults(handler=run_console)


def parse_bind(text: str) -> tuple[str, int]:
    """HOST:PORT (IPv6 in brackets) -> (host, port), or ValueError saying what is wrong."""
    host, colon, port_text = text.rpartition(":")
    if not colon or not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"--bind: expected HOST:PORT such as {DEFAULT_BIND}, got {text!r}")
    return host.strip("[]"), int(port_text)


def run_console(args: argparse.Namespace) -> int:
    """Serves until SIGINT or SIGTERM."""
    # The table's one file is read by one loader for every program; it lives with the
    # bridge, which reads most of it.
    from tabletop.config.table import ConfigError, load_config
    from tabletop.wire.broker import client_url
    from tabletop.wire.mqtt import MqttError
    from tabletop.wire.roles import User
    from tabletop.wire.topics import TableIdError, check_table_id

    from . import ConsoleError
    from .server import ConsoleServer

    users: tuple[User, ...] = ()
    table = args.table or os.environ.get(TABLE_ENV, DEFAULT_TABLE)
    game = args.game or games.DEFAULT_GAME
    broker = args.broker
    corrections = args.corrections
    config = None
    if args.config:
        try:
            config = load_config(args.config)
        except ConfigError as failed:
            raise UserError(str(failed)) from failed
        table, users = args.table or config.table, config.broker.users
        game = args.game or config.rules.game
        corrections = corrections or config.camera.corrections
        if broker is None and config.broker.url is not None:
            broker = config.broker.url
    try:
        check_table_id(table)
        host, port = parse_bind(args.bind)
        url = client_url(broker)
        if config is not None:  # the room view's own login: [broker.console], a viewer
            url = config.broker.url_for("console", url)
        games.get(game, "--game")
    except (TableIdError, ValueError, MqttError, ConfigError) as failed:
        raise UserError(str(failed)) from failed
    except Exception as failed:  # the registry's RulesError for an unknown game
        raise UserError(str(failed)) from failed
    if users and url.username is None:
        raise UserError(
            "the room view needs its own broker login, a user with the role viewer (a display "
            "user): with [[broker.users]] the broker refuses anonymous clients. Add "
            "[broker.console] username and password_file to the table's file, or give "
            "--broker mqtt://display:PASSWORD@HOST (docs/console.md)"
        )
    try:
        server = ConsoleServer(
            url,
            table,
            host=host,
            port=port,
            users=users,
            game=game,
            certfile=args.certfile,
            keyfile=args.keyfile,
            server_names=args.server_name,
            corrections=corrections,
        )
        server.start()
    except (ConsoleError, MqttError) as failed:
        raise UserError(str(failed)) from failed
    print(
        f"console of table {table!r}: room view {server.url}, game master {server.url}gm",
        flush=True,
    )
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        stop.wait()
    finally:
        server.stop()
    return 0
