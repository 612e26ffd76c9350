"""Every file the package reads at run time is in the wheel a Pi installs.

deploy/install.sh runs a plain `pip install` of the checkout, which builds a wheel: a file under
src/tabletop/ that no `package-data` pattern of pyproject.toml names is left out of it, and the
Pi's console then has no pages (its scripts, styles and HTML were so until 2026-12-02; an
editable install, which every test uses, reads them from the checkout and never noticed).
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "tabletop"


def package_of(path: Path) -> tuple[str, str]:
    """(dotted package, path relative to it) of a data file: its nearest folder that is a
    package (holds an __init__.py)."""
    folder = path.parent
    while not (folder / "__init__.py").is_file():
        folder = folder.parent
    dotted = ".".join(folder.relative_to(ROOT / "src").parts)
    return dotted, path.relative_to(folder).as_posix()


def patterns() -> dict[str, list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data: dict[str, list[str]] = config["tool"]["setuptools"]["package-data"]
    return data


def left_out() -> list[str]:
    """Every data file under src/tabletop/ that no package-data pattern takes."""
    rules = patterns()
    missing = []
    for path in sorted(PACKAGE.rglob("*")):
        if not path.is_file() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
            continue
        package, inside = package_of(path)
        wanted = [*rules.get("*", []), *rules.get(package, [])]
        # setuptools globs each pattern from the package's folder; `*` stops at a `/`.
        if not any(
            fnmatch.fnmatch(inside, pattern) and inside.count("/") == pattern.count("/")
            for pattern in wanted
        ):
            missing.append(f"{path.relative_to(ROOT)} ({package}: {inside})")
    return missing


def test_every_data_file_is_named_for_the_wheel() -> None:
    assert left_out() == []


def test_the_console_pages_are_among_them() -> None:
    """The check above reads the real tree: the console's pages are data files it sees."""
    static = sorted((PACKAGE / "console" / "static").glob("*.html"))
    assert static, "the console's pages moved: look where the check reads"
    package, inside = package_of(static[0])
    assert package == "tabletop.console" and inside.startswith("static/")
    assert any(fnmatch.fnmatch(inside, p) for p in patterns()["tabletop.console"])
