"""The one-tap answers and the rows per player pass axe-core (issue 48, items 4 and 8): OS-SIX's
bets with the poker table's rows of money, and Six Shooter's cards to tap with the lists of the
seats' cards and the contest's rows."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.console.conftest import Table, gm_login
from tests.console.test_accessibility import AXE, assert_accessible
from tests.console.test_gm_one_tap import _poker
from tests.daemon.daemon_helpers import ROSTER


@pytest.fixture
def axe_page(browser: Browser) -> Iterator[Page]:
    """A tablet's page that lets axe in (an inline script, which the console's CSP refuses)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    opened = context.new_page()
    try:
        yield opened
    finally:
        context.close()


def _axe() -> str:
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: scripts/test.sh installs it (npm ci in {AXE.parents[2]})")
    return AXE.read_text(encoding="utf-8")


def test_the_bets_and_the_rows_of_money_pass_axe(table: Table, axe_page: Page) -> None:
    _poker(table)
    for hand in ((6, 6, 1, 2, 3), (5, 5, 1, 2, 4)):
        assert table.send({"cmd": "roll", "values": list(hand)})["ok"]
    gm_login(axe_page, table.console.url)
    expect(axe_page.locator("#quick .quick-button").first).to_be_visible()
    expect(axe_page.locator('form[data-verb="poker"] .pair-row').first).to_be_attached()
    assert_accessible(axe_page, _axe(), "the GM page at a poker bet")


def test_the_cards_to_tap_and_the_lists_of_cards_pass_axe(table: Table, axe_page: Page) -> None:
    assert table.send(ROSTER)["ok"]
    gm_login(axe_page, table.console.url)
    expect(axe_page.locator('#quick button[data-player="Ana"]').first).to_be_visible()
    expect(axe_page.locator('form[data-verb="contest"] .pair-row select').first).to_be_attached()
    assert_accessible(axe_page, _axe(), "the GM page at Six Shooter's deal")
