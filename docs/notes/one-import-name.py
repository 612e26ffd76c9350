"""The script that moved every package under one import name (issue 50, item 1), kept so that
the commit it made can be read and made again.

Before: nine top-level import names (errors, wire, rules, bridge, vision, hardware, firmware,
console, tabletop), each a folder at the repository's root. After: one, `tabletop`, in a
src/ layout (src/tabletop/rules, src/tabletop/vision, ...). Run from the repository's root on
a clean tree: `python docs/notes/one-import-name.py`; it moves the folders with `git mv` (so
that history follows them) and rewrites, in every tracked text file:

- import statements (`from rules.games import x` -> `from tabletop.rules.games import x`);
- dotted names of modules in strings, docstrings, comments and docs, where the name is a
  module that exists (`rules.games.game.TableReader`; not `rules.options`, a table-file key);
- paths of files and folders that exist (`rules/games/game.py` -> `src/tabletop/rules/...`),
  relative links (`../rules/...`) computed again from where each file now lies.

What it leaves is done by hand in the same commit (code that reaches the repository's root
by counting parents, the MicroPython runner's copy of the firmware).
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path

OLD = ["errors", "wire", "rules", "bridge", "vision", "hardware", "firmware", "console"]
ALL = [*OLD, "tabletop"]
TEXT = {".py", ".md", ".toml", ".sh", ".service", ".mjs", ".txt", ".env", ".cfg", ".ini", ""}

root = Path.cwd()
tracked = subprocess.run(
    ["git", "ls-files"], check=True, capture_output=True, text=True
).stdout.splitlines()
paths = set(tracked)
dirs = {str(Path(p).parent.as_posix()) for p in tracked}
for folder in list(dirs):
    parent = folder
    while parent not in ("", "."):
        dirs.add(parent)
        parent = str(Path(parent).parent.as_posix())


def exists(path: str) -> bool:
    path = path.rstrip("/")
    return path in paths or path in dirs


def new_path(old: str) -> str:
    """Where a path of the old tree lies in the new one."""
    top = old.split("/", 1)[0]
    if top == "tabletop":
        return "src/" + old
    if top in OLD:
        return "src/tabletop/" + old
    return old


def is_module(dotted: str) -> bool:
    base = dotted.replace(".", "/")
    return base + ".py" in paths or base + "/__init__.py" in paths


def module_prefix(dotted: str) -> int:
    """How many parts of `dotted` name a module (0 where fewer than two do)."""
    parts = dotted.split(".")
    best = 0
    for n in range(2, len(parts) + 1):
        if is_module(".".join(parts[:n])):
            best = n
    return best


NAMES = "|".join(OLD)
DOTTED = re.compile(rf"(?<![\w./-])({NAMES})((?:\.[A-Za-z_]\w*)+)")
PATH = re.compile(rf"(?<![\w./-])((?:\.\./)*)((?:{'|'.join(ALL)})(?:/[\w.-]+)*/?)")


def rewrite_dotted(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        dotted = m.group(1) + m.group(2)
        return "tabletop." + dotted if module_prefix(dotted) else dotted

    return DOTTED.sub(one, text)


def rewrite_paths(text: str, file: str) -> str:
    here_old = Path(file).parent.as_posix()
    here_new = Path(new_path(file)).parent.as_posix()

    def one(m: re.Match[str]) -> str:
        ups, target = m.group(1), m.group(2)
        if ups:
            resolved = os.path.normpath(os.path.join(here_old, ups + target)).replace("\\", "/")
            if resolved.startswith("..") or resolved.split("/", 1)[0] not in ALL:
                return m.group(0)
            if not exists(resolved) or ("/" not in resolved and not target.endswith("/")):
                return m.group(0)
            moved = new_path(resolved.rstrip("/")) + ("/" if target.endswith("/") else "")
            return os.path.relpath(moved, here_new).replace("\\", "/") + (
                "/" if target.endswith("/") and not moved.endswith("/") else ""
            )
        if not exists(target) or ("/" not in target.rstrip("/") and not target.endswith("/")):
            return m.group(0)
        if target.rstrip("/") == "tabletop" and not target.endswith("/"):
            return m.group(0)
        moved = new_path(target.rstrip("/")) + ("/" if target.endswith("/") else "")
        return moved

    return PATH.sub(one, text)


IMPORT = re.compile(rf"^(\s*)(from|import) ({NAMES})(\b[\w.]*)(\s+(?:import|as)\b|\s*$)", re.M)


def rewrite_python(text: str, file: str) -> str:
    text = IMPORT.sub(
        lambda m: (
            f"{m.group(1)}from tabletop import {m.group(3)}{m.group(5)}"
            if m.group(2) == "import" and not m.group(4) and m.group(5).strip() == ""
            else f"{m.group(1)}{m.group(2)} tabletop.{m.group(3)}{m.group(4)}{m.group(5)}"
        ),
        text,
    )
    out: list[str] = []
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    edits: list[tuple[int, int, str]] = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.STRING, tokenize.COMMENT) or (
            sys.version_info >= (3, 12) and tok.type == tokenize.FSTRING_MIDDLE
        ):
            start = offsets[tok.start[0] - 1] + tok.start[1]
            end = offsets[tok.end[0] - 1] + tok.end[1]
            new = rewrite_paths(rewrite_dotted(tok.string), file)
            if new != tok.string:
                edits.append((start, end, new))
    at = 0
    for start, end, new in edits:
        out.append(text[at:start])
        out.append(new)
        at = end
    out.append(text[at:])
    return "".join(out)


def main() -> None:
    changed = 0
    for file in tracked:
        suffix = Path(file).suffix
        if suffix not in TEXT or not Path(file).is_file():
            continue
        # The script itself, and the changelog: what earlier releases said stays as they said it.
        if file in ("docs/notes/one-import-name.py", "CHANGELOG.md"):
            continue
        try:
            text = Path(file).read_text()
        except UnicodeDecodeError:
            continue
        if suffix == ".py":
            new = rewrite_python(text, file)
        else:
            new = rewrite_paths(rewrite_dotted(text), file)
        if new != text:
            Path(file).write_text(new)
            changed += 1
    print(f"rewrote {changed} files")
    Path("src").mkdir(exist_ok=True)
    subprocess.run(["git", "mv", "tabletop", "src/tabletop"], check=True)
    for name in OLD:
        subprocess.run(["git", "mv", name, f"src/tabletop/{name}"], check=True)


if __name__ == "__main__":
    main()
