"""The MQTT topic names of one table, all under `tabletop/v1/<table>/` (see docs/mqtt.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

ROOT: Final = "tabletop/v1"
# Topics about the room rather than one table. A table id starts with a letter or digit, so
# this level can never be a table's.
ROOM_LEVEL: Final = "_room"
DEFAULT_TABLE: Final = "main"
TABLE_ENV: Final = "TABLETOP_TABLE"
_TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


class TableIdError(ValueError):
    """A table id that cannot be a topic level."""


def check_table_id(table: str) -> str:
    """Returns the table id if it is usable as one topic level, else raises TableIdError."""
    if not _TABLE_ID.fullmatch(table):
        raise TableIdError(
            f"table id {table!r}: use 1-64 letters, digits, '-' or '_', starting with a letter "
            "or digit (it becomes an MQTT topic level)"
        )
    return table


@dataclass(frozen=True, slots=True)
class TableTopics:
    """Every topic of one table (docs/mqtt.md)."""

    table: str

    @property
    def root(self) -> str:
        return f"{ROOT}/{self.table}"

    @property
    def command(self) -> str:
        return f"{self.root}/game/command"

    @property
    def reply(self) -> str:
        return f"{self.root}/game/reply"

    @property
    def state(self) -> str:
        return f"{self.root}/game/state"

    @property
    def event(self) -> str:
        return f"{self.root}/game/event"

    @property
    def prompt(self) -> str:
        return f"{self.root}/game/prompt"

    # -- the referee's view: every card, face-down ones too (roles daemon and gm only) ----

    @property
    def referee_state(self) -> str:
        return f"{self.root}/referee/state"

    @property
    def referee_event(self) -> str:
        return f"{self.root}/referee/event"

    @property
    def referee_prompt(self) -> str:
        return f"{self.root}/referee/prompt"

    @property
    def referee_alert(self) -> str:
        """The alerts in the referee's words: they may name face-down cards."""
        return f"{self.root}/referee/alert"

    def seat_state(self, seat: int) -> str:
        """What the player at `seat` (1-based) may see; the daemon writes it, retained."""
        return f"{self.root}/seat/{seat}/state"

    @property
    def rules_availability(self) -> str:
        return f"{self.root}/rules/availability"

    # -- the physical table: published by the bridge, read by the rules daemon ----------

    @property
    def mat_event(self) -> str:
        return f"{self.root}/mat/event"

    @property
    def mat_snapshot(self) -> str:
        return f"{self.root}/mat/snapshot"

    @property
    def dice_event(self) -> str:
        return f"{self.root}/dice/event"

    @property
    def dice_picture(self) -> str:
        """The last settled throw as the camera saw it, annotated: a retained JPEG."""
        return f"{self.root}/dice/picture"

    @property
    def dice_photo(self) -> str:
        """The same throw's frame as the camera took it, with its dice: retained JSON."""
        return f"{self.root}/dice/photo"

    @property
    def bridge_availability(self) -> str:
        return f"{self.root}/bridge/availability"

    @property
    def bridge_enrol(self) -> str:
        """A request that the bridge enrol the camera from its corrections (not retained)."""
        return f"{self.root}/bridge/enrol"

    @property
    def bridge_enrol_status(self) -> str:
        """How the bridge's enrolment goes, and how it went: retained JSON."""
        return f"{self.root}/bridge/enrol/status"

    # -- what the rules daemon tells the table ------------------------------------------

    @property
    def leds_frame(self) -> str:
        return f"{self.root}/leds/frame"

    @property
    def table_alert(self) -> str:
        return f"{self.root}/table/alert"


@dataclass(frozen=True, slots=True)
class RoomTopics:
    """The topics of one rules daemon serving a room of tables (docs/mqtt.md)."""

    daemon: str

    @property
    def availability(self) -> str:
        """`online`/`offline` of the daemon itself (retained; its last will)."""
        return f"{ROOT}/{ROOM_LEVEL}/daemon/{self.daemon}/availability"
