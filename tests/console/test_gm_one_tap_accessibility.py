"""The one-tap answers and the rows per player pass axe-core (issue 48, items 4 and 8): OS-SIX's
bets with the poker table's rows of money, and Six Shooter's cards to tap with the lists of the
seats' cards and the contest's rows."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.console.accessibility import assert_accessible
from tests.console.conftest import Table, gm_login
from tests.console.test_gm_one_tap import _poker
from tests.daemon.daemon_helpers import ROSTER


def test_the_bets_and_the_rows_of_money_pass_axe(
    table: Table, axe_page: Page, axe_source: str
) -> None:
    _poker(table)
    for hand in ((6, 6, 1, 2, 3), (5, 5, 1, 2, 4)):
        assert table.send({"cmd": "roll", "values": list(hand)})["ok"]
    gm_login(axe_page, table.console.url)
    expect(axe_page.locator("#quick .quick-button").first).to_be_visible()
    expect(axe_page.locator('form[data-verb="poker"] .pair-row').first).to_be_attached()
    assert_accessible(axe_page, axe_source, "the GM page at a poker bet")


def test_the_cards_to_tap_and_the_lists_of_cards_pass_axe(
    table: Table, axe_page: Page, axe_source: str
) -> None:
    assert table.send(ROSTER)["ok"]
    gm_login(axe_page, table.console.url)
    expect(axe_page.locator('#quick button[data-player="Ana"]').first).to_be_visible()
    expect(axe_page.locator('form[data-verb="contest"] .pair-row select').first).to_be_attached()
    assert_accessible(axe_page, axe_source, "the GM page at Six Shooter's deal")
