#!/bin/sh
# A small certificate authority and a server certificate for Mosquitto's TLS listener.
#
#   examples/mosquitto/make-certs.sh DIR HOSTNAME [MORE NAMES OR IP ADDRESSES...]
#
# Writes DIR/ca.crt (give it to every client: mqtts://...?ca=/path/ca.crt), DIR/ca.key (keep
# it off the Pi; it signs new certificates), DIR/server.crt and DIR/server.key (for
# Mosquitto's certfile and keyfile). Run it again with the same DIR to renew the server
# certificate under the same CA. Each name a client uses to reach the broker must be listed:
# a client refuses a certificate that does not name the host it connected to.
# tests/security/test_tls.py runs this script, so the recipe in docs/security.md is tested.
set -eu

if [ $# -lt 2 ]; then
    echo "usage: $0 DIR HOSTNAME [MORE NAMES OR IP ADDRESSES...]" >&2
    exit 2
fi
dir=$1
shift
mkdir -p "$dir"
cd "$dir"

names=""
for name in "$@"; do
    case $name in
        *:*) kind=IP ;; # IPv6
        *[!0-9.]*) kind=DNS ;;
        *) kind=IP ;;
    esac
    names="${names:+$names,}$kind:$name"
done

umask 077
if [ ! -f ca.key ]; then
    openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout ca.key -out ca.crt -days 3650 -subj "/CN=tabletop broker CA" \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -addext "subjectKeyIdentifier=hash" 2>/dev/null
fi
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout server.key -out server.csr -subj "/CN=$1" 2>/dev/null
cat >server.ext <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=$names
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EXT
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
    -out server.crt -days 825 -extfile server.ext 2>/dev/null
rm -f server.csr server.ext
chmod 644 ca.crt server.crt
echo "$dir: ca.crt (for clients), server.crt and server.key (for Mosquitto); names: $names"
