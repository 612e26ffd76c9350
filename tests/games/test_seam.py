"""The seam between the table and its games: only the registry names a game's package."""

from __future__ import annotations

import ast
from pathlib import Path

from tabletop.rules import games

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
# Every folder with Python in it: the packages under src/tabletop/ (console, wire, ...) and,
# beside src/, the benchmarks and the scripts, found rather than listed, so a new one is
# checked too. Only tests/ may import a game directly (a game's own tests exercise its engine).
FOLDERS = (
    SRC / "tabletop",
    *sorted(
        folder
        for folder in ROOT.iterdir()
        if folder.is_dir()
        and not folder.name.startswith(".")
        and folder.name not in ("tests", "src")
        and any(folder.rglob("*.py"))
    ),
)
# A file's package as the scan names it: the folder beside src/, or tabletop's sub-package.
PACKAGES = tuple(
    sorted(
        {folder.name for folder in FOLDERS}
        | {sub.name for sub in (SRC / "tabletop").iterdir() if (sub / "__init__.py").exists()}
    )
)


def package_of(path: Path) -> str:
    """The package the scan counts `path` in: `bench`, `tabletop` for src/tabletop/cli.py,
    `console` for src/tabletop/console/app.py."""
    if not path.is_relative_to(SRC):
        return path.relative_to(ROOT).parts[0]
    parts = path.relative_to(SRC / "tabletop").parts
    return parts[0] if len(parts) > 1 else "tabletop"


GAME_PACKAGES = tuple(games.built_in_packages())
REGISTRY = ROOT / "src" / "tabletop" / "rules" / "games" / "registry.py"


def parse(source: str) -> ast.Module:
    """`ast.parse`, tried again on CPython 3.11's spurious "SystemError: AST constructor
    recursion depth mismatch": its AST builder keeps one depth counter for the interpreter,
    which a parse on another thread at the same moment (pytest's assertion rewriter, importing
    a module for a fixture's thread) upsets (CPython gh-106905). Nothing in the source is wrong,
    and the next try parses it."""
    for _ in range(4):
        try:
            return ast.parse(source)
        except SystemError as error:
            if "recursion depth mismatch" not in str(error):
                raise
    return ast.parse(source)


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, relative imports resolved against its package."""
    tree = parse(path.read_text(encoding="utf-8"))
    base = SRC if path.is_relative_to(SRC) else ROOT
    package = ".".join(path.relative_to(base).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def test_every_top_level_package_is_scanned() -> None:
    assert {"rules", "bridge", "tabletop", "wire", "console", "bench"} <= set(PACKAGES)
    assert "tests" not in PACKAGES


def test_nothing_outside_a_game_imports_it_but_the_registry() -> None:
    """Outside a game's package only src/tabletop/rules/games/registry.py names it; one game
    never imports another."""
    assert "tabletop.rules.games.sixshooter" in GAME_PACKAGES and len(GAME_PACKAGES) >= 2
    offenders = []
    checked: set[str] = set()
    for folder in FOLDERS:
        for path in sorted(folder.rglob("*.py")):
            package = package_of(path)
            if path == REGISTRY:
                continue
            home = [g for g in GAME_PACKAGES if path.is_relative_to(SRC / Path(*g.split(".")))]
            # A benchmark of one game's own parts (`bench/showdown_hands.py` measures its race
            # judge) is that game's, as its tests are: named for it, it may import it alone.
            if package == "bench":
                home += [g for g in GAME_PACKAGES if path.stem.startswith(f"{g.split('.')[-1]}_")]
            checked.add(package)
            for module in imported_modules(path):
                if any(
                    module == g or module.startswith(f"{g}.")
                    for g in GAME_PACKAGES
                    if g not in home
                ):
                    offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert {"console", "wire"} <= checked, (
        "the scan read src/tabletop/console/ and src/tabletop/wire/"
    )
    assert offenders == []


def test_the_scan_resolves_relative_and_absolute_imports() -> None:
    """The check above would miss nothing: both forms of import are seen."""
    inside = imported_modules(
        ROOT / "src" / "tabletop" / "rules" / "games" / "sixshooter" / "game.py"
    )
    assert {"tabletop.rules.games.sixshooter.engine", "tabletop.rules.games.game"} <= inside
    assert "tabletop.rules.games" in imported_modules(
        ROOT / "src" / "tabletop" / "daemon" / "referee.py"
    )


# What every game's package holds, by the same names (docs/architecture.md, "Writing a game"):
# a reader who knows one game finds the same part of another in the same file. A game may add
# files of its own (OS-SIX's poker.py, Showdown's decks.py).
EVERY_GAME_HAS = (
    "game.py",  # the GameRules adapter the registry finds
    "events.py",
    "state.py",
    "engine.py",
    "view.py",
    "reading.py",  # the table reader
    "actions.py",  # the game master's verbs
    "people.py",  # the simulated people
    "screen.js",  # the console's drawing of it
)


def test_every_game_is_the_same_set_of_files() -> None:
    missing = [
        f"{package}: {name}"
        for package in GAME_PACKAGES
        for name in EVERY_GAME_HAS
        if not (SRC.joinpath(*package.split(".")) / name).is_file()
    ]
    assert GAME_PACKAGES and missing == []
