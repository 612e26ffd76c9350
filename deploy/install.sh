#!/usr/bin/env bash
# Installs a game table on a Raspberry Pi running Raspberry Pi OS (64-bit) Bookworm, from this
# checkout: the OS packages, the venv, the service user, /etc/tabletop (the table's file, a
# broker password per user, the environment file), Mosquitto (password file, ACL, TLS
# certificate, configuration), the mat's udev rule and the systemd units of the rules daemon,
# the bridge and the web console.
#
#   sudo deploy/install.sh [--dry-run] [--name HOST]... [--root DIR] [--tabletop PROGRAM]
#
# Run it again at will (after a `git pull`, or after editing the table's users): it keeps the
# table's file, the environment file, the passwords and the certificate it finds, rewrites only
# the files that differ, and says what it did. README.md ("Running a real table on a Raspberry
# Pi") walks through it; tests/test_deploy.py runs it into a throwaway root.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: sudo deploy/install.sh [--dry-run] [--name HOST]... [--root DIR] [--tabletop PROGRAM]

  --dry-run          print what it would do; change nothing
  --name HOST        a name (or IP address) clients reach this Pi by, for the TLS certificate
                     of Mosquitto and the console; repeat for several
                     (default: the host name + .local, e.g. raspberrypi.local)
  --root DIR         install the files under DIR instead of /, and only print the system
                     commands (apt-get, useradd, pip, chown, udevadm, systemctl): for tests
  --tabletop PROGRAM the tabletop program that makes the passwords and the ACL
                     (default: /opt/tabletop/.venv/bin/tabletop, which this script installs)
USAGE
}

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix=/opt/tabletop # the units' ExecStart names this venv
etc=/etc/tabletop
user=tabletop
groups=dialout,gpio,video # the mat's serial port, the seat LEDs, the camera
services=(tabletop-rules tabletop-bridge tabletop-console)

dry=0
root=""
names=()
tabletop=""
while [ $# -gt 0 ]; do
    case $1 in
        --dry-run) dry=1 ;;
        --root)
            [ $# -ge 2 ] || { echo "install: --root needs a folder" >&2; exit 2; }
            mkdir -p -- "$2" 2>/dev/null || true
            root="$(cd -- "$2" 2>/dev/null && pwd)" || {
                echo "install: --root $2: no such folder" >&2
                exit 2
            }
            shift
            ;;
        --name)
            [ $# -ge 2 ] || { echo "install: --name needs a host name" >&2; exit 2; }
            names+=("$2")
            shift
            ;;
        --tabletop)
            [ $# -ge 2 ] || { echo "install: --tabletop needs a program" >&2; exit 2; }
            tabletop=$2
            shift
            ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

say() { printf 'install: %s\n' "$*"; }
die() { printf 'install: %s\n' "$*" >&2; exit 1; }

# A system command: run for real; printed only in a dry run or under --root.
system() {
    local line="" word
    for word in "$@"; do
        case $word in
            *\'*) line+="$(printf '%q' "$word") " ;;
            *[!A-Za-z0-9_./:=,@%+-]* | "") line+="'$word' " ;;
            *) line+="$word " ;;
        esac
    done
    if [ "$dry" -eq 1 ]; then
        say "would run: ${line% }"
    elif [ -n "$root" ]; then
        say "not run (--root): ${line% }"
    else
        say "run: ${line% }"
        "$@"
    fi
}

# Sets a file's mode, and its owner: quietly on the Pi, printed under --root (whose users are
# the Pi's, not this machine's) and in a dry run.
own() { # OWNER:GROUP MODE PATH
    if [ "$dry" -eq 0 ]; then chmod "$2" "$root$3"; fi
    if [ "$dry" -eq 1 ] || [ -n "$root" ]; then
        system chown "$1" "$root$3"
    else
        chown "$1" "$3"
    fi
}

