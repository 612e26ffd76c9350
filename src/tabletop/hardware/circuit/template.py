"""The printable mat template: every zone of the firmware's layout drawn at 1:1, in millimetres.

`tabletop mat template --out FILE.svg` writes it. The zones and their order are the firmware's
(`tabletop.firmware.zones.Layout`, split pads from `tabletop.firmware.touch.split_seat_zones`);
where each lies on the 900 x 600 mm board is this module's (docs/circuit.md, "The mat template"):
seats 1-3 along the near long edge, left to right, seats 4-6 along the far edge facing them (so seat
4 sits across from seat 3), the draw pad in the middle. A seat's six slots are two rows of three as
its player sees them: slots 1-3 in the row nearer the player, left to right, 4-6 behind.
Nothing here needs SKiDL.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from tabletop.firmware.touch import split_seat_zones
from tabletop.firmware.zones import Layout

MAT_WIDTH, MAT_DEPTH = 900.0, 600.0
SLOT_WIDTH, SLOT_HEIGHT = 63.0, 88.0
SLOT_GAP = 10.0  # between two slots of a seat (docs/mat.md, "Touch pads": slots 10 mm apart)
SEAT_GAP = 40.0  # between two seats' blocks
EDGE = 20.0  # from the mat's long edge to a seat's block
HOLE_DIAMETER = 5.0  # the face sensor's and the LED's holes
WIRE_HOLE_DIAMETER = 2.0  # the electrode's wire, down to the seat board
# In a slot, from its centre, u to the owner's right and v towards the owner (mm): the face
# sensor looks up through the lower third; the LED's hole is beside it.
SENSOR_AT = (12.0, 30.0)
LED_AT = (22.0, 30.0)
# The electrode comb: 7 fingers of 6 mm tape, 55 mm long, 6 mm apart, joined by a spine
# along the slot's left edge; copper stays 5 mm clear of both holes.
FINGERS = 7
FINGER_WIDTH = 6.0
FINGER_LENGTH = 55.0
HOLE_CLEARANCE = 5.0
SCALE_BAR = 100.0


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle on the mat, in mm from its top-left corner."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class ZoneDrawing:
    """Where one zone's features lie on the mat (mm)."""

    index: int
    name: str
    seat: int  # 0 for the pad
    outline: Rect
    antenna: tuple[float, float]
    sensor: tuple[float, float]
    led: tuple[float, float]
    electrodes: dict[str, list[Rect]]  # "whole", or "near" and "far"
    wire_holes: list[tuple[float, float]]


class _Frame:
    """A slot's own frame (u right, v towards its owner) placed on the mat."""

    def __init__(self, x: float, y: float, facing_near_edge: bool) -> None:
        self.x, self.y, self.sign = x, y, 1.0 if facing_near_edge else -1.0

    def point(self, u: float, v: float) -> tuple[float, float]:
        return (round(self.x + self.sign * u, 3), round(self.y + self.sign * v, 3))

    def rect(self, u0: float, v0: float, u1: float, v1: float) -> Rect:
        (xa, ya), (xb, yb) = self.point(u0, v0), self.point(u1, v1)
        return Rect(min(xa, xb), min(ya, yb), round(abs(xb - xa), 3), round(abs(yb - ya), 3))


