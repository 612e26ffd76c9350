"""Issue 51, C2 to C4: wrong passwords and wrong seat codes cost little, and only whoever sends
them.

Other devices on the venue's network are played by other loopback addresses (127.0.0.2 and
up); every request goes to loopback only.
"""

from __future__ import annotations

import http.client
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tabletop.console.throttle import Throttle, TryLater
from tabletop.servers import wait_until
from tabletop.wire.broker import EmbeddedBroker, free_port
from tabletop.wire.mqtt import BrokerUrl, LoginRefused, MqttLink
from tabletop.wire.passwords import hash_password
from tabletop.wire.roles import User
from tests.console.conftest import PASSWORDS, ROLES, Table
from tests.console.test_seat_screens import start_showdown

from .web import Answer, WebClient

ROOT = Path(__file__).resolve().parents[2]


def post_form(port: int, path: str, fields: dict[str, str], source: str) -> Answer:
    """A form POSTed from the address `source`, as a device there would."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=60, source_address=(source, 0)
    )
    try:
        connection.request(
            "POST",
            path,
            urlencode(fields),
            {"Content-Type": "application/x-www-form-urlencoded"},
        )
        response = connection.getresponse()
        return Answer(response.status, response.getheaders(), response.read())
    finally:
        connection.close()


def wrong_login(port: int, source: str) -> Answer:
    return post_form(port, "/gm/login", {"username": "gm", "password": "guess"}, source)


# -- C2: a refused broker login ends the try at once ----------------------------------------


@pytest.fixture
def broker_with_users() -> Iterator[EmbeddedBroker]:
    users = [
        User(name, ROLES[name], ("*",), hash_password(PASSWORDS[name], iterations=10))
        for name in ("gm", "rules")
    ]
    broker = EmbeddedBroker("127.0.0.1", free_port(), users)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


def test_a_refused_broker_login_is_said_without_waiting_out_the_timeout(
    broker_with_users: EmbeddedBroker,
) -> None:
    url = BrokerUrl("mqtt", "127.0.0.1", broker_with_users.port, "gm", "wrong")
    link = MqttLink(url, "wrong-password")
    # a timeout a person would never sit through: the refusal ends the wait, not the clock
    with pytest.raises(LoginRefused, match=r"refused it \(Not authori[sz]ed\)"):
        link.start(timeout=600)
    link.stop()


def test_tabletop_gm_with_a_wrong_password_says_which(
    broker_with_users: EmbeddedBroker,
) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tabletop",
            "gm",
            "state",
            "--broker",
            f"mqtt://gm:wrong@127.0.0.1:{broker_with_users.port}",
            "--timeout",
            "600",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    said = [line for line in done.stderr.splitlines() if line.startswith("tabletop gm:")]
    assert len(said) == 1, done.stderr
    assert "refused it (Not authorized): check the user name and password" in said[0]
    assert "Traceback" not in done.stderr


# -- C3: a flood of wrong passwords -----------------------------------------------------------


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    running = Table(tmp_path)
    running.start()
    try:
        yield running
    finally:
        running.stop()


def test_wrong_passwords_slow_their_own_address_only(table: Table) -> None:
    port = table.console.port
    answers = [wrong_login(port, "127.0.0.2").status for _ in range(8)]
    assert answers[:6] == [403] * 6, answers  # five free tries, then a wait
    assert 429 in answers[6:], answers
    waiting = wrong_login(port, "127.0.0.2")
    assert waiting.status == 429
    assert int(waiting.header("retry-after") or 0) >= 1
    assert b"Too many wrong tries from this device" in waiting.body
    # the game master on another device logs in at once
    other = post_form(
        port, "/gm/login", {"username": "gm", "password": PASSWORDS["gm"]}, "127.0.0.3"
    )
    assert other.status == 303
    # and the stranger's right password waits like any other try: no guess is free
    right = post_form(
        port, "/gm/login", {"username": "gm", "password": PASSWORDS["gm"]}, "127.0.0.2"
    )
    assert right.status == 429


@pytest.fixture
def costly_hashes(tmp_path: Path) -> Iterator[Table]:
    """A table whose game master's password hash costs about a second's work to check: the
    table file's hashes, with the console, broker and daemon on one Pi."""
    import tests.console.conftest as console_conftest

    costly = tuple(
        User(
            user.name,
            user.role,
            user.tables,
            hash_password(PASSWORDS[user.name], iterations=200_000),
        )
        if user.name == "gm"
        else user
        for user in console_conftest.USERS
    )
    running = Table(tmp_path, users=costly)
    running.start()
    try:
        yield running
    finally:
        running.stop()


def hashing_now() -> int:
    """How many threads of this process are checking a password hash at this moment."""
    return sum(
        any(entry.name == "verify_password" for entry in traceback.extract_stack(frame))
        for frame in sys._current_frames().values()
    )


def test_wrong_passwords_are_checked_a_few_at_a_time_off_the_actions_threads(
    costly_hashes: Table,
) -> None:
    table = costly_hashes
    gm = WebClient(table.console.url.rstrip("/"))
    assert gm.login("gm", PASSWORDS["gm"]).status == 303
    answered: list[int] = []

    def flood(source: str) -> None:
        answered.append(wrong_login(table.console.port, source).status)

    flooders = [
        threading.Thread(target=flood, args=(f"127.0.0.{10 + n}",), name=f"flood-{n}")
        for n in range(8)
    ]
    for thread in flooders:
        thread.start()
    peak = 0
    crowd = 0  # the most requests in flight at once
    try:
        server = getattr(table.console, "_server", None)
        assert server is not None
        # the flood is being checked (not "all 8 have arrived": on a loaded machine the first
        # may be answered before the last thread has connected)
        wait_until(lambda: hashing_now() >= 1, what="a wrong password being checked", timeout=30)
        # read by the game's own form on a worker thread, and refused in words, while the
        # flood's passwords are checked
        action = gm.act("new", {})
        assert action.status == 400 and action.json()["field"] == "roster", action.body
        while any(thread.is_alive() for thread in flooders):
            peak = max(peak, hashing_now())
            crowd = max(crowd, len(server.server_state.tasks))
            time.sleep(0.005)  # how often to look, not a wait for anything
    finally:
        for thread in flooders:
            thread.join(120)
    assert set(answered) <= {403, 429} and answered.count(403) >= 2, answered
    assert len(answered) == 8, answered
    # two at most (LOGIN_WORKERS), however many clients wait: the cores left to the table
    assert crowd >= 3, f"{crowd} requests in flight at most: the flood never queued"
    assert 1 <= peak <= 2, f"{peak} password checks at once"


