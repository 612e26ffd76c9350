"""The game master's actions as web forms, generated from the game's own GmAction list.

Each GmAction adds its arguments to an argparse parser (as `tabletop gm` uses it); the form is
read off that parser's actions, and a filled-in form is turned back into words and parsed by
the same parser, so the game's own argument types check it and its `build` makes the command.
Nothing here knows a game's verbs.
"""

from __future__ import annotations

import argparse
import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NoReturn

from rules.games.errors import RulesError
from rules.games.game import EVERYONE, PLAYER, PLAYER_OR_ALL, GmAction
from rules.games.roster import RosterError, roster_from_data
from rules.games.setup import PlayerChoiceError, PlayerSetup

from . import ConsoleError


class FormError(ConsoleError):
    """A form filled in wrongly: says which field and why."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class _Parser(argparse.ArgumentParser):
    """An argparse parser that raises FormError instead of printing and exiting."""

    def error(self, message: str) -> NoReturn:
        raise FormError(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise FormError(message or "cannot read the form")


@dataclass(frozen=True, slots=True)
class Field:
    """One input of a form: what argparse calls an action."""

    name: str  # the namespace's dest, also the input's name
    label: str
    help: str
    # "text", "number", "choice", "flag", "list" (space separated), "repeat" (lines),
    # "roster" (names one a line, or a roster's TOML or JSON text), "player" (one of the
    # game's players: the page offers them in a list), "names" (new players' names, one a line)
    kind: str
    required: bool
    # a choice's values; for a "player", the words it takes besides a player's name ("all")
    choices: tuple[str, ...] = ()
    option: str | None = None  # "--card" for an optional argument, None for a positional
    # a roster's choices per player, with their defaults (rules/games/setup.py), when the game
    # starts from names
    players: PlayerSetup | None = None

    def to_json(self) -> dict[str, Any]:
        described: dict[str, Any] = {
            "name": self.name,
            "label": self.label,
            "help": self.help,
            "kind": self.kind,
            "required": self.required,
            "choices": list(self.choices),
        }
        if self.players is not None:
            described["players"] = self.players.to_json()
        return described


@dataclass(frozen=True, slots=True)
class Form:
    """One verb as a form."""

    action: GmAction
    fields: tuple[Field, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "verb": self.action.verb,
            "title": self.action.title or self.action.verb,
            "group": self.action.group.value,
            "answers": list(self.action.answers),
            "help": self.action.help,
            "fields": [field.to_json() for field in self.fields],
        }

    def parser(self) -> _Parser:
        parser = _Parser(prog=self.action.verb, add_help=False)
        self.action.arguments(parser)
        return parser

    def command(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The command the filled-in form asks for, or FormError naming the field."""
        if not isinstance(values, Mapping):
            raise FormError("expected a JSON object of the form's fields")
        known = {field.name for field in self.fields}
        unknown = sorted(str(key) for key in values if key not in known)
        if unknown:
            raise FormError(f"{self.action.verb}: no field {unknown[0]!r}", unknown[0])
        words: list[str] = []
        for field in self.fields:
            words += _words(field, values.get(field.name), self.action.verb)
        try:
            namespace = self.parser().parse_args(words)
        except FormError as error:
            where = _field_named(self, str(error))
            raise FormError(f"{self.action.verb}: {error}", where) from None
        try:
            return self.action.build(namespace)
        except (ValueError, OSError, ConsoleError) as error:
            raise FormError(f"{self.action.verb}: {error}") from None
        except Exception as error:  # a game's own error type (RulesError, UserError, ...)
            raise FormError(f"{self.action.verb}: {error}") from None


def forms_for(
    actions: Sequence[GmAction],
    roster_keys: Sequence[str] = ("players", "seed", "options"),
    players: PlayerSetup | None = None,
) -> dict[str, Form]:
    """Each verb's form, in the game's order.

    No path on the console's machine is ever taken from a page: an action that reads files
    (`GmAction.reads_files`) is never offered; its `new` becomes a roster built in the page
    (`roster_form`), and any other such action is left to `tabletop gm`."""
    forms: dict[str, Form] = {}
    for action in actions:
        if action.reads_files:
            if action.verb == "new":
                forms[action.verb] = roster_form(action, tuple(roster_keys), players)
            continue
        parser = _Parser(prog=action.verb, add_help=False)
        action.arguments(parser)
        fields = tuple(_field(argument) for argument in parser._actions)
        forms[action.verb] = Form(action, fields)
    return forms


ROSTER_FIELD = "roster"
# A single line that names a file rather than a player: the console says it reads no files.
_PATH_HINTS = ("/", "\\", "~", ".toml", ".json")


def roster_form(
    action: GmAction, keys: tuple[str, ...], players: PlayerSetup | None = None
) -> Form:
    """The game's `new` as a roster given in the page: its players' names (each with the
    game's choices per player, `players`, defaults filled in), or the roster's own text (TOML
    or JSON, what a roster file holds), never a file's name."""
    help_text = (
        "the players' names, one a line, or the roster itself as TOML or JSON (keys: "
        f"{', '.join(keys)}); 'Read a file' reads a roster from this device into the page"
    )
    field = Field(
        name=ROSTER_FIELD,
        label=ROSTER_FIELD,
        help=help_text,
        kind="roster",
        required=True,
        players=players,
    )

    def build(namespace: argparse.Namespace) -> dict[str, Any]:
        return {"cmd": "new_game", **read_roster_value(namespace.roster, keys, players)}

    web = replace(
        action,
        help="start a game from the roster given here",
        arguments=_no_arguments,
        build=build,
        reads_files=False,
    )
    return _RosterForm(web, (field,))


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    return None


