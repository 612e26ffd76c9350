"""The sensor mat: RFID card slots read by a microcontroller, seen from the Raspberry Pi.

    from tabletop.hardware.mat import open_mat

    with open_mat("/dev/ttyACM0") as mat:      # None: $TABLETOP_MAT, else a simulated mat
                                               # (said in the log: never taken silently)
        for event in mat.events():
            print(event.to_json())

`MatDriver` opens the mat by URL, reads it on its own thread and yields typed events derived
from the mat's snapshots; `SimulatedMat` (in `tabletop.hardware.mat.sim`) runs the real firmware on
simulated readers behind a pty. docs/mat.md and docs/mat-protocol.md describe the rest.
"""

from .cardmap import CardMap, default_card_map, simulated_deck
from .driver import MatDriver, open_mat
from .errors import MatError
from .events import (
    CardEvent,
    EventKind,
    LinkEvent,
    MatEvent,
    ResyncEvent,
    TouchEvent,
    ZoneEvent,
)
from .protocol import Face
from .zones import MatLayout

__all__ = [
    "CardEvent",
    "CardMap",
    "EventKind",
    "Face",
    "LinkEvent",
    "MatDriver",
    "MatError",
    "MatEvent",
    "MatLayout",
    "ResyncEvent",
    "TouchEvent",
    "ZoneEvent",
    "default_card_map",
    "open_mat",
    "simulated_deck",
]
