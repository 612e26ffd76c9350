"""axe-core in the console's pages: the check every accessibility test makes (issue 32.6).

axe-core comes from npm (tests/console/axe/package-lock.json pins it; scripts/test.sh runs
`npm ci` there). It is injected as an inline script, which the console's
Content-Security-Policy refuses, as it should any script not the console's own: the pages it
reads are opened with `bypass_csp` (the `axe_page` fixture of conftest.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

AXE = Path(__file__).parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")
# The rules that tell whether colour is the only signal somewhere: each must have run on a page.
COLOUR_RULES = ("color-contrast", "link-in-text-block")



def axe_script() -> str:
    """axe-core's source, or the test fails saying how to install it."""
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: scripts/test.sh installs it (npm ci in {AXE.parents[2]})")
    return AXE.read_text(encoding="utf-8")


def findings(page: Page, axe_source: str) -> dict[str, Any]:
    """axe.run's result on the page as it is now (every rule of axe's default set)."""
    page.add_script_tag(content=axe_source)
    result: dict[str, Any] = page.evaluate(
        """async () => {
             const r = await axe.run(document, { resultTypes: ["violations"] });
             const slim = (items) => items.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
               nodes: v.nodes.map((n) => ({ target: n.target.join(" "), impact: n.impact,
                                            summary: n.failureSummary })) }));
             return { violations: slim(r.violations),
                      ran: [...r.passes, ...r.incomplete, ...r.inapplicable, ...r.violations]
                           .map((v) => v.id) };
           }"""
    )
    return result


def assert_accessible(page: Page, axe_source: str, name: str) -> None:
    result = findings(page, axe_source)
    bad = [
        f"{violation['id']} ({node['impact']}) at {node['target']}: {node['summary']}"
        for violation in result["violations"]
        for node in violation["nodes"]
        if node["impact"] in SERIOUS
    ]
    assert not bad, f"{name}: axe finds\n" + "\n".join(bad)
    for rule in COLOUR_RULES:
        assert rule in result["ran"], f"{name}: axe did not run {rule}"


def join_letting_axe_in(browser: Browser, base: str, seat: int, code: str) -> Page:
    """A phone joined to `seat`, as test_seat_screens.join, on a page that lets axe in."""
    phone = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    page = phone.new_page()
    page.goto(f"{base}seat/{seat}")
    page.get_by_label(f"Seat {seat}'s code").fill(code.lower())
    page.get_by_role("button", name="Join").click()
    expect(page.locator("#connection")).to_have_text("Table online")
    return page
