#!/usr/bin/env bash
# The main job: sets up .venv if needed, then runs the table.
# Until the simulated table exists it replays the bundled example game.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
cd "$root"
if [ "$#" -eq 0 ]; then
    set -- replay examples/games/first-adventure.jsonl
fi
exec .venv/bin/tabletop "$@"
