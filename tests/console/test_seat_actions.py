"""Issue 48 items 5 and 7 in Chromium: each player acts on their own phone, the game master
sees it and can undo it, and the phones outlive the console and any one game master.

A seat's phone sends its own player's decision (POST /seat/N/act); the console names the
seat's player and the seat, the rules daemon checks it against the game
(tests/daemon/test_seat_commands.py attacks that check directly; here the same attacks come
through the console with a phone's own cookie).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tabletop.console.server import ConsoleServer
from tests.console.accessibility import assert_accessible, join_letting_axe_in
from tests.console.conftest import (
    TABLE,
    USERS,
    Table,
    gm_login,
    login,
    snapshot,
    wait_for,
)
from tests.console.test_seat_screens import codes

PHONE = {"width": 390, "height": 844}


def to_the_betting(table: Table) -> None:
    """OS-SIX, a hand of poker played open and dealt: Bo (seat 2) bets first."""
    assert table.send({"cmd": "new_game", "game": "ossix", "players": ["Ana", "Bo"]})["ok"]
    money = [{"name": "Ana", "money": 20}, {"name": "Bo", "money": 20}]
    started = table.send({"cmd": "poker_start", "players": money, "open": True})
    if not started["ok"] and started.get("field") == "open":  # before concealed poker
        started = table.send({"cmd": "poker_start", "players": money})
    assert started["ok"], started
    assert table.send({"cmd": "ante"})["ok"]
    for values in ([1, 1, 5, 5, 6], [2, 2, 3, 4, 6]):  # Bo's, then Ana's (the dealer's left)
        assert table.send({"cmd": "roll", "values": values})["ok"]


def phone_for(browser: Browser, base: str, seat: int, code: str) -> Page:
    phone = browser.new_context(viewport=PHONE).new_page()
    phone.goto(f"{base}seat/{seat}?code={code}")  # the QR code's address: the code filled in
    expect(phone.get_by_label(f"Seat {seat}'s code")).to_have_value(code)
    phone.get_by_role("button", name="Join").click()
    expect(phone.locator("#connection")).to_have_text("Table online")
    return phone


def act(phone: Page, seat: int, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """What the phone's own cookie sends, as a script on the phone could."""
    answer = phone.context.request.post(
        f"{phone.url.split('/seat/')[0]}/seat/{seat}/act",
        data=json.dumps(body),
        headers={"Content-Type": "application/json", "Origin": phone.url.split("/seat/")[0]},
    )
    result: dict[str, Any] = answer.json()
    return answer.status, result


def version(phone: Page) -> int:
    return int(snapshot(phone)["state"]["version"])


@pytest.fixture
def phones(browser: Browser) -> Iterator[list[BrowserContext]]:
    opened: list[BrowserContext] = []
    yield opened
    for context in opened:
        context.close()


def test_a_phone_bets_for_its_own_player_and_the_game_master_undoes_it(
    seated: Table, page: Page, browser: Browser, phones: list[BrowserContext]
) -> None:
    base = seated.console.url
    to_the_betting(seated)
    gm_login(page, base)
    given = codes(page)
    # a QR code per seat, of the seat's join address with its code
    qr = page.locator('#seat-codes li[data-seat="2"] img.seat-qr')
    expect(qr).to_have_attribute("alt", re.compile("seat 2's join address"))
    svg = page.request.get(f"{base}gm/seats/2/qr.svg")
    assert svg.status == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert b"<svg" in svg.body() and b"<path" in svg.body()
    assert page.evaluate("() => document.querySelector('img.seat-qr').naturalWidth") > 0

    ana, bo = (phone_for(browser, base, seat, given[seat]) for seat in (1, 2))
    phones += [ana.context, bo.context]
    expect(bo.locator("#act")).to_be_visible()
    expect(bo.locator("#act-what")).to_have_text("Your bet")
    expect(ana.locator("#act")).to_be_hidden()  # nothing asked of Ana now
    for name in ("Check", "Bet", "Fold", "All in"):
        box = bo.get_by_role("button", name=name, exact=True).bounding_box()
        assert box is not None and box["height"] >= 48 and box["width"] >= 48, (name, box)
    assert bo.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    if os.environ.get("CONSOLE_SCREENSHOTS"):  # docs/images/console-seat-act.png
        folder = Path(os.environ["CONSOLE_SCREENSHOTS"])
        (folder / "console-seat-act.png").write_bytes(bo.screenshot())  # no thread for a file
    seen = version(bo)

    bo.get_by_role("button", name="Check", exact=True).click()
    expect(bo.locator("#act-result")).to_have_text("Sent: you check.")
    expect(ana.locator("#act-what")).to_have_text("Your bet")  # Ana's turn now
    expect(page.locator("#events")).to_contain_text("Seat 2's phone: ")

    # the attacks, with each phone's own cookie: every one refused in words, nothing applied
    status, body = act(bo, 2, {"cmd": "bet", "action": "check", "answers": seen})
    assert status == 200 and body["ok"] is False
    assert body["error"] == "It is not your turn: the table waits for Ana."
    status, body = act(ana, 1, {"cmd": "bet", "action": "fold", "answers": seen})
    assert body == {
        "ok": False,
        "error": ("The table has moved on since your screen showed this: look again and choose."),
    }
    status, body = act(ana, 1, {"cmd": "ante", "answers": version(ana)})
    assert status == 400 and body["error"].startswith("Only the game master can do that")
    status, body = act(
        ana, 1, {"cmd": "bet", "action": "fold", "player": "Bo", "answers": version(ana)}
    )
    assert status == 400 and body["error"] == "Send the decision as the page does."
    status, body = act(ana, 2, {"cmd": "bet", "action": "fold", "answers": version(ana)})
    assert status == 401  # Ana's cookie opens seat 1 only
    expect(ana.locator("#act-what")).to_have_text("Your bet")  # still Ana's turn

    # the game master takes Bo's check back: Bo's turn again, his old check stale
    page.get_by_role("button", name="Undo the last command").click()
    expect(page.locator("#seat-tools-result")).to_contain_text("Taken back")
    expect(page.locator("#events")).to_contain_text("The game master took back: ")
    expect(bo.locator("#act-what")).to_have_text("Your bet")
    expect(ana.locator("#act")).to_be_hidden()
    status, body = act(bo, 2, {"cmd": "bet", "action": "check", "answers": seen})
    assert body["ok"] is False and "moved on" in body["error"]


