#!/usr/bin/env python3
"""Moves a module or package of `tabletop` to another name, with its history and every mention.

    scripts/move-module.py tabletop.rules.daemon tabletop.daemon
    scripts/move-module.py tabletop.hardware.leds.frames tabletop.wire.leds [OLD NEW ...]

For each pair it `git mv`s the file or folder under src/ (so `git log --follow` finds its
history) and rewrites, in every tracked text file: the dotted name (imports, patch targets,
docstrings, docs), the path (`src/tabletop/hardware/leds/frames.py`, and in the docs the short
form named from src/tabletop/, `hardware/leds/frames.py`), and relative imports that cross the
moved module's edge (made absolute, since the two ends no longer sit side by side). Run it on a
clean tree, read the diff, then run the suite: it changes words, not behaviour, and a mention
it cannot tell from prose (a bare `frames` in a sentence) is left for the reader.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

TEXT = {".py", ".md", ".toml", ".sh", ".service", ".mjs", ".txt", ".env", ".cfg", ".ini", ""}
# What earlier releases said stays as they said it; the history scripts are history too.
KEEP = {"CHANGELOG.md", "docs/notes/one-import-name.py"}
RELATIVE = re.compile(r"^(\s*from\s+)(\.+)([\w.]*)(\s+import\s+)", re.M)


class MoveError(Exception):
    """A move that cannot be made as asked: the module is missing or the target exists."""


def source_of(dotted: str) -> Path:
    """The file or folder of a module of ours, by its dotted name."""
    base = Path("src", *dotted.split("."))
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base
    raise MoveError(f"{dotted}: no {base}.py and no {base}/__init__.py")


def module_of(path: Path) -> tuple[str, bool]:
    """(dotted name, is a package's __init__) of a .py file under src/."""
    parts = path.relative_to("src").with_suffix("").parts
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def absolute(path: Path, dots: str, rest: str) -> str:
    """The absolute module a relative `from <dots><rest> import` in `path` names."""
    name, is_package = module_of(path)
    package = name.split(".") if is_package else name.split(".")[:-1]
    base = package[: len(package) - (len(dots) - 1)]
    return ".".join([*base, rest] if rest else base)


def inside(module: str, root: str) -> bool:
    return module == root or module.startswith(root + ".")


def crossing_imports_made_absolute(files: list[str], old: str, new: str) -> int:
    """Rewrites each relative import that crosses `old`'s edge as an absolute one; where `new`
    stays beside `old` (a module renamed in its package), each relative import of it keeps
    its dots and takes the new name, and the moved module's own imports are left as they are."""
    old_parent, _, _ = old.rpartition(".")
    new_parent, _, new_leaf = new.rpartition(".")
    renamed = old_parent == new_parent
    changed = 0
    for file in files:
        path = Path(file)
        if not (file.startswith("src/") and path.suffix == ".py"):
            continue
        here, _ = module_of(path)
        text = path.read_text()

        def one(m: re.Match[str], here: str = here, path: Path = path) -> str:
            target = absolute(path, m.group(2), m.group(3))
            if renamed:
                if not inside(target, old) or inside(here, old):
                    return m.group(0)
                parts = m.group(3).split(".")
                parts[len(parts) - 1 - (target.count(".") - old.count("."))] = new_leaf
                return f"{m.group(1)}{m.group(2)}{'.'.join(parts)}{m.group(4)}"
            if inside(here, old) != inside(target, old):
                return f"{m.group(1)}{target}{m.group(4)}"
            return m.group(0)

        new = RELATIVE.sub(one, text)
        if new != text:
            path.write_text(new)
            changed += 1
    return changed


def rewrite(files: list[str], old: str, new: str, old_path: Path, new_path: Path) -> int:
    dotted = re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w])")
    parent, _, leaf = old.rpartition(".")
    new_parent, _, new_leaf = new.rpartition(".")
    from_parent = re.compile(
        rf"^(\s*)from {re.escape(parent)} import {re.escape(leaf)}\b( as \w+)?\s*$", re.M
    )
    long_old, long_new = old_path.as_posix(), new_path.as_posix()
    short_old = long_old.removeprefix("src/tabletop/")
    short_new = long_new.removeprefix("src/tabletop/")
    long_form = re.compile(rf"{re.escape(long_old)}(?![\w])")
    short_form = re.compile(rf"(?<![\w./-]){re.escape(short_old)}(?![\w])")
    changed = 0
    for file in files:
        path = Path(file)
        if file in KEEP or path.suffix not in TEXT or not path.is_file():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        out = from_parent.sub(
            lambda m: (
                f"{m.group(1)}from {new_parent} import {new_leaf}"
                + (m.group(2) or (f" as {leaf}" if new_leaf != leaf else ""))
            ),
            text,
        )
        out = dotted.sub(new, out)
        out = long_form.sub(long_new, out)
        if path.suffix == ".md":
            out = short_form.sub(short_new, out)
        if out != text:
            path.write_text(out)
            changed += 1
    return changed


def move(old: str, new: str) -> None:
    old_path = source_of(old)
    new_path = Path("src", *new.split("."))
    if old_path.suffix == ".py":
        new_path = new_path.with_suffix(".py")
    if new_path.exists():
        raise MoveError(f"{new}: {new_path} exists already")
    files = subprocess.run(
        ["git", "ls-files"], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    crossing = crossing_imports_made_absolute(files, old, new)
    changed = rewrite(files, old, new, old_path, new_path)
    new_path.parent.mkdir(parents=True, exist_ok=True)
    package = new_path.parent
    while package != Path("src") and not (package / "__init__.py").exists():
        (package / "__init__.py").write_text(f'"""{package.name}."""\n')
        subprocess.run(["git", "add", str(package / "__init__.py")], check=True)
        package = package.parent
    subprocess.run(["git", "mv", str(old_path), str(new_path)], check=True)
    print(f"{old} -> {new}: {changed} files rewritten, {crossing} with relative imports rewritten")


def main(argv: list[str]) -> int:
    if not argv or len(argv) % 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        for old, new in zip(argv[::2], argv[1::2], strict=True):
            move(old, new)
    except MoveError as error:
        print(f"move-module: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
