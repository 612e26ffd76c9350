"""The simulated camera draws, and the watcher reads, only when something in the tray changed
(issue 49, item 5): a still tray is one picture, drawn once and read once."""

from __future__ import annotations

import numpy as np

from tabletop.hardware.camera.sim import SimulatedCamera, ThrowPlan
from tabletop.vision.reader import DiceReader
from tabletop.vision.watch import ThrowEventKind, ThrowWatcher


def test_a_still_tray_is_drawn_once_and_read_once() -> None:
    camera = SimulatedCamera([ThrowPlan(dice=2, values=(3, 5), hand_first=False)], seed=4)
    watcher = ThrowWatcher(DiceReader())
    frames = []
    events = []
    with camera:
        while (frame := camera.read()) is not None:
            frames.append(frame)
            events += watcher.feed(frame.image, frame.timestamp)
    rest = [f for f in frames if f.truth.phase == "rest"]
    assert len(rest) == 12
    assert all(np.array_equal(rest[0].image, f.image) for f in rest[1:])
    # The empty tray at the start, every rolling frame, and the tray at rest: drawn once each.
    rolling = sum(f.truth.phase == "rolling" for f in frames)
    assert camera.renders == 1 + rolling + 1 < len(frames)
    rolled = [e for e in events if e.kind is ThrowEventKind.ROLLED]
    assert [e.values for e in rolled] == [(3, 5)]
    # Three readings had to agree; the same picture was read once.
    assert watcher.readings == 1


def test_each_frame_is_its_own_copy_to_draw_on() -> None:
    camera = SimulatedCamera([ThrowPlan(dice=1, hand_first=False)], seed=2, empty_frames=3)
    with camera:
        first, second = camera.read(), camera.read()
    assert first is not None and second is not None
    assert np.array_equal(first.image, second.image)
    first.image[:] = 0  # a caller drawing on its frame changes no other frame
    assert second.image.any()


def test_a_changed_frame_is_read_again() -> None:
    reader = DiceReader()
    watcher = ThrowWatcher(reader)
    camera = SimulatedCamera([ThrowPlan(dice=1, values=(4,), hand_first=False)], seed=3)
    with camera:
        frames = []
        while (frame := camera.read()) is not None:
            frames.append(frame)
    still = next(f for f in frames if f.truth.phase == "rest").image
    watcher.read_frame(still)
    watcher.read_frame(still.copy())
    assert watcher.readings == 1
    moved = still.copy()
    moved[:20, :20] = 255 - moved[:20, :20]
    watcher.read_frame(moved)
    assert watcher.readings == 2