def restart_console(table: Table) -> None:
    """The console stopped and started again on its port, as a new process would be."""
    port = table.console.port
    store = table.console.seats_file
    table.console.stop()
    table.console = ConsoleServer(
        login(table.url, "display"), TABLE, users=USERS, port=port, seats_file=store
    )
    table.console.start()


def test_a_phone_outlives_a_console_restart_and_a_game_master_s_log_out(
    seated: Table, page: Page, browser: Browser, phones: list[BrowserContext]
) -> None:
    base = seated.console.url
    to_the_betting(seated)
    gm_login(page, base)
    given = codes(page)
    bo = phone_for(browser, base, 2, given[2])
    phones.append(bo.context)
    cookie = [c["value"] for c in bo.context.cookies() if c["name"] == "tabletop_console_seat"]
    assert len(cookie) == 1
    store = seated.console.seats_file.read_text(encoding="utf-8")
    assert cookie[0] not in store  # the console keeps a digest, never the token
    expect(bo.locator("#act-what")).to_have_text("Your bet")

    restart_console(seated)
    # the phone's page reconnects by itself with the same cookie; no game master yet
    expect(bo.locator("#no-gm")).to_be_visible(timeout=20_000)
    assert bo.url.endswith("/seat/2")
    # the game master's page, its login gone with the console, goes to the login by itself
    expect(page).to_have_url(re.compile(r"/gm\?ended=1$"), timeout=20_000)
    gm_login(page, base)
    expect(page.locator("#connection")).to_have_text("Table online")
    expect(bo.locator("#no-gm")).to_be_hidden(timeout=20_000)
    wait_for(bo, lambda data: (data.get("state") or {}).get("seat") == "Bo", 20)
    assert [
        c["value"] for c in bo.context.cookies() if c["name"] == "tabletop_console_seat"
    ] == cookie
    bo.get_by_role("button", name="Check", exact=True).click()
    expect(bo.locator("#act-result")).to_have_text("Sent: you check.")

    # a second game master logs in; the first logs out: the phone goes on through the second
    other = browser.new_context().new_page()
    phones.append(other.context)
    gm_login(other, base)
    expect(other.locator("#connection")).to_have_text("Table online")
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_label("User name")).to_be_visible()
    assert seated.send({"cmd": "bet", "player": "Ana", "action": "bet", "amount": 2})["ok"]
    expect(bo.locator("#act-what")).to_have_text("$2 to call", timeout=20_000)
    expect(bo.locator("#no-gm")).to_be_hidden()
    bo.get_by_role("button", name="Call $2").click()
    expect(bo.locator("#act-result")).to_have_text("Sent: you call $2.")
    expect(bo.locator("#act-what")).to_have_text("The draw: tap the dice you keep (2 or more)")
    expect(other.locator("#events")).to_contain_text("Seat 2's phone: ")
    # the game master ends every phone's join: the phone's screen ends, and says so
    other.get_by_role("button", name="End every phone's join").click()
    expect(other.locator("#seat-tools-result")).to_have_text(
        "1 phone ended: each needs a new code to join again."
    )
    expect(bo.locator("#join-error")).to_contain_text("ask the game master for a new code")


