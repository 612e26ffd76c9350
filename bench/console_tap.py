"""Benchmark of the web console: a tap on the game master's page -> the room's page showing it,
and the console's memory with 20 pages open while a game plays.

    .venv/bin/python bench/console_tap.py [--taps 30] [--room-pages 1 19]

Starts the embedded broker here (no users: anyone is the game master, this machine only),
`tabletop rules` and `tabletop console` as processes of their own (the console's memory is its
own), starts an OS-SIX game, then opens in Debian's Chromium (headless) N room pages, each in a
browser context of its own (N devices), and the game master's page in another, logged in.

Each tap fills in the game master's form "Strain gained or recovered" (Jack, +1 or -1 in turn)
and clicks its button, as a person does: the page posts the form, the console sends the command,
the rules daemon publishes the new public view, the console feeds it to the room's pages. The
tap's time is the button's click event (Date.now in the game master's page); a room page's time
is its `table-rendered` event (after the DOM is updated) for the first snapshot holding the
tap's event (same machine, same clock). Prints p50/p99/max over the taps and every room page,
and the console's resident memory (VmRSS) sampled while the taps play, with its peak (VmHWM).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.console_latency import memory_kib  # noqa: E402
from tabletop.daemon.client import TableClient  # noqa: E402
from tabletop.figures import percentile  # noqa: E402
from tabletop.wire.broker import EmbeddedBroker, free_port  # noqa: E402
from tabletop.wire.mqtt import BrokerUrl  # noqa: E402

TABLE = "bench"
PLAYERS = ["Jack", "Kate"]
# Each room page notes when it drew each event number first (after the DOM is updated).
ROOM_RECORDER = """
window.benchDrawn = {};
document.addEventListener("table-rendered", (event) => {
  const now = Date.now();
  for (const item of event.detail.events || [])
    if (!(item.number in window.benchDrawn)) window.benchDrawn[item.number] = now;
});
"""
# The game master's page notes when its submit button is clicked.
GM_RECORDER = """
window.benchTaps = [];
document.addEventListener("click", (event) => {
  if (event.target.closest && event.target.closest('form[data-verb="strain"] button'))
    window.benchTaps.push(Date.now());
}, true);
"""


def spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tabletop", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )


class Sampler:
    """The console's VmRSS every 0.2 s while it runs: the largest seen."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.largest = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop.wait(0.2):
            self.largest = max(self.largest, memory_kib(self.pid)["VmRSS"])

    def end(self) -> int:
        self.stop.set()
        self.thread.join()
        return self.largest


def tap(gm: Page, rooms: list[Page], change: int, timeout: float = 20.0) -> list[float]:
    """One tap; each room page's delay (ms) until it drew the tap's event."""
    before = max(
        room.evaluate("Math.max(0, ...Object.keys(window.benchDrawn).map(Number))")
        for room in rooms
    )
    form = gm.locator('form[data-verb="strain"]')
    form.locator('select[name="player"]').select_option("Jack")
    form.locator('input[name="change"]').fill(str(change))
    taps = gm.evaluate("window.benchTaps.length")
    form.get_by_role("button").click()
    expect(form.locator(".result, .refusal").last).not_to_have_text("")
    tapped = gm.evaluate(f"window.benchTaps[{taps}]")
    delays = []
    deadline = time.monotonic() + timeout
    for room in rooms:
        while True:
            drawn: dict[str, int] = room.evaluate("window.benchDrawn")
            newer = [at for number, at in drawn.items() if int(number) > before]
            if newer:
                delays.append(min(newer) - tapped)
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"a room page never showed the tap's event (after #{before})")
            room.wait_for_timeout(10)
    return delays


def run(room_pages: int, taps: int, broker_port: int, workdir: Path) -> dict[str, Any]:
    url = f"mqtt://127.0.0.1:{broker_port}"
    rules = spawn("rules", "--table", TABLE, "--broker", url, "--db", str(workdir / "games.db"))
    console = spawn(
        "console", "--table", TABLE, "--broker", url, "--bind", "127.0.0.1:0", "--game", "ossix"
    )
    client = TableClient(BrokerUrl("mqtt", "127.0.0.1", broker_port), TABLE)
    try:
        assert console.stdout is not None
        base = console.stdout.readline().split("room view ")[1].split(",")[0]
        client.start(timeout=30)
        for _ in range(100):  # the daemon answers once it is up
            try:
                reply = client.send({"cmd": "new_game", "game": "ossix", "players": PLAYERS})
                break
            except Exception:
                time.sleep(0.3)
        else:
            raise SystemExit("the rules daemon never answered")
        assert reply.get("ok"), reply
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium",
                headless=True,
                args=["--renderer-process-limit=8"],
            )
            rooms = []
            for _ in range(room_pages):
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                context.add_init_script(ROOM_RECORDER)
                room = context.new_page()
                room.goto(base)
                rooms.append(room)
            gm_context = browser.new_context(viewport={"width": 1280, "height": 800})
            gm_context.add_init_script(GM_RECORDER)
            gm = gm_context.new_page()
            gm.goto(base + "gm")
            gm.get_by_label("User name").fill("gm")
            gm.get_by_label("Password").fill("any")
            gm.get_by_role("button", name="Log in").click()
            expect(gm.locator("#connection")).to_have_text("Table online", timeout=30_000)
            expect(gm.locator('form[data-verb="strain"]')).to_be_visible(timeout=30_000)
            for room in rooms:
                expect(room.locator(".seat")).to_have_count(2, timeout=30_000)
            idle = memory_kib(console.pid)["VmRSS"]
            sampler = Sampler(console.pid)
            delays: list[float] = []
            for number in range(taps):
                delays += tap(gm, rooms, 1 if number % 2 == 0 else -1)
                print(f"\r  {number + 1}/{taps} taps", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            largest = sampler.end()
            memory = memory_kib(console.pid)
            browser.close()
    finally:
        client.close()
        for process in (console, rules):
            process.terminate()
            process.wait(10)
    return {
        "pages": room_pages + 1,
        "taps": taps,
        "p50": statistics.median(delays),
        "p99": percentile(delays, 0.99),
        "max": max(delays),
        "idle_mib": idle / 1024,
        "rss_mib": largest / 1024,
        "peak_mib": memory["VmHWM"] / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--taps", type=int, default=30)
    parser.add_argument(
        "--room-pages",
        type=int,
        nargs="+",
        default=[1, 19],
        help="room pages beside the game master's page (19: 20 pages in all)",
    )
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} cores")
    broker = EmbeddedBroker("127.0.0.1", free_port())
    broker.start()
    try:
        print("pages  taps  p50 ms  p99 ms  max ms  console RSS MiB: idle, playing (peak)")
        for room_pages in args.room_pages:
            with tempfile.TemporaryDirectory() as workdir:
                result = run(room_pages, args.taps, broker.port, Path(workdir))
            print(
                f"{result['pages']:5d}  {result['taps']:4d}  {result['p50']:6.1f}  "
                f"{result['p99']:6.1f}  {result['max']:6.1f}  {result['idle_mib']:.0f}, "
                f"{result['rss_mib']:.0f} ({result['peak_mib']:.0f})",
                flush=True,
            )
    finally:
        broker.stop()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")


if __name__ == "__main__":
    main()