def _comb(frame: _Frame, split: bool) -> tuple[dict[str, list[Rect]], list[tuple[float, float]]]:
    half_width = FINGER_LENGTH / 2
    pitch = 2 * FINGER_WIDTH
    span = FINGERS * FINGER_WIDTH + (FINGERS - 1) * FINGER_WIDTH
    keep_out = HOLE_DIAMETER / 2 + HOLE_CLEARANCE
    halves: dict[str, list[Rect]] = {"near": [], "far": []} if split else {"whole": []}
    for finger in range(FINGERS):
        v = -span / 2 + FINGER_WIDTH / 2 + finger * pitch
        end = half_width
        for hu, hv in (SENSOR_AT, LED_AT):
            if abs(hv - v) < keep_out + FINGER_WIDTH / 2:
                end = min(end, hu - keep_out)
        half = "whole" if not split else ("near" if v > 0 else "far")
        halves[half].append(
            frame.rect(-half_width, v - FINGER_WIDTH / 2, end, v + FINGER_WIDTH / 2)
        )
    spine_u = (-half_width, -half_width + FINGER_WIDTH)
    holes = []
    if split:
        # The spine cut between the middle finger and the next one towards the owner.
        cut = FINGER_WIDTH
        halves["far"].append(frame.rect(spine_u[0], -span / 2, spine_u[1], cut / 2 + 1.5))
        halves["near"].append(frame.rect(spine_u[0], cut / 2 + 4.5, spine_u[1], span / 2))
        holes = [
            frame.point(-half_width + 3, -span / 2 + 3),
            frame.point(-half_width + 3, span / 2 - 3),
        ]
    else:
        halves["whole"].append(frame.rect(spine_u[0], -span / 2, spine_u[1], span / 2))
        holes = [frame.point(-half_width + 3, -span / 2 + 3)]
    return halves, holes


def mat_drawing(layout: Layout, split_seats: int = 0) -> list[ZoneDrawing]:
    """Every zone of `layout` in the firmware's order, placed on the mat."""
    split = split_seat_zones(layout.seats, layout.slots, split_seats)
    columns = 3 if layout.slots > 1 else 1
    rows = (layout.slots + columns - 1) // columns
    block_width = columns * SLOT_WIDTH + (columns - 1) * SLOT_GAP
    block_depth = rows * SLOT_HEIGHT + (rows - 1) * SLOT_GAP
    near_seats = (layout.seats + 1) // 2
    zones = []
    for zone in range(layout.count):
        name = layout.name(zone)
        if name == "pad":
            frame = _Frame(MAT_WIDTH / 2, MAT_DEPTH / 2, True)
            seat = 0
        else:
            seat = zone // layout.slots + 1
            slot = zone % layout.slots
            near = seat <= near_seats
            place = seat - 1 if near else layout.seats - seat
            count = near_seats if near else layout.seats - near_seats
            offset = (place - (count - 1) / 2) * (block_width + SEAT_GAP)
            cx = MAT_WIDTH / 2 + offset
            cy = MAT_DEPTH - EDGE - block_depth / 2 if near else EDGE + block_depth / 2
            seat_frame = _Frame(cx, cy, near)
            column, row = slot % columns, slot // columns
            u = (column - (columns - 1) / 2) * (SLOT_WIDTH + SLOT_GAP)
            v = ((rows - 1) / 2 - row) * (SLOT_HEIGHT + SLOT_GAP)
            x, y = seat_frame.point(u, v)
            frame = _Frame(x, y, near)
        electrodes, wire_holes = _comb(frame, zone in split)
        zones.append(
            ZoneDrawing(
                index=zone,
                name=name,
                seat=seat,
                outline=frame.rect(
                    -SLOT_WIDTH / 2, -SLOT_HEIGHT / 2, SLOT_WIDTH / 2, SLOT_HEIGHT / 2
                ),
                antenna=frame.point(0, 0),
                sensor=frame.point(*SENSOR_AT),
                led=frame.point(*LED_AT),
                electrodes=electrodes,
                wire_holes=wire_holes,
            )
        )
    return zones


def _rect(rect: Rect, css: str) -> str:
    return (
        f'<rect class="{css}" x="{rect.x:g}" y="{rect.y:g}" '
        f'width="{rect.width:g}" height="{rect.height:g}"/>'
    )


def _circle(at: tuple[float, float], diameter: float, css: str) -> str:
    return f'<circle class="{css}" cx="{at[0]:g}" cy="{at[1]:g}" r="{diameter / 2:g}"/>'


