"""A command sent while the table is offline is answered at once (issue 48, item 8): "Not
sent: the table is offline", not "Refused: no reply in 10 s: none came" after 13.6 s."""

from __future__ import annotations

import asyncio

import pytest

from console.feed import GAME_MASTER, Offline, TableFeed
from wire.mqtt import BrokerUrl


def _feed() -> TableFeed:
    """A game master's feed that never connected: no broker (nothing listens on port 9)."""
    return TableFeed(BrokerUrl("mqtt", "127.0.0.1", 9), "main", GAME_MASTER)


def test_no_broker_is_said_at_once() -> None:
    feed = _feed()
    with pytest.raises(Offline, match="^Not sent: the table is offline: the console has no con"):
        asyncio.run(feed.send({"cmd": "end_game"}, timeout=30))


def test_a_daemon_gone_is_said_at_once() -> None:
    feed = _feed()
    feed.broker_connected = True  # the broker is there, and the daemon's will says it is gone
    feed.parts["rules"] = "offline"
    with pytest.raises(Offline, match="the rules daemon is not running$"):
        asyncio.run(feed.send({"cmd": "end_game"}, timeout=30))
