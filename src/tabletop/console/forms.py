"""The game master's actions as web forms, generated from the game's own GmAction list.

Each GmAction adds its arguments to an argparse parser (as `tabletop gm` uses it); the form is
read off that parser's actions, and a filled-in form is turned back into words and parsed by
the same parser, so the game's own argument types check it and its `build` makes the command.
Nothing here knows a game's verbs.
"""

from __future__ import annotations

import argparse
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NoReturn

from tabletop.rules.games.errors import RulesError
from tabletop.rules.games.game import EVERYONE, PLAYER, PLAYER_OR_ALL, YES_NO, GmAction
from tabletop.rules.games.roster import RosterError, roster_from_data
from tabletop.rules.games.rows import Column, Rows
from tabletop.rules.games.setup import PlayerChoiceError, PlayerSetup

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
    # game's players: the page offers them in a list), "names" (new players' names, one a line),
    # "yesno" (an answer: two buttons), "card" (a seat's card: the page offers the seats'
    # slots, sent as OWNER:SLOT), "pairs" (a value per player: the page shows a row per
    # player, sent as NAME=VALUE lines; `pair` says what the value is), "rows" (a row per
    # item built on the page, each with the game's columns: `rows`; sent as a list of objects)
    kind: str
    required: bool
    # a choice's values; for a "player", the words it takes besides a player's name ("all")
    choices: tuple[str, ...] = ()
    option: str | None = None  # "--card" for an optional argument, None for a positional
    # a roster's choices per player, with their defaults (src/tabletop/rules/games/setup.py), when
    # the game starts from names
    players: PlayerSetup | None = None
    titles: tuple[str, ...] = ()  # each choice in words ("hold_em": "hold em")
    # a "pairs" field: its value per row ("number", "card" or "text"), and whether a row
    # names one of the game's players ("player") or anyone ("name": an NPC at the poker table)
    pair: str = ""
    keys: str = ""
    pair_words: str = ""  # what the value is, in words ("money")
    rows: Rows | None = None  # a "rows" field: its columns, and how a row is written

    def to_json(self) -> dict[str, Any]:
        described: dict[str, Any] = {
            "name": self.name,
            "label": self.label,
            "help": self.help,
            "kind": self.kind,
            "required": self.required,
            "choices": list(self.choices),
            "titles": list(self.titles or self.choices),
        }
        if self.kind == "pairs":
            described["pair"] = self.pair
            described["keys"] = self.keys
            described["value"] = self.pair_words
        if self.players is not None:
            described["players"] = self.players.to_json()
        if self.rows is not None:
            described["rows"] = self.rows.to_json()
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
            if field.rows is not None:
                words += _row_words(field, field.rows, values.get(field.name), values)
            else:
                words += _words(field, values.get(field.name), self.action.verb)
        try:
            namespace = self.parser().parse_args(words)
        except FormError as error:
            where = _field_named(self, str(error))
            raise FormError(_in_words(self, str(error)), where) from None
        try:
            return self.action.build(namespace)
        except (ValueError, OSError, ConsoleError) as error:
            raise FormError(_in_words(self, str(error))) from None
        except Exception as error:  # a game's own error type (RulesError, UserError, ...)
            raise FormError(_in_words(self, str(error))) from None


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
        labels = dict(action.labels)
        fields = tuple(_field(argument, labels) for argument in parser._actions)
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
        "the players' names, one a line (or a whole roster, as a roster file holds it); "
        "'Read a file' reads a roster from this device into the page"
    )
    field = Field(
        name=ROSTER_FIELD,
        label=ROSTER_FIELD,  # the players, or the roster's text
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
        except FormError as error:  # "roster: ...": said by the field's label
            said = str(error)
            raise FormError(said[:1].upper() + said[1:], ROSTER_FIELD) from None
        except RulesError as error:
            raise FormError(str(error), ROSTER_FIELD) from None


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


def _words_of(name: str) -> str:
    """A program's spelling in words: "drop_lucky" and "--two-pistols" as "drop lucky" and
    "two pistols", "gm" as "game master"."""
    words = name.lstrip("-").replace("_", " ").replace("-", " ").split()
    return " ".join("game master" if word == "gm" else word for word in words)


def _label(argument: argparse.Action, labels: Mapping[str, str]) -> str:
    if argument.dest in labels:
        return labels[argument.dest]
    option = argument.option_strings[-1] if argument.option_strings else None
    return _words_of(option or argument.dest)


# A NAME=VALUE metavar: a value per player (PLAYER=N, PLAYER=OWNER:SLOT) or per name
# (NAME=MONEY: the poker table seats the game master's NPCs too).
_PAIR_VALUES = {"OWNER:SLOT": "card", "N": "number", "MONEY": "number", "POINTS": "number"}
_PAIR_WORDS = {"OWNER:SLOT": "card", "N": "number", "MONEY": "money", "POINTS": "points"}


def _field(argument: argparse.Action, labels: Mapping[str, str] | None = None) -> Field:
    option = argument.option_strings[-1] if argument.option_strings else None
    label = _label(argument, labels or {})
    kind = "text"
    choices = tuple(str(choice) for choice in argument.choices or ())
    metavar = argument.metavar if isinstance(argument.metavar, str) else ""
    pair = keys = pair_words = ""
    rows = argument.type if isinstance(argument.type, Rows) else None
    if rows is not None:
        kind = "rows"  # built on the page, a row per item: never the notation's words
    elif isinstance(argument, argparse._StoreTrueAction | argparse._StoreFalseAction):
        kind = "flag"
    elif metavar == YES_NO:
        kind = "yesno"
    elif metavar == "OWNER:SLOT":
        kind = "card"
    elif "=" in metavar:
        kind = "pairs"
        key, _, value = metavar.partition("=")
        keys = "player" if key == PLAYER else "name"
        pair = _PAIR_VALUES.get(value, "text")
        pair_words = _PAIR_WORDS.get(value, "value")
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
        help=rows.help if rows is not None else argument.help or "",
        kind=kind,
        required=required,
        choices=choices,
        option=option,
        titles=tuple(_words_of(choice) for choice in choices) if kind == "choice" else (),
        pair=pair,
        keys=keys,
        pair_words=pair_words,
        rows=rows,
    )


