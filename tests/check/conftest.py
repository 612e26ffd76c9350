"""Fixtures for the `tabletop check` tests: a simulated mat in its own process, a broker."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabletop.wire.broker import EmbeddedBroker
from tabletop.wire.passwords import hash_password
from tabletop.wire.roles import Role, User

from .helpers import MatSim

# Few iterations: the tests log in many times (the format is the one a real table uses).
ITERATIONS = 1000
PASSWORDS = {"rules": "rules-secret", "bridge": "bridge-secret", "shown": "viewer-secret"}


@pytest.fixture
def mat_sim(tmp_path: Path) -> Iterator[MatSim]:
    """A 1-seat, 2-slot simulated mat with touch pads and a draw pad, behind a pty (a 1-seat mat
    without a pad stops its second reader bus: it has no zones, and the simulator fails)."""
    mat = MatSim(tmp_path / "dev", "--seats", "1", "--slots", "2").start()
    yield mat
    mat.stop()


@pytest.fixture
def broker() -> Iterator[EmbeddedBroker]:
    """The embedded broker with a user per process, on a free port, for one test.

    Its event loop starts executor threads (asyncio_N) as clients log in, and closing the loop
    only tells them to end: they are waited for, so the test leaves none behind."""
    before = set(threading.enumerate())
    users = [
        User(
            "rules", Role.DAEMON, ("checked",), hash_password("rules-secret", iterations=ITERATIONS)
        ),
        User(
            "bridge",
            Role.BRIDGE,
            ("checked",),
            hash_password("bridge-secret", iterations=ITERATIONS),
        ),
        User(
            "shown",
            Role.VIEWER,
            ("checked",),
            hash_password("viewer-secret", iterations=ITERATIONS),
        ),
    ]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    embedded = EmbeddedBroker("127.0.0.1", port, users)
    embedded.start()
    yield embedded
    embedded.stop()
    for thread in set(threading.enumerate()) - before:
        if thread.name.startswith("asyncio_"):
            thread.join(timeout=10)


def broker_section(broker: EmbeddedBroker, folder: Path, bridge_password: str) -> str:
    """The [broker] section of a table on `broker`: a password file per process."""
    for user, password in (("rules", PASSWORDS["rules"]), ("bridge", bridge_password)):
        (folder / f"{user}.secret").write_text(password + "\n", encoding="utf-8")
    return (
        f'url = "mqtt://127.0.0.1:{broker.port}"\n\n'
        f'[broker.rules]\nusername = "rules"\npassword_file = "{folder / "rules.secret"}"\n\n'
        f'[broker.bridge]\nusername = "bridge"\npassword_file = "{folder / "bridge.secret"}"\n\n'
        f'[broker.console]\nusername = "shown"\npassword = "{PASSWORDS["shown"]}"\n'
    )
