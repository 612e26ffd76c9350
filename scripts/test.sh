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
# The game log's tests run on PostgreSQL too, on a private server they start themselves
# (tests/daemon/daemon_helpers.py); install the Debian package when initdb is missing.
if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    echo "== installing postgresql (Debian package) for the game log's tests"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
        postgresql >/dev/null
fi
# The table is also tested on a second broker implementation, RabbitMQ's MQTT plugin, on a
# private node the tests start themselves (tests/daemon/test_rabbitmq.py).
if [ ! -x /usr/lib/rabbitmq/bin/rabbitmq-server ] && ! command -v rabbitmq-server >/dev/null 2>&1; then
    echo "== installing rabbitmq-server (Debian package) for the second-broker tests"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
        rabbitmq-server >/dev/null
fi
# The web console's tests drive Debian's Chromium through Playwright (tests/console/).
if [ ! -x /usr/bin/chromium ]; then
    echo "== installing chromium (Debian package) for the console's browser tests"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
        chromium >/dev/null
fi
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

# The console's accessibility check injects axe-core (from npm) into each page in Chromium.
axedir=tests/console/axe
if [ ! -d "$axedir/node_modules" ] || [ "$axedir/package-lock.json" -nt "$axedir/node_modules" ]; then
    if ! command -v npm >/dev/null 2>&1; then
        echo "test: npm (Node.js 20 or newer) is needed for the console's accessibility check (axe-core)" >&2
        exit 1
    fi
    echo "== npm ci ($axedir: axe-core for the console's accessibility check)"
    (cd "$axedir" && npm ci --no-audit --no-fund --loglevel=error) && touch "$axedir/node_modules"
fi

echo "== ruff (lint)"
ruff check .
echo "== mypy --strict (every package)"
mypy --strict rules hardware vision bridge tabletop wire firmware console errors
echo "== pytest"
# On every core by default; `scripts/test.sh -n 0` runs in one process (easier to debug).
exec pytest -n "${PYTEST_WORKERS:-auto}" "$@"
