"""Every `tabletop ...` and `scripts/main.sh ...` example in README.md runs (issue 16, item 8).

The examples are read out of the README here, so that it cannot drift: each one must be listed
in EXAMPLES below with how it is checked. A command that finishes runs as written (or bounded,
with the reason next to it); a daemon is started, seen to come up, then stopped; a usage form
(`tabletop rules [--table ID] ...`) has its subcommand and every option it names checked
against the real parser, and most also run once with their placeholders filled in; what cannot
run on this machine (a Raspberry Pi, root, TLS to pi.local) says why. A new example in the
README fails the listing test until it is added here.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import shlex
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from tabletop.cli import build_parser
from tabletop.wire.broker import free_port

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
VECTORS = ROOT / "src" / "tabletop" / "firmware" / "vectors" / "protocol-v1.json"
PHOTO = sorted((ROOT / "tests" / "data" / "dice-tray" / "images").glob("*.jpg"))[0]
RUN_S = 180.0  # generous: the machine is shared; nothing here is a timing assertion
UP_S = 90.0

# A command word: `tabletop` (bare or from a venv) or the main job's script.
COMMAND = re.compile(
    r"(?:^|(?<=[\s;|&(]))(?:[\w./-]*\.venv/bin/)?(?:tabletop|scripts/main\.sh)(?=\s|$)"
)
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
SPAN = re.compile(r"`([^`]+)`")


def readme_examples(text: str) -> list[str]:
    """The README's commands that run `tabletop` or scripts/main.sh, in order, each once."""
    found: list[str] = []
    for block in FENCE.findall(text):
        for line in block.splitlines():
            command, _, comment = line.partition(" #")
            found.append(command)
            found.extend(SPAN.findall(comment))
    found.extend(SPAN.findall(FENCE.sub("", text)))
    examples: list[str] = []
    for item in found:
        command = " ".join(item.replace("\\|", "|").split())
        if COMMAND.search(command) and command not in examples:
            examples.append(command)
    return examples


@dataclass(frozen=True)
class Example:
    """How one README example is checked."""

    run: tuple[str, ...] | None = None  # the `tabletop` words run; None: the README's own
    up: str = ""  # a daemon: the output (a regex) that says it came up; then it is stopped
    expect: str = ""  # a regex its output must show
    why: str = ""  # why what runs differs from the README's words
    usage: bool = False  # a usage form: its subcommand and options must exist
    name: bool = False  # a command named in the prose: it must exist
    not_here: str = ""  # why it cannot run on this machine at all
    laptop: bool = False  # in the laptop block, run in order by test_the_laptop_table
    stop: signal.Signals = signal.SIGINT  # how a daemon is stopped: Ctrl-C, as a person does


