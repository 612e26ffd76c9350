#!/usr/bin/env bash
# Creates .venv and installs the project into it; a no-op when nothing changed.
# Sourced by scripts/main.sh and scripts/test.sh so each works on a fresh machine.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

pick_python() {
    for candidate in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
        [ -n "$candidate" ] || continue
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    echo "setup: Python 3.11 or newer is needed; none found on PATH" >&2
    return 1
}

if [ ! -x .venv/bin/python ]; then
    py="$(pick_python)"
    echo "setup: creating .venv with $("$py" --version)" >&2
    "$py" -m venv .venv
fi

# Reinstall only when the dependency list changed, so a second run starts at once.
stamp=.venv/.tabletop-installed
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
    echo "setup: installing the project and its test tools into .venv" >&2
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
    echo "$want" >"$stamp"
fi
