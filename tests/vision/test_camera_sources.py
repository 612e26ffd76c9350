"""Frame sources: the URL factory, folders, video files, and honest errors for absent devices."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from tabletop.hardware.camera import (
    BadSourceURL,
    CameraNotFound,
    SimTruth,
    SimulatedCamera,
    ThrowPlan,
    open_source,
)
from tabletop.hardware.camera.folder import FolderSource
from tabletop.hardware.camera.picamera import PiCameraSource
from tabletop.hardware.camera.render import (
    DIE_STYLES,
    HARD_DIE_STYLES,
    Scene,
    random_die,
    random_scene,
    render,
)


@pytest.mark.slow
def test_the_simulated_camera_is_repeatable_and_carries_truth() -> None:
    def film(seed: int) -> list[np.ndarray]:
        with SimulatedCamera([ThrowPlan(dice=2, values=(1, 6))], seed=seed) as camera:
            return [f.image for f in camera]

    a, b = film(4), film(4)
    assert len(a) == len(b) > 20
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(film(5)[-1], a[-1])
    with SimulatedCamera([ThrowPlan(dice=2, values=(1, 6))], seed=4) as camera:
        truths = [f.truth for f in camera]
    assert all(isinstance(t, SimTruth) for t in truths)
    assert truths[-1].phase == "rest"
    assert truths[-1].values == (1, 6)
    assert [t.phase for t in truths].count("rolling") == 10


def test_the_simulated_camera_goes_on_in_the_same_tray_when_more_throws_are_planned() -> None:
    with SimulatedCamera([ThrowPlan(dice=1, values=(3,), hand_first=False)], seed=6) as camera:
        first = list(camera)
        assert camera.read() is None  # every plan played: the film waits
        camera.extend([ThrowPlan(dice=1, values=(5,))])
        second = list(camera)
    assert [f.index for f in first + second] == list(range(len(first) + len(second)))
    phases = [f.truth.phase for f in second]
    # A hand takes the first die, the tray is empty, the new die rolls and rests.
    assert phases[0] == "hand" and "empty" in phases and phases[-1] == "rest"
    assert second[-1].truth.values == (5,) and second[-1].truth.throw == 1

    # Same tray and light: the empty tray looks as it did before the first throw (noise is
    # averaged away in 8x8 cells; another seed's tray differs by 20 levels or more).
    def cells(image: np.ndarray) -> np.ndarray:
        return cv2.resize(image, (80, 60), interpolation=cv2.INTER_AREA).astype(np.int16)

    empty_after = next(f for f in second if f.truth.phase == "empty")
    assert np.abs(cells(first[0].image) - cells(empty_after.image)).mean() < 1.5
    # Another die: the second throw's die lies elsewhere than the first.
    die_one, die_two = first[-1].truth.dice[0], second[-1].truth.dice[0]
    assert (die_one.x, die_one.y) != (die_two.x, die_two.y)


def test_sim_url_options() -> None:
    source = open_source("sim:?seed=3&throws=2&dice=3&width=800&height=600")
    assert isinstance(source, SimulatedCamera)
    with source:
        frame = source.read()
        assert frame is not None
        assert frame.image.shape == (600, 800, 3)
    assert len(source.plans) == 2 and source.plans[0].dice == 3


@pytest.mark.parametrize(
    "url",
    ["sim:?colour=red", "sim:?seed=x", "webcam:0", "picamera:front", "usb:0?fps=3"],
)
def test_bad_urls_say_what_is_wrong(url: str) -> None:
    with pytest.raises(BadSourceURL, match="source"):
        open_source(url)


def test_a_folder_of_pictures_plays_in_name_order(tmp_path: Path) -> None:
    for name, level in (("b.png", 20), ("a.png", 10), ("c.jpg", 30)):
        cv2.imwrite(str(tmp_path / name), np.full((48, 64, 3), level, np.uint8))
    (tmp_path / "notes.txt").write_text("not a picture")
    source = open_source(str(tmp_path))
    assert isinstance(source, FolderSource)
    with source:
        levels = [int(f.image.mean()) for f in source]
    assert levels == [10, 20, 30]


def test_a_video_file_plays_its_frames(tmp_path: Path) -> None:
    path = tmp_path / "throw.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (160, 120))
    for level in range(0, 250, 50):
        writer.write(np.full((120, 160, 3), level, np.uint8))
    writer.release()
    with open_source(f"file:{path}") as source:
        frames = list(source)
    assert len(frames) == 5
    assert [round(f.image.mean() / 50) for f in frames] == [0, 1, 2, 3, 4]
    assert frames[1].timestamp == pytest.approx(0.1)


def test_missing_things_are_not_found(tmp_path: Path) -> None:
    with pytest.raises(CameraNotFound, match="no file"):
        open_source(str(tmp_path / "none.mp4"))
    with pytest.raises(CameraNotFound, match="no pictures"):
        open_source(f"folder:{tmp_path}").open()
    with pytest.raises(CameraNotFound, match="camera"):
        open_source("usb:/dev/video-that-is-not-there").open()


def test_the_pi_camera_is_imported_only_when_opened() -> None:
    source = open_source("picamera:0?width=320&height=240")
    assert isinstance(source, PiCameraSource)
    try:
        import picamera2  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        with pytest.raises(CameraNotFound, match="picamera2"):
            source.open()
    else:
        pytest.skip("picamera2 is installed here: the real camera would be opened")


@pytest.mark.skipif(not Path("/dev/video0").exists(), reason="no USB webcam at /dev/video0")
def test_a_usb_webcam_gives_frames() -> None:
    with open_source("usb:0?width=640&height=480") as source:
        frame = source.read()
    assert frame is not None
    assert frame.image.ndim == 3 and frame.image.shape[2] == 3


def test_marbled_dice_entering_past_the_left_or_top_edge_render() -> None:
    # A die still outside the frame has negative coordinates; its marbling was seeded with
    # them and NumPy refused the negative seed, so films of 5 or more dice crashed.
    base = random_die(np.random.default_rng(1), 100, 100, 36)
    dice = tuple(replace(base, x=x, y=y, marbled=True) for x, y in ((-20, 50), (50, -20)))
    image = render(Scene(dice=dice))
    assert image.shape == (480, 640, 3)


def test_a_reroll_leaves_the_kept_dice_where_they_lay() -> None:
    plans = [ThrowPlan(dice=5, hand_first=False), ThrowPlan(dice=3, keep=2, nudged=1)]
    with SimulatedCamera(plans, seed=4) as camera:
        frames = list(camera)
    first = next(f.truth for f in frames if f.truth.phase == "rest" and f.truth.throw == 0)
    second = next(f.truth for f in frames if f.truth.phase == "rest" and f.truth.throw == 1)
    assert second.origins == ("moved", "kept", "thrown", "thrown", "thrown")
    assert second.dice[1] == first.dice[1]  # kept: same place, same face
    pushed, was = second.dice[0], first.dice[0]
    assert pushed.value == was.value and (pushed.x, pushed.y) != (was.x, was.y)
    # While the hand takes the three others, the kept two lie in the tray throughout.
    taking = [f.truth for f in frames if f.truth.throw == 1 and f.truth.phase == "hand"]
    assert all(first.dice[0] in t.dice and first.dice[1] in t.dice for t in taking)


@pytest.mark.parametrize("edge", ["left", "right", "top", "bottom"])
def test_dice_fly_in_from_the_plans_edge(edge: str) -> None:
    with SimulatedCamera([ThrowPlan(dice=3, edge=edge, hand_first=False)], seed=2) as camera:
        frames = list(camera)
    empty = frames[0].image.astype(np.int16)
    rolling = [f.image for f in frames if f.truth.phase == "rolling"]
    # Where the first frames of the roll differ from the empty tray: near the plan's edge.
    changed = np.abs(rolling[1].astype(np.int16) - empty).sum(axis=2) > 60
    ys, xs = np.nonzero(changed)
    assert len(xs) > 100
    x, y = xs.mean() / 640, ys.mean() / 480
    side = {"left": x < 0.4, "right": x > 0.6, "top": y < 0.4, "bottom": y > 0.6}
    assert side[edge], (x, y)


@pytest.mark.parametrize("seed", [5, 6, 9])
def test_heaps_of_twenty_fit_in_the_tray_and_do_not_overlap(seed: int) -> None:
    """Seed 6 laid a corner of one die on another; seed 9 (big dice, a small tray) crashed."""
    with SimulatedCamera([ThrowPlan(dice=20, heap=True)], seed=seed) as camera:
        frames = list(camera)
    dice = frames[-1].truth.dice
    assert len(dice) == 20
    closest = min(
        math.hypot(a.x - b.x, a.y - b.y) / max(a.size, b.size)
        for i, a in enumerate(dice)
        for b in dice[i + 1 :]
    )
    assert 1.0 <= closest < 1.6  # touching-close, never one on another
    for i, a in enumerate(dice):  # nor a corner of one on another: flat dice cannot overlap
        for b in dice[i + 1 :]:
            found, _ = cv2.rotatedRectangleIntersection(
                ((a.x, a.y), (0.95 * a.size, 0.95 * a.size), a.angle),
                ((b.x, b.y), (0.95 * b.size, 0.95 * b.size), b.angle),
            )
            assert found == cv2.INTERSECT_NONE, (a, b)


def test_the_throwing_hand_stays_while_the_dice_roll() -> None:
    plan = ThrowPlan(dice=2, edge="right", hand_stays=4, hand_first=False)
    with SimulatedCamera([plan], seed=3) as camera:
        frames = list(camera)
    rolling = [f for f in frames if f.truth.phase == "rolling"]

    # The hand shows as skin at the right edge in the first rolling frames, not later.
    def right_edge_skin(image: np.ndarray) -> float:
        strip = image[200:280, 600:].astype(np.int16)
        skin = (strip[..., 2] - strip[..., 0] > 40) & (strip[..., 2] > 120)
        return float(skin.mean())

    assert right_edge_skin(rolling[0].image) > 0.3
    assert right_edge_skin(rolling[-1].image) < 0.05


def test_sim_url_pools_and_rerolls() -> None:
    source = open_source("sim:?throws=3&dice=5&keep=2&edge=4&stay=3&heap=1")
    assert isinstance(source, SimulatedCamera)
    assert [p.dice for p in source.plans] == [5, 3, 3]
    assert [p.keep for p in source.plans] == [0, 2, 2]
    assert [p.edge for p in source.plans] == ["left", "right", "top"]
    assert all(p.hand_stays == 3 and p.heap for p in source.plans)
    with pytest.raises(BadSourceURL, match="keep"):
        open_source("sim:?dice=2&keep=2")
    with pytest.raises(BadSourceURL, match="edge"):
        open_source("sim:?edge=9")


def test_training_trays_pack_dice_touching_and_take_the_harder_looks() -> None:
    """The value reader's training trays (src/tabletop/vision/training): dice packed as in a heap, so a
    neighbour's pips show in a die's crop, and the darker looks only training asks for."""
    rng = np.random.default_rng(5)
    scene = random_scene(rng, 8, die_size=36, spacing=1.1, clustered=True, styles=HARD_DIE_STYLES)
    assert len(scene.dice) == 8
    for die in scene.dice:
        nearest = min(math.dist((die.x, die.y), (o.x, o.y)) for o in scene.dice if o is not die)
        assert 1.1 * die.size * 0.9 <= nearest <= 1.15 * 1.1 * die.size * 1.1
    looks = {(d.pips) for d in scene.dice}
    assert looks <= {pips for _, pips in HARD_DIE_STYLES}
    # The simulated table's own trays keep their spacing and looks.
    plain = random_scene(np.random.default_rng(5), 8, die_size=36)
    assert all(d.pips in {pips for _, pips in DIE_STYLES} for d in plain.dice)
    assert all(
        math.dist((a.x, a.y), (b.x, b.y)) >= 1.265 * max(a.size, b.size)
        for a in plain.dice
        for b in plain.dice
        if a is not b
    )
