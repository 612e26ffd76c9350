"""Speed of the dice camera on one CPU thread: rest detection per frame, reading a frame.

    .venv/bin/python bench/vision_speed.py

Frames are rendered by the simulated camera (640x480, 5 dice) and the real photos are read from
tests/data/dice-tray (640x640). Slanted-camera frames are `tabletop.vision.training.setups`' tilted
kind (5 dice, 8 tables), each read with a calibration learnt from a board lying in its tray
(`tabletop.vision.view`): the reader reads the flat picture, larger than the camera's. Prints a
table of median and 95th-percentile times.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from tabletop.figures import percentile
from tabletop.hardware.camera.render import random_scene, render
from tabletop.hardware.camera.sim import SimulatedCamera, ThrowPlan
from tabletop.vision.calibration import Calibration, calibrate
from tabletop.vision.classify import DieClassifier, ValueClassifier
from tabletop.vision.errors import ModelError
from tabletop.vision.reader import QUICK_LOOK, DiceReader, ReaderSettings, die_side
from tabletop.vision.rest import RestDetector
from tabletop.vision.runtime import RUNTIMES
from tabletop.vision.training.setups import SetupKind, board_on_floor, render_setup, through_camera
from tabletop.vision.view import board_image, find_view

ROOT = Path(__file__).resolve().parents[1]


def timed(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median and 95th percentile of `repeat` runs, in milliseconds."""
    return timed_side_by_side([run], repeat)[0]


