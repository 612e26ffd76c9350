"""Benchmark of a seat's phone acting: a tap on a player's phone -> every screen showing it.

    .venv/bin/python bench/seat_action.py [--taps 30] [--room-pages 17]

A whole table on this process's threads (bench/_common.py's `Table`): the embedded broker with
users, the rules daemon reading two seats (Ana, Bo), the console. OS-SIX dice poker played open,
dealt, Bo to bet. In Debian's Chromium (headless): the game master's page logged in, the two
seats' phones joined with their codes, and N room pages, each in a browser context of its own
(N devices): 3 + N pages.

Each tap is Bo's *Check* on his phone, as a person taps it: the phone posts it to the console,
which sends it on the game master's login; the daemon checks the seat's command, applies it and
publishes the views; the console feeds every page. The tap's time is the button's click event
(Date.now on the phone); a page's time is its `table-rendered` event (after the DOM is
updated) for the first snapshot holding the check's event (the game master's page and the room
pages), or showing the turn passed to Ana (Ana's phone, Bo's own): same machine, same clock.
Between taps the game master's `undo` takes the check back (not timed). Prints p50/p99/max per
kind of screen and over all of them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import CHROMIUM, Table, gm_login, seat_codes  # noqa: E402
from tabletop.figures import percentile  # noqa: E402

# Each page notes when it first drew each event number, and when it first showed each turn.
RECORDER = """
window.benchDrawn = {};
window.benchTurn = [];
document.addEventListener("table-rendered", (event) => {
  const now = Date.now();
  for (const item of event.detail.events || [])
    if (!(item.number in window.benchDrawn)) window.benchDrawn[item.number] = now;
  const poker = (event.detail.state || {}).poker;
  const last = window.benchTurn[window.benchTurn.length - 1];
  const who = poker ? poker.to_act : null;
  if (!last || last[0] !== who) window.benchTurn.push([who, now]);
});
"""
TAPPED = """
window.benchTaps = [];
document.addEventListener("click", (event) => {
  if (event.target.closest && event.target.closest("#act-buttons button"))
    window.benchTaps.push(Date.now());
}, true);
"""


def to_the_betting(table: Table) -> None:
    assert table.send({"cmd": "new_game", "game": "ossix", "players": ["Ana", "Bo"]})["ok"]
    money = [{"name": "Ana", "money": 500}, {"name": "Bo", "money": 500}]
    assert table.send({"cmd": "poker_start", "players": money, "open": True})["ok"]
    assert table.send({"cmd": "ante"})["ok"]
    for values in ([1, 1, 5, 5, 6], [2, 2, 3, 4, 6]):
        assert table.send({"cmd": "roll", "values": values})["ok"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--taps", type=int, default=30)
    parser.add_argument("--room-pages", type=int, default=17)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        table = Table(Path(folder), daemon_options={"seats": ["Ana", "Bo"]})
        table.start()
        try:
            to_the_betting(table)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
                base = table.console.url
                gm_context = browser.new_context()
                gm_context.add_init_script(RECORDER)
                gm = gm_context.new_page()
                gm_login(gm, base)
                given = seat_codes(gm)
                phones: dict[str, Page] = {}
                for seat, name in ((1, "Ana"), (2, "Bo")):
                    context = browser.new_context(viewport={"width": 390, "height": 844})
                    context.add_init_script(RECORDER + TAPPED)
                    phone = context.new_page()
                    phone.goto(f"{base}seat/{seat}?code={given[seat]}")
                    phone.get_by_role("button", name="Join").click()
                    expect(phone.locator("#connection")).to_have_text("Table online")
                    phones[name] = phone
                rooms = []
                for _ in range(args.room_pages):
                    context = browser.new_context()
                    context.add_init_script(RECORDER)
                    room = context.new_page()
                    room.goto(base)
                    expect(room.locator("#connection")).to_have_text("Table online")
                    rooms.append(room)
                delays: dict[str, list[float]] = {"game master": [], "phones": [], "room": []}
                bo = phones["Bo"]
                for _ in range(args.taps):
                    check = bo.get_by_role("button", name="Check", exact=True)
                    expect(check).to_be_enabled()
                    before = gm.evaluate(
                        "() => Math.max(0, ...Object.keys(window.benchDrawn).map(Number))"
                    )
                    taps_before = bo.evaluate("() => window.benchTaps.length")
                    check.click()
                    expect(bo.locator("#act-result")).to_have_text("Sent: you check.")
                    tapped = float(bo.evaluate(f"() => window.benchTaps[{taps_before}]"))
                    # the check's event number, as the game master's page drew it
                    deadline = time.monotonic() + 20
                    number: int | None = None
                    while number is None:
                        found = gm.evaluate(
                            """() => [...document.querySelectorAll('#events li')]
                              .filter((li) => li.textContent.includes("Seat 2's phone"))
                              .map((li) => Number(li.value))"""
                        )
                        newer = [n for n in found if n > before]
                        number = max(newer) if newer else None
                        if number is None:
                            assert time.monotonic() < deadline, "the check never showed"
                            gm.wait_for_timeout(20)
                    for page, kind in [(gm, "game master")] + [(r, "room") for r in rooms]:
                        drawn = wait_drawn(page, number)
                        delays[kind].append(drawn - tapped)
                    passed = []
                    for phone in phones.values():
                        passed.append(wait_turn(phone, "Ana", tapped))
                        delays["phones"].append(passed[-1] - tapped)
                    assert table.send({"cmd": "undo"})["ok"]
                    for phone, when in zip(phones.values(), passed, strict=True):
                        wait_turn(phone, "Bo", when)
                browser.close()
        finally:
            table.stop()
    everything = [d for values in delays.values() for d in values]
    print(
        f"{args.taps} taps on a seat's phone, {3 + args.room_pages} pages (the game master's, "
        f"2 phones, {args.room_pages} room pages)"
    )
    for kind, values in (*delays.items(), ("every screen", everything)):
        print(
            f"  {kind:12s} p50 {statistics.median(values):6.0f} ms  "
            f"p99 {percentile(values, 0.99):6.0f} ms  max {max(values):6.0f} ms  ({len(values)})"
        )
    return 0


def wait_drawn(page: Page, number: int) -> float:
    deadline = time.monotonic() + 20
    while True:
        drawn: Any = page.evaluate(f"() => window.benchDrawn[{number}]")
        if drawn is not None:
            return float(drawn)
        assert time.monotonic() < deadline, f"event {number} never drawn"
        page.wait_for_timeout(10)


def wait_turn(page: Page, who: str, after: float) -> float:
    deadline = time.monotonic() + 20
    while True:
        turns: list[list[Any]] = page.evaluate("() => window.benchTurn")
        for name, when in turns:
            if name == who and float(when) >= after:
                return float(when)
        assert time.monotonic() < deadline, f"{who}'s turn never shown"
        page.wait_for_timeout(10)


if __name__ == "__main__":
    raise SystemExit(main())
