"""The game master answers what the game awaits in one tap (issue 48, items 4 and 8): the
prompt drives big buttons (Check, Fold, All in; a 1-6 pad for dice; Yes/No; a seat's cards to
tap), the player to act is chosen in the awaited forms, a form is fresh after its command, a
form shows no command-line syntax, a command sent while the table is offline says so at once,
and /gm/login opened by hand is a page."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from tests.console.conftest import Table, gm_login, shoot
from tests.daemon.daemon_helpers import ROSTER


def _online(page: Page, table: Table) -> None:
    gm_login(page, table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")


def _poker(table: Table) -> None:
    """OS-SIX with Ana and Bo at the poker table, the ante paid: Ana throws her hand first."""
    assert table.send({"cmd": "new_game", "game": "ossix", "players": ["Ana", "Bo"]})["ok"]
    seats = [{"name": "Ana", "money": 10}, {"name": "Bo", "money": 10}]
    # played open: each hand thrown in the tray, so the game awaits each throw in turn (a
    # version of OS-SIX without concealed hands takes no "open", and plays open)
    if not table.send({"cmd": "poker_start", "players": seats, "open": True})["ok"]:
        assert table.send({"cmd": "poker_start", "players": seats})["ok"]
    assert table.send({"cmd": "ante"})["ok"]


def test_dice_are_a_pad_and_a_bet_is_one_tap(table: Table, page: Page) -> None:
    _poker(table)
    _online(page, table)
    quick = page.locator("#quick")
    expect(quick).to_be_visible()
    expect(page.locator("#prompt")).to_contain_text("throw 5 dice")
    thrower = page.evaluate("() => window.tableSnapshot.prompt.who[0]")
    # five taps on the pad enter the throw: sent when the fifth die is tapped
    pad = quick.locator('.quick-part[data-verb="roll"]')
    expect(pad.locator(".quick-label")).to_contain_text("tap the 5 dice")
    for value in (6, 6, 1, 2, 3):
        pad.get_by_role("button", name=f"a die showing {value}", exact=True).click()
    expect(page.locator("#quick-result")).to_have_text("Done.")
    expect(page.locator("#prompt")).not_to_contain_text(f"{thrower}: throw 5 dice")
    other = page.evaluate("() => window.tableSnapshot.prompt.who[0]")
    assert other != thrower
    for value in (5, 5, 1, 2, 4):
        pad.get_by_role("button", name=f"a die showing {value}", exact=True).click()
    # the betting: nothing to call yet, so Check, Bet, Fold and All in, not Call or Raise
    expect(page.locator("#prompt")).to_contain_text("to bet")
    bettor = page.evaluate("() => window.tableSnapshot.prompt.pending.player")
    buttons = quick.locator(".quick-button")
    expect(buttons).to_have_text(["Check", "Fold", "All in", "Bet"])
    expect(quick.locator(".quick-label").first).to_have_text(f"For {bettor}:")
    expect(quick.locator(".quick-amount")).to_have_value("1")  # the least bet filled in
    # the player to act is chosen in the awaited forms too
    expect(page.locator('form[data-verb="fold"] select[name="player"]')).to_have_value(bettor)
    shoot(page, "console-gm-one-tap")
    quick.get_by_role("button", name="Check", exact=True).click()
    expect(page.locator("#quick-result")).to_have_text("Done.")
    after = next(name for name in ("Ana", "Bo") if name != bettor)
    expect(page.locator('form[data-verb="fold"] select[name="player"]')).to_have_value(after)
    expect(quick.locator(".quick-label").first).to_have_text(f"For {after}:")
    # a bet of $2, then something is to call: Call, Fold, All in and Raise
    quick.locator(".quick-amount").fill("2")
    quick.get_by_role("button", name="Bet", exact=True).click()
    expect(quick.locator(".quick-label").first).to_have_text(f"For {bettor}:")
    expect(buttons).to_have_text(["Call", "Fold", "All in", "Raise"])
    quick.get_by_role("button", name="Call", exact=True).click()
    expect(page.locator("#quick-result")).to_have_text("Done.")
    expect(page.locator("#events li").first).to_contain_text("call")


def test_a_seats_cards_are_tapped_and_a_form_is_fresh_after_its_command(
    table: Table, page: Page
) -> None:
    assert table.send(ROSTER)["ok"]
    _online(page, table)
    quick = page.locator("#quick")
    reveal = quick.locator('.quick-part[data-verb="reveal"]')
    expect(reveal.locator(".quick-label")).to_have_text(
        "A player turns a card face up: tap the card (by its slot)"
    )
    expect(reveal.locator('button[data-player="Ana"]')).to_have_count(6)
    reveal.locator('button[data-player="Ana"][data-slot="2"]').click()
    expect(page.locator("#quick-result")).to_have_text("Done.")
    expect(page.locator("#events li").first).to_contain_text("Ana turns slot 2 face-up")
    expect(reveal.locator('button[data-player="Ana"]')).to_have_count(0)  # Ana has chosen
    # Bo's card by the form: the form is cleared once it is taken
    form = page.locator('form[data-verb="reveal"]')
    form.locator('select[name="player"]').select_option("Bo")
    form.get_by_label("slot").fill("4")
    form.get_by_role("button", name="A player turns a card face up").click()
    expect(form.locator(".result")).to_have_text("Done.")
    expect(form.get_by_label("slot")).to_have_value("")
    expect(quick).to_be_hidden()  # the game now waits for the game master's call


def test_the_awaited_forms_come_into_view(table: Table, page: Page) -> None:
    assert table.send(ROSTER)["ok"]
    _online(page, table)
    expect(page.locator('.group.now form[data-verb="reveal"]')).to_be_visible()
    # the game master scrolled down the actions to another group
    page.locator(".actions").evaluate("box => { box.scrollTop = box.scrollHeight; }")
    expect(page.locator(".group.now")).not_to_be_in_viewport()
    for player, slot in (("Ana", 1), ("Bo", 2)):  # the deal's choices, made at the table
        assert table.send({"cmd": "reveal", "player": player, "slot": slot})["ok"]
    # the game waits for the game master's call now: those forms are scrolled into view
    expect(page.locator('.group.now form[data-verb="challenge"]')).to_be_in_viewport()


def test_yes_or_no_is_two_buttons(table: Table, page: Page) -> None:
    assert table.send(ROSTER)["ok"]
    _online(page, table)
    # a Lucky Number's offer as the daemon words it (the deal that makes one is chance's)
    prompt = page.evaluate("() => window.tableSnapshot.prompt")
    offer = {
        **prompt,
        "prompt": "Ana: the 7 of spades matched your Lucky Number; draw a replacement into "
        "slot 3, yes or no?",
        "waiting": "choice",
        "who": ["Ana"],
        "pending": {"type": "lucky", "player": "Ana", "slot": 3, "card": "7S"},
    }
    table.publish_as_daemon("referee/prompt", offer)
    lucky = page.locator('#quick .quick-part[data-verb="lucky"]')
    expect(lucky.get_by_role("button")).to_have_text(["Yes", "No"])
    with page.expect_request("**/gm/actions/lucky") as sent:
        lucky.get_by_role("button", name="No").click()
    assert json.loads(sent.value.post_data or "{}") == {"player": "Ana", "answer": "no"}
    # the game had made no such offer: its refusal, in words, under the buttons
    expect(page.locator("#quick-result")).to_contain_text("Refused: ")


def test_a_value_per_player_is_a_row_each_not_syntax(table: Table, page: Page) -> None:
    assert table.send({"cmd": "new_game", "game": "ossix", "players": ["Ana", "Bo"]})["ok"]
    _online(page, table)
    poker = page.locator('form[data-verb="poker"]')
    rows = poker.locator(".pair-row")
    expect(rows).to_have_count(4)  # Ana, Bo, and two for the game master's NPCs
    expect(rows.nth(0).locator("[data-part=name]")).to_have_value("Ana")
    poker.get_by_label("Ana: money").fill("10")
    poker.get_by_label("Bo: money").fill("12")
    poker.get_by_label("Name of another player 1").fill("Black Bart")
    poker.get_by_label("another player 1: money").fill("20")
    page_text = poker.inner_text()
    assert "=" not in page_text and "NAME" not in page_text and "--" not in page_text
    poker.get_by_role("button", name="Start dice poker").click()
    expect(poker.locator(".result")).to_have_text("Done.")
    # The reply comes before the state it changed: wait for the state itself.
    page.wait_for_function("() => window.tableSnapshot?.state?.poker?.seats?.length === 3")
    gamblers = page.evaluate(
        "() => window.tableSnapshot.state.poker.seats.map(p => [p.name, p.money])"
    )
    assert gamblers == [["Ana", 10], ["Bo", 12], ["Black Bart", 20]]


def test_offline_is_said_at_once_and_the_login_address_is_a_page(table: Table, page: Page) -> None:
    assert table.send(ROSTER)["ok"]
    _online(page, table)
    table.stop_daemon()
    expect(page.locator("#connection")).to_contain_text("Table offline")
    form = page.locator('form[data-verb="reveal"]')
    form.locator('select[name="player"]').select_option("Ana")
    form.get_by_label("slot").fill("2")
    form.get_by_role("button", name="A player turns a card face up").click()
    # At once, not after the ten seconds a reply is waited for: the words say which path it
    # took ("Not sent", never "No answer"), so the test needs no stopwatch.
    expect(form.locator(".result")).to_have_text(
        "Not sent: the table is offline: the rules daemon is not running", timeout=30_000
    )
    opened = page.context.new_page()
    response = opened.goto(table.console.url + "gm/login")
    assert response is not None and response.ok
    expect(opened.get_by_role("button", name="Log out")).to_be_visible()  # logged in: the page
    fresh = page.context.browser
    assert fresh is not None
    stranger = fresh.new_page()
    try:
        answered = stranger.goto(table.console.url + "gm/login")
        assert answered is not None and answered.ok
        assert "html" in (answered.headers.get("content-type") or "")
        expect(stranger.get_by_role("button", name="Log in")).to_be_visible()
    finally:
        stranger.close()


def test_a_pool_of_dice_is_tapped_and_kept(table: Table, page: Page) -> None:
    new: dict[str, object] = {"cmd": "new_game", "game": "steamfunkateers"}
    new["players"] = ["Ana", "Bo"]
    new["options"] = {"starting_vigor": 1}  # a point of Vigor: a reroll is offered
    assert table.send(new)["ok"]
    assert table.send({"cmd": "check", "pools": [{"player": "Ana", "rank": 4}]})["ok"]
    _online(page, table)
    quick = page.locator("#quick")
    pad = quick.locator('.quick-part[data-verb="roll"]')
    expect(pad.locator(".quick-label")).to_contain_text("tap the 4 dice")
    for value in (2, 3, 6):
        pad.get_by_role("button", name=f"a die showing {value}", exact=True).click()
    expect(pad.locator(".quick-dice")).to_have_text("Dice: 2 3 6 (3 of 4)")
    pad.get_by_role("button", name="Undo the last die").click()  # a slip of the finger
    for value in (1, 4):
        pad.get_by_role("button", name=f"a die showing {value}", exact=True).click()
    expect(page.locator("#quick-result")).to_have_text("Done.")
    expect(page.locator("#prompt")).to_contain_text("or keep them")
    # no six: the dice are kept (the point of Vigor too), in one tap
    keep = quick.get_by_role("button", name="Keep the dice (no reroll)")
    expect(keep).to_be_visible()
    keep.click()
    expect(page.locator("#quick-result")).to_have_text("Done.")
    expect(page.locator("#events li").first).to_contain_text("Ana 0 sixes")
    expect(quick).to_be_hidden()


def test_a_concealed_hand_is_entered_on_the_pad(table: Table, page: Page) -> None:
    assert table.send({"cmd": "new_game", "game": "ossix", "players": ["Ana", "Bo"]})["ok"]
    seats = [{"name": "Ana", "money": 10}, {"name": "Black Bart", "money": 10}]
    assert table.send({"cmd": "poker_start", "players": seats})["ok"]  # concealed hands
    assert table.send({"cmd": "ante"})["ok"]
    _online(page, table)
    hand = page.locator('#quick .quick-part[data-verb="hand"]')
    expect(hand.locator(".quick-label")).to_have_text(
        "Enter a concealed hand (Ana): tap the 5 dice", ignore_case=True
    )
    for value in (6, 6, 2, 3, 4):
        hand.get_by_role("button", name=f"a die showing {value}", exact=True).click()
    expect(page.locator("#quick-result")).to_have_text("Done.")
    # the game master's NPC next: the pad is for Black Bart now
    expect(hand.locator(".quick-label")).to_contain_text("(Black Bart)")