def timed_side_by_side(runs: list[Callable[[], object]], repeat: int) -> list[tuple[float, float]]:
    """Median and 95th percentile of each of `runs`, taken in turn `repeat` times, so that a
    host that slows down for a while (a shared virtual machine does) slows all of them alike."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeat):
        for run, kept in zip(runs, times, strict=True):
            started = time.perf_counter()
            run()
            kept.append((time.perf_counter() - started) * 1000.0)
    figures = []
    for kept in times:
        kept.sort()
        figures.append((statistics.median(kept), percentile(kept, 0.95)))
    return figures


def main() -> None:
    cv2.setNumThreads(1)
    rng = np.random.default_rng(2026)
    scenes = [random_scene(rng, 5, die_size=36) for _ in range(8)]
    frames = [render(s, seed=k) for k, s in enumerate(scenes)]
    scenes10 = [random_scene(rng, 10, die_size=36) for _ in range(8)]
    frames10 = [render(s, seed=k) for k, s in enumerate(scenes10)]
    cpu = platform.processor() or platform.machine()
    print(f"python {platform.python_version()}, OpenCV {cv2.__version__}, {cpu}, 1 thread")
    print(f"{'what':72} {'median ms':>10} {'p95 ms':>8}")

    def row(what: str, median: float, p95: float) -> None:
        print(f"{what:72} {median:10.2f} {p95:8.2f}")

    cycle = iter(range(10**9))
    # A whole film: empty tray, hand, dice rolling, dice at rest (every path of the detector).
    plans = [ThrowPlan(dice=5), ThrowPlan(dice=3, cocked=1), ThrowPlan(dice=2, placed=True)]
    with SimulatedCamera(plans, seed=7) as camera:
        film = [frame.image for frame in camera]
    detector = RestDetector()

    def observe() -> None:
        detector.observe(film[next(cycle) % len(film)])

    for _ in range(len(film)):
        observe()
    median, p95 = timed(observe, 10 * len(film))
    row(f"rest detection, 640x480, a film of {len(film)} frames", median, p95)
    still = [frames[0]] * 2
    detector.reset()
    median, p95 = timed(lambda: detector.observe(still[next(cycle) % 2]), 500)
    row("rest detection, 640x480, dice at rest", median, p95)

    calibrations = [
        calibrate([render(replace(scene, dice=()), seed=k)], die_size=36)
        for k, scene in enumerate(scenes)
    ]
    calibrations10 = [
        calibrate([render(replace(scene, dice=()), seed=k)], die_size=36)
        for k, scene in enumerate(scenes10)
    ]
    slanted = [
        render_setup(SetupKind.TILTED, np.random.default_rng([5, k]), k, dice=5) for k in range(8)
    ]
    board = board_image()
    slanted_calibrations = [
        calibrate(
            [through_camera(pic, 1)],
            view=find_view([through_camera(pic, 2, board_on_floor(pic, board, 0.8, 8.0))], (9, 6)),
        )
        for pic in slanted
    ]
    slanted_frames = [pic.image for pic in slanted]
    photos = sorted((ROOT / "tests" / "data" / "dice-tray" / "images").glob("*.jpg"))[:60]
    images = [cv2.imread(str(p)) for p in photos]
    for runtime in RUNTIMES:
        try:
            DieClassifier(runtime=runtime).load()
        except ModelError as error:
            print(f"{runtime}: not measured ({error})")
            continue
        print(f"networks run by {runtime}:")
        timings = reading_times(
            runtime,
            frames,
            calibrations,
            images,
            (frames10, calibrations10),
            slanted=(slanted_frames, slanted_calibrations),
        )
        for what, median, p95 in timings:
            row(f"  {what}", median, p95)


def reading_times(
    runtime: str,
    frames: list[np.ndarray],
    calibrations: list[Calibration],
    images: list[np.ndarray],
    ten: tuple[list[np.ndarray], list[Calibration]],
    *,
    slanted: tuple[list[np.ndarray], list[Calibration]],
) -> list[tuple[str, float, float]]:
    """Times of reading rendered frames (5 dice; 10 dice calibrated) and real photos with one
    runtime.

    Every reader shares one pair of loaded models and has read its frame once before the
    clock starts, as a watcher has after its first frame: loading the models and working out
    the tray's background happen once per session, and are timed on their own."""
    cycle = iter(range(10**9))
    detector = DieClassifier(runtime=runtime)
    values = ValueClassifier(runtime=runtime)
    started = time.perf_counter()
    detector.load()
    values.load()
    loading = (time.perf_counter() - started) * 1000.0
    reader = DiceReader(detector, values=values)
    for image in frames:
        reader.read(image)  # the runtime's first runs at each batch size are slower
    rows = [
        ("load both models (once per session)", loading, loading),
        (
            "read 640x480 frame with 5 dice, no calibration",
            *timed(lambda: reader.read(frames[next(cycle) % len(frames)]), 80),
        ),
    ]
    # A watcher told what to expect searches only around the die size it learnt from the last
    # throw read (tabletop.vision.watch): the same reader, told the size its own first reading gave.
    learnt = [DiceReader(detector, values=values) for _ in frames]
    for r, frame in zip(learnt, frames, strict=True):
        r.die_size = die_side(r.read(frame))
    rows.append(
        (
            "read 640x480 frame with 5 dice, no calibration, die size learnt",
            *timed(reading_in_turn(learnt, frames), 120),
        )
    )
    labels = ("calibrated (die size known)", "calibrated, fast settings (first look only)")
    runs = []
    for settings in (ReaderSettings(), FAST):
        readers = [
            DiceReader(detector, calibration=c, settings=settings, values=values)
            for c in calibrations
        ]
        for r, frame in zip(readers, frames, strict=True):
            r.read(frame)  # works out the tray's background once
        runs.append(reading_in_turn(readers, frames))
    for label, (median, p95) in zip(labels, timed_side_by_side(runs, 200), strict=True):
        rows.append((f"read 640x480 frame with 5 dice, {label}", median, p95))
    readers10 = [DiceReader(detector, calibration=c, values=values) for c in ten[1]]
    for r, frame in zip(readers10, ten[0], strict=True):
        r.read(frame)
    rows.append(
        (
            "read 640x480 frame with 10 dice, calibrated (die size known)",
            *timed(reading_in_turn(readers10, ten[0]), 200),
        )
    )
    views = [c.view for c in slanted[1] if c.view is not None]
    sizes = sorted(v.flat_size[0] * v.flat_size[1] for v in views)
    middle = next(v.flat_size for v in views if v.flat_size[0] * v.flat_size[1] == sizes[4])
    rows.append(
        (
            "flatten a 640x480 slanted-camera frame (tabletop.vision.view)",
            *timed(lambda: views[next(cycle) % len(views)].flatten(slanted[0][0]), 200),
        )
    )
    for learn in (False, True):
        readers = [DiceReader(detector, calibration=c, values=values) for c in slanted[1]]
        for r, frame in zip(readers, slanted[0], strict=True):
            side = die_side(r.read(frame))  # works out the flat maps and background once
            r.die_size = side if learn else None
        rows.append(
            (
                f"read 640x480 slanted-camera frame, 5 dice, board-calibrated "
                f"({middle[0]}x{middle[1]} flat){', die size learnt' if learn else ''}",
                *timed(reading_in_turn(readers, slanted[0]), 120),
            )
        )
    rows.append(
        (
            "read real 640x640 photo (1-25 dice, mean 7.4), no calibration",
            *timed(lambda: reader.read(images[next(cycle) % len(images)]), 120),
        )
    )
    return rows


def reading_in_turn(readers: list[DiceReader], frames: list[np.ndarray]) -> Callable[[], None]:
    """Reads the next frame with its own calibrated reader, a frame each call."""
    turn = iter(range(10**9))

    def read_next() -> None:
        i = next(turn) % len(frames)
        readers[i].read(frames[i])

    return read_next


FAST = ReaderSettings(looks=(QUICK_LOOK,))  # the first look (one size, two turns) decides


if __name__ == "__main__":
    main()
