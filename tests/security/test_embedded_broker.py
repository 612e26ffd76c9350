"""The embedded broker's own rules: client ids tied to users, anonymous clients from this machine
only (and only without users)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from types import SimpleNamespace

import pytest

from tabletop.wire.broker import EmbeddedBroker, free_port
from tabletop.wire.embedded import TableAuthPlugin, UserEntry, is_loopback

from .brokers import ACCOUNTS, Probe, RoleAmqtt, topic, users


def test_another_user_cannot_take_over_a_client_id(role_amqtt: RoleAmqtt) -> None:
    """Issue 13 finding 5: 50 connections with the daemon's client id silenced it for 10 s."""
    port = role_amqtt.port
    rules_id = f"tabletop-rules-kitchen-{os.urandom(8).hex()}"
    with contextlib.ExitStack() as stack:
        rules = Probe.of(port, "rules", client_id=rules_id)
        stack.callback(rules.close)
        gm = Probe.of(port, "gm")
        stack.callback(gm.close)
        assert rules.connect() == "Success" and gm.connect() == "Success"
        rules.subscribe(topic("game/command"))
        for name in ("screen", "pi", "gm") * 5:
            thief = Probe.of(port, name, client_id=rules_id)
            assert thief.connect() == "Client identifier not valid"
            thief.close()
        # a wrong password with the right user name: refused before anything is dropped
        guesser = Probe(port, "rules", "guess", client_id=rules_id)
        assert guesser.connect() == "Not authorized"
        guesser.close()
        # the daemon's session kept its subscription throughout
        gm.publish(topic("game/command"), b"still here")
        rules.wait_for(topic("game/command"), b"still here")
        assert rules.client.is_connected()


def test_the_same_user_may_take_its_own_client_id_back(role_amqtt: RoleAmqtt) -> None:
    """A daemon restarting before the broker noticed its old connection died."""
    client_id = f"tabletop-bridge-kitchen-{os.urandom(8).hex()}"
    first = Probe.of(role_amqtt.port, "pi", client_id=client_id)
    second = Probe.of(role_amqtt.port, "pi", client_id=client_id)
    try:
        assert first.connect() == "Success"
        assert second.connect() == "Success"
    finally:
        first.close()
        second.close()


def test_without_users_anonymous_clients_come_from_this_machine_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    plugin = TableAuthPlugin(
        SimpleNamespace(config=TableAuthPlugin.Config(users=[]), logger=logging.getLogger())
    )

    def login(address: str) -> bool:
        session = SimpleNamespace(remote_address=address, username=None, password=None)
        return asyncio.run(plugin.authenticate(session=session))

    assert login("127.0.0.1") and login("::1") and login("::ffff:127.0.0.1")
    assert not login("192.168.1.20")
    assert not login("::ffff:10.0.0.3")
    assert "serves this machine only" in caplog.text


def test_with_users_an_anonymous_client_is_refused_even_from_here() -> None:
    entries = [UserEntry.of(user) for user in users([ACCOUNTS["gm"]])]
    plugin = TableAuthPlugin(
        SimpleNamespace(config=TableAuthPlugin.Config(users=entries), logger=logging.getLogger())
    )
    session = SimpleNamespace(
        remote_address="127.0.0.1", username=None, password=None, will_flag=False
    )
    assert asyncio.run(plugin.authenticate(session=session)) is False


def test_loopback_addresses() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("127.8.9.1") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("") and not is_loopback("pi.local")


def test_bound_to_the_network_without_users_it_warns(caplog: pytest.LogCaptureFixture) -> None:
    broker = EmbeddedBroker("0.0.0.0", free_port())
    broker.start()
    try:
        assert "has no users, so it refuses every client that is not on this machine" in (
            caplog.text
        )
        probe = Probe(broker.port, None, None)
        assert probe.connect() == "Success"  # this machine still may
        probe.close()
    finally:
        broker.stop()
