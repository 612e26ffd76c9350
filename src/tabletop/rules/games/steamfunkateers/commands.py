"""Reading Steamfunkateers' commands: each field checked, a bad one an InvalidCommand naming it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidCommand, quote


def integer(
    command: Mapping[str, Any],
    key: str,
    low: int,
    high: int | None,
    default: int | None = None,
    *,
    at: str = "",
) -> int:
    """`command[key]` as a whole number in low..high (high None: no upper bound)."""
    name = at + key
    value = command.get(key, default)
    if value is None:
        raise InvalidCommand(f"{name}: missing (a whole number)", name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidCommand(f"{name}: expected a whole number, got {quote(value)}", name)
    if value < low or (high is not None and value > high):
        top = f" to {high}" if high is not None else " or more"
        raise InvalidCommand(f"{name}: expected {low}{top}, got {value}", name)
    return value


def flag(command: Mapping[str, Any], key: str, *, at: str = "") -> bool:
    name = at + key
    value = command.get(key, False)
    if not isinstance(value, bool):
        raise InvalidCommand(f"{name}: expected true or false, got {quote(value)}", name)
    return value


def text(command: Mapping[str, Any], key: str, default: str | None = None, at: str = "") -> str:
    name = at + key
    value = command.get(key, default)
    if value is None:
        raise InvalidCommand(f"{name}: missing (a name)", name)
    if not isinstance(value, str) or not value.strip() or len(value) > 60:
        raise InvalidCommand(
            f"{name}: expected a name of 1 to 60 characters, got {quote(value)}", name
        )
    return value.strip()


def dice(command: Mapping[str, Any], key: str = "values") -> tuple[int, ...]:
    """The dice of a throw: a list of faces 1 to 6."""
    value = command.get(key)
    if not isinstance(value, list) or not value:
        raise InvalidCommand(f"{key}: expected a list of dice, e.g. [6, 2, 4]", key)
    for i, face in enumerate(value):
        if not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= 6:
            where = f"{key}[{i}]"
            raise InvalidCommand(f"{where}: expected a die face 1 to 6, got {quote(face)}", where)
    return tuple(value)


def table(command: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    """A list of objects (pools, entrants)."""
    value = command.get(key)
    if not isinstance(value, list) or not value:
        raise InvalidCommand(f"{key}: expected a list of objects", key)
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            where = f"{key}[{i}]"
            raise InvalidCommand(f"{where}: expected an object, got {quote(item)}", where)
    return value
