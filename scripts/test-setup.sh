#!/usr/bin/env bash
# What the test suite needs, installed when missing (a no-op when all is there): .venv with the
# project and its test tools, the Debian packages the tests start their own servers and browser
# from (mosquitto, postgresql, rabbitmq-server, chromium) and two npm folders (MicroPython for the
# firmware tests, axe-core for the console's accessibility check). Used by scripts/test.sh and
# scripts/stress.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
cd "$root"

# Installs a Debian package (needs root or sudo) unless `present` says it is there.
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
updated=""
install_deb() {  # install_deb PACKAGE WHY
    echo "== installing $1 (Debian package) $2"
    if [ -z "$updated" ]; then
        $sudo_cmd apt-get update -qq >/dev/null
        updated=1
    fi
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
        "$1" >/dev/null
}

# The MQTT tests run against a real Mosquitto that they start themselves on a free port.
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] ||
    install_deb mosquitto "for the MQTT tests"
# The game log's tests run on PostgreSQL too, on a private server they start themselves
# (tests/daemon/daemon_helpers.py).
command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 ||
    install_deb postgresql "for the game log's tests"
# The table is also tested on a second broker implementation, RabbitMQ's MQTT plugin, on a
# private node the tests start themselves (tests/daemon/test_rabbitmq.py).
[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || command -v rabbitmq-server >/dev/null 2>&1 ||
    install_deb rabbitmq-server "for the second-broker tests"
# The web console's tests drive Debian's Chromium through Playwright (tests/console/).
[ -x /usr/bin/chromium ] || install_deb chromium "for the console's browser tests"
# The Pi's install script is linted by its tests (tests/deploy/test_install.py).
command -v shellcheck >/dev/null 2>&1 || install_deb shellcheck "for the install script's lint"
export PATH="$root/.venv/bin:$PATH"

# An npm folder's packages, installed again when its lock is newer than its node_modules.
npm_folder() {  # npm_folder DIR WHAT
    if [ ! -d "$1/node_modules" ] || [ "$1/package-lock.json" -nt "$1/node_modules" ]; then
        if ! command -v npm >/dev/null 2>&1; then
            echo "test: npm (Node.js 20 or newer) is needed for $2" >&2
            exit 1
        fi
        echo "== npm ci ($1: $2)"
        (cd "$1" && npm ci --no-audit --no-fund --loglevel=error) && touch "$1/node_modules"
    fi
}
# The firmware's logic tests also run under MicroPython (WebAssembly, from npm) in Node.js.
npm_folder tests/mat/micropython "MicroPython for the firmware tests"
# The console's accessibility check injects axe-core (from npm) into each page in Chromium.
npm_folder tests/console/axe "axe-core for the console's accessibility check"
