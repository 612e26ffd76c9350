#!/usr/bin/env bash
# The whole test suite: sets up .venv if needed, lints, type-checks, then runs pytest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
cd "$root"

# The MQTT tests run against a real Mosquitto that they start themselves on a free port.
# Install the Debian package when the binary is missing (needs root or sudo).
if ! command -v mosquitto >/dev/null 2>&1 && [ ! -x /usr/sbin/mosquitto ]; then
    echo "== installing mosquitto (Debian package) for the MQTT tests"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
        mosquitto >/dev/null
fi
export PATH="$root/.venv/bin:$PATH"

echo "== ruff (lint)"
ruff check .
echo "== mypy --strict rules/"
mypy --strict rules
echo "== pytest"
exec pytest "$@"
