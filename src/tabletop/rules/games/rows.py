"""An argument that a page builds as rows (Steamfunkateers' pools: a row per pool, who throws
and with what), while `tabletop gm` takes it in the command line's own notation.

A `Rows` is the argument's argparse `type` (it reads one word of the notation) and says its
columns in words; the console draws a row per item, checks each row by its columns, and writes
it back with `write` into the word the command line would have been given, so a page's command
is the one `tabletop gm` makes from the same values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# A column's kinds: "who" (one of the game's players, or a game master's character with a
# name: the row holds "who" and "npc", true for a character), "number", "text", "flag".
COLUMN_KINDS = ("who", "number", "text", "flag")


@dataclass(frozen=True, slots=True)
class Column:
    """One part of a row, in words."""

    name: str  # the row's key
    label: str
    kind: str
    required: bool = False  # "who": a game master's character needs a name
    minimum: int | None = None
    maximum: int | None = None
    help: str = ""
    # "player": asked only in a player's row, "npc": only in a game master's character's
    side: str = ""
    # the label by the value of the form's field `Rows.labels_from` (a turn order's kind: the
    # skill compared); a column with no label for that value is not asked
    labels: tuple[tuple[str, str], ...] = ()

    def label_for(self, value: str | None) -> str | None:
        """The column's label when the form's `labels_from` field says `value`; None: not
        asked then."""
        if not self.labels or value is None:
            return self.label
        return dict(self.labels).get(value)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "kind": self.kind,
            "required": self.required,
            "min": self.minimum,
            "max": self.maximum,
            "help": self.help,
            "side": self.side,
            "labels": dict(self.labels),
        }


@dataclass(frozen=True, slots=True)
class Rows:
    """An argument given as rows on a page: the argparse `type` of its notation's words."""

    noun: str  # one row, in words ("pool")
    add: str  # the button that adds a row ("Add a pool")
    help: str  # the argument on a page, in words (its argparse help is the notation's)
    columns: tuple[Column, ...]
    write: Callable[[Mapping[str, Any]], str]  # a checked row -> the command line's word
    read: Callable[[str], Any]  # the command line's word -> the command's value
    least: int = 1  # rows the form needs
    labels_from: str = ""  # the form's field whose value relabels the columns
    # characters a row's text may not hold (they are the notation's own)
    reserved: str = ""

    def __call__(self, text: str) -> Any:
        return self.read(text)

    def to_json(self) -> dict[str, Any]:
        return {
            "noun": self.noun,
            "add": self.add,
            "help": self.help,
            "least": self.least,
            "labels_from": self.labels_from,
            "columns": [column.to_json() for column in self.columns],
        }
