"""`tabletop broker`: the embedded MQTT broker on its own, Mosquitto's ACL, password hashes."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from typing import Any

from tabletop.errors import UserError
from tabletop.wire.broker import (
    BrokerStartError,
    EmbeddedBroker,
    forget_broker,
    record_broker,
    users_note,
)
from tabletop.wire.mqtt import parse_broker_url
from tabletop.wire.passwords import (
    DEFAULT_ITERATIONS,
    PasswordHashError,
    hash_password,
    random_password,
)
from tabletop.wire.roles import RoleError, User, check_user_name, mosquitto_acl


def register(subparsers: Any) -> None:
    """Adds the `broker` subcommand and its actions `acl` and `passwd`."""
    parser = subparsers.add_parser(
        "broker",
        help="run the embedded MQTT broker (amqtt) on its own; write Mosquitto's ACL; hash "
        "passwords",
        description="With no COMMAND, runs the embedded MQTT 3.1.1 broker until Ctrl-C. Needs no "
        "installation; for deployment prefer Mosquitto, with the ACL that `tabletop broker acl` "
        "writes (docs/security.md).",
        epilog="examples:\n"
        "  tabletop broker                                     on 127.0.0.1:1883, no users\n"
        "  tabletop broker --config /etc/tabletop/table.toml --bind 0.0.0.0:1883\n"
        "  tabletop broker passwd bridge --save /etc/tabletop/bridge.secret",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--bind",
        default=None,
        metavar="HOST:PORT",
        help="address to listen on (default: the file's embedded:// [broker] url, else "
        "127.0.0.1:1883; 0.0.0.0:1883 for the whole network, which needs users)",
    )
    parser.add_argument(
        "--config",
        metavar="TABLE.toml",
        help="take the users and their roles from this table's file (default: no users, "
        "anonymous clients from this machine only)",
    )
    parser.set_defaults(handler=run)
    actions = parser.add_subparsers(dest="broker_action", metavar="COMMAND")
    acl = actions.add_parser(
        "acl",
        help="print the Mosquitto acl_file for the users of a table's file",
        description="Prints a Mosquitto acl_file that gives each [[broker.users]] entry of the "
        "table's file exactly its role's topics (docs/security.md).",
        epilog="example:\n"
        "  tabletop broker acl --config /etc/tabletop/table.toml > /etc/mosquitto/tabletop.acl",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    acl.add_argument("--config", required=True, metavar="TABLE.toml", help="the table's file")
    acl.set_defaults(handler=run_acl)
    passwd = actions.add_parser(
        "passwd",
        help="make a password hash for a broker user (Mosquitto's $7$ format)",
        description="Prints NAME:HASH, a line for Mosquitto's password_file; the part after "
        "the colon is the password_hash of [[broker.users]]. With no option it makes a random "
        "password and shows it once on stderr.",
        epilog="examples:\n"
        "  tabletop broker passwd bridge --save /etc/tabletop/bridge.secret   a random one, "
        "kept\n"
        "  tabletop broker passwd gm --ask                                   one you type",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    passwd.add_argument("name", metavar="NAME", help="the user's name")
    given = passwd.add_mutually_exclusive_group()
    given.add_argument(
        "--ask", action="store_true", help="ask for the password (default: make a random one)"
    )
    given.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from the first line of stdin (default: make a random one)",
    )
    passwd.add_argument(
        "--save",
        metavar="FILE",
        help="write the password to FILE (mode 600) rather than show it: the password_file "
        "of [broker.rules] or [broker.bridge] (default: shown on stderr)",
    )
    passwd.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="PBKDF2 iterations (default 10000; mosquitto_passwd uses 101)",
    )
    passwd.set_defaults(handler=run_passwd)


def _users_of(path: str) -> tuple[Any, tuple[User, ...]]:
    from tabletop.config.table import ConfigError, load_config

    try:
        config = load_config(path)
    except ConfigError as error:
        raise UserError(str(error)) from error
    return config, config.broker.users


def run(args: argparse.Namespace) -> int:
    """Runs the broker in the foreground until interrupted or terminated."""
    users: tuple[User, ...] = ()
    bind = args.bind
    if args.config:
        config, users = _users_of(args.config)
        if bind is None and config.broker.url and config.broker.url.startswith("embedded://"):
            embedded = parse_broker_url(config.broker.url)
            bind = f"{embedded.host}:{embedded.port}"
    bind = bind or "127.0.0.1:1883"
    host, _, port_text = str(bind).rpartition(":")
    host = host.strip("[]")
    if not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise UserError(f"--bind {bind!r}: expected HOST:PORT, e.g. 127.0.0.1:1883")
    broker = EmbeddedBroker(host, int(port_text), users)
    try:
        broker.start()
    except BrokerStartError as error:
        raise UserError(str(error)) from error
    record_broker(broker.url, "tabletop broker", bool(users))
    print(
        f"MQTT broker listening on {host}:{port_text}{users_note(users)} (Ctrl-C stops it)",
        flush=True,
    )
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    finally:
        broker.stop()
        forget_broker()
    return 0


def run_acl(args: argparse.Namespace) -> int:
    """Prints the Mosquitto acl_file for the table file's users."""

    _, users = _users_of(args.config)
    if not users:
        raise UserError(f"{args.config}: no [[broker.users]]: an ACL for nobody would lock all out")
    sys.stdout.write(mosquitto_acl(users))
    return 0


def run_passwd(args: argparse.Namespace) -> int:
    """Prints NAME:HASH for a password given, asked for, or made up."""
    import getpass

    try:
        check_user_name(args.name)
    except RoleError as error:
        raise UserError(str(error)) from error
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    elif args.ask:
        password = getpass.getpass(f"password for {args.name}: ")
        if getpass.getpass("again: ") != password:
            raise UserError("the two passwords differ")
    else:
        password = random_password()
        if not args.save:
            print(f"password for {args.name} (shown once): {password}", file=sys.stderr)
    if not password:
        raise UserError("an empty password protects nothing")
    try:
        hashed = hash_password(password, iterations=args.iterations or DEFAULT_ITERATIONS)
    except PasswordHashError as error:
        raise UserError(str(error)) from error
    if args.save:
        try:
            descriptor = os.open(args.save, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                file.write(password + "\n")
        except OSError as error:
            raise UserError(f"--save {args.save}: cannot write: {error.strerror}") from error
    print(f"{args.name}:{hashed}")
    return 0
