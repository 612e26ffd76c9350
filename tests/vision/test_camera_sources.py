"""Frame sources: the URL factory, folders, video files, and honest errors for absent devices."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera import (
    BadSourceURL,
    CameraNotFound,
    SimTruth,
    SimulatedCamera,
    ThrowPlan,
    open_source,
)
from hardware.camera.folder import FolderSource
from hardware.camera.picamera import PiCameraSource


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
