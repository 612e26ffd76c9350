"""`tabletop dice read | watch | calibrate` as a person types them."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tabletop.cli import main
from tabletop.hardware.camera.render import random_scene, render
from tabletop.vision.calibration import Calibration

PHOTOS = Path(__file__).resolve().parents[1] / "data" / "dice-tray"

PHOTO = str(PHOTOS / "images" / "IMG_20191208_111228.jpg")


def test_read_prints_one_json_object_per_picture(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not a jpeg")
    status = main(["dice", "read", PHOTO, str(bad), "--json", "--annotate", str(tmp_path / "a")])
    lines = capsys.readouterr().out.splitlines()
    assert status == 1  # one picture could not be read; the other still was
    first, second = (json.loads(line) for line in lines)
    assert first["image"] == PHOTO
    assert isinstance(first["ms"], float)
    assert len(first["dice"]) >= 15
    die = first["dice"][0]
    assert {"value", "confidence", "box"} <= set(die)
    assert "error" in second and "broken.jpg" in second["error"]
    assert (tmp_path / "a" / "IMG_20191208_111228.png").exists()


def test_watch_prints_throws_from_the_simulator(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["dice", "watch", "--source", "sim:?seed=5&throws=2", "--no-calibration"])
    assert status == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    rolled = [e for e in events if e["event"] == "rolled"]
    assert len(rolled) == 2
    assert all(len(e["values"]) == 1 and 1 <= e["values"][0] <= 6 for e in rolled)


def test_watch_refuses_an_unknown_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dice", "watch", "--source", "tape:3", "--no-calibration"]) == 2
    assert "unknown kind 'tape'" in capsys.readouterr().err


def test_calibrate_stores_the_tray(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_CONFIG_DIR", str(tmp_path))
    status = main(["dice", "calibrate", "--source", "sim:?seed=2&throws=0", "--frames", "5"])
    assert status == 0
    assert "written to" in capsys.readouterr().out
    stored = Calibration.load(tmp_path / "dice-calibration.json")
    assert (stored.width, stored.height) == (640, 480)
    x0, y0, x1, y1 = stored.tray
    assert 0 <= x0 < 60 and 0 <= y0 < 60 and 580 < x1 <= 640 and 420 < y1 <= 480


def test_a_broken_calibration_file_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cal.json"
    path.write_text('{"version": 1, "width": 640}')
    assert main(["dice", "read", PHOTO, "--calibration", str(path)]) == 2
    err = capsys.readouterr().err
    assert "missing key 'height'" in err and str(path) in err


def test_a_missing_picture_is_one_clear_line_and_no_opencv_warning(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # capfd: OpenCV warns straight onto file descriptor 2, past Python's sys.stderr.
    missing = tmp_path / "nowhere.jpg"
    assert main(["dice", "read", str(missing)]) == 1
    out, err = capfd.readouterr()
    assert out == ""
    assert err.splitlines() == [f"{missing}: no such file"]


def test_a_folder_is_read_picture_by_picture(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    photo = Path(PHOTO)
    (tmp_path / photo.name).write_bytes(photo.read_bytes())
    (tmp_path / "notes.txt").write_text("not a picture")
    assert main(["dice", "read", str(tmp_path), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [Path(line["image"]).name for line in lines] == [photo.name]
    assert len(lines[0]["dice"]) >= 15


def test_an_empty_folder_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["dice", "read", str(tmp_path)]) == 1
    assert capsys.readouterr().err.strip() == f"{tmp_path}: no pictures in this folder"


def test_one_die_is_one_die_not_one_dice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    scene = random_scene(np.random.default_rng(8), 1, die_size=40)
    path = tmp_path / "one.png"
    cv2.imwrite(str(path), render(scene, seed=1))
    assert main(["dice", "read", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{path}: 1 die: {scene.dice[0].value} (" in out
