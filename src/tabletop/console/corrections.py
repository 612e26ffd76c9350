"""The game master's corrections of a throw's reading, kept so the table learns from them.

The bridge publishes each settled throw's frame as the camera took it on `dice/photo` (docs/
mqtt.md), with the dice it read and their boxes in that photo's pixels. On the game master's
page a person taps a die to give its value (or "no die here" for a box on nothing, or "cocked"
for a die leaning on something), or taps a place where the camera missed a die; the corrected
throw goes to the game as the game's own roll entry (the verb a game master uses to enter dice
by hand), and the console keeps:

- the photo, `<folder>/<table>-<hash>.jpg` (the JPEG as the bridge sent it: no box drawn);
- one row per die in `<folder>/labels.csv` (`image,cx,cy,value`, pixel coordinates, the image
  relative to the folder): the file `tabletop dice enrol --labels` reads as it is.

A throw with a cocked die goes to no game: a leaning die has no value to enter (the seeds say
nothing of cocked dice, so what follows is the game master's: a throw again, or an entry by
hand). Its photo is kept all the same, the leaning die labelled `cocked`, which teaches the
table's enrolment what its cocked dice look like (docs/vision.md, "Cocked dice").

A photo corrected again replaces its own rows, so a resend or a second thought never counts a
die twice. Nothing is written until the whole correction is checked, and the CSV is replaced
in one step (a new file renamed over the old), so a refusal or a crash loses no earlier row.
"""

from __future__ import annotations

import base64
import binascii
import csv
import hashlib
import io
import json
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from tabletop.rules.games.game import VerbGroup

from . import ConsoleError
from .forms import Form

LABELS: Final = "labels.csv"
COCKED: Final = "cocked"  # a leaning die's value, in a correction and in labels.csv
HEADER: Final = ("image", "cx", "cy", "value")
MAX_DICE: Final = 40  # as many as the bridge announces (tabletop.bridge.dice.MAX_DICE)
PHOTO_LIMIT: Final = 2 * 1024 * 1024  # the JPEG's bytes (the bridge's stay under 1.5 MB)
_JPEG_START: Final = b"\xff\xd8\xff"


