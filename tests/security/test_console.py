"""Issue 33: the web console on a venue's network, each finding played as the attacker.

Each test sends what a stranger on the guest Wi-Fi (or a page in the game master's own
browser) would send, and checks the console refuses it; on the console before issue 33 each
of them got through.
"""

from __future__ import annotations

import re
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabletop.console import ConsoleError
from tabletop.console.server import ConsoleServer
from tabletop.wire.broker import EmbeddedBroker, free_port
from tabletop.wire.mqtt import BrokerUrl
from tests.console.conftest import PASSWORDS, TABLE, USERS, Table

from .brokers import make_certs
from .web import WebClient, stream_body

ROOT = Path(__file__).resolve().parents[2]


def _peak_rss_kib(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM), KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc/PID/status")


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    """A broker with the four roles, a rules daemon and the console (tests/console)."""
    running = Table(tmp_path)
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def console_process() -> Iterator[tuple[subprocess.Popen[str], str, int]]:
    """`tabletop console` in a process of its own (its memory measured alone), no broker."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tabletop",
            "console",
            "--bind",
            "127.0.0.1:0",
            "--broker",
            f"mqtt://127.0.0.1:{free_port()}",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"http://(127\.0\.0\.1):(\d+)/", line)
        assert found, f"the console did not say where it serves: {line!r}"
        yield process, found.group(1), int(found.group(2))
    finally:
        process.terminate()
        process.wait(10)
        assert process.stdout is not None
        process.stdout.close()


# -- finding 3: unbounded bodies ----------------------------------------------------------


def test_a_huge_login_body_is_not_read_into_memory(
    console_process: tuple[subprocess.Popen[str], str, int],
) -> None:
    process, host, port = console_process
    WebClient(f"http://{host}:{port}").request("GET", "/")  # the app warmed up
    before = _peak_rss_kib(process.pid)
    sent, answer = stream_body(host, port, "/gm/login", chunks=96, chunk_size=1 << 20)
    grown_mib = (_peak_rss_kib(process.pid) - before) / 1024
    assert grown_mib < 16, f"the console grew by {grown_mib:.0f} MiB reading a 96 MiB body"
    assert sent < 96 << 20 or answer.startswith(b"HTTP/1.1 413"), answer[:80]
    # and it still serves
    assert WebClient(f"http://{host}:{port}").request("GET", "/").status == 200
    assert process.poll() is None


def test_a_declared_huge_body_is_refused_before_it_is_read(table: Table) -> None:
    client = WebClient(table.console.url.rstrip("/"))
    answer = client.request(
        "POST",
        "/gm/login",
        b"username=gm&password=gm-pw",
        {"Content-Type": "application/x-www-form-urlencoded", "Content-Length": "300000000"},
    )
    assert answer.status == 413
    assert "over 4096 bytes" in answer.json()["error"]


def test_an_action_form_past_its_limit_is_refused_while_it_is_read(table: Table) -> None:
    client = WebClient(table.console.url.rstrip("/"))
    assert client.login("gm", PASSWORDS["gm"]).status == 303
    huge = b'{"roster": "' + b"a" * 40_000 + b'"}'
    sock = socket.create_connection(("127.0.0.1", table.console.port), timeout=10)
    try:  # chunked: no Content-Length to judge by, the limit is met while reading
        assert client.cookie is not None
        sock.sendall(
            f"POST /gm/actions/new HTTP/1.1\r\nHost: 127.0.0.1:{table.console.port}\r\n"
            f"Cookie: {client.cookie}\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n".encode()
            + f"{len(huge):x}\r\n".encode()
            + huge
            + b"\r\n0\r\n\r\n"
        )
        answer = b""
        while part := sock.recv(4096):  # until the console closes the connection
            answer += part
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"over 16384 bytes" in answer


# -- finding 4: the roster path read the console's files ------------------------------------


@pytest.fixture
def opened_files() -> Iterator[list[str]]:
    """Every path this process opens while the test runs (an audit hook)."""
    opened: list[str] = []
    _OPEN_LOG.append(opened)
    try:
        yield opened
    finally:
        _OPEN_LOG.remove(opened)


_OPEN_LOG: list[list[str]] = []


def _record_opens(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _OPEN_LOG and isinstance(args[0], str):
        for log in _OPEN_LOG:
            log.append(args[0])


sys.addaudithook(_record_opens)


@pytest.mark.parametrize(
    "path",
    ["/etc/passwd", "/dev/zero", "/no/such/file.toml", "examples/table.toml", "~/roster.json"],
)
def test_a_roster_path_is_refused_without_touching_the_file(
    table: Table, opened_files: list[str], path: str
) -> None:
    client = WebClient(table.console.url.rstrip("/"))
    assert client.login("gm", PASSWORDS["gm"]).status == 303
    answer = client.act("new", {"roster": path})
    assert answer.status == 400
    body = answer.json()
    # the same words whether the file exists or not: nothing learnt about the machine
    assert body["error"].startswith("Roster: the console reads no files on its machine")
    assert body["field"] == "roster"
    assert not [name for name in opened_files if name.endswith(Path(path).name)]


def test_the_game_own_file_arguments_are_not_offered(table: Table) -> None:
    client = WebClient(table.console.url.rstrip("/"))
    client.login("gm", PASSWORDS["gm"])
    new = next(
        form
        for form in client.request("GET", "/gm/actions").json()["actions"]
        if form["verb"] == "new"
    )
    assert [field["name"] for field in new["fields"]] == ["roster"]
    assert client.act("new", {"roster": "x", "seed": "/etc/passwd"}).json()["field"] == "seed"


# -- finding 5: any Host header, any Origin -------------------------------------------------


@pytest.fixture
def anonymous_console(tmp_path: Path) -> Iterator[ConsoleServer]:
    """The documented no-users mode: an anonymous broker on this machine."""
    broker = EmbeddedBroker("127.0.0.1", free_port())
    broker.start()
    console = ConsoleServer(BrokerUrl("mqtt", "127.0.0.1", broker.port), TABLE)
    console.start()
    try:
        yield console
    finally:
        console.stop()
        broker.stop()


def test_a_rebound_host_name_is_refused_in_no_users_mode(
    anonymous_console: ConsoleServer,
) -> None:
    client = WebClient(anonymous_console.url.rstrip("/"))
    evil = {"Host": f"evil.example:{anonymous_console.port}"}
    login = client.login("anyone", "", headers=evil)
    assert login.status == 421, login.body
    assert "does not serve the name 'evil.example" in login.json()["error"]
    assert client.cookie is None
    assert client.request("GET", "/gm/events", headers=evil).status == 421
    assert client.request("GET", "/", headers=evil).status == 421
    # by its own name it works as documented
    assert client.login("anyone", "").status == 303
    assert client.request("GET", "/gm/actions").status == 200


def test_a_login_from_another_origin_is_refused(table: Table) -> None:
    client = WebClient(table.console.url.rstrip("/"))
    refused = client.login("gm", PASSWORDS["gm"], headers={"Origin": "http://evil.example"})
    assert refused.status == 403
    assert client.cookie is None
    assert (
        client.login(
            "gm", PASSWORDS["gm"], headers={"Origin": f"http://127.0.0.1:{table.console.port}"}
        ).status
        == 303
    )


def test_an_action_from_another_site_is_refused(table: Table) -> None:
    client = WebClient(table.console.url.rstrip("/"))
    client.login("gm", PASSWORDS["gm"])
    answer = client.request(
        "POST",
        "/gm/actions/new",
        b'{"roster": "Ana"}',
        {"Content-Type": "application/json", "Origin": "null"},
    )
    assert answer.status == 403


def test_no_users_mode_will_not_serve_the_network() -> None:
    with pytest.raises(ConsoleError, match="without users anyone who reaches the console"):
        ConsoleServer(BrokerUrl("mqtt", "127.0.0.1", 1883), TABLE, host="0.0.0.0")


# -- finding 2: sessions that never end -----------------------------------------------------


def test_logins_never_closed_do_not_lock_the_game_master_out(table: Table) -> None:
    base = table.console.url.rstrip("/")
    for _ in range(17):  # browsers closed without "Log out"
        assert WebClient(base).login("gm", PASSWORDS["gm"]).status == 303
    latest = WebClient(base)
    assert latest.login("gm", PASSWORDS["gm"]).status == 303
    assert latest.request("GET", "/gm/session").status == 200
    assert table.console.sessions.count <= 16


def test_the_session_cookie_ends_and_cannot_be_read_by_scripts(table: Table) -> None:
    client = WebClient(table.console.url.rstrip("/"))
    client.login("gm", PASSWORDS["gm"])
    cookie = client.cookies_seen[-1].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    max_age = int(re.search(r"max-age=(\d+)", cookie).group(1))  # type: ignore[union-attr]
    assert 0 < max_age <= 12 * 3600


def test_an_idle_session_ends(tmp_path: Path) -> None:
    table = Table(tmp_path, session_idle=0.5)
    table.start()
    try:
        client = WebClient(table.console.url.rstrip("/"))
        client.login("gm", PASSWORDS["gm"])
        assert client.request("GET", "/gm/session").status == 200
        deadline = time.monotonic() + 10
        while client.request("GET", "/gm/session").status == 200:
            assert time.monotonic() < deadline, "the session never ended"
            time.sleep(0.6)  # longer than the idle time: each probe finds it idle
        assert client.request("GET", "/gm/events").status == 401
    finally:
        table.stop()


def test_a_session_ends_at_its_lifetime_even_with_a_page_open(tmp_path: Path) -> None:
    table = Table(tmp_path, session_lifetime=1.5)
    table.start()
    try:
        client = WebClient(table.console.url.rstrip("/"))
        client.login("gm", PASSWORDS["gm"])
        sock = socket.create_connection(("127.0.0.1", table.console.port), timeout=15)
        assert client.cookie is not None
        # Connection: close, so that the server closes the connection as soon as the stream
        # ends; on a kept-alive one the end was seen only 5 s later, at uvicorn's keep-alive
        # timeout.
        sock.sendall(
            f"GET /gm/events HTTP/1.1\r\nHost: 127.0.0.1:{table.console.port}\r\n"
            f"Cookie: {client.cookie}\r\nConnection: close\r\n\r\n".encode()
        )
        received = b""
        while True:  # the stream ends by itself once the session has
            part = sock.recv(65536)
            if not part:
                break
            received += part
        sock.close()
        assert b"event: snapshot" in received
        assert client.request("GET", "/gm/session").status == 401
    finally:
        table.stop()


# -- finding 1: plain HTTP only -------------------------------------------------------------


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_certs(tmp_path_factory.mktemp("console-certs"), "localhost", "127.0.0.1")


def test_the_network_is_served_over_tls_only() -> None:
    url = BrokerUrl("mqtt", "127.0.0.1", 1883)
    with pytest.raises(ConsoleError, match="off this machine the console serves over TLS only"):
        ConsoleServer(url, TABLE, host="0.0.0.0", users=USERS)


def test_over_tls_the_password_and_cookie_never_cross_in_clear(tmp_path: Path, certs: Path) -> None:
    table = Table(
        tmp_path,
        certfile=certs / "server.crt",
        keyfile=certs / "server.key",
        server_names=("table.local",),
    )
    table.start()
    try:
        assert table.console.url.startswith("https://")
        trusted = ssl.create_default_context(cafile=str(certs / "ca.crt"))
        client = WebClient(table.console.url.rstrip("/"), trusted)
        assert client.login("gm", PASSWORDS["gm"]).status == 303
        cookie = client.cookies_seen[-1].lower()
        assert "; secure" in cookie and "httponly" in cookie
        assert client.request("GET", "/gm/session").status == 200
        # plain HTTP to the TLS port carries nothing
        plain = WebClient(table.console.url.replace("https://", "http://").rstrip("/"))
        with pytest.raises((ConnectionError, OSError)):
            plain.login("gm", PASSWORDS["gm"])
    finally:
        table.stop()


def test_a_wrong_certificate_is_said_in_words(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-cert.pem"
    bad.write_text("hello")
    console = ConsoleServer(
        BrokerUrl("mqtt", "127.0.0.1", 1883), TABLE, users=USERS, certfile=bad, keyfile=bad
    )
    with pytest.raises(ConsoleError, match="are not a PEM certificate and its private key"):
        console.start()
    console.stop()
