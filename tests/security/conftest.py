"""Fixtures for the security tests: both brokers with the tabletop roles, once per session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .brokers import RoleAmqtt, RoleBroker, RoleMosquitto, users


@pytest.fixture(scope="session")
def role_mosquitto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RoleMosquitto]:
    broker = RoleMosquitto(tmp_path_factory.mktemp("role-mosquitto"), users())
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture(scope="session")
def role_amqtt() -> Iterator[RoleAmqtt]:
    broker = RoleAmqtt(users())
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture(params=["amqtt", "mosquitto"])
def role_broker(request: pytest.FixtureRequest) -> RoleBroker:
    """Each role test runs against the embedded broker and against a real Mosquitto."""
    found: RoleBroker = request.getfixturevalue(f"role_{request.param}")
    return found