class CorrectionError(ConsoleError):
    """A correction that cannot be taken: the HTTP status, and the words the page shows."""

    def __init__(self, status: int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.field = field


@dataclass(frozen=True, slots=True)
class ThrowPhoto:
    """The last settled throw's frame as the camera took it, and what the camera read on it."""

    id: str  # from the JPEG's bytes: the same photo always has the same id (and file name)
    jpeg: bytes
    width: int
    height: int
    event: str
    dice: tuple[dict[str, Any], ...]  # each: value (or null), status, box [x0, y0, x1, y1]

    def to_json(self) -> dict[str, Any]:
        """What the page's snapshot carries (not the bytes: the page fetches those)."""
        return {
            "id": self.id,
            "width": self.width,
            "height": self.height,
            "event": self.event,
            "dice": list(self.dice),
        }


def read_photo(payload: bytes) -> ThrowPhoto | None:
    """A `dice/photo` payload, or None when it is not one the bridge sends (not ours to
    judge further: a display goes on without it)."""
    try:
        body = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    if not isinstance(body, dict) or body.get("v") != 1:
        return None
    width, height = body.get("width"), body.get("height")
    if not isinstance(width, int) or not isinstance(height, int):
        return None
    if isinstance(width, bool) or isinstance(height, bool) or width < 1 or height < 1:
        return None
    try:
        jpeg = base64.b64decode(str(body.get("jpeg", "")), validate=True)
    except (binascii.Error, ValueError):
        return None
    if not jpeg.startswith(_JPEG_START) or len(jpeg) > PHOTO_LIMIT:
        return None
    dice: list[dict[str, Any]] = []
    for die in body.get("dice") or []:
        box = die.get("box") if isinstance(die, dict) else None
        if not (
            isinstance(box, list)
            and len(box) == 4
            and all(isinstance(c, int | float) and not isinstance(c, bool) for c in box)
        ):
            continue
        value = die.get("value")
        dice.append(
            {
                "value": value if value in (1, 2, 3, 4, 5, 6) else None,
                "status": str(die.get("status") or ""),
                "box": [round(float(c), 1) for c in box],
            }
        )
    return ThrowPhoto(
        id=hashlib.sha256(jpeg).hexdigest()[:16],
        jpeg=jpeg,
        width=width,
        height=height,
        event=str(body.get("event") or ""),
        dice=tuple(dice[:MAX_DICE]),
    )


@dataclass(frozen=True, slots=True)
class CorrectedDie:
    """A die as the person gave it: its centre in the photo's pixels, and its value (1-6, or
    COCKED for a die leaning on something)."""

    cx: float
    cy: float
    value: int | Literal["cocked"]


def read_correction(body: bytes, photo: ThrowPhoto | None) -> list[CorrectedDie]:
    """The dice of a correction (JSON `{"photo": ID, "dice": [{"cx", "cy", "value"}, ...]}`),
    checked against the photo it names; CorrectionError in words otherwise."""
    try:
        values = json.loads(body)
    except (ValueError, RecursionError) as bad:
        raise CorrectionError(400, f"not valid JSON: {bad}") from None
    if not isinstance(values, dict):
        raise CorrectionError(400, 'expected a JSON object: {"photo": ID, "dice": [...]}')
    unknown = sorted(str(key) for key in values if key not in ("photo", "dice"))
    if unknown:
        raise CorrectionError(400, f"no field {unknown[0]!r}; a correction has photo and dice")
    if photo is None:
        raise CorrectionError(
            409, "no throw has been photographed yet: there is nothing to correct"
        )
    if values.get("photo") != photo.id:
        raise CorrectionError(
            409,
            "photo: a newer throw came since this one was shown; correct the throw now shown",
            "photo",
        )
    dice = values.get("dice")
    if not isinstance(dice, list) or not dice:
        raise CorrectionError(
            400, "dice: expected a list of the dice in the photo, one at least", "dice"
        )
    if len(dice) > MAX_DICE:
        raise CorrectionError(400, f"dice: at most {MAX_DICE} dice, got {len(dice)}", "dice")
    corrected: list[CorrectedDie] = []
    for number, die in enumerate(dice, start=1):
        where = f"dice[{number}]"
        if not isinstance(die, dict) or set(die) != {"cx", "cy", "value"}:
            raise CorrectionError(400, f"{where}: expected an object of cx, cy and value", "dice")
        cx, cy, value = die["cx"], die["cy"], die["value"]
        if not all(isinstance(c, int | float) and not isinstance(c, bool) for c in (cx, cy)):
            raise CorrectionError(400, f"{where}: cx and cy must be pixel numbers", "dice")
        if not (0 <= cx < photo.width and 0 <= cy < photo.height):
            raise CorrectionError(
                400,
                f"{where}: the centre ({cx:g}, {cy:g}) is outside the photo "
                f"({photo.width} x {photo.height} pixels)",
                "dice",
            )
        if value != COCKED and (isinstance(value, bool) or value not in (1, 2, 3, 4, 5, 6)):
            raise CorrectionError(
                400, f"{where}: a die shows 1 to 6 (or is {COCKED!r}), got {value!r}", "dice"
            )
        corrected.append(
            CorrectedDie(
                round(float(cx), 1), round(float(cy), 1), COCKED if value == COCKED else int(value)
            )
        )
    return corrected


def roll_entry(
    forms: Mapping[str, Form], prompt: Any, values: Sequence[int], game: str
) -> tuple[Form, dict[str, Any]]:
    """The game's own form for entering dice by hand, and its filled-in fields: the dice verb
    that answers what the prompt waits for (a Vigor reroll's own entry), else `roll`."""
    pending = prompt.get("pending") if isinstance(prompt, dict) else None
    wanted = [pending.get("type")] if isinstance(pending, dict) else []
    if isinstance(prompt, dict):
        wanted.append(prompt.get("waiting"))
    by_hand = [
        form
        for form in forms.values()
        if form.action.group is VerbGroup.DICE
        and len(form.fields) == 1
        and form.fields[0].kind in ("list", "number")
    ]
    form = next((f for kind in wanted for f in by_hand if kind in f.action.answers), None)
    form = form or forms.get("roll")
    if form is None or len(form.fields) != 1:
        raise CorrectionError(409, f"{game} has no roll entry to send a corrected throw with")
    field = form.fields[0]
    if field.kind != "list" and len(values) != 1:
        raise CorrectionError(
            400,
            f"{game}'s {form.action.verb} takes one die; the correction gives {len(values)}: "
            "mark the others 'no die here'",
            "dice",
        )
    return form, {field.name: " ".join(str(v) for v in values)}


class Corrections:
    """A folder of corrected photos and their labels, written by one console."""

    def __init__(self, folder: Path, table: str) -> None:
        self.folder = folder
        self.table = table
        self._lock = threading.Lock()

    @property
    def labels(self) -> Path:
        return self.folder / LABELS

    def keep(self, photo: ThrowPhoto, dice: Sequence[CorrectedDie]) -> str:
        """Writes the photo and replaces its rows in labels.csv; returns the photo's file name.
        CorrectionError (500) in words when the folder cannot be written; the labels the
        folder held stay as they were."""
        name = f"{self.table}-{photo.id}.jpg"
        with self._lock:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                rows = self._rows()
                image = self.folder / name
                if not image.is_file():
                    _replace(image, photo.jpeg)
                rows = [row for row in rows if row[0] != name]
                rows += [[name, f"{d.cx:g}", f"{d.cy:g}", str(d.value)] for d in dice]
                text = io.StringIO(newline="")
                writer = csv.writer(text, lineterminator="\n")
                writer.writerow(HEADER)
                writer.writerows(rows)
                _replace(self.labels, text.getvalue().encode("utf-8"))
            except OSError as failed:
                raise CorrectionError(
                    500, f"cannot keep the correction in {self.folder}: {failed.strerror or failed}"
                ) from None
        return name

    def _rows(self) -> list[list[str]]:
        """labels.csv's rows as they are (a person may have added some by hand)."""
        if not self.labels.exists():
            return []
        try:
            text = self.labels.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            text = ""
        rows = list(csv.reader(io.StringIO(text, newline="")))
        if not rows or tuple(cell.strip() for cell in rows[0]) != HEADER:
            raise CorrectionError(
                409,
                f"{self.labels} is not a labels file (its first line must be "
                f"{','.join(HEADER)}): move it away, and the console starts a new one",
            )
        return [row for row in rows[1:] if row]


def _replace(path: Path, data: bytes) -> None:
    """Writes `path` in one step: a new file beside it, renamed over it."""
    partial = path.with_name(f".{path.name}.partial")
    with open(partial, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)