def template_svg(layout: Layout, split_seats: int = 0) -> str:
    """The template as an SVG document whose user unit is the millimetre (prints at 1:1)."""
    zones = mat_drawing(layout, split_seats)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{MAT_WIDTH:g}mm" '
        f'height="{MAT_DEPTH:g}mm" viewBox="0 0 {MAT_WIDTH:g} {MAT_DEPTH:g}">',
        f"<title>tabletop mat template: {layout.seats} seats x {layout.slots} slots"
        f"{' and the draw pad' if layout.pad else ''}, 1:1 in mm</title>",
        "<style>"
        ".edge{fill:none;stroke:#000;stroke-width:0.5}"
        ".slot{fill:none;stroke:#000;stroke-width:0.4}"
        ".electrode rect{fill:#d9a066;fill-opacity:0.45;stroke:none}"
        ".electrode.near rect{fill:#6a9fd9}"
        ".antenna,.face-sensor,.led-hole,.wire-hole{fill:none;stroke:#000;stroke-width:0.3}"
        ".cross{stroke:#000;stroke-width:0.2}"
        "text{font-family:sans-serif;fill:#000}"
        ".scale{stroke:#000;stroke-width:0.5}"
        "</style>",
        _rect(Rect(0, 0, MAT_WIDTH, MAT_DEPTH), "edge"),
    ]
    for zone in zones:
        out.append(
            f'<g class="zone" id="zone-{escape(zone.name)}" data-zone="{escape(zone.name)}" '
            f'data-index="{zone.index}">'
        )
        out.append(_rect(zone.outline, "slot"))
        for half, rects in zone.electrodes.items():
            out.append(f'<g class="electrode {half}" data-half="{half}">')
            out.extend(_rect(rect, "copper") for rect in rects)
            out.append("</g>")
        ax, ay = zone.antenna
        out.append(_circle(zone.antenna, 4, "antenna"))
        out.append(
            f'<path class="cross" d="M{ax - 5:g},{ay:g}H{ax + 5:g}M{ax:g},{ay - 5:g}V{ay + 5:g}"/>'
        )
        out.append(_circle(zone.sensor, HOLE_DIAMETER, "face-sensor"))
        out.append(_circle(zone.led, HOLE_DIAMETER, "led-hole"))
        out.extend(_circle(hole, WIRE_HOLE_DIAMETER, "wire-hole") for hole in zone.wire_holes)
        cx = zone.outline.x + zone.outline.width / 2
        cy = zone.outline.y + zone.outline.height / 2
        out.append(
            f'<text class="zone-label" x="{cx:g}" y="{cy - 8:g}" font-size="6" '
            f'text-anchor="middle">{escape(zone.name)}</text>'
        )
        out.append("</g>")
    for seat in range(1, layout.seats + 1):
        slots = [z for z in zones if z.seat == seat]
        left = min(z.outline.x for z in slots)
        right = max(z.outline.x + z.outline.width for z in slots)
        top = min(z.outline.y for z in slots)
        bottom = max(z.outline.y + z.outline.height for z in slots)
        near = seat <= (layout.seats + 1) // 2
        y = bottom + 12 if near else top - 6
        rotate = "" if near else f' transform="rotate(180 {(left + right) / 2:g} {y - 2:g})"'
        out.append(
            f'<text class="seat-label" data-seat="{seat}" x="{(left + right) / 2:g}" y="{y:g}" '
            f'font-size="8" text-anchor="middle"{rotate}>Seat {seat}</text>'
        )
    x0, y0 = 40.0, MAT_DEPTH / 2
    out.append(
        f'<g class="scale-bar" data-length="{SCALE_BAR:g}">'
        f'<path class="scale" d="M{x0:g},{y0:g}H{x0 + SCALE_BAR:g}"/>'
        + "".join(
            f'<path class="scale" d="M{x0 + t:g},{y0 - (4 if t % 50 == 0 else 2):g}V{y0:g}"/>'
            for t in range(0, int(SCALE_BAR) + 1, 10)
        )
        + f'<text x="{x0 + SCALE_BAR / 2:g}" y="{y0 + 8:g}" font-size="6" text-anchor="middle">'
        f"{SCALE_BAR:g} mm: measure it to check the print is 1:1</text></g>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_template(path: Path, seats: int, slots: int, pad: bool, split_seats: int = 0) -> int:
    """Writes the template of a mat of `seats` x `slots` (and the pad) to `path`; returns its
    zone count. Raises ValueError naming a layout the firmware would refuse."""
    layout = Layout(seats, slots, pad)
    path.write_text(template_svg(layout, split_seats))
    return int(layout.count)
