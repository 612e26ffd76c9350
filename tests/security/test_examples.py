"""The shipped Mosquitto example: its ACL is the generator's, its table file loads, and its
configuration runs as it is (only the paths and ports moved into a test folder)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tabletop.cli import main
from tabletop.config.table import load_config
from tabletop.wire.broker import free_port
from tabletop.wire.mqtt import Message, MqttLink, parse_broker_url
from tabletop.wire.passwords import hash_password
from tabletop.wire.roles import Role

from .brokers import make_certs, mosquitto_binary, port_open, wait_until

EXAMPLES = Path(__file__).parents[2] / "examples" / "mosquitto"


def test_the_committed_acl_is_what_the_generator_writes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["broker", "acl", "--config", str(EXAMPLES / "table.toml")]) == 0
    assert capsys.readouterr().out == (EXAMPLES / "tabletop.acl").read_text(), (
        "regenerate it: tabletop broker acl --config examples/mosquitto/table.toml "
        "> examples/mosquitto/tabletop.acl"
    )


def test_the_example_table_has_one_user_per_role_and_a_login_per_process() -> None:
    config = load_config(EXAMPLES / "table.toml")
    assert sorted(user.role for user in config.broker.users) == sorted(Role)
    rules, bridge = config.broker.login("rules"), config.broker.login("bridge")
    assert rules is not None and bridge is not None and rules.username != bridge.username
    assert rules.password_file != bridge.password_file


def test_an_acl_for_nobody_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "table.toml"
    table.write_text('[table]\nid = "k"\n[[seats]]\nname = "Ana"\n')
    assert main(["broker", "acl", "--config", str(table)]) == 2
    assert "no [[broker.users]]" in capsys.readouterr().err


def test_the_example_configuration_runs_with_tls_and_a_local_plain_listener(
    tmp_path: Path,
) -> None:
    conf = (EXAMPLES / "tabletop.conf").read_text()
    assert re.search(r"(?m)^listener 1883 127\.0\.0\.1$", conf), "plain MQTT only for this machine"
    assert re.search(r"(?m)^allow_anonymous false$", conf)
    certs = make_certs(tmp_path / "certs", "localhost")
    (tmp_path / "tabletop.acl").write_text((EXAMPLES / "tabletop.acl").read_text())
    (tmp_path / "tabletop.passwd").write_text(
        f"gm:{hash_password('gm-pw', iterations=100)}\nrules:{hash_password('rules-pw')}\n"
    )
    plain, tls = free_port(), free_port()
    conf = (
        conf.replace("listener 1883 ", f"listener {plain} ")
        .replace("listener 8883", f"listener {tls}")
        .replace("/etc/mosquitto/certs/", f"{certs}/")
        .replace("/etc/mosquitto/", f"{tmp_path}/")
    )
    conf += f"persistence_location {tmp_path}/\nlog_dest stderr\n"
    if os.geteuid() == 0:
        conf += "user root\n"
    (tmp_path / "mosquitto.conf").write_text(conf)
    with subprocess.Popen(
        [mosquitto_binary(), "-c", str(tmp_path / "mosquitto.conf")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as mosquitto:
        try:
            wait_until(lambda: port_open(plain) and port_open(tls), 10, "the example's listeners")
            command = "tabletop/v1/kitchen/game/command"
            gm = MqttLink(
                parse_broker_url(f"mqtts://gm:gm-pw@localhost:{tls}?ca={certs}/ca.crt"), "gm-1"
            )
            rules = MqttLink(
                parse_broker_url(f"mqtt://rules:rules-pw@127.0.0.1:{plain}"),
                "rules-1",
                subscriptions=[(command, 1)],
            )
            rules.start(timeout=10)
            rules.get(timeout=5)  # Connected: subscribed
            gm.start(timeout=10)
            try:
                gm.publish(command, b'{"cmd": "roll", "value": 4}').wait_for_publish(5)
                item = rules.get(timeout=10)
                assert item == Message(command, b'{"cmd": "roll", "value": 4}')
            finally:
                gm.stop()
                rules.stop()
        finally:
            mosquitto.terminate()
            mosquitto.wait(10)