@dataclass(frozen=True, slots=True)
class _RosterForm(Form):
    """The `new` form of a game whose own `new` reads files: the roster comes in the form."""

    def command(self, values: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(values, Mapping):
            raise FormError("expected a JSON object of the form's fields")
        unknown = sorted(str(key) for key in values if key != ROSTER_FIELD)
        if unknown:
            raise FormError(f"{self.action.verb}: no field {unknown[0]!r}", unknown[0])
        namespace = argparse.Namespace(roster=values.get(ROSTER_FIELD))
        try:
            return self.action.build(namespace)
        except FormError as error:
            raise FormError(f"{self.action.verb}.{error}", ROSTER_FIELD) from None
        except RulesError as error:
            raise FormError(f"{self.action.verb}: {error}", ROSTER_FIELD) from None


def read_roster_value(
    value: Any, keys: Sequence[str], players: PlayerSetup | None = None
) -> dict[str, Any]:
    """The roster a page sent: a JSON object or list, or text (names one a line, TOML or
    JSON); with the game's `players` setup, each player completed (a bare name gets the
    defaults). Never opens anything: a value that looks like a file's name is refused."""
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise FormError("roster: required", ROSTER_FIELD)
        one_line = "\n" not in text and text[0] not in "{[" and "=" not in text
        if one_line and any(hint in text for hint in _PATH_HINTS):
            raise FormError(
                "roster: the console reads no files on its machine; give the players' names "
                "(one a line) or the roster's own text, or read a file from this device with "
                "'Read a file'",
                ROSTER_FIELD,
            )
        value = _parse_roster_text(text)
    try:
        roster = roster_from_data(value, keys, "roster")
    except RosterError as error:
        raise FormError(str(error), ROSTER_FIELD) from None
    if players is None:
        return roster
    try:
        return players.roster(roster)
    except PlayerChoiceError as error:
        raise FormError(str(error), ROSTER_FIELD) from None


def _parse_roster_text(text: str) -> Any:
    """Roster text -> data: JSON when it starts as JSON, TOML when it has a key, else names."""
    if text[0] in "{[":
        try:
            return json.loads(text)
        except (ValueError, RecursionError) as error:
            # TOML's tables start with "[" too (`[[players]]`): read as TOML when it has keys
            if "=" not in text:
                raise FormError(f"roster: not valid JSON: {error}", ROSTER_FIELD) from None
    if "=" in text:
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise FormError(f"roster: not valid TOML: {error}", ROSTER_FIELD) from None
    return [line.strip() for line in text.splitlines() if line.strip()]


def _field(argument: argparse.Action) -> Field:
    option = argument.option_strings[-1] if argument.option_strings else None
    label = (option or argument.dest).lstrip("-").replace("_", " ")
    kind = "text"
    choices = tuple(str(choice) for choice in argument.choices or ())
    if isinstance(argument, argparse._StoreTrueAction | argparse._StoreFalseAction):
        kind = "flag"
    elif isinstance(argument, argparse._AppendAction):
        kind = "repeat"
    elif argument.nargs in ("+", "*") and argument.dest == "players" and argument.type is None:
        kind = "names"  # a new game's players: one a line, so a name may hold a space
    elif argument.nargs in ("+", "*"):
        kind = "list"
    elif argument.metavar == PLAYER_OR_ALL:
        kind = "player"
        choices = (EVERYONE,)  # besides the players: everyone at once
    elif argument.metavar == PLAYER or (argument.dest == "player" and argument.metavar is None):
        kind = "player"
    elif argument.choices:
        kind = "choice"
    elif argument.type is int:
        kind = "number"
    required = bool(argument.required) if option else argument.nargs not in ("?", "*")
    return Field(
        name=argument.dest,
        label=label,
        help=argument.help or "",
        kind=kind,
        required=required,
        choices=choices,
        option=option,
    )


def _words(field: Field, value: Any, verb: str) -> list[str]:
    """The command-line words one field's value stands for."""
    where = f"{verb}.{field.name}"
    if field.kind == "flag":
        if value in (None, False, "", "off", "false"):
            return []
        if value in (True, "on", "true"):
            return [field.option or ""]
        raise FormError(f"{where}: expected true or false, got {value!r}", field.name)
    if value is None or (isinstance(value, str) and not value.strip()):
        if field.required:
            raise FormError(f"{where}: required", field.name)
        return []
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise FormError(f"{where}: expected text, got {value!r}", field.name)
    text = str(value).strip()
    if field.kind == "repeat":
        items = [line.strip() for line in text.splitlines() if line.strip()]
        return [word for item in items for word in (field.option or "", item)]
    if field.kind == "names":
        items = [line.strip() for line in text.splitlines() if line.strip()]
        if not items:
            raise FormError(f"{where}: required", field.name)
    else:
        items = text.split() if field.kind == "list" else [text]
    if field.option is None:
        # a positional that starts with "-" would read as an option: say "--" first
        return ["--", *items] if items[0].startswith("-") else items
    return [f"{field.option}={items[0]}", *items[1:]]


def _field_named(form: Form, message: str) -> str | None:
    """The field an argparse message is about, if it names one."""
    for field in form.fields:
        if field.option and field.option in message:
            return field.name
        if f"argument {field.name}" in message or f" {field.name}" in message:
            return field.name
    return None