changed=0 # whether the last put changed its file
# Writes FROM to PATH (under the root) when its content differs, then sets owner and mode.
put() { # FROM PATH OWNER:GROUP MODE
    local from=$1 path=$2
    changed=0
    if [ -f "$root$path" ] && [ -f "$from" ] && cmp -s -- "$from" "$root$path"; then
        say "unchanged $path"
    elif [ "$dry" -eq 1 ]; then
        say "would write $path"
        changed=1
        return 0
    else
        install -D -m "$4" -- "$from" "$root$path"
        say "wrote $path"
        changed=1
    fi
    own "$3" "$4" "$path"
}

# Writes FROM to PATH only when PATH is missing: a file the maker edits afterwards.
keep() { # FROM PATH OWNER:GROUP MODE
    changed=0
    if [ -e "$root$2" ]; then
        say "kept $2 (yours: edit it, this script leaves it)"
        return 0
    fi
    put "$@"
}

work="$(mktemp -d)"
trap 'rm -rf -- "$work"' EXIT

# -- the machine ---------------------------------------------------------------------------

if [ -z "$root" ] && [ "$dry" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
    die "run it as root: sudo $0"
fi
os_release="$root/etc/os-release"
[ -r "$os_release" ] || die "cannot read $os_release: this script is for Raspberry Pi OS (64-bit) Bookworm"
codename="$(sed -n 's/^VERSION_CODENAME=//p' "$os_release" | tr -d '"')"
# The userland's architecture, not the kernel's: 32-bit Raspberry Pi OS runs a 64-bit kernel
# on a Pi 4 or 5 (uname -m says aarch64) under an armhf userland.
arch="$(dpkg --print-architecture)"
if [ "$arch" != arm64 ]; then
    die "this is a $arch system; the table needs Raspberry Pi OS (64-bit) Bookworm (arm64):" \
        "numpy, OpenCV, ONNX Runtime and psycopg have no wheel for 32-bit Raspberry Pi OS." \
        "Flash a 64-bit Bookworm (Debian 12) image of Raspberry Pi OS (Lite is enough)"
fi
if [ "$codename" != bookworm ]; then
    die "this is ${codename:-an unknown release} ($os_release); the table is installed on" \
        "Raspberry Pi OS (64-bit) Bookworm: the venv's numpy and OpenCV (deploy/pi-constraints.txt)" \
        "are pinned to match Bookworm's picamera2, which is built against its numpy 1.24"
fi
if [ ${#names[@]} -eq 0 ]; then
    host="$(cat "$root/etc/hostname" 2>/dev/null || hostname)"
    names=("${host%%.*}.local")
fi
for name in "${names[@]}"; do
    case $name in
        "" | -* | *[!A-Za-z0-9.:-]*)
            die "--name '$name': give a host name (kitchen.local) or an IP address (192.168.1.20)" ;;
    esac
done
where="${root:-/}"
if [ "$dry" -eq 1 ]; then where="$where (a dry run: nothing changes)"; fi
say "installing from $src into $where for $(IFS=,; echo "${names[*]}")"

# -- the OS packages -----------------------------------------------------------------------

model=""
if [ -r "$root/proc/device-tree/model" ]; then
    model="$(tr -d '\0' <"$root/proc/device-tree/model")"
fi
case $model in
    # The Pi 5's GPIO is behind its RP1 chip, which RPi.GPIO cannot drive; rpi-lgpio offers the
    # same API through lgpio (src/tabletop/hardware/leds/backends.py imports RPi.GPIO).
    *"Raspberry Pi 5"*) gpio_package=python3-rpi-lgpio ;;
    *) gpio_package=python3-rpi.gpio ;;
esac
packages=(python3-venv python3-picamera2 "$gpio_package" mosquitto mosquitto-clients openssl)
system apt-get update
# picamera2 without its recommended preview window packages (Qt, OpenGL): the Pi is headless.
system env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"

# -- the service user ----------------------------------------------------------------------

if getent passwd "$user" >/dev/null 2>&1; then
    system usermod --append --groups "$groups" "$user"
else
    system useradd --system --home-dir /var/lib/tabletop --no-create-home \
        --shell /usr/sbin/nologin --groups "$groups" "$user"
