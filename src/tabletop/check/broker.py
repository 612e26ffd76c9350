"""The broker part: nothing but a login for each process the table's file gives one.

Each login is tried as that process makes it (`BrokerConfig.url_for`: its own section, its
password or password file), against every node of the broker's URL. A broker that refuses a
login says so at once (CONNACK), so a wrong password is found in well under a second; one that
does not answer at all is found by a plain TCP connection first.
"""

from __future__ import annotations

import secrets
import socket
import time
from typing import Final

from tabletop.config.table import PROCESS_ROLES, REQUIRED_LOGINS, ConfigError, Process
from tabletop.wire.broker import client_url
from tabletop.wire.mqtt import BrokerUrl, MqttError, MqttLink

from .context import Context

PART: Final = "broker"
LOGIN_S: Final = 5.0


def check(context: Context) -> None:
    """Logs in as each process of the table file (rules, bridge, console)."""
    config = context.config
    try:
        base = client_url(config.broker.url)
    except MqttError as error:
        context.checklist.failed(PART, "url", str(error), "give [broker] url as mqtt://HOST:PORT")
        return
    for node in base.every:
        if not _reachable(context, node):
            return
    for process in PROCESS_ROLES:
        login = config.broker.login(process)
        if login is None and config.broker.users and process not in REQUIRED_LOGINS:
            continue  # a table may have no console; `tabletop console` says so when it starts
        name = f"login as {process}"
        try:
            url = config.broker.url_for(process, base)
        except ConfigError as error:
            context.checklist.failed(
                PART,
                name,
                str(error),
                f"make the password file readable by the user this check runs as (the "
                f"service's: sudo -u tabletop {context.command}) and put the password on its "
                "first line",
            )
            continue
        who = f"user {url.username!r}" if url.username else "anonymous"
        refusal = _login(url, process)
        if refusal is None:
            context.checklist.passed(PART, name, f"{who} logged in at {_where(url)}")
            continue
        key = login.key if login is not None else "broker"
        context.checklist.failed(
            PART,
            name,
            f"{who} at {_where(url)}: {refusal}",
            _login_fix(refusal, key, process, url.username),
        )


def _reachable(context: Context, node: BrokerUrl) -> bool:
    try:
        with socket.create_connection((node.host, node.port), timeout=2.0):
            pass
    except OSError as error:
        reason = error.strerror or str(error)
        context.checklist.failed(
            PART,
            "reachable",
            f"nothing answers at {node.host}:{node.port} ({reason})",
            f"start the broker: `tabletop rules --config {context.path}` runs the embedded one "
            "on this machine; with Mosquitto, `sudo systemctl start mosquitto`; or correct "
            "[broker] url",
        )
        return False
    context.checklist.passed(PART, "reachable", f"{node.host}:{node.port} accepts connections")
    return True


def _login(url: BrokerUrl, process: Process) -> str | None:
    """None when `url`'s login is taken, else why not (the broker's refusal, or a timeout)."""
    link = MqttLink(url, client_id=f"tabletop-check-{process}-{secrets.token_hex(6)}")
    try:
        link.start(timeout=None)
        deadline = time.monotonic() + LOGIN_S
        while time.monotonic() < deadline:
            if link.wait_connected(0.05):
                return None
            if link.refusal is not None:
                return f"refused: {link.refusal}"
        return f"no answer to the login in {LOGIN_S:g} s"
    except MqttError as error:
        return str(error)
    finally:
        link.stop()


def _where(url: BrokerUrl) -> str:
    return f"{url.scheme}://{url.host}:{url.port}"


def _login_fix(refusal: str, key: str, process: Process, username: str | None) -> str:
    if "refused" not in refusal:
        return "check [broker] url (host, port, mqtt:// or mqtts://) and the broker's log"
    if username is None:
        return (
            f"the broker wants a login: give [broker.{process}] username and password_file "
            "(docs/security.md)"
        )
    return (
        f"the password for {username!r} ({key}) is not the one the broker has: make a new one "
        f"with `tabletop broker passwd {username} --save FILE`, put its hash in the broker's "
        "password file (or [[broker.users]] password_hash) and point "
        f"{key}.password_file at FILE"
    )
