"""Whole throws on the simulated camera: frames in, exactly the right events out."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.hardware.camera import SimulatedCamera, ThrowPlan
from tabletop.vision.reader import DiceReader
from tabletop.vision.reading import DieReading, DieStatus, FrameReading
from tabletop.vision.training.setups import SetupKind, render_setup
from tabletop.vision.watch import ThrowEvent, ThrowEventKind, ThrowWatcher, slanted_view, values_of


def watch(camera: SimulatedCamera, reader: DiceReader) -> list[ThrowEvent]:
    watcher = ThrowWatcher(reader)
    events: list[ThrowEvent] = []
    with camera:
        for frame in camera:
            events.extend(watcher.feed(frame.image, frame.timestamp))
    return events


def kinds(events: list[ThrowEvent]) -> list[ThrowEventKind]:
    return [e.kind for e in events]


def test_one_die_rolls_settles_and_is_read_once(reader: DiceReader) -> None:
    camera = SimulatedCamera([ThrowPlan(dice=1, values=(4,))], seed=11)
    events = watch(camera, reader)
    assert values_of(events) == [(4,)]
    assert kinds(events).count(ThrowEventKind.ROLLING) == 1
    rolled = next(e for e in events if e.kind is ThrowEventKind.ROLLED)
    # Announced only once the dice were at rest, not while they rolled.
    assert camera.rendered[rolled.frame].phase == "rest"


@pytest.mark.slow
def test_each_throw_of_a_session_is_announced_with_its_values(reader: DiceReader) -> None:
    plans = [
        ThrowPlan(dice=1, values=(6,)),
        ThrowPlan(dice=2, values=(1, 3)),
        ThrowPlan(dice=3, values=(2, 5, 5)),
    ]
    events = watch(SimulatedCamera(plans, seed=5), reader)
    assert values_of(events) == [(6,), (1, 3), (2, 5, 5)]
    assert ThrowEventKind.HAND in kinds(events)


def test_dice_set_down_by_hand_are_not_a_throw(reader: DiceReader) -> None:
    camera = SimulatedCamera([ThrowPlan(dice=2, values=(6, 6), placed=True)], seed=3)
    events = watch(camera, reader)
    assert ThrowEventKind.HAND in kinds(events)
    assert values_of(events) == []
    assert ThrowEventKind.ROLLING not in kinds(events)


def test_a_cocked_die_is_reported_and_never_given_a_value(reader: DiceReader) -> None:
    camera = SimulatedCamera([ThrowPlan(dice=1, cocked=1)], seed=21, die_size=44)
    events = watch(camera, reader)
    quiet = (ThrowEventKind.ROLLING, ThrowEventKind.HAND, ThrowEventKind.CLEARED)
    settled = [e for e in events if e.kind not in quiet]
    assert settled, "the throw came to rest and must be announced"
    assert settled[0].kind in (ThrowEventKind.COCKED, ThrowEventKind.UNREADABLE)
    assert values_of(events) == []


def test_an_empty_still_tray_says_nothing(reader: DiceReader) -> None:
    camera = SimulatedCamera([], seed=2, empty_frames=40)
    assert watch(camera, reader) == []


def test_light_dimming_while_dice_lie_still_is_not_a_new_throw(reader: DiceReader) -> None:
    plan = ThrowPlan(dice=2, values=(3, 4), light_drift=0.35, still_frames=30)
    events = watch(SimulatedCamera([plan], seed=8), reader)
    assert values_of(events) == [(3, 4)]
    assert kinds(events).count(ThrowEventKind.ROLLING) == 1


def test_events_are_versioned_json(reader: DiceReader) -> None:
    events = watch(SimulatedCamera([ThrowPlan(dice=1, values=(2,))], seed=4), reader)
    rolled = next(e for e in events if e.kind is ThrowEventKind.ROLLED).to_json()
    assert rolled["v"] == 1
    assert rolled["event"] == "rolled"
    assert rolled["values"] == [2]
    assert rolled["dice"][0]["value"] == 2
    assert len(rolled["dice"][0]["box"]) == 4


def test_dice_thrown_in_from_the_edge_together_are_a_throw_not_a_hand(reader: DiceReader) -> None:
    # Three dice fly in over the frame's edge, blurred by motion: for a frame or two they
    # make a big changed area there, which a hand reaching in also makes (but keeps making).
    plans = [ThrowPlan(dice=3, hand_first=k > 0) for k in range(2)]
    camera = SimulatedCamera(plans, seed=4)
    events = watch(camera, reader)
    truths = {t.throw: t.values for t in camera.rendered if t.phase == "rest"}
    assert values_of(events) == [tuple(sorted(truths[0])), tuple(sorted(truths[1]))]
    hands = [e for e in events if e.kind is ThrowEventKind.HAND]
    assert len(hands) == 1 and camera.rendered[hands[0].frame].phase == "hand"


def test_three_cocked_throws_in_a_row_doubt_the_camera(reader: DiceReader) -> None:
    # Real dice seldom lean three throws running; a camera at a slant makes every die look so.
    plans = [ThrowPlan(dice=1, cocked=1, hand_first=k > 0) for k in range(3)]
    events = watch(SimulatedCamera(plans, seed=21, die_size=44), reader)
    quiet = (ThrowEventKind.ROLLING, ThrowEventKind.HAND, ThrowEventKind.CLEARED)
    settled = [e for e in events if e.kind not in quiet]
    assert kinds(settled) == [ThrowEventKind.COCKED] * 2 + [ThrowEventKind.UNCLEAR]
    assert "each of the last 3 throws had a die that looks as if leaning" in settled[2].reason
    assert "mount it straight above the tray" in settled[2].reason
    assert values_of(events) == []


def leaning(count: int, flat: int) -> FrameReading:
    cocked = [
        DieReading(None, 0.9, (40 * i, 0, 40 * i + 30, 30), DieStatus.COCKED) for i in range(count)
    ]
    read = [
        DieReading(4, 0.99, (40 * i, 80, 40 * i + 30, 110), DieStatus.READ) for i in range(flat)
    ]
    return FrameReading(tuple(cocked + read))


def test_most_dice_of_one_throw_leaning_doubt_the_camera() -> None:
    assert slanted_view(leaning(3, 1), 1).startswith("3 of 4 dice look as if leaning on something")
    assert slanted_view(leaning(2, 1), 1).startswith("2 of 3 dice")
    # One die leaning, or two among many, is a throw like any other: cocked, no advice.
    assert slanted_view(leaning(1, 0), 1) == ""
    assert slanted_view(leaning(1, 2), 2) == ""
    assert slanted_view(leaning(2, 4), 1) == ""
    assert slanted_view(leaning(1, 2), 3).startswith("each of the last 3 throws")
    # A camera a board already measured is not told to get one: it may have moved since.
    assert "calibrate it with a board" in slanted_view(leaning(3, 1), 1)
    moved = slanted_view(leaning(3, 1), 1, viewed=True)
    assert "may have moved since it was calibrated" in moved and "mount it" not in moved


def test_a_tilted_camera_is_doubted_and_a_top_down_one_is_not(reader: DiceReader) -> None:
    """The reader's own readings: pictures of a camera 20-45 degrees off vertical make most
    throws of four dice look leaning; top-down pictures of the same dice never do."""
    rng = np.random.default_rng(4)
    tilted = [render_setup(SetupKind.TILTED, rng, seed, dice=4) for seed in range(6)]
    flat = [render_setup(SetupKind.TOP_DOWN, rng, seed, dice=4) for seed in range(6)]
    doubted = [bool(slanted_view(reader.read(p.image), 1)) for p in tilted]
    assert sum(doubted) >= 4, doubted
    assert not any(slanted_view(reader.read(p.image), 1) for p in flat)


def test_the_table_pipeline_reads_and_rests_on_the_calibration() -> None:
    """One builder for the bridge, `dice watch`, `tabletop check` and the simulated table: the
    reader on the calibration and the table's values, the rest detector on its empty tray."""
    from dataclasses import replace

    import numpy as np

    from tabletop.hardware.camera.render import random_scene, render
    from tabletop.vision.calibration import calibrate
    from tabletop.vision.classify import ValueClassifier
    from tabletop.vision.watch import table_watcher

    scene = random_scene(np.random.default_rng(5), 2, die_size=36)
    calibration = calibrate([render(replace(scene, dice=()), seed=k) for k in range(3)], 36)
    values = ValueClassifier()
    watcher = table_watcher(calibration, values)
    assert watcher.reader.calibration is calibration and watcher.reader.values is values
    assert watcher.detector.background is calibration.background
    bare = table_watcher()
    assert bare.reader.calibration is None and bare.detector.background is None
