"""The suite's own hygiene check (tests/conftest.py), run on small suites of its own: each kind of
leftover fails the test that left it, by name, and is put right for the next (issue 52)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.conftest import ignored_signals

CONFTEST = Path(__file__).with_name("conftest.py")


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    monkeypatch.setenv("TABLETOP_LEAK_GRACE_S", "0.5")  # a leak here is meant: blame it soon
    return pytester


def test_each_leftover_fails_its_own_test_and_is_cleaned_up(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_leaky="""
        import os, signal, socket, subprocess, sys, threading

        STOP = threading.Event()
        KEPT = []

        def test_thread():
            threading.Thread(target=STOP.wait, name="forgotten", daemon=True).start()

        def test_child():
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])

        def test_environment():
            os.environ["TABLETOP_LEFT_HERE"] = "1"

        def test_handler():
            signal.signal(signal.SIGTERM, lambda *_: None)

        def test_port():
            server = socket.create_server(("127.0.0.1", 0))
            KEPT.append(server)  # a server never closed

        def test_clean_after_all_that():
            assert "TABLETOP_LEFT_HERE" not in os.environ
            assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
            STOP.set()
            KEPT[0].close()
        """
    )
    result = suite.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=6, errors=5)
    result.stdout.re_match_lines(
        [
            r".*test_thread left behind: 1 thread\(s\) still running: forgotten \(daemon\).*",
            r".*test_child left behind: 1 child process\(es\) still running: \d+ `.*sleep\(60\)`.*",
            r".*test_environment left behind: environment variables changed: TABLETOP_LEFT_HERE.*",
            r".*test_handler left behind: SIGTERM's handler changed.*",
            r".*test_port left behind: 1 port\(s\) still listening: \d+.*",
        ],
        consecutive=False,
    )


def test_what_a_wider_fixture_starts_is_not_a_tests_leak(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_shared="""
        import subprocess, sys, threading
        import pytest

        @pytest.fixture(scope="session")
        def server():
            stop = threading.Event()
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            threading.Thread(target=stop.wait, name="server").start()
            yield
            stop.set()
            child.kill()
            child.wait()

        def test_first(server):
            pass

        def test_second(server):
            pass
        """
    )
    result = suite.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_the_programs_the_tests_start_can_be_stopped_with_ctrl_c() -> None:
    """Even when the suite was started in the background, which ignores SIGINT (conftest)."""
    assert not ignored_signals() & (1 << (signal.SIGINT - 1))
