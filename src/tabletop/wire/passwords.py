"""Password hashes in Mosquitto's own `$7$` format, so one hash serves both brokers.

`mosquitto_passwd` (Mosquitto 2) writes `name:$7$ITERATIONS$SALT$HASH`: PBKDF2-HMAC-SHA512 of
the password with the salt, both base64. Mosquitto reads any iteration count from the hash, so
a hash made here goes into its password_file as it is, and the embedded broker verifies a
hash `mosquitto_passwd` made (src/tabletop/wire/embedded.py).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from typing import Final

# mosquitto_passwd uses 101. More make a stolen hash slower to guess, but each login costs
# them too, and Mosquitto checks a password on its one thread: 10,000 take about 4 ms here
# and a few tens of ms on a Raspberry Pi. `tabletop broker passwd` makes a random password by
# default, which no iteration count needs to protect.
DEFAULT_ITERATIONS: Final = 10_000
MAX_ITERATIONS: Final = 1_000_000
SALT_BYTES: Final = 12  # as mosquitto_passwd
DIGEST_BYTES: Final = 64  # SHA-512


class PasswordHashError(ValueError):
    """Text that is not a `$7$` password hash; the message says which part is wrong."""


@dataclass(frozen=True, slots=True)
class PasswordHash:
    """A parsed `$7$` hash."""

    iterations: int
    salt: bytes
    digest: bytes

    def __str__(self) -> str:
        salt = base64.b64encode(self.salt).decode("ascii")
        digest = base64.b64encode(self.digest).decode("ascii")
        return f"$7${self.iterations}${salt}${digest}"


def hash_password(
    password: str, *, iterations: int = DEFAULT_ITERATIONS, salt: bytes | None = None
) -> str:
    """The `$7$` hash of `password` with a fresh random salt (or the one given)."""
    if not 1 <= iterations <= MAX_ITERATIONS:
        raise PasswordHashError(f"iterations: must be 1 to {MAX_ITERATIONS}, got {iterations}")
    salt = os.urandom(SALT_BYTES) if salt is None else salt
    try:
        secret = _password_bytes(password)
    except UnicodeEncodeError:
        raise PasswordHashError(
            "the password holds a lone surrogate, which no client can send"
        ) from None
    digest = hashlib.pbkdf2_hmac("sha512", secret, salt, iterations)
    return str(PasswordHash(iterations, salt, digest))


def parse_hash(text: str) -> PasswordHash:
    """Reads a `$7$` hash, or raises PasswordHashError saying what is wrong with it."""
    parts = text.split("$")
    if len(parts) != 5 or parts[0] or parts[1] != "7":
        raise PasswordHashError(
            "not a password hash: expected $7$ITERATIONS$SALT$HASH as `tabletop broker passwd` "
            "or mosquitto_passwd writes it"
        )
    if not parts[2].isdigit() or not 1 <= int(parts[2]) <= MAX_ITERATIONS:
        raise PasswordHashError(f"iterations {parts[2]!r}: expected a number 1 to {MAX_ITERATIONS}")
    try:
        salt = base64.b64decode(parts[3], validate=True)
        digest = base64.b64decode(parts[4], validate=True)
    except (binascii.Error, ValueError):
        raise PasswordHashError("salt or hash is not base64") from None
    if not salt or len(digest) != DIGEST_BYTES:
        raise PasswordHashError(
            f"the hash part must be {DIGEST_BYTES} bytes (PBKDF2-SHA512), got {len(digest)}"
        )
    return PasswordHash(int(parts[2]), salt, digest)


def verify_password(password: str, hashed: str) -> bool:
    """True if `password` is the one `hashed` was made from; False for any unusable hash."""
    try:
        parsed = parse_hash(hashed)
        candidate = hashlib.pbkdf2_hmac(
            "sha512", _password_bytes(password), parsed.salt, parsed.iterations
        )
    except (PasswordHashError, UnicodeEncodeError):
        return False
    return hmac.compare_digest(candidate, parsed.digest)


def random_password() -> str:
    """A password nobody guesses: 128 random bits, URL-safe, so it fits in a broker URL."""
    return secrets.token_urlsafe(16)


def _password_bytes(password: str) -> bytes:
    # Strict: a password with a lone surrogate cannot be what a client sends.
    return password.encode("utf-8")
