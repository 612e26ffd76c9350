"""The suite's hygiene: a test that leaves something behind fails, by name (issue 52).

A test that passes alone but fails after another shares state with it: a child process still
running, a thread still going, a port still listening, a signal disposition changed (an ignored
SIGINT is inherited by every program the next test starts), an environment variable, the
working folder. After each
test's teardown this plugin checks each of them against what was there before the test's set-up,
fails the test that leaked with what it left, and cleans up so the next test is not blamed.

What a fixture wider than one test (a session's broker, a module's server) starts while it is
set up is that fixture's, not the test's: it is noted when the fixture is set up and never
counted against a test.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import weakref
from collections.abc import Generator
from dataclasses import dataclass, field

import pytest

pytest_plugins = ("pytester",)  # tests/test_suite_hygiene.py runs this check on small suites

# A safety net, not a speed figure: what a test stopped may take a moment to end on a loaded
# host, so the check waits for it to end before it calls it a leak.
GRACE_S = float(os.environ.get("TABLETOP_LEAK_GRACE_S", "20"))
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE, signal.SIGCHLD)


def live_children() -> dict[int, str]:
    """This process's child processes that still run (zombies are not), pid -> command line."""
    me = os.getpid()
    found: dict[int, str] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="utf-8", errors="replace") as stat:
                text = stat.read()
            # The command name may hold spaces and parentheses: the fields follow the last ')'.
            state, ppid = text[text.rfind(")") + 2 :].split()[:2]
            if int(ppid) != me or state in ("Z", "X"):
                continue
            with open(f"/proc/{entry.name}/cmdline", "rb") as cmdline:
                words = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, ValueError):
            continue  # it ended while we looked
        found[int(entry.name)] = words[:200]
    return found


def ignored_signals() -> int:
    """The signals this process ignores, as the kernel keeps them: what every program it
    starts inherits (an ignored SIGINT survives exec, and such a program cannot be Ctrl-C'd)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("SigIgn:"):
                return int(line.split()[1], 16)
    return 0


def listening_ports() -> dict[int, int]:
    """The TCP ports this process listens on (its own sockets, not other processes'):
    socket inode -> port. A server a test forgot keeps its port, and the next test that picks
    a free port may be handed one that is not free for long."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # closed while we looked (the listing's own fd, say)
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    found: dict[int, int] = {}
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        try:
            with open(table, encoding="ascii") as lines:
                next(lines)  # the header
                for line in lines:
                    fields = line.split()
                    # local address (hex ip:port), state 0A = LISTEN, inode
                    if fields[3] == "0A" and int(fields[9]) in inodes:
                        found[int(fields[9])] = int(fields[1].rsplit(":", 1)[1], 16)
        except OSError:
            continue  # no IPv6 on this host
    return found


@dataclass
class Snapshot:
    """What the process holds at one moment that a test could leave behind."""

    threads: set[threading.Thread]
    children: dict[int, str]
    ports: dict[int, int]
    handlers: dict[signal.Signals, object]
    blocked: set[int]
    ignored: int  # the kernel's own mask of ignored signals (a library's C code may set one)
    environ: dict[str, str]
    cwd: str

    @classmethod
    def take(cls) -> Snapshot:
        return cls(
            threads=set(threading.enumerate()),
            children=live_children(),
            ports=listening_ports(),
            handlers={s: signal.getsignal(s) for s in SIGNALS},
            blocked={int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])},
            ignored=ignored_signals(),
            environ=dict(os.environ),
            cwd=os.getcwd(),
        )


@dataclass
class Owned:
    """Threads and processes that fixtures wider than one test started: not a test's leak."""

    threads: set[threading.Thread] = field(default_factory=set)
    children: set[int] = field(default_factory=set)
    ports: set[int] = field(default_factory=set)  # socket inodes


OWNED = Owned()


BEFORE = pytest.StashKey[Snapshot]()


# Which thread started each thread: one that a wider fixture's thread starts later (an event
# loop's executor thread, made when the loop first needs it) is that fixture's too.
PARENTS: weakref.WeakKeyDictionary[threading.Thread, threading.Thread] = weakref.WeakKeyDictionary()


def _start_noting_the_parent(thread: threading.Thread) -> None:
    PARENTS[thread] = threading.current_thread()
    _original_start(thread)


_original_start = threading.Thread.start


def owned(thread: threading.Thread | None) -> bool:
    while thread is not None:
        if thread in OWNED.threads:
            return True
        thread = PARENTS.get(thread)
    return False


def new_threads(before: Snapshot) -> list[threading.Thread]:
    return [
        t
        for t in threading.enumerate()
        if t not in before.threads and not owned(t) and t.is_alive()
    ]


