"""The console on a venue's network (issues 33 and 51): its memory under a huge body, the time
from a game master's login over TLS to the first snapshot of the referee's stream, the pages
under a flood of half-open connections, and game-master actions under wrong-password floods.

    .venv/bin/python bench/console_safety.py --body-mb 300 --logins 20 \
        --half-open 2000 --flood-clients 8 --flood-seconds 10

Starts the embedded broker with the four roles and `tabletop console` as a process of its own
over TLS (a certificate made with examples/mosquitto/make-certs.sh), then:

- streams a chunked body of BODY MB to `POST /gm/login` (no login needed) and reports the
  console's peak resident memory (VmHWM) before and after, and how much it took;
- logs the game master in LOGINS times, each over a new TLS connection, and times the login's
  answer and then the first `event: snapshot` of `/gm/events`;
- (issue 51, C1) with the console's soft limit on open files at 1,024 (a login shell's and a
  systemd service's), opens HALF_OPEN TCP connections from 127.0.0.2 that never start their
  TLS handshake, then times pages from 127.0.0.1 (the room view, the login form) while they
  are held, and counts how many the console still holds a second later;
- (C2, C3) FLOOD_CLIENTS clients, each from an address of its own (127.0.0.10 and up), send
  wrong game-master passwords for FLOOD_SECONDS, each as soon as its last was answered (on
  one kept-alive connection), while the logged-in game master's action form is sent and
  timed (`POST /gm/actions/new` with no roster: read by the game's form on a worker thread
  and refused in words; no daemon needed); the console's CPU is read from /proc. Twice: with
  the password hashes in the table file (the console checks them), and without (the broker
  alone checks each login).

Every connection goes to loopback; each load is bounded in count and time.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import resource
import shlex
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tabletop.wire.broker import EmbeddedBroker, free_port  # noqa: E402
from tabletop.wire.passwords import hash_password  # noqa: E402
from tabletop.wire.roles import Role, User  # noqa: E402

PASSWORDS = {"gm": "gm-pw", "display": "display-pw"}


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


def half_open(port: int, source: str, count: int) -> tuple[list[socket.socket], float]:
    """`count` TCP connections from `source` that never start TLS; (those opened, seconds)."""
    held: list[socket.socket] = []
    start = time.perf_counter()
    for _ in range(count):
        sock = socket.socket()
        sock.settimeout(1)
        try:
            sock.bind((source, 0))
            sock.connect(("127.0.0.1", port))
        except OSError:
            sock.close()
            continue
        held.append(sock)
    return held, time.perf_counter() - start


def still_open(sock: socket.socket) -> bool:
    sock.settimeout(0.0)
    try:
        return sock.recv(1) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def page_time(port: int, context: ssl.SSLContext, path: str, timeout: float = 3.0) -> float | None:
    """Seconds to a page's whole answer over TLS, or None if none came within `timeout`."""
    start = time.perf_counter()
    connection = http.client.HTTPSConnection("localhost", port, context=context, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return time.perf_counter() - start if response.status == 200 else None
    except OSError:
        return None
    finally:
        connection.close()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Flooder(threading.Thread):
    """One client sending wrong game-master passwords until told to stop."""

    def __init__(self, port: int, context: ssl.SSLContext, source: str, stop: threading.Event):
        super().__init__(name=f"flood-{source}", daemon=True)
        self.port, self.context, self.source, self.stop = port, context, source, stop
        self.statuses: Counter[int] = Counter()

    def run(self) -> None:
        body = urlencode({"username": "gm", "password": "a-guess"})
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        connection = None
        while not self.stop.is_set():
            try:
                if connection is None:
                    connection = http.client.HTTPSConnection(
                        "localhost",
                        self.port,
                        context=self.context,
                        timeout=30,
                        source_address=(self.source, 0),
                    )
                connection.request("POST", "/gm/login", body, headers)
                response = connection.getresponse()
                response.read()
                self.statuses[response.status] += 1
                if response.getheader("connection", "").lower() == "close":
                    connection.close()
                    connection = None
            except OSError:
                self.statuses[0] += 1
                if connection is not None:
                    connection.close()
                connection = None
        if connection is not None:
            connection.close()


def gm_cookie(port: int, context: ssl.SSLContext) -> str:
    connection = http.client.HTTPSConnection("localhost", port, context=context, timeout=30)
    body = urlencode({"username": "gm", "password": PASSWORDS["gm"]})
    connection.request(
        "POST", "/gm/login", body, {"Content-Type": "application/x-www-form-urlencoded"}
    )
    response = connection.getresponse()
    response.read()
    connection.close()
    if response.status != 303:
        raise RuntimeError(f"the game master's login was refused: {response.status}")
    return (response.getheader("set-cookie") or "").split(";", 1)[0]


def action_time(port: int, context: ssl.SSLContext, cookie: str) -> float:
    """Seconds to the answer of a game master's action form (refused by the form itself)."""
    start = time.perf_counter()
    connection = http.client.HTTPSConnection("localhost", port, context=context, timeout=60)
    connection.request(
        "POST",
        "/gm/actions/new",
        json.dumps({}),
        {"Content-Type": "application/json", "Cookie": cookie},
    )
    response = connection.getresponse()
    response.read()
    connection.close()
    if response.status != 400:
        raise RuntimeError(f"the action form answered {response.status}, not its refusal")
    return time.perf_counter() - start


def milliseconds(values: list[float]) -> str:
    shown = [v * 1000 for v in values]
    return f"median {statistics.median(shown):.0f} ms, max {max(shown):.0f} ms ({len(shown)})"


def write_config(
    work: Path, name: str, broker: EmbeddedBroker, users: list[User], hashes: bool
) -> Path:
    lines = ["[table]", 'id = "main"', "", "[[seats]]", 'name = "Ana"', "", "[broker]"]
    lines.append(f'url = "mqtt://127.0.0.1:{broker.port}"')
    for user in users:
        lines += ["[[broker.users]]", f'name = "{user.name}"', f'role = "{user.role.value}"']
        if hashes:
            lines.append(f'password_hash = "{user.password_hash}"')
    config = work / name
    config.write_text("\n".join(lines) + "\n")
    tomllib.loads(config.read_text())  # a file the console will read
    return config


def start_console(
    work: Path, config: Path, broker: EmbeddedBroker
) -> tuple[subprocess.Popen[str], int]:
    """`tabletop console` over TLS, with the soft limit of 1,024 open files it would have
    from a login shell or systemd; (the process, its port)."""
    command = [
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
    ]
    console = subprocess.Popen(
        ["sh", "-c", f"ulimit -S -n 1024 && exec {shlex.join(command)}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert console.stdout is not None
    line = console.stdout.readline()
    found = re.search(r"https://127\.0\.0\.1:(\d+)/", line)
    if not found:
        console.kill()
        raise RuntimeError(f"the console did not start: {line!r}")
    return console, int(found.group(1))


def stop_console(console: subprocess.Popen[str]) -> None:
    console.terminate()
    try:
        console.wait(10)
    except subprocess.TimeoutExpired:
        console.kill()
        console.wait(10)


def measure_half_open(port: int, context: ssl.SSLContext, count: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 512)), hard))
    held, took = half_open(port, "127.0.0.2", count)
    try:
        times = [page_time(port, context, path) for path in ("/", "/gm") * 5]
        answered = [t for t in times if t is not None]
        kept = sum(still_open(sock) for sock in held)
        line = (
            f"half-open: {count} TCP connections from 127.0.0.2 that never start TLS "
            f"({len(held)} opened in {took:.1f} s; {kept} still open after the pages): "
            f"pages from 127.0.0.1 answered {len(answered)} of {len(times)}"
        )
        print(line + (f", {milliseconds(answered)}" if answered else ""), flush=True)
    finally:
        for sock in held:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def measure_flood(
    console: subprocess.Popen[str],
    port: int,
    context: ssl.SSLContext,
    *,
    clients: int,
    seconds: float,
    label: str,
) -> None:
    cookie = gm_cookie(port, context)
    quiet = [action_time(port, context, cookie) for _ in range(20)]
    stop = threading.Event()
    flooders = [Flooder(port, context, f"127.0.0.{10 + n}", stop) for n in range(clients)]
    cpu_before, wall_before = cpu_seconds(console.pid), time.perf_counter()
    for flooder in flooders:
        flooder.start()
    loaded: list[float] = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(loaded) < 3:
        loaded.append(action_time(port, context, cookie))
    cores = (cpu_seconds(console.pid) - cpu_before) / (time.perf_counter() - wall_before)
    stop.set()
    for flooder in flooders:
        flooder.join(60)
    statuses: Counter[int] = Counter()
    for flooder in flooders:
        statuses.update(flooder.statuses)
    answers = ", ".join(f"{status or 'no answer'}: {n}" for status, n in sorted(statuses.items()))
    print(
        f"wrong passwords, {label}: {clients} clients for {seconds:g} s, "
        f"{sum(statuses.values())} tries ({answers}); console CPU {cores:.2f} cores; "
        f"gm action quiet {milliseconds(quiet)}, under the flood {milliseconds(loaded)}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--body-mb", type=int, default=300, help="the body's size (default 300)")
    parser.add_argument("--logins", type=int, default=20, help="logins timed (default 20)")
    parser.add_argument(
        "--half-open", type=int, default=2000, help="half-open connections (default 2000; 0: skip)"
    )
    parser.add_argument(
        "--flood-clients", type=int, default=8, help="wrong-password clients (default 8; 0: skip)"
    )
    parser.add_argument(
        "--flood-seconds", type=float, default=10.0, help="each flood's length (default 10)"
    )
    args = parser.parse_args()
    if not 0 <= args.half_open <= 10_000 or not 0 <= args.flood_clients <= 64:
        parser.error("--half-open 0 to 10000, --flood-clients 0 to 64 (loads stay bounded)")
    args.flood_seconds = min(max(args.flood_seconds, 1.0), 60.0)

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
    config = write_config(work, "table.toml", broker, users, hashes=True)
    broker.start()
    context = ssl.create_default_context(cafile=str(work / "ca.crt"))
    console, port = start_console(work, config, broker)
    try:
        login_to_first_event(port, context)  # warm up
        before = peak_rss_mib(console.pid)
        start = time.perf_counter()
        taken = stream_body(port, context, args.body_mb)
        spent = time.perf_counter() - start
        after = peak_rss_mib(console.pid)
        print(
            f"body of {args.body_mb} MiB to /gm/login: {taken / 1024:.0f} KiB sent (socket "
            f"buffers included) before the console refused it, peak RSS {before:.0f} -> "
            f"{after:.0f} MiB, {spent:.2f} s",
            flush=True,
        )
        answers, firsts = [], []
        for _ in range(args.logins):
            answer, first = login_to_first_event(port, context)
            answers.append(answer * 1000)
            firsts.append(first * 1000)
        for name, values in (("login answered", answers), ("first event", firsts)):
            print(
                f"{name} over TLS: median {statistics.median(values):.0f} ms, "
                f"max {max(values):.0f} ms ({len(values)} logins)",
                flush=True,
            )
        if args.half_open:
            measure_half_open(port, context, args.half_open)
        if args.flood_clients:
            measure_flood(
                console,
                port,
                context,
                clients=args.flood_clients,
                seconds=args.flood_seconds,
                label="hashes in the table file",
            )
    finally:
        stop_console(console)
    if args.flood_clients:
        unhashed = write_config(work, "table-nohash.toml", broker, users, hashes=False)
        console, port = start_console(work, unhashed, broker)
        try:
            measure_flood(
                console,
                port,
                context,
                clients=args.flood_clients,
                seconds=args.flood_seconds,
                label="the broker alone checks",
            )
        finally:
            stop_console(console)
    broker.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
