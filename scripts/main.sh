#!/usr/bin/env bash
# The main job: sets up .venv if needed, then runs the table.
# With no arguments it plays a whole game on the simulated table, shown live.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
cd "$root"
if [ "$#" -eq 0 ]; then
    set -- sim
fi
exec .venv/bin/tabletop "$@"
