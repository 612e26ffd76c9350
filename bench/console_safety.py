"""The console on a venue's network (issue 33): its memory under a huge body, and the time from
a game master's login over TLS to the first snapshot of the referee's stream.

    .venv/bin/python bench/console_safety.py --body-mb 300 --logins 20

Starts the embedded broker with the four roles and `tabletop console` as a process of its own
over TLS (a certificate made with examples/mosquitto/make-certs.sh), then:

- streams a chunked body of BODY MB to `POST /gm/login` (no login needed) and reports the
  console's peak resident memory (VmHWM) before and after, and how much it took;
- logs the game master in LOGINS times, each over a new TLS connection, and times the login's
  answer and then the first `event: snapshot` of `/gm/events`.
"""

from __future__ import annotations

import argparse
import http.client
import re
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from wire.broker import EmbeddedBroker  # noqa: E402
from wire.passwords import hash_password  # noqa: E402
from wire.roles import Role, User  # noqa: E402

PASSWORDS = {"gm": "gm-pw", "display": "display-pw"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def stream_body(port: int, context: ssl.SSLContext, megabytes: int) -> int:
    """Sends up to `megabytes` MiB chunked to /gm/login; returns the bytes the console took."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock = context.wrap_socket(raw, server_hostname="localhost")
    sent = 0
    try:
        sock.sendall(
            f"POST /gm/login HTTP/1.1\r\nHost: localhost:{port}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            "Transfer-Encoding: chunked\r\n\r\n".encode()
        )
        size = 1 << 16
        chunk = f"{size:x}\r\n".encode() + b"a" * size + b"\r\n"
        try:
            for _ in range(megabytes * 16):
                sock.sendall(chunk)
                sent += size
        except OSError:
            pass
    finally:
        sock.close()
    return sent


def login_to_first_event(port: int, context: ssl.SSLContext) -> tuple[float, float]:
    """(seconds to the login's answer, seconds to the first snapshot after the login)."""
    start = time.perf_counter()
    connection = http.client.HTTPSConnection("localhost", port, context=context, timeout=15)
    body = urlencode({"username": "gm", "password": PASSWORDS["gm"]})
    connection.request(
        "POST", "/gm/login", body, {"Content-Type": "application/x-www-form-urlencoded"}
    )
    response = connection.getresponse()
    response.read()
    cookie = (response.getheader("set-cookie") or "").split(";", 1)[0]
    connection.close()
    logged_in = time.perf_counter()
    if response.status != 303 or not cookie:
        raise RuntimeError(f"login refused: {response.status}")
    stream = http.client.HTTPSConnection("localhost", port, context=context, timeout=15)
    stream.request("GET", "/gm/events", headers={"Cookie": cookie})
    events = stream.getresponse()
    seen = b""
    while b"event: snapshot" not in seen:
        part = events.read1(65536)
        if not part:
            raise RuntimeError("the stream ended before a snapshot")
        seen += part
    first = time.perf_counter()
    stream.close()
    # log out, so the sessions do not pile up
    out = http.client.HTTPSConnection("localhost", port, context=context, timeout=15)
    out.request("POST", "/gm/logout", headers={"Cookie": cookie})
    out.getresponse().read()
    out.close()
    return logged_in - start, first - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--body-mb", type=int, default=300, help="the body's size (default 300)")
    parser.add_argument("--logins", type=int, default=20, help="logins timed (default 20)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="console-safety-"))
    subprocess.run(
        ["sh", str(ROOT / "examples/mosquitto/make-certs.sh"), str(work), "localhost"],
        check=True,
        capture_output=True,
    )
    users = [
        User(name, role, ("*",), hash_password(PASSWORDS[name], iterations=10_000))
        for name, role in (("gm", Role.GM), ("display", Role.VIEWER))
    ]
    broker = EmbeddedBroker("127.0.0.1", free_port(), users)
    lines = ["[table]", 'id = "main"', "", "[[seats]]", 'name = "Ana"', "", "[broker]"]
    lines.append(f'url = "mqtt://127.0.0.1:{broker.port}"')
    for user in users:
        lines += [
            "[[broker.users]]",
            f'name = "{user.name}"',
            f'role = "{user.role.value}"',
            f'password_hash = "{user.password_hash}"',
        ]
    config = work / "table.toml"
    config.write_text("\n".join(lines) + "\n")
    tomllib.loads(config.read_text())  # a file the console will read
    broker.start()
    console = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tabletop",
            "console",
            "--config",
            str(config),
            "--broker",
            f"mqtt://display:{PASSWORDS['display']}@127.0.0.1:{broker.port}",
            "--bind",
            "127.0.0.1:0",
            "--certfile",
            str(work / "server.crt"),
            "--keyfile",
            str(work / "server.key"),
            "--server-name",
            "localhost",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert console.stdout is not None
        line = console.stdout.readline()
        found = re.search(r"https://127\.0\.0\.1:(\d+)/", line)
        if not found:
            raise RuntimeError(f"the console did not start: {line!r}")
        port = int(found.group(1))
        context = ssl.create_default_context(cafile=str(work / "ca.crt"))
        login_to_first_event(port, context)  # warm up
        before = peak_rss_mib(console.pid)
        start = time.perf_counter()
        taken = stream_body(port, context, args.body_mb)
        spent = time.perf_counter() - start
        after = peak_rss_mib(console.pid)
        print(
            f"body of {args.body_mb} MiB to /gm/login: {taken / 1024:.0f} KiB sent (socket "
            f"buffers included) before the console refused it, peak RSS {before:.0f} -> "
            f"{after:.0f} MiB, {spent:.2f} s"
        )
        answers, firsts = [], []
        for _ in range(args.logins):
            answer, first = login_to_first_event(port, context)
            answers.append(answer * 1000)
            firsts.append(first * 1000)
        for name, values in (("login answered", answers), ("first event", firsts)):
            print(
                f"{name} over TLS: median {statistics.median(values):.0f} ms, "
                f"max {max(values):.0f} ms ({len(values)} logins)"
            )
    finally:
        console.terminate()
        console.wait(10)
        broker.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
