"""Who may publish and read which topic: the four broker roles, one source for both brokers.

Every table's topics live under `tabletop/v1/<table>/` (docs/mqtt.md). A broker user has one
role and is scoped to a list of tables, or to all of them (`*`). The role table below is the
contract of docs/security.md; the embedded broker checks it directly (src/tabletop/wire/embedded.py)
and `mosquitto_acl` writes it as a Mosquitto `acl_file`, so both brokers enforce the same thing.

Reading is decided per message (`may_receive`) and per subscription (`may_subscribe`): a
subscription is allowed only when everything it can match is readable, because the embedded
broker sends retained messages to a new subscription without asking again. Mosquitto instead
grants any subscription and drops, at delivery, each message the user may not read; either
way nobody receives a topic outside their role.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final, Literal

from .topics import ROOM_LEVEL, ROOT

ALL_TABLES: Final = "*"
_USER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class Role(StrEnum):
    """What a broker user is for."""

    DAEMON = "daemon"  # the rules daemon: reads commands and table events, writes the state
    BRIDGE = "bridge"  # the Pi's bridge: writes mat, dice and its availability, reads the LEDs
    GM = "gm"  # a game master: sends commands, reads everything of its tables
    VIEWER = "viewer"  # a display: reads the public state only


@dataclass(frozen=True, slots=True)
class Access:
    """The topic filters, relative to a table's root, that a role may write and read."""

    write: tuple[str, ...]
    read: tuple[str, ...]


# The contract of docs/security.md (agreed in issue 13); topics added later under these
# filters are covered without a change here.
ROLE_ACCESS: Final[Mapping[Role, Access]] = {
    Role.DAEMON: Access(
        write=("game/#", "referee/#", "rules/#", "table/#", "leds/#", "seat/#"),
        read=("game/command", "mat/#", "dice/#", "bridge/#"),
    ),
    Role.BRIDGE: Access(
        write=("mat/#", "dice/#", "bridge/#"),
        read=(
            "leds/#",
            "table/#",
            "game/state",
            "game/prompt",
            "rules/availability",
            "bridge/enrol/#",  # the request that it enrol the camera, and its answer
        ),
    ),
    Role.GM: Access(write=("game/command",), read=("#",)),
    Role.VIEWER: Access(
        write=(),
        read=(
            "game/state",
            "game/prompt",
            "game/event",
            "rules/availability",
            "bridge/availability",
            "table/alert",
            "leds/frame",
            "dice/event",
            "dice/picture",
        ),
    ),
}


# Topics about the room, under `tabletop/v1/_room/` whatever tables a user is scoped to: a
# rules daemon serving many tables announces itself there (its last will), and a game master
# sees which daemons are up.
ROOM_ACCESS: Final[Mapping[Role, Access]] = {
    Role.DAEMON: Access(write=("daemon/#",), read=("daemon/#",)),
    Role.BRIDGE: Access(write=(), read=()),
    Role.GM: Access(write=(), read=("daemon/#",)),
    Role.VIEWER: Access(write=(), read=()),
}


class RoleError(ValueError):
    """A user that cannot be: an unknown role, a bad name or table list."""


def check_user_name(name: str) -> str:
    """Returns the name if both brokers can use it as a user name, else raises RoleError."""
    if not _USER_NAME.fullmatch(name):
        raise RoleError(
            f"user name {name!r}: use 1-64 letters, digits, '.', '-' or '_', starting with a "
            "letter or digit (it is a line in Mosquitto's password and ACL files)"
        )
    return name


def parse_role(text: str) -> Role:
    """The role named by `text`, or RoleError listing the roles there are."""
    try:
        return Role(text)
    except ValueError:
        known = ", ".join(role.value for role in Role)
        raise RoleError(f"role {text!r} is not a role; the roles are {known}") from None


