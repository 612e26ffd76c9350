"""A game master corrects a throw's reading on its photo: the game gets the corrected roll as its
own roll entry, and the console keeps the photo and its labels for `tabletop dice enrol`."""

from __future__ import annotations

import csv
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from playwright.sync_api import Page, Route, expect

from tabletop.bridge.bridge import Bridge
from tabletop.bridge.dice import PHOTO, PICTURE, photo_of
from tabletop.console.corrections import CorrectedDie, Corrections, read_photo
from tabletop.vision.annotate import throw_picture
from tabletop.vision.classify import COCKED
from tabletop.vision.enrol import read_labels
from tabletop.vision.reading import DieReading, DieStatus, FrameReading
from tests.console.conftest import (
    Table,
    bridge_on,
    gm_login,
    shoot,
    snapshot,
    wait_for,
)

WIDTH, HEIGHT = 640, 480
# The camera read a 1 and a 5 (the 5 is truly a 4) and missed a die at (500, 380).
READING = FrameReading(
    (
        DieReading(1, 0.97, (100, 100, 160, 160), DieStatus.READ),
        DieReading(5, 0.61, (300, 200, 360, 260), DieStatus.READ),
    )
)
MISSED = (500, 380)


def tray() -> np.ndarray[Any, np.dtype[np.uint8]]:
    """A green tray with three white dice, one of them where the camera saw none."""
    image = np.full((HEIGHT, WIDTH, 3), (40, 90, 40), np.uint8)
    for x0, y0 in ((100, 100), (300, 200), (MISSED[0] - 30, MISSED[1] - 30)):
        cv2.rectangle(image, (x0, y0), (x0 + 60, y0 + 60), (245, 245, 245), -1)
    return image


# The throw lands once the game master's page is open (`open_correction`), as at a table: the
# page follows the throws that come while it is open.
THROWN = threading.Event()


def one_throw(stop: threading.Event) -> Iterator[dict[str, Any]]:
    """A camera that sees one throw, as tabletop.bridge.dice.camera_throws announces it."""
    image = tray()
    while not THROWN.wait(0.05):
        if stop.is_set():
            return
    yield {
        "v": 1,
        "event": "unclear",
        "reason": "2 dice in the tray, 3 awaited",
        "frame": 7,
        "t": 12.5,
        "values": [1, 5],
        "dice": [die.to_json() for die in READING.dice],
        PICTURE: throw_picture(image, READING, "unclear"),
        PHOTO: photo_of(image),
    }
    stop.wait()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "corrections"


@pytest.fixture
def table(tmp_path: Path, folder: Path) -> Iterator[Table]:
    running = Table(tmp_path, corrections=folder)
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def bridge(table: Table) -> Iterator[Bridge]:
    THROWN.clear()
    with bridge_on(table, one_throw) as running:
        yield running


def awaiting_three_dice(table: Table) -> None:
    """Os Six: Jack's skilled Agility action waits for a throw of three dice."""
    assert table.send({"cmd": "new_game", "game": "ossix", "players": ["Jack", "Kate"]})["ok"]
    action = {"cmd": "action", "player": "Jack", "attribute": "agility", "score": 2, "skill": True}
    assert table.send(action)["ok"]


