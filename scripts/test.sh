#!/usr/bin/env bash
# The whole test suite: sets up .venv if needed, lints, type-checks, then runs pytest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
cd "$root"
export PATH="$root/.venv/bin:$PATH"

# The firmware's logic tests also run under MicroPython (WebAssembly, from npm) in Node.js.
mpdir=tests/mat/micropython
if [ ! -d "$mpdir/node_modules" ] || [ "$mpdir/package-lock.json" -nt "$mpdir/node_modules" ]; then
    if ! command -v npm >/dev/null 2>&1; then
        echo "test: npm (Node.js 20 or newer) is needed to run the firmware tests under MicroPython" >&2
        exit 1
    fi
    echo "== npm ci ($mpdir: MicroPython for the firmware tests)"
    (cd "$mpdir" && npm ci --no-audit --no-fund --loglevel=error) && touch "$mpdir/node_modules"
fi

echo "== ruff (lint)"
ruff check .
echo "== mypy --strict rules/"
mypy --strict rules
echo "== mypy --strict hardware/mat/"
mypy --strict hardware/mat
echo "== pytest"
exec pytest "$@"