SIM_MAT = "sim:?seats=1&slots=1"
EXAMPLES: dict[str, Example] = {
    # The laptop block: a daemon and the game master's commands, in the README's order.
    ".venv/bin/tabletop rules": Example(laptop=True),
    ".venv/bin/tabletop gm follow": Example(laptop=True),
    ".venv/bin/tabletop gm new examples/rosters/three-operators.toml": Example(laptop=True),
    ".venv/bin/tabletop gm reveal Ana 2": Example(laptop=True),
    "tabletop gm --help": Example(expect=r"usage: tabletop gm .*COMMAND"),
    "tabletop games": Example(expect="sixshooter"),
    "scripts/main.sh": Example(
        run=("sim",),
        up=r"web console: http://",
        stop=signal.SIGTERM,
        why="stopped with SIGTERM: a program started in the background by a shell that is not "
        "interactive ignores Ctrl-C's SIGINT (as POSIX shells set it), so SIGINT could not "
        "stop it here; from a terminal Ctrl-C stops the live view at once (exit 130)",
    ),
    "scripts/main.sh sim --headless --games 3 --seed 7": Example(
        run=("sim", "--headless", "--games", "1", "--seed", "7", "--speed", "50", "--no-camera"),
        expect="1 of 1 Six Shooter game played to the end",
        why="bounded: one game instead of three, people 50 times faster, no camera rendering",
    ),
    "scripts/main.sh replay examples/games/first-adventure.jsonl": Example(),
    # The table of subcommands: usage forms, most also run once with their placeholders filled.
    "tabletop games [--json]": Example(run=("games", "--json"), usage=True, expect='"name"'),
    "tabletop replay FILE.jsonl [--json]": Example(
        run=("replay", "examples/games/first-adventure.jsonl", "--json"), usage=True
    ),
    "tabletop rules [--table ID] [--broker URL] [--db PATH] [--game NAME]": Example(
        run=("rules", "--table", "readme", "--broker", "embedded://127.0.0.1:{port}"),
        up=r"rules daemon: table 'readme'",
        usage=True,
    ),
    "tabletop rules --tables a,b,c | --all-tables [--db postgresql://...]": Example(
        run=("rules", "--tables", "a,b,c", "--broker", "embedded://127.0.0.1:{port}"),
        up=r"rules daemon: daemon '.*', 3 tables",
        usage=True,
        why="on SQLite: tests/daemon/test_room.py runs a room on PostgreSQL too",
    ),
    "tabletop gm [--game NAME] COMMAND ...": Example(
        run=("gm", "--game", "ossix", "--help"), usage=True, expect="gmroll"
    ),
    "tabletop broker [--bind HOST:PORT]": Example(
        run=("broker", "--bind", "127.0.0.1:{port}"), up="MQTT broker listening", usage=True
    ),
    "tabletop sim [--game NAME] [--seats N] [--games N] [--seed S] [--headless] [--json] "
    "[--speed N] [--no-camera]": Example(
        run=("sim", "--game", "sixshooter", "--seats", "2", "--headless", "--json", "--no-camera"),
        expect='"games_finished": 1',
        usage=True,
    ),
    "tabletop console [--config TABLE.toml | --broker URL --table ID] [--bind HOST:PORT]": (
        Example(
            usage=True,
            not_here="serves a table that a broker and a rules daemon keep: tests/console runs "
            "it with both (and a real Chromium)",
        )
    ),
    "tabletop bridge --config TABLE.toml": Example(
        usage=True,
        not_here="the Pi's mat, camera and LED pins that the table file names; `tabletop sim` "
        "runs this bridge on simulated devices (tests/sim)",
    ),
    "tabletop rules --config TABLE.toml": Example(
        usage=True,
        not_here="reads the physical table through the bridge of the same file (see above); "
        "tests/sim runs it so",
    ),
    "tabletop check --config TABLE.toml [--json] [--part broker|cards|mat|leds|camera ...] "
    "[--yes]": Example(
        run=(
            *("check", "--config", "examples/table.toml", "--yes"),
            *("--part", "cards", "--part", "mat", "--zone", "pad", "--part", "leds"),
        ),
        usage=True,
        expect="the table is ready",
        why="the parts that need no running broker and no camera calibration, the mat's walk "
        "on the pad only; tests/check runs every part, with faults",
    ),
    "tabletop mat sim": Example(up="simulated mat ready"),
    "tabletop mat monitor PORT [--json]": Example(
        run=("mat", "monitor", SIM_MAT, "--json", "--count", "1"), usage=True, expect="link_up"
    ),
    "tabletop mat decode FILE": Example(
        run=("mat", "decode", "{tmp}/capture.bin"), usage=True, expect=r"^HELLO v1"
    ),
    "tabletop cards enrol --port PORT [--deck FILE]": Example(
        run=(
            "cards",
            "enrol",
            "--port",
            SIM_MAT,
            "--out",
            "{tmp}/cards.json",
            "--deck",
            str(ROOT / "examples" / "decks" / "cowboy.toml"),
        ),
        up="on the draw pad",
        usage=True,
    ),
    "tabletop cards check MAP": Example(
        run=(
            "cards",
            "check",
            str(ROOT / "src" / "tabletop" / "hardware" / "mat" / "data" / "sim-deck.json"),
        ),
        usage=True,
        expect="0 problem",
    ),
    "tabletop sim --game showdown --seats 2": Example(
        run=(
            *("sim", "--game", "showdown", "--seats", "2", "--headless", "--json", "--no-camera"),
            *("--seed", "2"),
        ),
        expect='"games_finished": 1',
        why="--headless --json --no-camera: the JSON summary instead of the live view, the die "
        "handed to the bridge; --seed 2: a game half as long as the default seed's (8 s, not "
        "17: tests/sim/test_showdown_sim.py plays that one)",
    ),
    "tabletop dice read IMAGE... [--json]": Example(
        run=("dice", "read", str(PHOTO), "--json"), usage=True
    ),
    "tabletop dice watch --source URL": Example(
        run=("dice", "watch", "--source", "sim:", "--frames", "30"),
        usage=True,
        why="--frames 30: it watches until stopped otherwise",
    ),
    "tabletop dice calibrate [--board 9x6]": Example(
        run=("dice", "calibrate", "--source", "sim:", "--out", "{tmp}/calibration.json"),
        expect="calibrated from",
        usage=True,
        why="its default camera (usb:0) is not here: the simulated camera's empty tray, no "
        "board (tests/vision/test_table_view.py calibrates with one from rendered frames)",
    ),
    "tabletop dice board --out FILE": Example(
        run=("dice", "board", "--out", "{tmp}/board.png"), expect="written to", usage=True
    ),
    "tabletop mat template --out FILE.svg [--split-seats 0x3F]": Example(
        run=("mat", "template", "--out", "{tmp}/mat.svg", "--split-seats", "0x3F"),
        expect="zones at 1:1",
        usage=True,
    ),
    "tabletop dice enrol --labels FILE.csv --out DIR": Example(
        usage=True, why="a usage form; tests/vision/test_dice_enrol.py enrols real photos"
    ),
    # Names in the prose.
    "tabletop": Example(name=True),
    ".venv/bin/tabletop": Example(name=True),
    "tabletop rules": Example(name=True),
    "tabletop gm": Example(name=True),
    "tabletop bridge": Example(name=True),
    # Setting up a Raspberry Pi (deploy/install.sh does the rest: tests/deploy runs it).
    "/opt/tabletop/.venv/bin/tabletop": Example(name=True),
    "tabletop broker acl": Example(name=True),
    "tabletop rules --db postgresql://...": Example(
        usage=True, not_here="tests/daemon runs the game log on a private PostgreSQL server"
    ),
    "tabletop mat flash": Example(
        name=True, not_here="needs a Pico running MicroPython on USB (docs/mat.md)"
    ),
    "sudo /opt/tabletop/.venv/bin/tabletop cards enrol --port /dev/tabletop-mat --out "
    "/etc/tabletop/cards.json": Example(
        run=("cards", "enrol", "--port", SIM_MAT, "--out", "{tmp}/cards.json"),
        up="on the draw pad",
        why="a simulated mat instead of the real one on /dev/tabletop-mat, into a temporary "
        "folder rather than /etc/tabletop (root)",
    ),
    "tabletop dice board --out board.png": Example(
        run=("dice", "board", "--out", "{tmp}/board.png"),
        expect="written to",
        why="into a temporary folder",
    ),
    "sudo /opt/tabletop/.venv/bin/tabletop dice calibrate --source picamera --board 9x6 --out "
    "/etc/tabletop/tray.json": Example(
        not_here="needs the Pi's camera and a printed board lying in its tray; "
        "tests/vision/test_table_view.py runs calibrate --board on a folder of rendered frames "
        "of a slanted camera",
    ),
    "sudo /opt/tabletop/.venv/bin/tabletop dice calibrate --source picamera --out "
    "/etc/tabletop/tray.json": Example(
        run=("dice", "calibrate", "--source", "sim:", "--out", "{tmp}/calibration.json"),
        expect="calibrated from",
        why="the simulated camera instead of the Pi's camera (picamera2), into a temporary "
        "folder rather than /etc/tabletop (root)",
    ),
    "sudo /opt/tabletop/.venv/bin/tabletop check --config /etc/tabletop/table.toml": Example(
        not_here="checks the Pi's mat, camera and LED pins that /etc/tabletop/table.toml names; "
        "tests/check runs the check on the simulated table, with faults injected",
    ),
    "TABLETOP_BROKER='mqtts://gm:PASSWORD@kitchen.local:8883?ca=ca.crt' tabletop gm follow": (
        Example(
            not_here="needs the Pi's Mosquitto over TLS at kitchen.local:8883; tests/security "
            "runs gm over TLS against a real Mosquitto",
        )
    ),
}


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """An environment of its own: no TABLETOP_* settings, state and data in `tmp_path`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    for name in ("XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        env[name] = str(tmp_path / name.lower())
    vectors = json.loads(VECTORS.read_text())
    frames = {m["name"]: bytes.fromhex(m["frame_hex"]) for m in vectors["messages"]}
    (tmp_path / "capture.bin").write_bytes(frames["hello"] + frames["pong"])
    env["TMP_FOLDER"] = str(tmp_path)
    return env


def words_of(text: str, example: Example, env: dict[str, str]) -> list[str]:
    """The `tabletop` words the example runs; scripts/main.sh is set-up, then these."""
    if example.run is not None:
        port = str(free_port())
        return [w.format(tmp=env["TMP_FOLDER"], port=port) for w in example.run]
    words = shlex.split(text)
    if words[0] == "scripts/main.sh":
        return words[1:] or ["sim"]
    assert words[0].endswith("tabletop"), text
    return words[1:]


def tabletop(words: list[str]) -> list[str]:
    return [sys.executable, "-m", "tabletop", *words]


def run_to_end(words: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(
        tabletop(words),
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_S,
        check=False,
    )
    assert done.returncode == 0, f"{words}: exit {done.returncode}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


class Daemon:
    """A long-running command: started, its output read on a thread, stopped with SIGINT."""

    def __init__(
        self, words: list[str], env: dict[str, str], stop: signal.Signals = signal.SIGINT
    ) -> None:
        self.words = words
        self.env = env
        self.signal = stop
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            tabletop(self.words),
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.PIPE,  # kept open: `mat sim` and `cards enrol` read it
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")

    def wait_for(self, pattern: str) -> str:
        """Returns the first line matching `pattern`; fails with all it printed otherwise."""
        while True:
            try:
                line = self.lines.get(timeout=UP_S)
            except queue.Empty:
                message = f"{self.words}: no {pattern!r} in {UP_S} s: {self.seen}"
                raise AssertionError(message) from None
            if not line:
                raise AssertionError(f"{self.words} ended before {pattern!r}: {self.seen}")
            self.seen.append(line)
            if re.search(pattern, line):
                return line

    def stop(self) -> None:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(self.signal)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._reader is not None:
            self._reader.join(timeout=30)  # it ends at the end of the output
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        assert self.process.returncode in (0, 130, -self.signal), (
            f"{self.words}: exit {self.process.returncode} on {self.signal.name}: {self.seen}"
        )

    def output(self) -> list[str]:
        """Every line it printed (once it has stopped)."""
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return self.seen


def check_usage(text: str) -> None:
    """The usage form's subcommands exist, and so does every option it names."""
    words = shlex.split(text)[1:]
    parser = build_parser(words)
    for word in words:
        groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not groups or word not in groups[0].choices:
            break
        parser = groups[0].choices[word]
    known = {option for action in parser._actions for option in action.option_strings}
    named = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", text))
    assert named <= known, f"{text}: {parser.prog} has no {sorted(named - known)}"
    subcommands = [w for w in words if re.fullmatch(r"[a-z][a-z-]*", w)]
    assert parser.prog.split()[1:] == subcommands[: len(parser.prog.split()) - 1], parser.prog