def open_correction(table: Table, page: Page) -> None:
    gm_login(page, table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    THROWN.set()
    expect(page.locator("#correction")).to_be_visible(timeout=30_000)
    # a property read, not a string predicate: Playwright polls those with eval, which the
    # console's Content-Security-Policy refuses
    expect(page.locator("#correction-image")).to_have_js_property("naturalWidth", 640)


def rows(folder: Path) -> list[dict[str, str]]:
    with open(folder / "labels.csv", encoding="utf-8", newline="") as labels:
        return list(csv.DictReader(labels))


def test_a_tapped_correction_is_the_games_roll_and_a_lesson_for_the_table(
    table: Table, page: Page, bridge: Bridge, folder: Path
) -> None:
    awaiting_three_dice(table)
    open_correction(table, page)
    dice = page.locator(".correction-die")
    expect(dice).to_have_count(2)
    expect(dice.nth(0)).to_have_text("1")
    expect(dice.nth(1)).to_have_text("5")
    for index in range(2):  # a finger's target, however small the die is drawn
        box = dice.nth(index).bounding_box()
        assert box is not None and box["width"] >= 44 and box["height"] >= 44
    # the 5 is a 4
    dice.nth(1).click()
    choice = page.locator("#correction-choice")
    expect(choice).to_be_visible()
    four = choice.get_by_role("button", name="4", exact=True)
    box = four.bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44
    four.click()
    expect(choice).to_be_hidden()
    expect(dice.nth(1)).to_have_text("4")
    expect(dice.nth(1)).to_have_class("correction-die corrected")
    # the missed die: a tap where it lies, then its value
    image = page.locator("#correction-image")
    shown = image.bounding_box()
    assert shown is not None
    scale = shown["width"] / WIDTH
    image.click(position={"x": MISSED[0] * scale, "y": MISSED[1] * scale})
    expect(choice).to_be_visible()
    choice.get_by_role("button", name="6", exact=True).click()
    expect(dice).to_have_count(3)
    expect(page.locator("#correction-dice .die")).to_have_text(["1", "4", "6"])
    shoot(page, "console-dice-correction")
    page.get_by_role("button", name="Send corrected throw").click()
    expect(page.locator("#correction-result")).to_have_text(
        "Done. Kept for the table's enrolment (3 dice)."
    )
    # the game took the corrected throw as its own roll entry, from the console
    wait_for(page, lambda s: bool(s.get("state", {}).get("players", [{}])[0].get("last_roll")))
    assert snapshot(page)["state"]["players"][0]["last_roll"]["values"] == [1, 4, 6]
    expect(page.locator("#events")).to_contain_text("Jack throws 1 4 6")
    # the photo as the camera took it, and one row per die, centres in its pixels
    kept = rows(folder)
    assert [row["value"] for row in kept] == ["1", "4", "6"]
    assert [(float(row["cx"]), float(row["cy"])) for row in kept[:2]] == [(130, 130), (330, 230)]
    assert abs(float(kept[2]["cx"]) - MISSED[0]) <= 1.5
    assert abs(float(kept[2]["cy"]) - MISSED[1]) <= 1.5
    photo = folder / kept[0]["image"]
    assert {row["image"] for row in kept} == {photo.name}
    frame = cv2.imread(str(photo))
    assert frame is not None and frame.shape == (HEIGHT, WIDTH, 3)
    # no box drawn: the missed die's square is white where the annotated picture is not
    assert frame[130, 130].min() > 200 and frame[102, 102].min() > 200
    # and `tabletop dice enrol` reads the folder's labels as they are
    enrolled = read_labels(folder / "labels.csv")
    assert [(d.image, d.value) for d in enrolled] == [(photo, 1), (photo, 4), (photo, 6)]


def test_a_correction_the_game_refuses_is_said_and_still_kept(
    table: Table, page: Page, bridge: Bridge, folder: Path
) -> None:
    awaiting_three_dice(table)
    open_correction(table, page)
    # two dice for a throw of three: the game's own refusal, in the page
    page.get_by_role("button", name="Send corrected throw").click()
    result = page.locator("#correction-result")
    expect(result).to_contain_text("Refused: ")
    expect(result).to_contain_text("Kept for the table's enrolment (2 dice).")
    assert [row["value"] for row in rows(folder)] == ["1", "5"]
    # sent again with the third die: the photo's rows are replaced, not doubled
    image = page.locator("#correction-image")
    shown = image.bounding_box()
    assert shown is not None
    scale = shown["width"] / WIDTH
    image.click(position={"x": MISSED[0] * scale, "y": MISSED[1] * scale})
    page.locator("#correction-choice").get_by_role("button", name="2", exact=True).click()
    page.get_by_role("button", name="Send corrected throw").click()
    expect(result).to_have_text("Done. Kept for the table's enrolment (3 dice).")
    assert [row["value"] for row in rows(folder)] == ["1", "5", "2"]
    assert len(list(folder.glob("*.jpg"))) == 1


def test_a_cocked_die_is_kept_for_the_table_and_nothing_is_sent_to_the_game(
    table: Table, page: Page, bridge: Bridge, folder: Path
) -> None:
    awaiting_three_dice(table)
    open_correction(table, page)
    dice = page.locator(".correction-die")
    dice.nth(1).click()  # the 5 leans on the rim
    page.locator("#correction-choice").scroll_into_view_if_needed()
    shoot(page, "console-dice-correction-cocked")
    page.locator("#correction-choice").get_by_role("button", name="Cocked", exact=True).click()
    expect(dice.nth(1)).to_have_text("cocked")
    expect(dice.nth(1)).to_have_attribute("aria-label", "die 2: cocked (corrected): tap to change")
    expect(page.locator("#correction-dice .die")).to_have_text(["1", "cocked"])
    page.get_by_role("button", name="Send corrected throw").click()
    expect(page.locator("#correction-result")).to_have_text(
        "Nothing sent to the game: a cocked die has no value. Have the throw made again, or "
        "enter it by hand. Kept for the table's enrolment (2 dice)."
    )
    assert [row["value"] for row in rows(folder)] == ["1", "cocked"]
    enrolled = read_labels(folder / "labels.csv")
    assert [d.value for d in enrolled] == [1, COCKED]
    # the game still waits for Jack's throw: nothing was entered for it
    assert not snapshot(page)["state"]["players"][0].get("last_roll")
    expect(page.locator("#events")).not_to_contain_text("Jack throws")


def test_a_false_box_is_marked_no_die_here(
    table: Table, page: Page, bridge: Bridge, folder: Path
) -> None:
    open_correction(table, page)
    for index in range(2):
        page.locator(".correction-die").nth(index).click()
        page.get_by_role("button", name="No die here", exact=True).click()
    expect(page.locator(".correction-die.removed")).to_have_count(2)
    page.get_by_role("button", name="Send corrected throw").click()
    expect(page.locator("#correction-result")).to_have_text(
        "Mark at least one die: a throw has dice."
    )
    assert not folder.exists()


def test_bad_corrections_are_refused_in_words_and_lose_nothing(
    table: Table, page: Page, bridge: Bridge, folder: Path
) -> None:
    awaiting_three_dice(table)
    open_correction(table, page)
    photo = snapshot(page)["photo"]
    url = table.console.url + "gm/dice/correction"

    def post(body: Any, content_type: str = "application/json") -> tuple[int, str]:
        data = body if isinstance(body, str) else json.dumps(body)
        answer = page.request.post(url, data=data.encode(), headers={"Content-Type": content_type})
        return answer.status, str(answer.json().get("error"))

    good = {"cx": 130, "cy": 130, "value": 1}
    # a first correction, kept: what a refusal must not lose
    assert post({"photo": photo["id"], "dice": [good]})[0] == 200
    before = (folder / "labels.csv").read_bytes()
    files = sorted(folder.iterdir())
    refusals = [
        ({"photo": photo["id"], "dice": [good, {**good, "value": 7}]}, 400, "a die shows 1 to 6"),
        ({"photo": photo["id"], "dice": [{**good, "value": True}]}, 400, "a die shows 1 to 6"),
        ({"photo": photo["id"], "dice": [{**good, "value": "Cocked"}]}, 400, "or is 'cocked'"),
        ({"photo": photo["id"], "dice": [{**good, "cx": 640}]}, 400, "outside the photo"),
        ({"photo": photo["id"], "dice": [{**good, "cy": -1}]}, 400, "outside the photo"),
        ({"photo": photo["id"], "dice": [{"cx": 1, "cy": 1}]}, 400, "cx, cy and value"),
        ({"photo": photo["id"], "dice": []}, 400, "one at least"),
        ({"photo": "0123", "dice": [good]}, 409, "a newer throw came"),
        ({"photo": photo["id"], "dice": [good], "extra": 1}, 400, "no field 'extra'"),
        ("[1, 2", 400, "not valid JSON"),
        ("[]", 400, "expected a JSON object"),
    ]
    for body, status, words in refusals:
        code, message = post(body)
        assert code == status and words in message, (body, code, message)
    code, message = post({"photo": photo["id"], "dice": [good]}, content_type="text/plain")
    assert code == 415 and "JSON" in message
    assert (folder / "labels.csv").read_bytes() == before
    assert sorted(folder.iterdir()) == files
    # a stranger (no login) corrects nothing
    page.context.clear_cookies()
    stranger = page.request.post(
        url,
        data=json.dumps({"photo": photo["id"], "dice": [good]}),
        headers={"Content-Type": "application/json"},
    )
    assert stranger.status == 401


def test_the_labels_written_are_what_enrolment_reads(tmp_path: Path) -> None:
    image = tray()
    ok, jpeg = cv2.imencode(".jpg", image)
    assert ok
    import base64

    payload = json.dumps(
        {
            "v": 1,
            "event": "rolled",
            "width": WIDTH,
            "height": HEIGHT,
            "dice": [die.to_json() for die in READING.dice],
            "jpeg": base64.b64encode(jpeg.tobytes()).decode(),
        }
    ).encode()
    photo = read_photo(payload)
    assert photo is not None
    assert [d["box"] for d in photo.dice] == [[100, 100, 160, 160], [300, 200, 360, 260]]
    kept = Corrections(tmp_path / "c", "main")
    name = kept.keep(photo, [CorrectedDie(130, 130, 1), CorrectedDie(330.5, 230, 4)])
    kept.keep(
        photo, [CorrectedDie(130, 130, 1), CorrectedDie(330.5, 230, 4), CorrectedDie(500, 380, 6)]
    )
    dice = read_labels(kept.labels)
    assert [(d.image.name, d.cx, d.cy, d.value) for d in dice] == [
        (name, 130.0, 130.0, 1),
        (name, 330.5, 230.0, 4),
        (name, 500.0, 380.0, 6),
    ]
    kept.keep(photo, [CorrectedDie(130, 130, 1), CorrectedDie(330.5, 230, "cocked")])
    assert [d.value for d in read_labels(kept.labels)] == [1, COCKED]
    kept.keep(
        photo, [CorrectedDie(130, 130, 1), CorrectedDie(330.5, 230, 4), CorrectedDie(500, 380, 6)]
    )
    assert all(d.image.is_file() for d in dice)
    # rows a person wrote by hand stay; a file that is no labels file is not overwritten
    with open(kept.labels, "a", encoding="utf-8") as labels:
        labels.write("other.jpg,10,10,2\n")
    kept.keep(photo, [CorrectedDie(130, 130, 2)])
    assert [(d.image.name, d.value) for d in read_labels(kept.labels)] == [
        ("other.jpg", 2),
        (name, 2),
    ]
    (kept.labels).write_text("not,a,labels,file\n", encoding="utf-8")
    from tabletop.console.corrections import CorrectionError

    with pytest.raises(CorrectionError, match="is not a labels file"):
        kept.keep(photo, [CorrectedDie(130, 130, 2)])
    assert kept.labels.read_text(encoding="utf-8") == "not,a,labels,file\n"
    # what is no photo of the bridge's is ignored
    assert read_photo(b"{}") is None
    assert (
        read_photo(json.dumps({"v": 1, "width": 1, "height": 1, "jpeg": "bm90"}).encode()) is None
    )


def test_the_table_file_names_the_corrections_folder(tmp_path: Path) -> None:
    from tabletop.config.places import corrections_folder
    from tabletop.config.table import ConfigError, parse_config

    raw = {"table": {"id": "main"}, "seats": [{"name": "Ana"}], "camera": {"corrections": "kept"}}
    assert parse_config(raw).camera.corrections == "kept"
    assert parse_config({**raw, "camera": {}}).camera.corrections is None
    with pytest.raises(ConfigError, match="camera.corrections: expected text"):
        parse_config({**raw, "camera": {"corrections": 3}})
    assert corrections_folder("main").parts[-3:] == ("tabletop", "corrections", "main")


def test_a_throw_photographed_before_the_page_opened_shows_on_it(
    table: Table, page: Page, bridge: Bridge
) -> None:
    # The photo is retained when the page opens, and the correction's script comes late (as
    # over a slow link): the page's first snapshot is in before that script listens for one.
    awaiting_three_dice(table)
    open_correction(table, page)

    def late(route: Route) -> None:
        time.sleep(1.5)
        route.continue_()

    page.route("**/static/correct.js", late)
    page.reload()
    expect(page.locator("#connection")).to_have_text("Table online")
    expect(page.locator("#correction")).to_be_visible(timeout=30_000)
    # a property read, not a string predicate: Playwright polls those with eval, which the
    # console's Content-Security-Policy refuses
    expect(page.locator("#correction-image")).to_have_js_property("naturalWidth", 640)
    expect(page.locator(".correction-die")).to_have_count(2)
    shoot(page, "console-dice-correction-on-opening", full_page=True)