_RESERVED = {",": "a comma", "=": "an equals sign", "/": "a slash"}
_TRUE, _FALSE = (True, "on", "true"), (None, False, "", "off", "false")
_WHOLE = re.compile(r"[+-]?\d+")


def _row_words(field: Field, rows: Rows, value: Any, values: Mapping[str, Any]) -> list[str]:
    """The command line's words for a "rows" field: each row checked by its columns (a
    refusal names the row and the column: "Pool 2, skill rank (dice): required") and written
    as the command line writes it."""
    where = field.label[:1].upper() + field.label[1:]
    if value is None or value in ("", []):
        if field.required:
            raise FormError(f"{where}: required ({rows.add}, then fill in its row)", field.name)
        return []
    if not isinstance(value, list) or not all(isinstance(row, Mapping) for row in value):
        raise FormError(f"{where}: expected a row per {rows.noun} ({rows.add})", field.name)
    if len(value) < rows.least:
        raise FormError(f"{where}: at least {rows.least} {rows.noun}s", field.name)
    picked = values.get(rows.labels_from) if rows.labels_from else None
    relabel = picked if isinstance(picked, str) and picked else None
    words = []
    for index, row in enumerate(value, 1):
        at = f"{rows.noun[:1].upper()}{rows.noun[1:]} {index}"
        word = rows.write(_row(rows, row, at, relabel, field.name))
        try:
            rows.read(word)
        except (argparse.ArgumentTypeError, ValueError):
            raise FormError(f"{at}: cannot be read; fill in its row again", field.name) from None
        words.append(word)
    return words


def _row(
    rows: Rows, row: Mapping[str, Any], at: str, relabel: str | None, name: str
) -> dict[str, Any]:
    """One row's values, checked by its columns; a column not asked in this row (a player's
    rank in a character's row, a rank the order does not compare) is left out."""
    known = {column.name for column in rows.columns} | {"npc"}
    unknown = sorted(str(key) for key in row if key not in known)
    if unknown:
        raise FormError(f"{at}: no part {unknown[0]!r} in this row", name)
    npc = row.get("npc") in _TRUE
    checked: dict[str, Any] = {"npc": npc}
    for column in rows.columns:
        label = column.label_for(relabel)
        if label is None or column.side == ("player" if npc else "npc"):
            continue
        said = f"{at}, {label}"
        raw = row.get(column.name)
        if column.kind == "flag":
            if raw not in _TRUE and raw not in _FALSE:
                raise FormError(f"{said}: expected ticked or not, got {raw!r}", name)
            checked[column.name] = raw in _TRUE
            continue
        if raw is not None and (isinstance(raw, bool) or not isinstance(raw, str | int)):
            raise FormError(f"{said}: expected text, got {raw!r}", name)
        text = "" if raw is None else str(raw).strip()
        if column.kind == "who":
            if not text and (column.required or not npc):
                wanted = "give the character's name" if npc else "pick a player"
                raise FormError(f"{said}: {wanted}", name)
            _plain_text(text, said, rows, name)
            checked[column.name] = text
        elif not text:
            if column.required:
                raise FormError(f"{said}: required", name)
            checked[column.name] = None
        elif column.kind == "number":
            checked[column.name] = _number(column, text, said, name)
        else:
            _plain_text(text, said, rows, name)
            checked[column.name] = text
    return checked


