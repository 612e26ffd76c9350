"""Password hashes in Mosquitto's `$7$` format: one hash for both brokers."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tabletop.cli import main
from tabletop.wire.passwords import (
    PasswordHashError,
    hash_password,
    parse_hash,
    random_password,
    verify_password,
)


def test_a_hash_verifies_its_password_only() -> None:
    hashed = hash_password("correct horse", iterations=1000)
    assert hashed.startswith("$7$1000$")
    assert verify_password("correct horse", hashed)
    assert not verify_password("correct hors", hashed)
    assert hash_password("correct horse", iterations=1000) != hashed  # a fresh salt each time


def test_a_hash_mosquitto_passwd_made_verifies_here(tmp_path: Path) -> None:
    tool = shutil.which("mosquitto_passwd")
    assert tool is not None, "mosquitto_passwd comes with the mosquitto package"
    file = tmp_path / "passwd"
    subprocess.run([tool, "-c", "-b", str(file), "gm", "s3cret ünïcode"], check=True)
    name, _, hashed = file.read_text().strip().partition(":")
    assert name == "gm" and hashed.startswith("$7$101$")
    assert verify_password("s3cret ünïcode", hashed)
    assert not verify_password("s3cret unicode", hashed)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("secret", "expected \\$7\\$ITERATIONS\\$SALT\\$HASH"),
        ("$6$abc$def", "expected \\$7\\$"),
        ("$7$x$AAAA$AAAA", "iterations 'x'"),
        ("$7$0$AAAA$AAAA", "iterations '0'"),
        ("$7$101$!!!$AAAA", "not base64"),
        ("$7$101$AAAA$AAAA", "must be 64 bytes"),
    ],
)
def test_a_broken_hash_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(PasswordHashError, match=message):
        parse_hash(text)
    assert not verify_password("anything", text)


def test_a_lone_surrogate_is_no_password() -> None:
    with pytest.raises(PasswordHashError, match="lone surrogate"):
        hash_password("\ud800")
    assert not verify_password("\ud800", hash_password("x", iterations=10))


def test_random_passwords_are_long_and_fit_in_a_url() -> None:
    first, second = random_password(), random_password()
    assert first != second and len(first) >= 20
    assert all(c.isalnum() or c in "-_" for c in first)


def test_tabletop_broker_passwd_prints_a_password_file_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert main(["broker", "passwd", "gm", "--iterations", "500"]) == 0
    out, err = capsys.readouterr()
    password = err.strip().rpartition(": ")[2]
    name, _, hashed = out.strip().partition(":")
    assert name == "gm" and verify_password(password, hashed)

    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("typed secret\n"))
    assert main(["broker", "passwd", "screen", "--password-stdin"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and verify_password("typed secret", out.strip().partition(":")[2])

    secret = tmp_path / "rules.secret"
    assert main(["broker", "passwd", "rules", "--save", str(secret)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and secret.stat().st_mode & 0o777 == 0o600
    assert verify_password(secret.read_text().strip(), out.strip().partition(":")[2])

    assert main(["broker", "passwd", "a:b"]) == 2
    assert "user name 'a:b'" in capsys.readouterr().err