@dataclass(frozen=True, slots=True)
class User:
    """A broker user: a name, a role, the tables it is scoped to, and (embedded broker) a hash.

    `tables` is `("*",)` for every table. `password_hash` is in Mosquitto's `$7$` format
    (src/tabletop/wire/passwords.py); a user meant for Mosquitto only may leave it out.
    """

    name: str
    role: Role
    tables: tuple[str, ...] = (ALL_TABLES,)
    password_hash: str | None = field(default=None, repr=False)

    def filters(self, access: Literal["read", "write"]) -> tuple[str, ...]:
        """The full topic filters this user may read or write, table by table."""
        relative = getattr(ROLE_ACCESS[self.role], access)
        tables = ("+",) if ALL_TABLES in self.tables else self.tables
        room = getattr(ROOM_ACCESS[self.role], access)
        return tuple(f"{ROOT}/{table}/{topic}" for table in tables for topic in relative) + tuple(
            f"{ROOT}/{ROOM_LEVEL}/{topic}" for topic in room
        )

    def may_publish(self, topic: str) -> bool:
        """True if this user may publish on `topic` (a topic, not a filter)."""
        return _is_topic(topic) and any(topic_matches(f, topic) for f in self.filters("write"))

    def may_receive(self, topic: str) -> bool:
        """True if a message on `topic` may be delivered to this user."""
        return _is_topic(topic) and any(topic_matches(f, topic) for f in self.filters("read"))

    def may_subscribe(self, topic_filter: str) -> bool:
        """True if every topic `topic_filter` can match is one this user may read.

        `tabletop/v1/kitchen/#` is refused to a viewer, since it would match referee/#.
        """
        return _is_filter(topic_filter) and any(
            filter_within(topic_filter, allowed) for allowed in self.filters("read")
        )


def topic_matches(topic_filter: str, topic: str) -> bool:
    """True if `topic` matches the MQTT filter (`+` one level, `#` the rest, even none)."""
    if topic.startswith("$") and topic_filter[:1] in ("+", "#"):
        return False  # MQTT 4.7.2: wildcards never match the broker's own $ topics
    pattern = topic_filter.split("/")
    levels = topic.split("/")
    for index, level in enumerate(pattern):
        if level == "#":
            return True
        if index >= len(levels) or level not in ("+", levels[index]):
            return False
    return len(pattern) == len(levels)


def filter_within(inner: str, outer: str) -> bool:
    """True if every topic the filter `inner` matches is matched by the filter `outer` too."""
    mine = inner.split("/")
    theirs = outer.split("/")
    for index, level in enumerate(theirs):
        if level == "#":
            return True
        if index >= len(mine) or mine[index] == "#":
            return False
        if level != "+" and mine[index] != level:
            return False  # a '+' in inner is wider than a name in outer
    return len(mine) == len(theirs)


def _is_topic(topic: str) -> bool:
    return bool(topic) and "+" not in topic and "#" not in topic


def _is_filter(topic_filter: str) -> bool:
    levels = topic_filter.split("/")
    return bool(topic_filter) and all(
        ("#" not in level or (level == "#" and index == len(levels) - 1))
        and ("+" not in level or level == "+")
        for index, level in enumerate(levels)
    )


def user_for(users: Iterable[User], name: str | None) -> User | None:
    """The user called `name`, if there is one."""
    return next((user for user in users if user.name == name), None)


ACL_HEADER: Final = """\
# Mosquitto acl_file for the tabletop broker roles (docs/security.md). Written by
# `tabletop broker acl --config TABLE.toml` from the table file's [[broker.users]]: change the
# users there and write this file again rather than editing it. A user not listed here may
# neither publish nor subscribe; anonymous clients get nothing (no lines before the first user).
"""


def mosquitto_acl(users: Sequence[User]) -> str:
    """The Mosquitto `acl_file` giving each user exactly its role's topics."""
    parts = [ACL_HEADER]
    for user in users:
        scope = "every table" if ALL_TABLES in user.tables else "table " + ", ".join(user.tables)
        lines = [f"# {user.name}: role {user.role.value}, {scope}", f"user {user.name}"]
        lines += [f"topic write {topic}" for topic in user.filters("write")]
        lines += [f"topic read {topic}" for topic in user.filters("read")]
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)
