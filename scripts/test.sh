#!/usr/bin/env bash
# The whole test suite: sets up .venv if needed, lints, type-checks, then runs pytest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
cd "$root"
export PATH="$root/.venv/bin:$PATH"

echo "== ruff (lint)"
ruff check .
echo "== mypy --strict rules/"
mypy --strict rules
echo "== pytest"
exec pytest "$@"