def test_every_readme_example_is_listed() -> None:
    found = readme_examples(README.read_text(encoding="utf-8"))
    assert len(found) > 20  # the extraction still finds the README's commands
    missing = [text for text in found if text not in EXAMPLES]
    gone = [text for text in EXAMPLES if text not in found]
    assert missing == [], "README examples not checked here: add them to EXAMPLES"
    assert gone == [], "EXAMPLES the README no longer has"


def test_an_example_run_otherwise_than_written_says_why() -> None:
    for text, example in EXAMPLES.items():
        differs = example.run is not None and not example.usage
        if differs and not text.startswith("scripts/main.sh"):
            assert example.why, f"{text}: say why it runs as {example.run}"
        assert not (example.not_here and example.run is not None), text


def test_scripts_main_sh_is_set_up_then_tabletop() -> None:
    """The tests below run scripts/main.sh's examples as `tabletop` words: that is all it does
    after creating .venv (which the test suite's own set-up has done)."""
    script = (ROOT / "scripts" / "main.sh").read_text()
    assert '"$root/scripts/setup.sh"' in script
    assert "set -- sim" in script
    assert script.rstrip().endswith('exec .venv/bin/tabletop "$@"')


RUNNABLE = [
    text
    for text, example in EXAMPLES.items()
    if not example.laptop
    and not example.name
    and (example.run is not None or not example.usage)
    and not (example.not_here and example.run is None)
]


