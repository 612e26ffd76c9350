"""Issue 13 finding 8: TLS end to end with a real Mosquitto, and certificate failures said as such.

The CA and the server certificate are made by examples/mosquitto/make-certs.sh, the recipe
docs/security.md gives, with the `openssl` command.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabletop.cli import main
from tabletop.wire.broker import free_port
from tabletop.wire.mqtt import Message, MqttLink, NotConnected, TlsRefused, parse_broker_url

from .brokers import ACCOUNTS, RoleMosquitto, make_certs, topic, users


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_certs(tmp_path_factory.mktemp("certs"), "localhost")


@pytest.fixture(scope="module")
def tls_mosquitto(tmp_path_factory: pytest.TempPathFactory, certs: Path) -> Iterator[RoleMosquitto]:
    broker = RoleMosquitto(
        tmp_path_factory.mktemp("tls-mosquitto"),
        users([ACCOUNTS["gm"]]),
        tls=(certs / "server.crt", certs / "server.key"),
    )
    broker.start()
    yield broker
    broker.stop()


def url(host: str, port: int, ca: Path | None = None) -> str:
    gm = ACCOUNTS["gm"]
    return f"mqtts://{gm.name}:{gm.password}@{host}:{port}" + (f"?ca={ca}" if ca else "")


@pytest.mark.parametrize("threaded", [True, False], ids=["threaded", "unthreaded"])
def test_a_message_goes_both_ways_over_tls(
    tls_mosquitto: RoleMosquitto, certs: Path, threaded: bool
) -> None:
    command = topic("game/command")
    link = MqttLink(
        parse_broker_url(url("localhost", tls_mosquitto.port, certs / "ca.crt")),
        f"tls-test-{os.urandom(4).hex()}",
        subscriptions=[(command, 1)],
        threaded=threaded,
    )
    link.start(timeout=10)
    try:
        link.get(timeout=5)  # Connected: subscribes now
        payload = os.urandom(8).hex().encode()
        link.publish(command, payload)
        item = link.get(timeout=10)
        while item is not None and not isinstance(item, Message):
            item = link.get(timeout=10)
        assert item == Message(command, payload)
    finally:
        link.stop()


def refusal(address: str) -> str:
    link = MqttLink(parse_broker_url(address), "tls-refused")
    with pytest.raises(NotConnected) as caught:
        link.start(timeout=3)
    link.stop()
    return str(caught.value)


def test_a_certificate_from_another_ca_is_refused_as_such(
    tls_mosquitto: RoleMosquitto, tmp_path: Path
) -> None:
    other = make_certs(tmp_path / "other", "localhost")
    message = refusal(url("localhost", tls_mosquitto.port, other / "ca.crt"))
    assert message.startswith(
        f"cannot connect to the MQTT broker at mqtts://gm@localhost:{tls_mosquitto.port}: "
    )
    assert "certificate verify failed: unable to get local issuer certificate" in message
    assert f"checked with the CA file {other / 'ca.crt'}" in message


def test_a_certificate_for_another_name_is_refused_as_such(
    tls_mosquitto: RoleMosquitto, certs: Path
) -> None:
    message = refusal(url("127.0.0.1", tls_mosquitto.port, certs / "ca.crt"))
    assert "certificate verify failed: IP address mismatch" in message


def test_tls_to_a_plain_port_and_a_missing_ca_file_are_said_as_such(
    role_mosquitto: RoleMosquitto, certs: Path
) -> None:
    message = refusal(url("localhost", role_mosquitto.port, certs / "ca.crt"))
    assert "the TLS handshake was cut off by the broker: is it a plain MQTT port" in message
    message = refusal(url("localhost", role_mosquitto.port, certs / "missing.crt"))
    assert "cannot read the CA file" in message and "missing.crt" in message


def test_no_broker_yet_is_still_no_broker_yet(certs: Path) -> None:
    message = refusal(url("localhost", free_port(), certs / "ca.crt"))
    assert message.startswith("no connection to the MQTT broker")


def test_the_game_master_reads_a_certificate_problem_not_a_hint_to_start_a_broker(
    tls_mosquitto: RoleMosquitto, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        ["gm", "state", "--table", "kitchen", "--broker", url("localhost", tls_mosquitto.port)]
    )
    err = capsys.readouterr().err
    assert status == 2
    assert "certificate verify failed" in err and "checked with the system's CAs" in err
    assert "is `tabletop rules` or a broker running?" not in err


def test_threaded_links_raise_the_same(tls_mosquitto: RoleMosquitto, tmp_path: Path) -> None:
    other = make_certs(tmp_path / "other", "localhost")
    link = MqttLink(
        parse_broker_url(url("localhost", tls_mosquitto.port, other / "ca.crt")),
        "x",
        threaded=False,
    )
    with pytest.raises(TlsRefused, match="certificate verify failed"):
        link.start(timeout=None)


@pytest.mark.parametrize("threaded", [True, False], ids=["threaded", "unthreaded"])
def test_plain_mqtt_to_a_tls_port_is_said_as_such(
    tls_mosquitto: RoleMosquitto, threaded: bool
) -> None:
    """Issue 33.7: mqtt:// sent to the TLS port says to use mqtts://, not "no connection"."""
    gm = ACCOUNTS["gm"]
    link = MqttLink(
        parse_broker_url(f"mqtt://{gm.name}:{gm.password}@localhost:{tls_mosquitto.port}"),
        "plain-to-tls",
        threaded=threaded,
    )
    with pytest.raises(TlsRefused) as caught:
        link.start(timeout=30)
    link.stop()
    assert f"localhost:{tls_mosquitto.port} speaks TLS, not plain MQTT: use mqtts://" in str(
        caught.value
    )
    assert link.refusal is not None and "speaks TLS" in link.refusal


def test_the_game_master_told_to_use_mqtts_on_a_tls_port(
    tls_mosquitto: RoleMosquitto, capsys: pytest.CaptureFixture[str]
) -> None:
    address = f"mqtt://localhost:{tls_mosquitto.port}"
    status = main(["gm", "state", "--table", "kitchen", "--broker", address])
    err = capsys.readouterr().err
    assert status == 2
    assert "speaks TLS, not plain MQTT: use mqtts://" in err
    assert "is `tabletop rules` or a broker running?" not in err