def test_each_phone_enters_its_concealed_hand_and_keeps_dice_at_the_draw(
    seated: Table, page: Page, browser: Browser, phones: list[BrowserContext]
) -> None:
    base = seated.console.url
    assert seated.send({"cmd": "new_game", "game": "ossix", "players": ["Ana", "Bo"]})["ok"]
    money = [{"name": "Ana", "money": 20}, {"name": "Bo", "money": 20}]
    assert seated.send({"cmd": "poker_start", "players": money})["ok"]  # concealed
    assert seated.send({"cmd": "ante"})["ok"]
    gm_login(page, base)
    given = codes(page)
    ana, bo = (phone_for(browser, base, seat, given[seat]) for seat in (1, 2))
    phones += [ana.context, bo.context]
    room = browser.new_context().new_page()
    phones.append(room.context)
    room.goto(base)

    for phone, hand in ((ana, [2, 2, 3, 4, 6]), (bo, [1, 1, 5, 5, 6])):
        expect(phone.locator("#act-what")).to_have_text(
            "Throw 5 dice behind your hand and tap them"
        )
        send = phone.get_by_role("button", name="Send my hand")
        for value in hand:
            expect(send).to_be_disabled()  # five dice, no fewer
            phone.get_by_role("button", name=f"a {value}", exact=True).click()
        expect(phone.locator("#act-dice .hand")).to_have_text(" ".join(map(str, hand)))
        send.click()
        expect(phone.locator("#act-result")).to_have_text(
            f"Sent: your hand {' '.join(map(str, hand))}."
        )
    # the room sees five dice, hidden; each phone its own hand; the game master sees who sent
    wait_for(room, lambda data: bool((data.get("state") or {}).get("poker")))
    public = {s["name"]: s for s in snapshot(room)["state"]["poker"]["seats"]}
    assert public["Ana"]["dice"] is None and public["Ana"]["dice_hidden"] == 5
    own = {s["name"]: s for s in snapshot(ana)["state"]["poker"]["seats"]}
    assert own["Ana"]["dice"] == [2, 2, 3, 4, 6] and own["Bo"]["dice"] is None
    expect(page.locator("#events")).to_contain_text("Seat 1's phone: ")
    expect(page.locator("#events")).to_contain_text("Seat 2's phone: ")

    # the first betting round, from the phones: Bo checks, Ana checks; then the draw
    bo.get_by_role("button", name="Check", exact=True).click()
    expect(bo.locator("#act-result")).to_have_text("Sent: you check.")
    ana.get_by_role("button", name="Check", exact=True).click()
    expect(ana.locator("#act-result")).to_have_text("Sent: you check.")
    expect(bo.locator("#act-what")).to_have_text("The draw: tap the dice you keep (2 or more)")
    for die in ("keep the 1", "keep the 5"):
        bo.get_by_role("button", name=die).first.click()
    bo.get_by_role("button", name="Keep the dice tapped").click()
    expect(bo.locator("#act-what")).to_have_text(
        "Throw the others again behind your hand; tap the 3 new dice"
    )
    expect(bo.locator("#act-dice .hand")).to_have_text("1 5")  # the kept dice stay
    for value in (5, 5, 1):
        bo.get_by_role("button", name=f"a {value}", exact=True).click()
    bo.get_by_role("button", name="Send my new hand").click()
    expect(bo.locator("#act-result")).to_have_text("Sent: your hand 1 5 5 5 1.")

    def bo_holds(data: dict[str, Any]) -> bool:
        seats = ((data.get("state") or {}).get("poker") or {}).get("seats") or []
        mine = {s["name"]: s for s in seats}
        return sorted(mine.get("Bo", {}).get("dice") or []) == [1, 1, 5, 5, 5]

    wait_for(bo, bo_holds)  # the reply comes before the views it changed


def test_the_decision_panels_pass_axe(
    seated: Table, page: Page, browser: Browser, axe_source: str, phones: list[BrowserContext]
) -> None:
    base = seated.console.url
    assert seated.send({"cmd": "new_game", "game": "ossix", "players": ["Ana", "Bo"]})["ok"]
    money = [{"name": "Ana", "money": 20}, {"name": "Bo", "money": 20}]
    assert seated.send({"cmd": "poker_start", "players": money})["ok"]  # concealed
    assert seated.send({"cmd": "ante"})["ok"]
    gm_login(page, base)
    given = codes(page)
    ana = join_letting_axe_in(browser, base, 1, given[1])
    phones.append(ana.context)
    expect(ana.locator("#act-what")).to_have_text("Throw 5 dice behind your hand and tap them")
    assert_accessible(ana, axe_source, "a phone's 1-6 pad")
    for value in (2, 2, 3, 4, 6):
        ana.get_by_role("button", name=f"a {value}", exact=True).click()
    ana.get_by_role("button", name="Send my hand").click()
    assert seated.send({"cmd": "poker_hand", "player": "Bo", "values": [1, 1, 5, 5, 6]})["ok"]
    assert seated.send({"cmd": "bet", "player": "Bo", "action": "bet", "amount": 2})["ok"]
    expect(ana.locator("#act-what")).to_have_text("$2 to call")
    assert_accessible(ana, axe_source, "a phone's bet")