fi

# -- the venv ------------------------------------------------------------------------------

venv="$prefix/.venv"
if [ -e "$root$venv/pyvenv.cfg" ] &&
    ! grep -qE '^include-system-site-packages *= *true' "$root$venv/pyvenv.cfg"; then
    die "$venv does not see the OS's packages (picamera2, RPi.GPIO): remove it" \
        "(sudo rm -r $venv) and run this script again, which makes it with --system-site-packages"
fi
if [ ! -x "$root$venv/bin/python" ]; then
    system python3 -m venv --system-site-packages "$root$venv"
fi
# Without extras: PostgreSQL's driver is the `venue` extra, for a room of several daemon hosts.
system "$root$venv/bin/pip" install --disable-pip-version-check --upgrade \
    --constraint "$src/deploy/pi-constraints.txt" "$src"
# Fails here, not in a service, when the venv's numpy does not suit the OS's picamera2.
system "$root$venv/bin/python" -c \
    'import numpy, cv2, picamera2, RPi.GPIO; print("venv: numpy", numpy.__version__, "OpenCV", cv2.__version__, "picamera2 and RPi.GPIO import")'

tabletop="${tabletop:-$root$venv/bin/tabletop}"
if [ ! -x "$tabletop" ] && [ "$dry" -eq 0 ]; then
    die "no program $tabletop to make the passwords and the ACL with: give --tabletop PROGRAM" \
        "(under --root the venv is not made)"
fi

# -- /etc/tabletop: the table's file, the environment file --------------------------------

if [ "$dry" -eq 0 ]; then mkdir -p "$root$etc"; fi
keep "$src/examples/mosquitto/table.toml" "$etc/table.toml" root:root 644
new_table=$changed
table="$root$etc/table.toml"
[ -e "$table" ] || table="$src/examples/mosquitto/table.toml" # a dry run on a fresh Pi
sed "s/^TABLETOP_CONSOLE_NAME=.*/TABLETOP_CONSOLE_NAME=${names[0]}/" "$src/deploy/tabletop.env" >"$work/tabletop.env"
keep "$work/tabletop.env" "$etc/tabletop.env" root:root 644

# -- a broker password per user: /etc/tabletop/USER.secret and Mosquitto's password file ---

passwd=/etc/mosquitto/tabletop.passwd
broker_changed=0
if [ -x "$tabletop" ]; then
    "$tabletop" broker acl --config "$table" >"$work/tabletop.acl"
    mapfile -t users < <(sed -n 's/^user //p' "$work/tabletop.acl")
else
    users=()
    say "would make a password for each [[broker.users]] of $etc/table.toml, once $venv exists"
fi
: >"$work/tabletop.passwd"
for name in "${users[@]}"; do
    secret="$etc/$name.secret"
    if [ -s "$root$secret" ]; then
        line="$(awk -F: -v name="$name" '$1 == name { print; exit }' "$root$passwd" 2>/dev/null || true)"
        if [ -z "$line" ]; then
            line="$("$tabletop" broker passwd "$name" --password-stdin <"$root$secret")"
        fi
        say "kept the password of $name ($secret)"
    elif [ "$dry" -eq 1 ]; then
        say "would make a password for $name in $secret"
        continue
    else
        line="$("$tabletop" broker passwd "$name" --save "$root$secret")"
        say "made a password for $name in $secret"
    fi
    printf '%s\n' "$line" >>"$work/tabletop.passwd"
    # A service's login (a password_file of the table's file) is read by the service user; any
    # other user's is a person's, read with sudo to hand it over.
    if grep -qE "^[[:space:]]*password_file[[:space:]]*=[[:space:]]*\"$secret\"" "$table"; then
        own "root:$user" 640 "$secret"
    else
        own root:root 600 "$secret"
    fi
