"""Roster files: the players and settings of a new game, read from TOML or JSON."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import RulesError


class RosterError(RulesError):
    """A roster file that cannot be read; the message names the file and the key at fault."""


def load_roster(path: str, keys: Sequence[str]) -> dict[str, Any]:
    """Reads a roster file (TOML or JSON) into the fields of new_game; names the key at fault."""

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise RosterError(f"cannot read roster {path}: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise RosterError(f"roster {path} is not UTF-8 text (byte {error.start})") from None
    try:
        data: Any = json.loads(text) if path.endswith(".json") else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as error:
        raise RosterError(f"roster {path} is not valid {_kind(path)}: {error}") from error
    return roster_from_data(data, keys, f"roster {path}")


def roster_from_data(data: Any, keys: Sequence[str], source: str = "roster") -> dict[str, Any]:
    """A roster already parsed (a table, or a list of players) as the fields of new_game,
    checked as a roster file's are; `source` names it in messages. Reads no file."""
    bad = _lone_surrogate(data, "")
    if bad is not None:
        # JSON's "\ud800" reads as a lone surrogate, which the daemon could never store
        raise RosterError(f"{source}: {bad} holds a lone surrogate, which no text can carry")
    if isinstance(data, list):
        data = {"players": data}
    if not isinstance(data, dict):
        raise RosterError(f"{source}: expected a table of players, got {type(data).__name__}")
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise RosterError(f"{source}: unknown key {unknown[0]!r} (expected {', '.join(keys)})")
    if not isinstance(data.get("players"), list) or not data["players"]:
        raise RosterError(f"{source}: 'players' must list at least one player")
    return data


def _lone_surrogate(value: Any, where: str) -> str | None:
    """Where in a roster a text UTF-8 cannot encode is (`players[1].name`), or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where or "the roster"
    elif isinstance(value, dict):
        for key, inner in value.items():
            found = _lone_surrogate(key, f"a key of {where or 'the roster'}") or _lone_surrogate(
                inner, f"{where}.{key}" if where else str(key)
            )
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found = _lone_surrogate(inner, f"{where}[{index}]")
            if found is not None:
                return found
    return None


def _kind(path: str) -> str:
    return "JSON" if path.endswith(".json") else "TOML"
