#!/usr/bin/env bash
# The whole test suite: sets up .venv and what the tests need (scripts/test-setup.sh), lints,
# type-checks, then runs pytest (in a random order; the seed is printed at the top).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/test-setup.sh"
cd "$root"
export PATH="$root/.venv/bin:$PATH"

echo "== ruff (lint)"
ruff check .
echo "== mypy --strict (every package)"
mypy --strict src/tabletop
echo "== pytest"
# Two workers a core by default: the tests wait more than they compute (brokers, browsers,
# whole games in human time), and on 2 cores 4 workers took 472 s where 2 took 612 s
# (docs/benchmarks.md). `scripts/test.sh -n 0` runs in one process (easier to debug); the
# last -n given wins. Work stealing: in a random order the long tests (whole games, a
# RabbitMQ cluster) fall anywhere, and a worker that has run out takes another's tests.
exec pytest -n "${PYTEST_WORKERS:-$((2 * $(nproc)))}" --dist worksteal "$@"
