"""What the bridge's tests share: a real Mosquitto for each test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.daemon.daemon_helpers import Mosquitto


@pytest.fixture(scope="module")
def mosquitto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    """A Mosquitto of the module's own, on a free port, with its own configuration."""
    broker = Mosquitto(tmp_path_factory.mktemp("mosquitto"))
    broker.start()
    yield broker
    broker.stop()
