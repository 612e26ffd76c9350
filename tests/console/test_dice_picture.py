"""The last throw's picture: the bridge publishes it, the console serves it, the page shows it."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from tabletop.bridge.bridge import Bridge
from tabletop.bridge.dice import PICTURE
from tabletop.vision.annotate import throw_picture
from tabletop.vision.reading import DieReading, DieStatus, FrameReading
from tests.console.conftest import Table, bridge_on, snapshot

READING = FrameReading(
    (
        DieReading(3, 0.99, (100, 100, 180, 180), DieStatus.READ),
        DieReading(6, 0.98, (300, 200, 380, 280), DieStatus.READ),
    )
)


def one_throw(stop: threading.Event) -> Iterator[dict[str, Any]]:
    """A camera that sees one throw of a 3 and a 6, as the vision pipeline announces it."""
    image = np.full((480, 640, 3), (40, 90, 40), np.uint8)
    yield {
        "v": 1,
        "event": "rolled",
        "values": [3, 6],
        PICTURE: throw_picture(image, READING, "3 6"),
    }
    stop.wait()


@pytest.fixture
def bridge(table: Table) -> Iterator[Bridge]:
    with bridge_on(table, one_throw) as running:
        yield running


def test_the_room_sees_the_last_throw_as_the_camera_saw_it(
    table: Table, page: Page, bridge: Bridge
) -> None:
    page.goto(table.console.url)
    picture = page.locator("#dice-picture")
    expect(picture).to_be_visible(timeout=30_000)
    expect(picture).to_have_attribute("alt", "the last throw as the camera saw it: dice read 3, 6")
    page.wait_for_function("document.getElementById('dice-picture').naturalWidth === 640")
    expect(page.locator("#dice .die")).to_have_count(2)
    # the snapshot carries the picture's number, not its bytes
    assert snapshot(page)["picture"] == 1
    with urllib.request.urlopen(table.console.url + "dice.jpg", timeout=5) as answer:
        assert answer.headers["Content-Type"] == "image/jpeg"
        assert answer.read().startswith(b"\xff\xd8\xff")


def test_no_picture_before_the_first_throw_and_none_from_a_stranger(table: Table) -> None:
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(table.console.url + "dice.jpg", timeout=5)
    with answer.value as refused:  # an HTTPError holds the response open until closed
        assert refused.code == 404
        assert b"no throw has been pictured yet" in refused.read()
    # something on the picture topic that is no JPEG is not served as one
    table.publish_as_daemon("dice/picture", {"not": "a picture"}, user="bridge")
    with pytest.raises(urllib.error.HTTPError) as again:
        urllib.request.urlopen(table.console.url + "dice.jpg", timeout=5)
    with again.value as refused:
        assert refused.code == 404
