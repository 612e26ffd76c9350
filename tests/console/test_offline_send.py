"""A command sent while the table is offline is answered at once (issue 48, item 8): "Not
sent: the table is offline", not "Refused: no reply in 10 s: none came" after 13.6 s."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from tabletop.console.feed import GAME_MASTER, Offline, TableFeed
from tabletop.wire.mqtt import BrokerUrl


def _feed() -> TableFeed:
    """A game master's feed that never connected: no broker (nothing listens on port 9)."""
    return TableFeed(BrokerUrl("mqtt", "127.0.0.1", 9), "main", GAME_MASTER)


def _sent(feed: TableFeed) -> BaseException | None:
    """What sending a command raised, run on a loop of its own: a browser test of this package
    may keep Playwright's loop running on this thread (tests/console/conftest.py)."""
    raised: list[BaseException | None] = []

    def run() -> None:
        try:
            asyncio.run(feed.send({"cmd": "end_game"}, timeout=30))
            raised.append(None)
        except BaseException as error:  # handed to the test, which names what it expects
            raised.append(error)

    thread = threading.Thread(target=run, name="offline-send")
    thread.start()
    thread.join(60)
    assert raised, "the send never returned"
    return raised[0]


def _raises(feed: TableFeed, match: str) -> None:
    error: Any = _sent(feed)
    with pytest.raises(Offline, match=match):
        if error is not None:
            raise error


def test_no_broker_is_said_at_once() -> None:
    _raises(_feed(), "^Not sent: the table is offline: the console has no connection")


def test_a_daemon_gone_is_said_at_once() -> None:
    feed = _feed()
    feed.broker_connected = True  # the broker is there, and the daemon's will says it is gone
    feed.parts["rules"] = "offline"
    _raises(feed, "the rules daemon is not running$")