done
if [ ${#users[@]} -gt 0 ]; then
    put "$work/tabletop.passwd" "$passwd" root:mosquitto 640
    broker_changed=$((broker_changed | changed))
    put "$work/tabletop.acl" /etc/mosquitto/tabletop.acl root:root 644
    broker_changed=$((broker_changed | changed))
else
    say "would write $passwd and /etc/mosquitto/tabletop.acl (tabletop broker acl --config $etc/table.toml)"
fi

# -- the TLS certificate: Mosquitto's listener on 8883 and the console ---------------------

ca="$etc/ca"
renew=0
if [ ! -s "$root$ca/server.crt" ]; then
    renew=1
else
    alt="$(openssl x509 -noout -ext subjectAltName -in "$root$ca/server.crt" 2>/dev/null || true)"
    for name in "${names[@]}"; do
        case ", ${alt//$'\n'/ }," in
            *"DNS:$name,"* | *"IP Address:$name,"*) ;;
            *) renew=1 ;;
        esac
    done
fi
if [ "$renew" -eq 1 ] && [ -s "$root$ca/server.crt" ] && [ ! -s "$root$ca/ca.key" ]; then
    die "the certificate in $ca does not name all of ${names[*]}; renewing it needs its CA's" \
        "key, $ca/ca.key, which is not there: copy it back and run this again (or remove $ca" \
        "for a new CA, then give every client the new $etc/ca.crt)"
fi
if [ "$renew" -eq 1 ] && [ "$dry" -eq 1 ]; then
    say "would run: examples/mosquitto/make-certs.sh $ca ${names[*]}"
elif [ "$renew" -eq 1 ]; then
    mkdir -p "$root$ca"
    chmod 700 "$root$ca"
    "$src/examples/mosquitto/make-certs.sh" "$root$ca" "${names[@]}" | sed 's/^/install: /'
else
    say "kept the certificate in $ca (it names $(IFS=,; echo "${names[*]}"))"
fi
put "$root$ca/server.key" /etc/mosquitto/certs/server.key root:mosquitto 640
broker_changed=$((broker_changed | changed))
put "$root$ca/server.crt" /etc/mosquitto/certs/server.crt root:root 644
broker_changed=$((broker_changed | changed))
put "$root$ca/server.key" "$etc/console.key" "root:$user" 640
put "$root$ca/server.crt" "$etc/console.crt" root:root 644
put "$root$ca/ca.crt" "$etc/ca.crt" root:root 644

# -- Mosquitto -----------------------------------------------------------------------------

put "$src/examples/mosquitto/tabletop.conf" /etc/mosquitto/conf.d/tabletop.conf root:root 644
broker_changed=$((broker_changed | changed))
system systemctl enable mosquitto
if [ "$broker_changed" -eq 1 ]; then
    system systemctl restart mosquitto
else
    say "Mosquitto's files are unchanged: no restart"
fi

# -- the mat's stable name -----------------------------------------------------------------

put "$src/deploy/99-tabletop-mat.rules" /etc/udev/rules.d/99-tabletop-mat.rules root:root 644
if [ "$changed" -eq 1 ]; then
    system udevadm control --reload
    system udevadm trigger --subsystem-match=tty
fi

# -- the services --------------------------------------------------------------------------

units_changed=0
for service in "${services[@]}"; do
    put "$src/deploy/$service.service" "/etc/systemd/system/$service.service" root:root 644
    units_changed=$((units_changed | changed))
done
if [ "$units_changed" -eq 1 ]; then
    system systemctl daemon-reload
fi
system systemctl enable "${services[@]}"
if [ "$new_table" -eq 1 ]; then
    # The example's LED pins and camera are not this table's: nothing starts until they are set.
    say "next: set the seats, LED pins, mat and camera in $etc/table.toml, then"
    say "      sudo systemctl start ${services[*]}"
else
    system systemctl restart "${services[@]}"
fi
say "the console: https://${names[0]}:8443/ and Mosquitto: mqtts://USER:PASSWORD@${names[0]}:8883"
say "      (clients check both with $etc/ca.crt); a person's password: sudo cat $etc/USER.secret"
say "done"
