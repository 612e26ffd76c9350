"""Every value a person writes in a table file works as written, or is refused in one line that
says what is wrong and lists what works (issue 46 item 1, issue 51's shared LED pin)."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from tabletop.cli import main
from tabletop.config.table import ConfigError, load_config
from tabletop.hardware.camera import (
    SOURCE_FORMS,
    BadSourceURL,
    CameraNotFound,
    SimulatedCamera,
    open_source,
    parse_source,
)
from tabletop.hardware.camera.capture import VideoCaptureSource
from tabletop.hardware.camera.folder import FolderSource
from tabletop.hardware.camera.picamera import PiCameraSource
from tabletop.hardware.mat.transport import PortURLError, is_simulated, open_port

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    ("url", "kind", "target"),
    [
        ("sim", "sim", ""),
        ("sim:", "sim", ""),
        ("sim://", "sim", ""),
        ("SIM", "sim", ""),
        ("sim?seed=3", "sim", ""),
        ("sim:?seed=3&throws=2", "sim", ""),
        ("picamera", "picamera", ""),
        ("picamera:", "picamera", ""),
        ("picamera:1", "picamera", "1"),
        ("usb", "usb", ""),
        ("usb:0", "usb", "0"),
        ("usb:/dev/video2", "usb", "/dev/video2"),
        ("/dev/video0", "usb", "/dev/video0"),
        ("0", "usb", "0"),
        ("throws.mp4", "path", "throws.mp4"),
        ("file:throws.mp4", "file", "throws.mp4"),
        ("folder:shots", "folder", "shots"),
        ("shots/", "path", "shots/"),
    ],
)
def test_every_form_people_write_names_its_camera(url: str, kind: str, target: str) -> None:
    spec = parse_source(url)
    assert (spec.kind, spec.target) == (kind, target)


def test_each_form_opens_the_backend_it_names(tmp_path: Path) -> None:
    assert isinstance(open_source("sim"), SimulatedCamera)
    assert isinstance(open_source("sim:"), SimulatedCamera)
    assert isinstance(open_source("picamera"), PiCameraSource)  # picamera2 is imported on open
    assert isinstance(open_source("picamera:"), PiCameraSource)
    webcam = open_source("/dev/video0")
    assert isinstance(webcam, VideoCaptureSource) and webcam.target == "/dev/video0"
    assert webcam.live and not open_source("sim").live
    assert isinstance(open_source(str(tmp_path)), FolderSource)


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("webcam:0", "unknown kind 'webcam'"),
        ("picamera:front", "picamera takes a camera number"),
        ("usb:front", "usb takes a camera number"),
        ("sim:three", "sim takes options after ?"),
        ("usb:0?fps=3", "unknown option 'fps'"),
        ("folder:", "folder: needs a path"),
        ("   ", "empty"),
    ],
)
def test_a_form_that_is_none_is_refused_naming_it(url: str, said: str) -> None:
    with pytest.raises(BadSourceURL) as caught:
        parse_source(url)
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_a_path_that_is_not_there_lists_the_forms(tmp_path: Path) -> None:
    with pytest.raises(CameraNotFound) as caught:
        open_source(str(tmp_path / "picamra"))
    assert "no file or folder" in str(caught.value) and SOURCE_FORMS in str(caught.value)


def test_the_shipped_examples_load_with_the_values_they_show() -> None:
    laptop = load_config(EXAMPLES / "table.toml")
    assert parse_source(laptop.camera.source).kind == "sim" and is_simulated(laptop.mat.port)
    pi = load_config(EXAMPLES / "mosquitto" / "table.toml")
    assert parse_source(pi.camera.source).kind == "picamera"
    assert pi.mat.port == "/dev/tabletop-mat"


def test_the_simulated_mat_takes_every_spelling_and_a_bad_url_is_refused() -> None:
    assert all(is_simulated(url) for url in ("sim", "sim:", "sim://", "sim:?seats=2"))
    assert not is_simulated("/dev/simmat")
    with pytest.raises(PortURLError, match="mqtt://x is not a port; use a device path"):
        open_port("mqtt://x")


def _table(folder: Path, body: str) -> Path:
    path = folder / "table.toml"
    path.write_text('[table]\nid = "t"\n[[seats]]\nname = "Ana"\n' + body)
    return path


def test_paths_in_a_table_file_are_relative_to_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under systemd the current folder is /: a relative path must not depend on it."""
    here = tmp_path / "etc"
    (here / "shots").mkdir(parents=True)
    path = _table(
        here,
        '[mat]\ncards = "cards.json"\n'
        '[camera]\nsource = "shots"\ncalibration = "tray.json"\ndice_model = "dice"\n'
        'corrections = "fixed"\n'
        '[broker.bridge]\nusername = "bridge"\npassword_file = "bridge.secret"\n',
    )
    monkeypatch.chdir(tmp_path)
    config = load_config(path)
    assert config.mat.cards == str(here / "cards.json")
    assert config.camera.source == str(here / "shots")
    assert config.camera.calibration == str(here / "tray.json")
    assert config.camera.dice_model == str(here / "dice")
    assert config.camera.corrections == str(here / "fixed")
    assert config.broker.bridge is not None
    assert config.broker.bridge.password_file == str(here / "bridge.secret")
    # prefixed paths too, with their options; absolute paths and devices stay as written
    config = load_config(_table(here, '[camera]\nsource = "folder:shots?fps=5"\n'))
    assert config.camera.source == f"folder:{here / 'shots'}?fps=5"
    config = load_config(_table(here, '[camera]\nsource = "usb:/dev/video2"\n'))
    assert config.camera.source == "usb:/dev/video2"