def _plain_text(text: str, said: str, rows: Rows, name: str) -> None:
    held = [_RESERVED.get(mark, repr(mark)) for mark in rows.reserved if mark in text]
    if held:
        raise FormError(f"{said}: may not hold {' or '.join(held)}", name)
    if text.startswith("-"):
        raise FormError(f"{said}: may not start with a dash", name)


def _number(column: Column, text: str, said: str, name: str) -> int:
    if not _WHOLE.fullmatch(text):
        raise FormError(f"{said}: '{text}' is not a whole number", name)
    number = int(text)
    if column.minimum is not None and number < column.minimum:
        raise FormError(f"{said}: {number} is less than {column.minimum}", name)
    if column.maximum is not None and number > column.maximum:
        raise FormError(f"{said}: {number} is more than {column.maximum}", name)
    return number


def _words(field: Field, value: Any, verb: str) -> list[str]:
    """The command-line words one field's value stands for."""
    where = field.label[:1].upper() + field.label[1:]
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
    if field.kind in {"pairs", "repeat"}:
        # a line each, one word each ("Black Bart=30"): a name may hold a space; a line of
        # several pairs ("Ana=10 Bo=20", as the command line writes them) is split at spaces
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        items = [
            word
            for line in lines
            for word in (line.split() if field.kind == "pairs" and line.count("=") > 1 else [line])
        ]
        if field.option is not None and (field.kind == "repeat" or _appends(field)):
            return [word for item in items for word in (field.option, item)]
        if not items:
            return []
        return ["--", *items] if any(item.startswith("-") for item in items) else items
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


def _appends(field: Field) -> bool:
    """True for a "pairs" field given once per pair (`--card Ana=Ana:3 --card Bo=Bo:1`)."""
    return field.option is not None


_INVALID = (
    (re.compile(r"invalid int value: '([^']*)'"), r"'\1' is not a whole number"),
    (re.compile(r"invalid float value: '([^']*)'"), r"'\1' is not a number"),
    (
        re.compile(r"invalid choice: '([^']*)' \(choose from ([^)]*)\)"),
        lambda m: (
            f"'{m[1]}' is not one of "
            + ", ".join(_words_of(choice.strip(" '")) for choice in m[2].split(","))
        ),
    ),
)
# What a field that the page fills in for the game master wants, when it is refused all the
# same (typed by hand into the API): the program's own syntax stays out of it.
_WANTED = {
    "card": "pick one of the seats' cards from the list",
    "pairs": "give each row its name and its value (the name's row is left empty if none)",
    "rows": "fill in each row",
}


def _spellings(form: Form) -> dict[str, list[str]]:
    """Each field's names as its program says them in a message: 'argument --card',
    'argument PLAYER=POINTS', 'challenge.critical', 'seats'."""
    spelled: dict[str, list[str]] = {field.name: [] for field in form.fields}
    for action in form.parser()._actions:
        if action.dest not in spelled:
            continue
        named = argparse._get_action_name(action)
        spelled[action.dest] += [
            f"argument {name}" for name in (named, action.dest, *action.option_strings) if name
        ]
        spelled[action.dest] += [f"{form.action.verb}.{action.dest}", *action.option_strings]
        spelled[action.dest].append(action.dest)
    return spelled


def _in_words(form: Form, message: str) -> str:
    """An argparse or build message in the form's own words: "argument slot: invalid int
    value: '6,'" is "Slot: '6,' is not a whole number", a field by its label, never by its
    program's name; a field the page fills in says what it wants instead."""
    text = message.strip()
    for pattern, words in _INVALID:
        text = pattern.sub(words, text)
    spelled = _spellings(form)
    for field in form.fields:
        label = field.label[:1].upper() + field.label[1:]
        for name in spelled[field.name]:
            if text.startswith(f"{name}:") or text.startswith(f"{name} "):
                if field.kind in _WANTED:
                    return f"{label}: {_WANTED[field.kind]}"
                return label + text[len(name) :]
    return text


def _field_named(form: Form, message: str) -> str | None:
    """The field an argparse message is about, if it names one."""
    spelled = _spellings(form)
    for field in form.fields:
        if field.option and field.option in message:
            return field.name
        named = (name for name in spelled[field.name] if name.startswith("argument "))
        if any(name in message for name in named) or f" {field.name}" in message:
            return field.name
    return None
