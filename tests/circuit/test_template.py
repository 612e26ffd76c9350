"""`tabletop mat template`: the drawing's geometry against the firmware's layout, the file parsed."""

from __future__ import annotations

import math
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tabletop.firmware.touch import split_seat_zones
from tabletop.firmware.zones import Layout
from tabletop.hardware.circuit.template import (
    HOLE_CLEARANCE,
    HOLE_DIAMETER,
    MAT_DEPTH,
    MAT_WIDTH,
    SLOT_GAP,
    Rect,
    mat_drawing,
    template_svg,
)

SVG = "{http://www.w3.org/2000/svg}"


def _parse(text: str) -> ET.Element:
    return ET.fromstring(text.encode())


def _overlap(a: Rect, b: Rect, gap: float = 0.0) -> bool:
    return not (
        a.x + a.width + gap <= b.x
        or b.x + b.width + gap <= a.x
        or a.y + a.height + gap <= b.y
        or b.y + b.height + gap <= a.y
    )


def _inside(inner: Rect, outer: Rect) -> bool:
    return (
        outer.x <= inner.x
        and outer.y <= inner.y
        and inner.x + inner.width <= outer.x + outer.width + 1e-6
        and inner.y + inner.height <= outer.y + outer.height + 1e-6
    )


def _distance(point: tuple[float, float], rect: Rect) -> float:
    dx = max(rect.x - point[0], 0.0, point[0] - (rect.x + rect.width))
    dy = max(rect.y - point[1], 0.0, point[1] - (rect.y + rect.height))
    return math.hypot(dx, dy)


@pytest.mark.parametrize(
    "layout", [Layout(6, 6, True), Layout(2, 6, True), Layout(4, 5, False), Layout(1, 1, True)]
)
def test_every_zone_of_the_firmwares_layout_is_drawn_in_its_order(layout: Layout) -> None:
    root = _parse(template_svg(layout))
    zones = root.findall(f"{SVG}g[@class='zone']")
    assert [(int(g.get("data-index", "-1")), g.get("data-zone")) for g in zones] == [
        (zone, layout.name(zone)) for zone in range(layout.count)
    ]
    seats = {
        int(t.get("data-seat", "0"))
        for t in root.iter(f"{SVG}text")
        if t.get("class") == "seat-label"
    }
    assert seats == set(range(1, layout.seats + 1))


def test_the_drawing_is_one_to_one_in_millimetres_with_a_100_mm_scale_bar() -> None:
    root = _parse(template_svg(Layout()))
    assert (root.get("width"), root.get("height")) == (f"{MAT_WIDTH:g}mm", f"{MAT_DEPTH:g}mm")
    assert root.get("viewBox") == f"0 0 {MAT_WIDTH:g} {MAT_DEPTH:g}"
    bar = root.find(f"{SVG}g[@class='scale-bar']")
    assert bar is not None
    line = bar.find(f"{SVG}path").get("d")  # type: ignore[union-attr]
    start, end = line.lstrip("M").split("H")
    assert float(end) - float(start.split(",")[0]) == 100


def test_slots_are_card_sized_apart_on_the_mat_with_their_features_where_docs_say() -> None:
    zones = mat_drawing(Layout())
    board = Rect(0, 0, MAT_WIDTH, MAT_DEPTH)
    for zone in zones:
        outline = zone.outline
        assert {outline.width, outline.height} == {63.0, 88.0} and (
            outline.width,
            outline.height,
        ) == (63.0, 88.0)
        assert _inside(outline, board), zone.name
        centre = (outline.x + outline.width / 2, outline.y + outline.height / 2)
        assert zone.antenna == pytest.approx(centre), zone.name  # the reader under the centre
        for hole in (zone.sensor, zone.led):
            assert _distance(hole, outline) == 0 and _distance(hole, Rect(*centre, 0, 0)) > 14, (
                zone.name
            )
        # The face sensor looks up through the slot's third nearer its player.
        third = outline.height / 3
        lower = abs(zone.sensor[1] - centre[1]) > outline.height / 2 - third
        assert lower, zone.name
        for rects in zone.electrodes.values():
            for rect in rects:
                assert _inside(rect, outline), zone.name
                for hole in (zone.sensor, zone.led):
                    assert _distance(hole, rect) >= HOLE_DIAMETER / 2 + HOLE_CLEARANCE - 1e-6, (
                        zone.name
                    )
    for a in zones:
        for b in zones:
            if a.index < b.index:
                assert not _overlap(a.outline, b.outline, SLOT_GAP - 1e-6), (a.name, b.name)


def test_a_seats_player_faces_slot_one_to_three_nearest_and_across_the_table_it_turns() -> None:
    zones = {zone.name: zone for zone in mat_drawing(Layout())}
    # Seat 1 on the near edge: slot 1 left of slot 2, nearer the edge than slot 4.
    assert zones["s1.1"].antenna[0] < zones["s1.2"].antenna[0]
    assert zones["s1.1"].antenna[1] > zones["s1.4"].antenna[1]
    # Seat 4 across: its player's left is the mat's right, its near row the mat's top.
    assert zones["s4.1"].antenna[0] > zones["s4.2"].antenna[0]
    assert zones["s4.1"].antenna[1] < zones["s4.4"].antenna[1]
    assert zones["pad"].antenna == (MAT_WIDTH / 2, MAT_DEPTH / 2)


def test_split_seats_get_a_near_and_a_far_half_as_the_firmware_reads_them() -> None:
    layout = Layout()
    split = split_seat_zones(layout.seats, layout.slots, 0b11)
    for zone in mat_drawing(layout, 0b11):
        halves = set(zone.electrodes)
        assert halves == ({"near", "far"} if zone.index in split else {"whole"}), zone.name
        if zone.index in split:
            near = [r.y + r.height / 2 for r in zone.electrodes["near"]]
            far = [r.y + r.height / 2 for r in zone.electrodes["far"]]
            # Seats 1 and 2 sit on the near edge: the owner's half is the lower one.
            assert min(near) > max(far) - 1e-6 or zone.seat > 3, zone.name
            assert not any(
                _overlap(a, b) for a in zone.electrodes["near"] for b in zone.electrodes["far"]
            )
            assert len(zone.wire_holes) == 2


def test_the_command_writes_the_file_and_names_bad_input_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "mat.svg"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tabletop",
            "mat",
            "template",
            "--out",
            str(out),
            "--split-seats",
            "0x3F",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    root = _parse(out.read_text())
    assert len(root.findall(f"{SVG}g[@class='zone']")) == 37
    assert len(root.findall(f".//{SVG}g[@data-half='near']")) == 36
    for args, words in (
        (["--out", str(tmp_path / "no" / "mat.svg")], "give --out a file in a folder that exists"),
        (["--out", str(out), "--seats", "7"], "seats must be 1-6"),
        (["--out", str(out), "--split-seats", "seven"], "--split-seats 'seven' is not a number"),
    ):
        bad = subprocess.run(
            [sys.executable, "-m", "tabletop", "mat", "template", *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert bad.returncode != 0 and words in bad.stderr and "Traceback" not in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr


def test_the_template_needs_no_circuit_library() -> None:
    # `tabletop mat template` runs on a Pi without the dev extra: SKiDL stays unimported.
    probe = "import sys, tabletop.hardware.mat.cli, tabletop.hardware.circuit.template; print('skidl' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "False"
