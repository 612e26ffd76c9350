"""The seam between the table and its games: only the registry names a game's package."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Every package of the project; tests and benchmarks go through the registry as well.
PACKAGES = ("rules", "bridge", "hardware", "vision", "tabletop", "firmware", "bench")
GAME_PACKAGES = ("rules.sixshooter",)
REGISTRY = ROOT / "rules" / "games.py"


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, relative imports resolved against its package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
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


def test_nothing_outside_a_game_imports_it_but_the_registry() -> None:
    offenders = []
    checked = 0
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            inside = any(
                path.is_relative_to(ROOT / Path(*game.split("."))) for game in GAME_PACKAGES
            )
            if inside or path == REGISTRY:
                continue
            checked += 1
            for module in imported_modules(path):
                if any(module == g or module.startswith(f"{g}.") for g in GAME_PACKAGES):
                    offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert checked > 50, "the scan found the project's files"
    assert offenders == []


def test_the_scan_resolves_relative_and_absolute_imports() -> None:
    """The check above would miss nothing: both forms of import are seen."""
    inside = imported_modules(ROOT / "rules" / "sixshooter" / "game.py")
    assert {"rules.sixshooter.engine", "rules.game"} <= inside
    assert "rules.games" in imported_modules(ROOT / "rules" / "daemon" / "referee.py")