def new_children(before: Snapshot) -> dict[int, str]:
    return {
        pid: words
        for pid, words in live_children().items()
        if pid not in before.children and pid not in OWNED.children
    }


def new_ports(before: Snapshot) -> dict[int, int]:
    return {
        inode: port
        for inode, port in listening_ports().items()
        if inode not in before.ports and inode not in OWNED.ports
    }


def pytest_configure(config: pytest.Config) -> None:
    # OpenCV's loader adds its folder to LD_LIBRARY_PATH when first imported: done once here,
    # so that the first test to import it is not blamed for the library's own set-up.
    import cv2  # noqa: F401

    # A suite started in the background (`scripts/test.sh &`, nohup, some CI runners) inherits
    # an ignored SIGINT, which every program its tests start would inherit too: the README's
    # daemons, stopped with Ctrl-C as a person stops them, would never stop. Those programs
    # get the default back; a person's Ctrl-C in the suite's terminal is unchanged.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)

    # A plugin rather than this conftest's own hooks: a session-wide fixture is set up by the
    # session's node, which calls only the root folder's conftest hooks, not this one's.
    config.pluginmanager.register(LeakCheck(), "tabletop-leak-check")
    threading.Thread.start = _start_noting_the_parent  # type: ignore[method-assign,assignment]


class LeakCheck:
    """The hooks: note what wider fixtures start, snapshot before each test, check after."""

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(
        self, fixturedef: pytest.FixtureDef[object]
    ) -> Generator[None, object, object]:
        if fixturedef.scope == "function":
            return (yield)
        threads, children = set(threading.enumerate()), set(live_children())
        ports = set(listening_ports())
        try:
            return (yield)
        finally:
            OWNED.threads |= set(threading.enumerate()) - threads
            OWNED.children |= set(live_children()) - children
            OWNED.ports |= set(listening_ports()) - ports

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        item.stash[BEFORE] = Snapshot.take()
        return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        yield
        before = item.stash.get(BEFORE, None)
        if before is None:
            return
        problems = leaks(before)
        if problems:
            raise AssertionError(
                f"{item.nodeid} left behind: " + "; ".join(problems) + " (tests/conftest.py)"
            )


def leaks(before: Snapshot) -> list[str]:
    """What the test left, each put right so that the next test starts clean."""
    deadline = time.monotonic() + GRACE_S
    while (
        new_threads(before) or new_children(before) or new_ports(before)
    ) and time.monotonic() < deadline:
        time.sleep(0.05)
    problems = []
    ports = new_ports(before)
    if ports:
        problems.append(
            f"{len(ports)} port(s) still listening: {', '.join(map(str, sorted(ports.values())))}"
        )
        OWNED.ports |= set(ports)  # the socket is the test's object, not ours to close
    threads = new_threads(before)
    if threads:
        named = ", ".join(
            sorted(f"{t.name} ({'daemon' if t.daemon else 'non-daemon'})" for t in threads)
        )
        problems.append(f"{len(threads)} thread(s) still running: {named}")
        OWNED.threads |= set(threads)  # cannot be stopped from here; blamed once
    children = new_children(before)
    if children:
        problems.append(
            f"{len(children)} child process(es) still running: "
            + ", ".join(f"{pid} `{words}`" for pid, words in sorted(children.items()))
        )
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
    for signum, handler in before.handlers.items():
        now = signal.getsignal(signum)
        if now != handler:
            problems.append(f"{signum.name}'s handler changed from {handler!r} to {now!r}")
            signal.signal(signum, handler)  # type: ignore[arg-type]
    blocked = {int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])}
    if blocked != before.blocked:
        problems.append(
            f"blocked signals changed to {sorted(signal.Signals(s).name for s in blocked)}"
        )
        signal.pthread_sigmask(signal.SIG_SETMASK, before.blocked)
    ignored = ignored_signals()
    if ignored != before.ignored:
        by_number = {s.value: s.name for s in signal.Signals}
        names = [
            by_number.get(n, str(n))
            for n in range(1, 65)
            if (ignored ^ before.ignored) >> (n - 1) & 1
        ]
        problems.append(f"the signals ignored changed: {', '.join(names)}")
    changed = sorted(
        k
        for k in set(before.environ) | set(os.environ)
        if before.environ.get(k) != os.environ.get(k) and k != "PYTEST_CURRENT_TEST"
    )
    if changed:
        problems.append(f"environment variables changed: {', '.join(changed)}")
        for key in changed:
            if key in before.environ:
                os.environ[key] = before.environ[key]
            else:
                os.environ.pop(key, None)
    if os.getcwd() != before.cwd:
        problems.append(f"working folder changed to {os.getcwd()}")
        os.chdir(before.cwd)
    return problems