def test_a_camera_source_that_is_none_is_refused_at_load(tmp_path: Path) -> None:
    path = _table(tmp_path, '[camera]\nsource = "webcam"\n')  # a bare word: a path
    load_config(path)  # a folder may be made later; the bridge checks it at start
    with pytest.raises(ConfigError, match=r"table.toml: camera.source: .*unknown kind 'tape'"):
        load_config(_table(tmp_path, '[camera]\nsource = "tape:3"\n'))


def test_two_seats_on_one_led_pin_are_refused_naming_both(tmp_path: Path) -> None:
    """With the simulated LEDs too: the file goes to the Pi with "gpio" as it is."""
    path = tmp_path / "table.toml"
    path.write_text(
        '[table]\nid = "t"\n[leds]\nbackend = "sim"\n'
        '[[seats]]\nname = "Ana"\nleds = [5, 6, 13]\n'
        '[[seats]]\nname = "Bo"\nleds = [19, 6, 21]\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    said = str(caught.value)
    assert "seats[2].leds: pin 6 is already used by seats[1] (Ana)" in said
    assert "Ana and Bo cannot share BCM pin 6" in said and "\n" not in said
    path.write_text(path.read_text().replace("[19, 6, 21]", "[19, 19, 21]"))
    with pytest.raises(ConfigError, match=r"seats\[2\].leds: pin 19 is given twice to Bo"):
        load_config(path)


def _refused(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    assert main(["bridge", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("tabletop bridge:")]
    assert len(lines) == 1, err
    return lines[0]


def test_the_bridge_refuses_what_cannot_be_waited_for_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("TABLETOP_MAT", "TABLETOP_CAMERA", "TABLETOP_BROKER"):
        monkeypatch.delenv(name, raising=False)
    said = _refused(capsys, _table(tmp_path, '[camera]\nsource = "picamra"\n'))
    assert "camera.source" in said and "no file or folder" in said and SOURCE_FORMS in said
    monkeypatch.setenv("TABLETOP_CAMERA", "webcam:1")
    said = _refused(capsys, _table(tmp_path, ""))
    assert "$TABLETOP_CAMERA=webcam:1" in said and "unknown kind 'webcam'" in said
    monkeypatch.delenv("TABLETOP_CAMERA")
    said = _refused(capsys, _table(tmp_path, '[mat]\nport = "serial://ttyACM0"\n'))
    assert 'mat.port = "serial://ttyACM0"' in said and "is not a port" in said
    secret = tmp_path / "missing.secret"
    said = _refused(
        capsys,
        _table(
            tmp_path,
            f'[broker]\nurl = "mqtt://127.0.0.1:1"\n[broker.bridge]\nusername = "bridge"\n'
            f'password_file = "{secret.name}"\n',
        ),
    )
    assert f"cannot read {secret}" in said and "tabletop broker passwd bridge --save" in said


def test_a_copied_example_keeps_working_from_another_folder(tmp_path: Path) -> None:
    """The Pi's file copied to /etc/tabletop with its cards beside it (README step 4)."""
    shutil.copy(EXAMPLES / "table.toml", tmp_path / "table.toml")
    text = (
        (tmp_path / "table.toml").read_text().replace('# cards = "cards.json"', 'cards = "c.json"')
    )
    (tmp_path / "table.toml").write_text(text)
    assert load_config(tmp_path / "table.toml").mat.cards == str(tmp_path / "c.json")


def test_a_simulated_mat_taken_for_want_of_a_port_is_said(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from tabletop.hardware.mat import open_mat

    monkeypatch.delenv("TABLETOP_MAT", raising=False)
    with caplog.at_level(logging.WARNING, logger="tabletop.hardware.mat.driver"):
        assert open_mat().url == "sim:"
        assert open_mat("/dev/ttyACM0").url == "/dev/ttyACM0"
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "using a simulated mat (sim:)" in lines[0]
