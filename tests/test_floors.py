"""The house's floors: each package of `tabletop` imports only packages on floors below its own.

docs/architecture.md ("Which way the imports go") draws the same table. A package's floor is
where the data flow puts it: the wire formats, the errors, the firmware and the pure games at
the bottom, the command line and the simulated table at the top. An import that runs back up
(the daemon reaching into the bridge for the table's file, say) fails here naming the file,
the line and both floors; a new package fails until it is given a floor.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "tabletop"

FLOORS: dict[str, int] = {
    # 0: nothing of ours below them; none imports another.
    "errors": 0,
    "firmware": 0,
    "wire": 0,
    "rules": 0,
    # 1: the device drivers (the firmware they run, the games' card model).
    "hardware": 1,
    # 2: dice recognition (the camera's frames).
    "vision": 2,
    # 3: the table's file, which every program reads (the drivers' and the games' names in it).
    "config": 3,
    # 4: the programs: each stands on what is below and on none of the others.
    "bridge": 4,
    "daemon": 4,
    "console": 4,
    # 5: `tabletop` itself: the command line, the simulated table, `tabletop check`.
    "tabletop": 5,
}


def unit_of(module: str) -> str | None:
    """The package of ours a dotted module belongs to (`tabletop.wire.mqtt` -> `wire`), the
    top floor for tabletop's own modules (`tabletop.sim.runner` -> `tabletop`); None for a
    module not ours."""
    parts = module.split(".")
    if parts[0] != "tabletop":
        return None
    if len(parts) > 1 and parts[1] in FLOORS:
        return parts[1]
    return "tabletop"


def module_of(path: Path) -> tuple[str, list[str]]:
    """(dotted name, its package's parts) of a file under src/."""
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), parts
    return ".".join(parts), parts[:-1]


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in `path`, relative ones resolved; `from a import b`
    gives `a.b` too, since b may be a module."""
    _, package = module_of(path)
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = package[: len(package) - node.level + 1]
                base = ".".join([*kept, base] if base else kept)
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def arrows_up() -> list[str]:
    """Each import from a package to one on its own floor or above, as a sentence."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name, _ = module_of(path)
        here = unit_of(name)
        assert here is not None
        for line, module in imports_of(path):
            there = unit_of(module)
            # `from tabletop import rules` resolves to tabletop.rules: the package rules.
            if there is None or there == here or module == "tabletop":
                continue
            if FLOORS[there] >= FLOORS[here]:
                found.append(
                    f"{path.relative_to(SRC.parent)}:{line} imports {module}: {here} is on "
                    f"floor {FLOORS[here]}, {there} on floor {FLOORS[there]}"
                )
    return found


def test_every_package_has_a_floor() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    # tabletop's own sub-packages (the simulated table, `tabletop check`) are its top floor.
    own = {"sim", "check"}
    assert packages - own - set(FLOORS) == set(), "give each new package a floor in FLOORS"
    assert set(FLOORS) - {"tabletop"} <= packages, "a floor names a package that is gone"


def test_no_import_runs_up_the_floors() -> None:
    assert arrows_up() == []


def test_the_check_sees_an_arrow_up() -> None:
    """The scan resolves relative imports and `from tabletop import x`, so it would see one."""
    daemon = PACKAGE / "daemon" / "cli.py"
    found = [module for _, module in imports_of(daemon)]
    assert any(unit_of(m) == "config" for m in found), "the daemon reads the table's file"
    leds = PACKAGE / "hardware" / "leds" / "backends.py"
    assert any(m.startswith("tabletop.hardware.leds.") for _, m in imports_of(leds))
    wire = PACKAGE / "wire" / "mqtt.py"
    assert all(unit_of(m) in (None, "wire", "tabletop") for _, m in imports_of(wire))
    assert unit_of("tabletop.console.app") == "console"
    assert unit_of("tabletop.sim.runner") == "tabletop"
    assert FLOORS[unit_of("tabletop.console.app") or ""] >= FLOORS["bridge"]
