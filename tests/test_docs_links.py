"""Checks that the docs' links to a heading land on one, and that the vision guide stays a guide.

A link such as ``[docs/vision.md](vision.md#accuracy)`` breaks silently when the heading it
points to is renamed or moved to another page; GitHub then opens the page at its top. These
tests read every Markdown file under docs/ and README.md, work out each heading's anchor as
GitHub does, and fail naming the file, line and link that points nowhere.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VISION_GUIDE = ROOT / "docs" / "vision.md"
VISION_GUIDE_MAX_LINES = 400

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
INLINE_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def markdown_files() -> list[Path]:
    """The pages whose links are checked: every Markdown file under docs/, and README.md."""
    return [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """The page's lines outside fenced code blocks, numbered from 1 (a '#' in code is no heading)."""
    lines: list[tuple[int, str]] = []
    in_fence = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            lines.append((number, line))
    return lines


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: its text lowercased, punctuation dropped, spaces to '-'."""
    text = INLINE_LINK.sub(r"\1", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(path: Path) -> set[str]:
    """Every anchor a page offers: its headings' (a repeated one numbered -1, -2, as GitHub does)
    and any HTML anchors written into it."""
    seen: Counter[str] = Counter()
    anchors: set[str] = set()
    for _, line in prose_lines(path):
        anchors.update(HTML_ANCHOR.findall(line))
        match = HEADING.match(line)
        if match is None:
            continue
        anchor = github_anchor(match.group(2))
        anchors.add(anchor if seen[anchor] == 0 else f"{anchor}-{seen[anchor]}")
        seen[anchor] += 1
    return anchors


def broken_anchor_links() -> list[str]:
    """Each relative link with an anchor that names a missing file or heading, as 'file:line: why'."""
    problems: list[str] = []
    cache: dict[Path, set[str]] = {}
    for page in markdown_files():
        for number, line in prose_lines(page):
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                if "#" not in target or re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue
                file_part, anchor = target.split("#", 1)
                linked = (page.parent / file_part).resolve() if file_part else page
                where = f"{page.relative_to(ROOT)}:{number}: {target}"
                if not linked.is_file():
                    problems.append(f"{where}: no such file {file_part}")
                    continue
                if linked.suffix != ".md":
                    continue
                if linked not in cache:
                    cache[linked] = anchors_of(linked)
                if anchor not in cache[linked]:
                    problems.append(f"{where}: {linked.relative_to(ROOT)} has no heading #{anchor}")
    return problems


def test_every_anchored_link_in_the_docs_lands_on_a_heading() -> None:
    problems = broken_anchor_links()
    assert not problems, "links to a heading that is not there:\n" + "\n".join(problems)


def test_the_vision_guide_is_at_most_400_lines() -> None:
    lines = len(VISION_GUIDE.read_text(encoding="utf-8").splitlines())
    assert lines <= VISION_GUIDE_MAX_LINES, (
        f"docs/vision.md has {lines} lines, over {VISION_GUIDE_MAX_LINES}: it is the guide; "
        "move experiments and history to docs/notes/vision-history.md"
    )


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        (
            "A table learns its own dice (`tabletop dice enrol`)",
            "a-table-learns-its-own-dice-tabletop-dice-enrol",
        ),
        (
            "A camera at a slant or with a wide lens: the board (`calibrate --board`)",
            "a-camera-at-a-slant-or-with-a-wide-lens-the-board-calibrate---board",
        ),
        ("Dice vision: the lab notebook", "dice-vision-the-lab-notebook"),
        ("The `dice_model` key — and [a link](x.md)", "the-dice_model-key--and-a-link"),
    ],
)
def test_anchors_follow_githubs_rules(heading: str, anchor: str) -> None:
    assert github_anchor(heading) == anchor


def test_a_link_to_a_missing_heading_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(
        "# Guide\n\n## Set up\n\n```sh\n# not a heading\n```\n", encoding="utf-8"
    )
    (docs / "other.md").write_text(
        "See [setup](guide.md#set-up), [code](guide.md#not-a-heading) and [gone](missing.md#x).\n",
        encoding="utf-8",
    )
    (tmp_path / "README.md").write_text("[top](docs/guide.md#guide)\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    problems = broken_anchor_links()
    assert problems == [
        "docs/other.md:1: guide.md#not-a-heading: docs/guide.md has no heading #not-a-heading",
        "docs/other.md:1: missing.md#x: no such file missing.md",
    ]
