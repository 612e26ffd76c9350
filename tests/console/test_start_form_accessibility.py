"""The start form's rows per player (issue 48 item 1) have no serious axe finding, and each
choice is a tap target of 44 px at least, on a tablet and a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.console.accessibility import assert_accessible
from tests.console.conftest import Table, gm_login


@pytest.mark.parametrize("screen", [(768, 1024), (390, 844)])
@pytest.mark.parametrize("game", ["sixshooter", "showdown"])
def test_the_rows_per_player_are_accessible(
    table: Table, axe_page: Page, axe_source: str, game: str, screen: tuple[int, int]
) -> None:
    page = axe_page
    width, height = screen
    page.set_viewport_size({"width": width, "height": height})
    gm_login(page, table.console.url)
    expect(page.locator("#connection")).to_have_text("Table online")
    if game != "sixshooter":
        page.get_by_label("Game (pick another to start it)").select_option(game)
        expect(page.locator("form.action")).to_have_count(1)
    new = page.locator('form[data-verb="new"]')
    new.get_by_label("roster", exact=True).fill("Ana\nBo")
    expect(new.locator(".player-row")).to_have_count(2)
    assert_accessible(page, axe_source, f"{game}'s start form at {width}x{height}")
    small = new.locator(".player-row select, .player-row input").evaluate_all(
        """nodes => nodes.map(n => [n.id, n.getBoundingClientRect()])
                    .filter(([, r]) => r.width < 44 || r.height < 44)
                    .map(([id, r]) => `${id} ${r.width}x${r.height}`)"""
    )
    assert small == []
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= width, f"the page is {wide} px wide on a {width} px screen"
