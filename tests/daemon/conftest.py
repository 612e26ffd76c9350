"""Fixtures for the rules daemon tests: one amqtt and one Mosquitto broker for the session."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from daemon_helpers import AmqttBroker, Broker, Mosquitto

from tabletop.rules import games
from tabletop.servers import PostgreSQL, postgres_bin_dir
from tests.games.highroll import HIGH_ROLL

_tables = itertools.count(1)


@pytest.fixture
def high_roll() -> Iterator[None]:
    """The test-only game High Roll (tests/games/highroll.py), registered for one test."""
    games.register(HIGH_ROLL)
    yield
    games.unregister(HIGH_ROLL.name)


@pytest.fixture(scope="session")
def mosquitto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    broker = Mosquitto(tmp_path_factory.mktemp("mosquitto"))
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture(scope="session")
def amqtt() -> Iterator[AmqttBroker]:
    broker = AmqttBroker()
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture(params=["amqtt", "mosquitto"])
def broker(request: pytest.FixtureRequest) -> Broker:
    """Each MQTT test runs against the embedded broker and against a real Mosquitto."""
    found: Broker = request.getfixturevalue(request.param)
    return found


@pytest.fixture
def table() -> str:
    """A table id no other test uses, so tests can share brokers."""
    return f"t{next(_tables)}"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def fuzz_daemon(broker: Broker, table: str, db: Path) -> Iterator[tuple[Broker, str]]:
    """One daemon that every example of a fuzz test sends to."""
    from daemon_helpers import running_daemon

    with running_daemon(broker.url, table, db):
        yield broker, table


@pytest.fixture(scope="session")
def postgresql() -> Iterator[PostgreSQL]:
    """A private PostgreSQL for the session (scripts/test.sh installs it when missing)."""
    if postgres_bin_dir() is None:
        pytest.skip(
            "PostgreSQL is not installed (no initdb/postgres found) and could not be: "
            "scripts/test.sh installs the Debian package postgresql"
        )
    server = PostgreSQL()
    server.start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def log_db(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """A game log to write to: a SQLite file, and a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return tmp_path / "games.sqlite3"
    server: PostgreSQL = request.getfixturevalue("postgresql")
    return server.new_database()
