"""Issue 16 item 4: `tabletop rules` says which broker it uses and why; `tabletop gm` finds it.

And the table's users on the embedded broker `tabletop rules --config` starts: the daemon
logs in as its own user, a game master as theirs, nobody anonymously.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabletop.cli import main
from tabletop.daemon.client import TableClient
from tabletop.wire.broker import (
    EmbeddedBroker,
    choose_broker,
    client_url,
    free_port,
    record_broker,
    recorded_broker,
    state_path,
)
from tabletop.wire.mqtt import BROKER_ENV, BrokerUrl
from tabletop.wire.passwords import hash_password

from .brokers import Probe, RoleMosquitto, port_open, wait_until


@pytest.fixture(autouse=True)
def own_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test records and finds brokers in its own runtime directory."""
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.delenv(BROKER_ENV, raising=False)
    return runtime


def test_with_nothing_configured_it_starts_the_embedded_broker_and_says_so() -> None:
    port = free_port()
    choice = choose_broker(None, None, default=f"embedded://127.0.0.1:{port}")
    try:
        assert choice.embedded is not None and choice.url.port == port
        assert choice.reason == (
            f"started the embedded broker on 127.0.0.1:{port} (no broker URL is configured: no "
            "--broker, [broker] url or $TABLETOP_BROKER); no users: anonymous clients from "
            "this machine only"
        )
    finally:
        choice.embedded.stop()


def test_when_another_broker_holds_the_default_port_it_moves_and_prints_the_url(
    role_mosquitto: RoleMosquitto,
) -> None:
    """A system Mosquitto on 1883 is not the broker a newcomer's table expects to share."""
    taken = role_mosquitto.port
    choice = choose_broker(None, None, default=f"embedded://127.0.0.1:{taken}")
    try:
        assert choice.embedded is not None and choice.url.port != taken
        moved = choice.url.port
        assert choice.reason.startswith(
            f"127.0.0.1:{taken} is taken by another MQTT broker (not one this project started"
        )
        assert f"--broker mqtt://127.0.0.1:{moved}" in choice.reason
    finally:
        choice.embedded.stop()


def test_a_busy_port_that_is_no_broker_is_named_as_such() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        asked = choose_broker(f"embedded://127.0.0.1:{port}", "--broker")
        assert asked.embedded is None and asked.url == BrokerUrl("mqtt", "127.0.0.1", port)
        assert asked.reason == (
            f"127.0.0.1:{port} (--broker) is taken by a program that does not answer as an "
            "MQTT broker: using it as the broker"
        )


def test_a_broker_url_is_used_as_given_and_the_reason_names_its_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    choice = choose_broker("mqtts://pi.local", "[broker] url of table.toml")
    assert choice.embedded is None
    assert (
        choice.reason
        == "using the broker at mqtts://pi.local:8883, as [broker] url of table.toml says"
    )
    monkeypatch.setenv(BROKER_ENV, "mqtt://elsewhere:1884")
    assert choose_broker(None, None).reason.endswith("as $TABLETOP_BROKER says")


def test_the_state_file_names_a_live_broker_only(own_state_dir: Path) -> None:
    port = free_port()
    record_broker(BrokerUrl("mqtt", "127.0.0.1", port), "tabletop rules", users=False)
    assert state_path() == own_state_dir / "tabletop" / "broker.json"
    assert recorded_broker() is None  # nothing listens there
    with socket.socket() as listener:  # a program that is no MQTT broker took the port
        listener.bind(("127.0.0.1", port))
        listener.listen()
        assert recorded_broker() is None
    broker = EmbeddedBroker(port=port)
    broker.start()
    try:
        found = recorded_broker()
        assert found is not None and found.pid == os.getpid() and found.url.port == port
        assert client_url(None).port == port
        assert client_url("mqtt://other:1").host == "other"  # a URL given still wins
    finally:
        broker.stop()
    state_path().write_text("{not json")
    assert recorded_broker() is None and client_url(None).port == 1883


