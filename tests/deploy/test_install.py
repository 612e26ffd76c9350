"""deploy/install.sh, checked as far as a machine without a Pi allows: shellcheck, a dry run,
runs into a throwaway root (twice: the second changes nothing), the refusals of an OS it does
not install on, and the files it writes served by a real Mosquitto.

Under --root the script writes files only; the system commands (apt-get, useradd, pip, chown,
udevadm, systemctl) are printed. The stubs below record any that would run all the same, and
`dpkg --print-architecture` is a stub saying which architecture the "Pi" has: the lowest layer,
the machine itself.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import queue
import re
import shlex
import shutil
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tabletop.wire.broker import free_port
from tabletop.wire.passwords import verify_password
from tests.security.brokers import mosquitto_binary, port_open, wait_until

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "deploy" / "install.sh"
TABLETOP = Path(sys.executable).parent / "tabletop"
BOOKWORM = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_CODENAME=bookworm\n'
TRIXIE = 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nVERSION_CODENAME=trixie\n'
SYSTEM_COMMANDS = ("apt-get", "useradd", "usermod", "chown", "udevadm", "systemctl", "python3")
SERVICES = ("tabletop-rules", "tabletop-bridge", "tabletop-console")
USERS = ("rules", "bridge", "gm", "display")  # examples/mosquitto/table.toml's


@dataclass
class Pi:
    """A throwaway root that looks like a fresh Raspberry Pi OS, and stubs of its commands."""

    root: Path
    stubs: Path
    ran: Path  # the system commands that ran after all (there should be none)

    def install(
        self, *options: str, check: bool = True, venv: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Runs install.sh into the root; `venv`: with this checkout's tabletop as the venv's."""
        env = {
            "PATH": f"{self.stubs}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(self.root),
            "LC_ALL": "C.UTF-8",
        }
        done = subprocess.run(
            [
                *("bash", str(INSTALL), "--root", str(self.root)),
                *(("--tabletop", str(TABLETOP)) if venv else ()),
                *options,
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if check:
            assert done.returncode == 0, done.stdout + done.stderr
            assert self.ran.read_text() == "", "system commands ran under --root"
        return done

    def path(self, path: str) -> Path:
        return self.root / path.lstrip("/")

    def files(self) -> dict[str, tuple[int, str]]:
        """Every file under the root: its mode and a digest of its content."""
        return {
            str(path.relative_to(self.root)): (
                path.stat().st_mode & 0o777,
                hashlib.sha256(path.read_bytes()).hexdigest(),
            )
            for path in sorted(self.root.rglob("*"))
            if path.is_file()
        }


def make_pi(base: Path, *, os_release: str = BOOKWORM, arch: str = "arm64", model: str = "") -> Pi:
    root, stubs = base / "root", base / "stubs"
    (root / "etc").mkdir(parents=True)
    stubs.mkdir()
    (root / "etc" / "os-release").write_text(os_release)
    (root / "etc" / "hostname").write_text("kitchen\n")
    if model:
        (root / "proc" / "device-tree").mkdir(parents=True)
        (root / "proc" / "device-tree" / "model").write_text(model + "\0")
    ran = base / "ran.log"
    ran.write_text("")
    (stubs / "dpkg").write_text(f"#!/bin/sh\necho {arch}\n")
    for name in SYSTEM_COMMANDS:
        (stubs / name).write_text(f'#!/bin/sh\necho "{name} $*" >>"{ran}"\nexit 1\n')
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    return Pi(root, stubs, ran)


@pytest.fixture
def pi(tmp_path: Path) -> Pi:
    return make_pi(tmp_path)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Pi, str]:
    """One install into a throwaway root, for the tests that only read what it wrote."""
    pi = make_pi(tmp_path_factory.mktemp("installed"))
    return pi, pi.install("--name", "localhost", "--name", "127.0.0.1").stdout


def test_shellcheck_finds_nothing_in_the_install_script() -> None:
    shellcheck = shutil.which("shellcheck")
    assert shellcheck is not None, "shellcheck is missing: scripts/test.sh installs it"
    done = subprocess.run(
        [shellcheck, str(INSTALL)], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stdout


def test_a_dry_run_says_what_it_would_do_and_changes_nothing(pi: Pi) -> None:
    before = pi.files()
    out = pi.install("--dry-run").stdout
    assert pi.files() == before
    assert "(a dry run: nothing changes)" in out
    assert re.search(r"would run: .*apt-get install .*python3-picamera2 .*mosquitto", out)
    assert "would run: useradd --system" in out
    assert re.search(
        r"would run: python3 -m venv --system-site-packages \S+/opt/tabletop/\.venv", out
    )
    assert re.search(
        r"would run: \S+/pip install .*--constraint \S+/deploy/pi-constraints\.txt", out
    )
    for name in USERS:
        assert f"would make a password for {name} in /etc/tabletop/{name}.secret" in out
    assert "would run: examples/mosquitto/make-certs.sh /etc/tabletop/ca kitchen.local" in out
    for path in ("/etc/mosquitto/conf.d/tabletop.conf", "/etc/udev/rules.d/99-tabletop-mat.rules"):
        assert f"would write {path}" in out
    assert f"would run: systemctl enable {' '.join(SERVICES)}" in out


def test_a_dry_run_before_the_venv_exists_says_what_it_will_make_there(pi: Pi) -> None:
    before = pi.files()
    out = pi.install("--dry-run", venv=False).stdout
    assert pi.files() == before
    assert (
        "would make a password for each [[broker.users]] of /etc/tabletop/table.toml, once "
        "/opt/tabletop/.venv exists" in out
    )
    assert "would write /etc/mosquitto/tabletop.passwd and /etc/mosquitto/tabletop.acl" in out
    # Without a dry run, under --root, it needs a program to make the passwords with.
    done = pi.install(venv=False, check=False)
    assert done.returncode == 1 and "give --tabletop PROGRAM" in done.stderr


def test_an_install_writes_each_file_with_its_owner_and_mode(installed: tuple[Pi, str]) -> None:
    pi, out = installed
    modes = {
        "etc/tabletop/table.toml": 0o644,
        "etc/tabletop/tabletop.env": 0o644,
        "etc/tabletop/ca.crt": 0o644,
        "etc/tabletop/console.crt": 0o644,
        "etc/tabletop/console.key": 0o640,
        "etc/mosquitto/tabletop.passwd": 0o640,
        "etc/mosquitto/tabletop.acl": 0o644,
        "etc/mosquitto/certs/server.key": 0o640,
        "etc/mosquitto/certs/server.crt": 0o644,
        "etc/mosquitto/conf.d/tabletop.conf": 0o644,
        "etc/udev/rules.d/99-tabletop-mat.rules": 0o644,
        **{f"etc/systemd/system/{service}.service": 0o644 for service in SERVICES},
    }
    files = pi.files()
    assert {path: files[path][0] for path in modes} == modes
    assert pi.path("/etc/tabletop/ca/ca.key").stat().st_mode & 0o777 == 0o600
    # The owners are the Pi's users: said, for the Pi, not set on this machine.
    for owner, path in (
        ("root:tabletop", "/etc/tabletop/console.key"),
        ("root:mosquitto", "/etc/mosquitto/tabletop.passwd"),
        ("root:mosquitto", "/etc/mosquitto/certs/server.key"),
    ):
        assert f"not run (--root): chown {owner} {pi.path(path)}" in out
    for name, source in (
        ("etc/udev/rules.d/99-tabletop-mat.rules", "deploy/99-tabletop-mat.rules"),
        ("etc/mosquitto/conf.d/tabletop.conf", "examples/mosquitto/tabletop.conf"),
        ("etc/tabletop/table.toml", "examples/mosquitto/table.toml"),
        *((f"etc/systemd/system/{s}.service", f"deploy/{s}.service") for s in SERVICES),
    ):
        assert (pi.root / name).read_text() == (ROOT / source).read_text(), name


def test_an_install_makes_a_password_per_user_display_included(installed: tuple[Pi, str]) -> None:
    pi, out = installed
    lines = pi.path("/etc/mosquitto/tabletop.passwd").read_text().splitlines()
    hashes = dict(line.split(":", 1) for line in lines)
    assert sorted(hashes) == sorted(USERS)
    for name in USERS:
        secret = pi.path(f"/etc/tabletop/{name}.secret")
        assert verify_password(secret.read_text().strip(), hashes[name]), name
    # The services' logins are read by the service user; the game master's is a person's.
    for name in ("rules", "bridge", "display"):
        assert pi.path(f"/etc/tabletop/{name}.secret").stat().st_mode & 0o777 == 0o640
        assert f"chown root:tabletop {pi.path(f'/etc/tabletop/{name}.secret')}" in out
    assert pi.path("/etc/tabletop/gm.secret").stat().st_mode & 0o777 == 0o600
    acl = subprocess.run(
        [str(TABLETOP), "broker", "acl", "--config", str(ROOT / "examples/mosquitto/table.toml")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert pi.path("/etc/mosquitto/tabletop.acl").read_text() == acl


def test_the_environment_file_names_the_certificates_first_name(installed: tuple[Pi, str]) -> None:
    pi, _ = installed
    env = pi.path("/etc/tabletop/tabletop.env").read_text()
    assert re.search(r"^TABLETOP_CONSOLE_NAME=localhost$", env, re.M)
    assert re.search(r"^TABLETOP_CONSOLE_BIND=0\.0\.0\.0:8443$", env, re.M)
    certificate = subprocess.run(
        [
            "openssl",
            "x509",
            "-noout",
            "-ext",
            "subjectAltName",
            "-in",
            pi.path("/etc/tabletop/console.crt"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "DNS:localhost" in certificate and "IP Address:127.0.0.1" in certificate


def test_a_first_install_starts_nothing_until_the_table_file_is_set(
    installed: tuple[Pi, str],
) -> None:
    _, out = installed
    assert f"not run (--root): systemctl enable {' '.join(SERVICES)}" in out
    assert "systemctl restart tabletop" not in out
    assert "next: set the seats, LED pins, mat and camera in /etc/tabletop/table.toml" in out


def test_a_second_run_changes_nothing_and_keeps_what_the_maker_edited(pi: Pi) -> None:
    pi.install("--name", "localhost")
    table = pi.path("/etc/tabletop/table.toml")
    table.write_text(table.read_text().replace('name = "Ana"', 'name = "Ann"'))
    before = pi.files()
    out = pi.install("--name", "localhost").stdout
    assert pi.files() == before
    assert "wrote" not in out and "made a password" not in out
    assert "kept /etc/tabletop/table.toml" in out
    assert "Mosquitto's files are unchanged: no restart" in out
    assert "systemctl daemon-reload" not in out
    # The table was set up before this run: the services restart on the new code.
    assert f"not run (--root): systemctl restart {' '.join(SERVICES)}" in out


def test_a_user_added_to_the_table_file_gets_a_password_and_the_others_keep_theirs(
    pi: Pi,
) -> None:
    pi.install("--name", "localhost")
    passwd = pi.path("/etc/mosquitto/tabletop.passwd")
    kept = passwd.read_text()
    table = pi.path("/etc/tabletop/table.toml")
    table.write_text(table.read_text() + '\n[[broker.users]]\nname = "screen"\nrole = "viewer"\n')
    out = pi.install("--name", "localhost").stdout
    assert "made a password for screen in /etc/tabletop/screen.secret" in out
    lines = passwd.read_text()
    assert lines.startswith(kept) and lines.count("\n") == kept.count("\n") + 1
    screen = pi.path("/etc/tabletop/screen.secret")
    assert screen.stat().st_mode & 0o777 == 0o600  # a person's: no service logs in as it
    hashed = lines.splitlines()[-1].removeprefix("screen:")
    assert verify_password(screen.read_text().strip(), hashed)
    assert "user screen" in pi.path("/etc/mosquitto/tabletop.acl").read_text()
    assert "run (--root): systemctl restart mosquitto" in out


@pytest.mark.slow  # three installs: about 10 s here
def test_a_new_name_renews_the_certificate_under_the_same_ca(pi: Pi) -> None:
    pi.install("--name", "localhost")
    ca = pi.path("/etc/tabletop/ca.crt").read_bytes()
    out = pi.install("--name", "localhost", "--name", "table.lan").stdout
    assert pi.path("/etc/tabletop/ca.crt").read_bytes() == ca
    assert "DNS:localhost,DNS:table.lan" in out
    assert "wrote /etc/mosquitto/certs/server.crt" in out
    # Without the CA's key (kept off the Pi) it says so rather than making a new CA.
    pi.path("/etc/tabletop/ca/ca.key").unlink()
    done = pi.install("--name", "pi.example", check=False)
    assert done.returncode == 1
    assert "renewing it needs its CA's key, /etc/tabletop/ca/ca.key" in done.stderr
    assert pi.path("/etc/tabletop/ca.crt").read_bytes() == ca


def test_a_pi_5_gets_the_gpio_library_that_drives_its_pins(tmp_path: Path) -> None:
    pi5 = make_pi(tmp_path, model="Raspberry Pi 5 Model B Rev 1.0")
    assert re.search(r"apt-get install .* python3-rpi-lgpio ", pi5.install("--dry-run").stdout)


@pytest.mark.parametrize(
    ("os_release", "arch", "said"),
    [
        (
            BOOKWORM,
            "armhf",
            "this is a armhf system; the table needs Raspberry Pi OS (64-bit) Bookworm",
        ),
        (TRIXIE, "arm64", "this is trixie"),
    ],
    ids=["32-bit", "trixie"],
)
def test_an_os_it_does_not_install_on_is_refused_with_the_one_that_works(
    tmp_path: Path, os_release: str, arch: str, said: str
) -> None:
    pi = make_pi(tmp_path, os_release=os_release, arch=arch)
    before = pi.files()
    done = pi.install(check=False)
    assert done.returncode == 1
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert said in done.stderr and "Raspberry Pi OS (64-bit) Bookworm" in done.stderr
    assert pi.files() == before


def test_an_unknown_option_is_refused(pi: Pi) -> None:
    done = pi.install("--nmae", "x", check=False)
    assert done.returncode == 2 and "unknown option --nmae" in done.stderr


def test_a_name_that_is_no_host_name_is_refused(pi: Pi) -> None:
    done = pi.install("--name", "my table", check=False)
    assert done.returncode == 1
    assert done.stderr == (
        "install: --name 'my table': give a host name (kitchen.local) or an IP address "
        "(192.168.1.20)\n"
    )
    assert not pi.path("/etc/tabletop").exists()


def test_without_root_it_asks_for_sudo(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        done = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", str(INSTALL)],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
    else:
        done = subprocess.run(
            ["bash", str(INSTALL)], capture_output=True, text=True, check=False, timeout=60
        )
    assert done.returncode == 1
    assert done.stderr.startswith("install: run it as root: sudo ")


# -- the files it wrote, served by a real Mosquitto ----------------------------------------


def login(port: int, username: str, password: str, ca: Path | None = None) -> str:
    """Logs in to the broker as `username`; the CONNACK's reason ('Success', 'Not authorized')."""
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"deploy-{os.urandom(4).hex()}")
    client.username_pw_set(username, password)
    if ca is not None:
        client.tls_set(ca_certs=str(ca), cert_reqs=ssl.CERT_REQUIRED)
    answered = threading.Event()
    reasons: list[str] = []

    def on_connect(*args: object) -> None:
        reasons.append(str(args[3]))
        answered.set()

    client.on_connect = on_connect
    client.connect("localhost" if ca else "127.0.0.1", port, keepalive=30)
    client.loop_start()
    try:
        assert answered.wait(20), f"no CONNACK for {username} on port {port}"
    finally:
        client.disconnect()
        client.loop_stop()
    return reasons[0]


@pytest.fixture
def broker(installed: tuple[Pi, str], tmp_path: Path) -> Iterator[tuple[int, int]]:
    """Mosquitto with the installed configuration, its /etc paths under the root and its two
    listeners on free ports: (plain, tls)."""
    pi, _ = installed
    plain, tls = free_port(), free_port()
    text = pi.path("/etc/mosquitto/conf.d/tabletop.conf").read_text()
    text = text.replace("listener 1883 127.0.0.1", f"listener {plain} 127.0.0.1")
    text = text.replace("listener 8883\n", f"listener {tls} 127.0.0.1\n")
    text = text.replace(" /etc/", f" {pi.root}/etc/").replace(
        "persistence true", "persistence false"
    )
    text += "log_dest stderr\n" + ("user root\n" if os.geteuid() == 0 else "")
    config = tmp_path / "mosquitto.conf"
    config.write_text(text)
    log = tmp_path / "mosquitto.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [mosquitto_binary(), "-c", str(config)], stdout=output, stderr=output
        )
    try:
        wait_until(lambda: port_open(plain) and port_open(tls), 20, f"mosquitto ({log})")
        yield plain, tls
    finally:
        process.terminate()
        process.wait(20)


def test_mosquitto_serves_the_installed_files_to_each_user(
    installed: tuple[Pi, str], broker: tuple[int, int]
) -> None:
    pi, _ = installed
    plain, tls = broker

    def secret(name: str) -> str:
        return pi.path(f"/etc/tabletop/{name}.secret").read_text().strip()

    # The services on the Pi over the plain listener, everyone else over TLS.
    assert login(plain, "rules", secret("rules")) == "Success"
    assert login(plain, "bridge", secret("bridge")) == "Success"
    ca = pi.path("/etc/tabletop/ca.crt")
    assert login(tls, "display", secret("display"), ca) == "Success"
    assert login(tls, "gm", secret("gm"), ca) == "Success"
    assert login(tls, "gm", secret("display"), ca) == "Not authorized"


def test_the_console_unit_serves_https_from_the_installed_files(
    installed: tuple[Pi, str], broker: tuple[int, int], tmp_path: Path
) -> None:
    """The console unit's command line, run on the installed files (their /etc under the
    throwaway root): it logs in as display and serves the room view over the certificate."""
    pi, _ = installed
    plain, _ = broker
    table = tmp_path / "table.toml"
    table.write_text(
        pi.path("/etc/tabletop/table.toml").read_text().replace('"/etc/', f'"{pi.root}/etc/')
    )
    env = dict(
        line.split("=", 1)
        for line in pi.path("/etc/tabletop/tabletop.env").read_text().splitlines()
        if line and not line.startswith("#")
    )
    unit = (ROOT / "deploy" / "tabletop-console.service").read_text()
    (line,) = [line for line in unit.splitlines() if line.startswith("ExecStart=")]
    line = line.removeprefix("ExecStart=").replace("${TABLETOP_CONSOLE_BIND}", "127.0.0.1:0")
    line = line.replace("${TABLETOP_CONSOLE_NAME}", env["TABLETOP_CONSOLE_NAME"])
    words = shlex.split(line.replace(" /etc/", f" {pi.root}/etc/"))
    assert words[0] == "/opt/tabletop/.venv/bin/tabletop"
    words[words.index("--config") + 1] = str(table)
    argv = [str(TABLETOP), *words[1:], "--broker", f"mqtt://127.0.0.1:{plain}"]
    console = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert console.stdout is not None
        for output in console.stdout:
            lines.put(output)
        lines.put("")  # the end

    reader = threading.Thread(target=read)
    reader.start()
    try:
        seen: list[str] = []
        while not (found := re.search(r"room view https://127\.0\.0\.1:(\d+)/", "".join(seen))):
            seen.append(lines.get(timeout=60))  # a safety net: it is up in seconds
            assert seen[-1], f"the console ended: {''.join(seen)}"
        context = ssl.create_default_context(cafile=str(pi.path("/etc/tabletop/ca.crt")))
        connection = http.client.HTTPSConnection(
            "localhost", int(found.group(1)), context=context, timeout=20
        )
        try:
            connection.request("GET", "/")
            response = connection.getresponse()
            assert response.status == 200, response.read()[:500]
        finally:
            connection.close()
    finally:
        console.terminate()
        console.wait(timeout=30)
        reader.join(timeout=30)
        assert console.stdout is not None
        console.stdout.close()