@pytest.mark.slow
@pytest.mark.parametrize("text", RUNNABLE)
def test_the_readme_example_runs(text: str, home: dict[str, str]) -> None:
    example = EXAMPLES[text]
    words = words_of(text, example, home)
    if example.up:
        daemon = Daemon(words, home, example.stop)
        daemon.start()
        try:
            daemon.wait_for(example.up)
        finally:
            daemon.stop()
        return
    output = run_to_end(words, home)
    if example.expect:
        assert re.search(example.expect, output, re.M), f"{words}: {output[-2000:]}"


@pytest.mark.parametrize("text", [t for t, e in EXAMPLES.items() if e.usage])
def test_the_usage_form_matches_the_parser(text: str) -> None:
    check_usage(text)


@pytest.mark.parametrize("text", [t for t, e in EXAMPLES.items() if e.name])
def test_a_command_named_in_the_prose_exists(text: str) -> None:
    check_usage(text)


@pytest.fixture
def laptop_block() -> list[str]:
    """The README's first shell block: a table on a laptop."""
    block = FENCE.findall(README.read_text(encoding="utf-8"))[0]
    return [line.partition(" #")[0].strip() for line in block.splitlines() if line.strip()]


def test_the_laptop_table(laptop_block: list[str], home: dict[str, str]) -> None:
    """The three terminals of the README, in its order: the daemon with its own broker, then
    the game master's commands, which find that broker without flags."""
    assert laptop_block == [t for t, e in EXAMPLES.items() if e.laptop]
    rules, follow, *commands = laptop_block
    daemon = Daemon(words_of(rules, EXAMPLES[rules], home), home)
    daemon.start()
    try:
        daemon.wait_for(r"^rules daemon: table 'main'")
        watcher = Daemon(words_of(follow, EXAMPLES[follow], home), home)
        watcher.start()
        try:
            watcher.wait_for(r"rules daemon online")
            for command in commands:
                output = run_to_end(words_of(command, EXAMPLES[command], home), home)
                assert "waiting for:" in output, output
            watcher.wait_for(r"turns slot 2 face-up")
        finally:
            watcher.stop()
    finally:
        daemon.stop()
    # Each `tabletop gm` looks for the daemon's broker: the broker logs nothing of it (issue 46:
    # a bare TCP probe was an amqtt ERROR and WARNING in the daemon's terminal every time).
    noise = [line for line in daemon.output() if re.search(r" (ERROR|WARNING) amqtt", line)]
    assert noise == []