@contextlib.contextmanager
def tabletop(*args: str, env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    with subprocess.Popen(
        [sys.executable, "-m", "tabletop", *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **env},
    ) as process:  # closes the pipe at the end
        try:
            yield process
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def test_gm_finds_the_broker_the_daemon_started_without_flags(
    tmp_path: Path, own_state_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    env = {"XDG_RUNTIME_DIR": str(own_state_dir)}
    with tabletop(
        "rules",
        "--table",
        "found",
        "--broker",
        f"embedded://127.0.0.1:{port}",
        "--db",
        str(tmp_path / "g.sqlite3"),
        env=env,
    ) as daemon:
        wait_until(lambda: recorded_broker() is not None, 20, "the daemon's state file")
        assert main(["gm", "state", "--table", "found"]) == 0
        assert "No game at this table yet." in capsys.readouterr().out
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(15) == 0
        assert daemon.stderr is not None
        err = daemon.stderr.read()
    assert (
        f"rules daemon: started the embedded broker on 127.0.0.1:{port} (as --broker asks)" in err
    )
    assert not state_path().exists()  # a clean stop forgets it


def test_tabletop_broker_is_found_and_reused(own_state_dir: Path) -> None:
    port = free_port()
    env = {"XDG_RUNTIME_DIR": str(own_state_dir)}
    with tabletop("broker", "--bind", f"127.0.0.1:{port}", env=env) as broker:
        wait_until(lambda: recorded_broker() is not None, 20, "the broker's state file")
        choice = choose_broker(None, None, default=f"embedded://127.0.0.1:{port}")
        assert choice.embedded is None and choice.url.port == port
        assert choice.reason == (
            f"using the embedded broker that `tabletop broker` (pid {broker.pid}) runs on "
            f"127.0.0.1:{port}"
        )


def test_the_daemon_logs_in_as_its_own_user_on_the_embedded_broker(
    tmp_path: Path, own_state_dir: Path
) -> None:
    port = free_port()
    secret = tmp_path / "rules.secret"
    secret.write_text("rules-pw\n")
    secret.chmod(0o600)
    hashed = {name: hash_password(f"{name}-pw", iterations=1000) for name in ("rules", "pi", "gm")}
    config = tmp_path / "table.toml"
    config.write_text(
        f"""
[table]
id = "guarded"

[[seats]]
name = "Ana"

[broker]
url = "embedded://127.0.0.1:{port}"

[[broker.users]]
name = "rules"
role = "daemon"
password_hash = "{hashed["rules"]}"

[[broker.users]]
name = "pi"
role = "bridge"
password_hash = "{hashed["pi"]}"

[[broker.users]]
name = "gm"
role = "gm"
password_hash = "{hashed["gm"]}"

[broker.rules]
username = "rules"
password_file = "{secret}"

[broker.bridge]
username = "pi"
password = "pi-pw"
"""
    )
    env = {"XDG_RUNTIME_DIR": str(own_state_dir)}
    with tabletop(
        "rules", "--config", str(config), "--db", str(tmp_path / "g.sqlite3"), env=env
    ) as daemon:
        wait_until(lambda: port_open(port), 20, "the embedded broker")
        anonymous = Probe(port, None, None)
        assert anonymous.connect() == "Not authorized"
        anonymous.close()
        gm_url = BrokerUrl("mqtt", "127.0.0.1", port, "gm", "gm-pw")
        with TableClient(gm_url, "guarded") as table:
            reply = table.send({"cmd": "roll", "value": 3}, timeout=10)
            assert reply["ok"] is False and "no game" in reply["error"]
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(15) == 0
        assert daemon.stderr is not None
        err = daemon.stderr.read()
    assert "broker mqtt://rules@127.0.0.1" in err and "3 users, each held to its role" in err


def test_a_daemon_whose_user_is_refused_says_so(tmp_path: Path, own_state_dir: Path) -> None:
    port = free_port()
    hashed = hash_password("right", iterations=10)
    config = tmp_path / "table.toml"
    config.write_text(
        f"""
[table]
id = "guarded"
[[seats]]
name = "Ana"
[broker]
url = "embedded://127.0.0.1:{port}"
[[broker.users]]
name = "rules"
role = "daemon"
password_hash = "{hashed}"
[[broker.users]]
name = "pi"
role = "bridge"
password_hash = "{hashed}"
[broker.rules]
username = "rules"
password = "wrong"
[broker.bridge]
username = "pi"
password = "right"
"""
    )
    with tabletop(
        "rules",
        "--config",
        str(config),
        "--db",
        str(tmp_path / "g.sqlite3"),
        env={"XDG_RUNTIME_DIR": str(own_state_dir)},
    ) as daemon:
        assert daemon.stderr is not None
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(daemon.stderr or ()), daemon=True)
        reader.start()
        # It keeps trying (a password may be fixed on the broker's side), saying why it waits.
        wait_until(
            lambda: any("refused the connection: Not authorized" in line for line in lines),
            20,
            "the refusal in the daemon's log",
        )