# -- C4: seat codes --------------------------------------------------------------------------


@pytest.fixture
def seated(tmp_path: Path) -> Iterator[Table]:
    running = Table(tmp_path, daemon_options={"seats": ["Ana", "Bo"]})
    running.start()
    try:
        start_showdown(running)
        yield running
    finally:
        running.stop()


def seat_codes(gm: WebClient, phones: int = 1) -> dict[int, str]:
    """The codes the game master is given (once the seats' views have come)."""
    deadline = time.monotonic() + 30
    while True:
        answer = gm.request("POST", f"/gm/seats?phones={phones}")
        if answer.status == 200:
            return {int(s["seat"]): str(s["code"]) for s in answer.json()["seats"]}
        assert time.monotonic() < deadline, answer.body
        time.sleep(0.1)


def join(port: int, seat: int, code: str, source: str) -> Answer:
    return post_form(port, f"/seat/{seat}/join", {"code": code}, source)


def test_wrong_codes_withdraw_nothing_from_the_players(seated: Table) -> None:
    gm = WebClient(seated.console.url.rstrip("/"))
    assert gm.login("gm", PASSWORDS["gm"]).status == 303
    codes = seat_codes(gm)
    port = seated.console.port
    guesses = [join(port, 1, "AAAAAA", "127.0.0.2").status for _ in range(30)]
    assert guesses.count(403) == 6 and guesses.count(429) == 24, guesses
    # the players' codes still open their seats
    assert join(port, 1, codes[1], "127.0.0.3").status == 303
    assert join(port, 2, codes[2], "127.0.0.4").status == 303


def test_a_code_joins_one_phone_unless_the_game_master_allows_more(seated: Table) -> None:
    gm = WebClient(seated.console.url.rstrip("/"))
    assert gm.login("gm", PASSWORDS["gm"]).status == 303
    port = seated.console.port
    code = seat_codes(gm)[1]
    assert join(port, 1, code, "127.0.0.3").status == 303
    second = join(port, 1, code, "127.0.0.4")
    assert second.status == 403 and b"has joined its phone already" in second.body
    shared = seat_codes(gm, phones=2)[1]
    assert [join(port, 1, shared, f"127.0.0.{n}").status for n in (5, 6, 7)] == [303, 303, 403]
    assert gm.request("POST", "/gm/seats?phones=99").status == 400


def test_a_table_of_users_with_no_hash_is_checked_by_the_broker_at_once(tmp_path: Path) -> None:
    """Users whose passwords only the broker knows: each login is a broker login, refused
    at once (before issue 51 a wrong one held a worker for 5 s)."""
    import tests.console.conftest as console_conftest

    unhashed = tuple(User(u.name, u.role, u.tables, None) for u in console_conftest.USERS)
    table = Table(tmp_path, users=unhashed)
    table.start()
    try:
        answer = wrong_login(table.console.port, "127.0.0.2")
        assert answer.status == 403
        assert b"The broker refused this user name or password." in answer.body
        assert table.console.sessions.throttle.wrong_tries("127.0.0.2") == 1
        assert WebClient(table.console.url.rstrip("/")).login("gm", PASSWORDS["gm"]).status == 303
    finally:
        table.stop()


def test_the_login_page_says_the_wait(table: Table) -> None:
    for _ in range(6):
        wrong_login(table.console.port, "127.0.0.9")
    answer = wrong_login(table.console.port, "127.0.0.9")
    assert answer.status == 429
    assert b'role="alert"' in answer.body and b"try again in" in answer.body


# -- the back-off itself ----------------------------------------------------------------------


def test_the_back_off_doubles_per_address_and_a_right_try_forgets_it() -> None:
    now = [0.0]
    throttle = Throttle("login", clock=lambda: now[0], kept=3)

    def wrong(client: str) -> None:
        throttle.begin(client)
        throttle.done(client, right=False)

    for _ in range(5):
        wrong("a")  # the free tries: no wait between them
    waits = []
    for _ in range(8):
        wrong("a")
        with pytest.raises(TryLater) as later:
            throttle.begin("a")
        waits.append(later.value.retry_after)
        now[0] += later.value.seconds  # the wait, on the clock
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60]
    throttle.begin("b")  # another address is not slowed, and one try at a time each
    with pytest.raises(TryLater, match="Another login from this device"):
        throttle.begin("b")
    throttle.done("b", right=True)
    wrong("a")
    now[0] += 60
    throttle.begin("a")
    throttle.done("a", right=True)
    assert throttle.wrong_tries("a") == 0
    for client in ("c", "d", "e", "f"):  # only the newest `kept` addresses are remembered
        wrong(client)
    assert throttle.wrong_tries("c") == 0 and throttle.wrong_tries("f") == 1
    now[0] += 15 * 60  # a quarter of an hour without a wrong try: forgotten
    assert throttle.wrong_tries("f") == 0
