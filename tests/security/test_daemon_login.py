"""The rules daemon on a broker with users: its own login works, a wrong one is said as such."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tabletop.daemon.service import RulesDaemon
from tabletop.wire.mqtt import BrokerUrl

from .brokers import ACCOUNTS, TABLE, RoleBroker


def _url(broker: RoleBroker, user: str, password: str) -> BrokerUrl:
    return BrokerUrl("mqtt", "127.0.0.1", broker.port, user, password)


def test_a_refused_login_is_reported_as_such_not_as_a_missing_broker(
    role_broker: RoleBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    daemon = RulesDaemon(_url(role_broker, "rules", "wrong"), TABLE, tmp_path / "log.sqlite3")
    daemon.start(timeout=1.5)
    try:
        messages = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert any("refused the daemon's login" in m for m in messages), messages
        assert not daemon.link.is_connected
    finally:
        daemon.close()


def test_the_daemon_logs_in_with_its_own_role(role_broker: RoleBroker, tmp_path: Path) -> None:
    account = ACCOUNTS["rules"]
    url = _url(role_broker, account.name, account.password)
    daemon = RulesDaemon(url, TABLE, tmp_path / "log.sqlite3")
    daemon.start(timeout=5)
    try:
        assert daemon.link.is_connected and daemon.link.refusal is None
    finally:
        daemon.close()
