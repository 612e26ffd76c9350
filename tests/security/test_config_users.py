"""Users, roles and per-process logins in the table's file: every mistake names its key."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from bridge.config import ConfigError, load_config, parse_config
from rules.roster import RosterError, load_roster
from wire.mqtt import parse_broker_url
from wire.passwords import hash_password
from wire.roles import ALL_TABLES, Role

HASH = hash_password("pw", iterations=10)

BASE = """
[table]
id = "kitchen"

[[seats]]
name = "Ana"
"""

USERS = f"""
[[broker.users]]
name = "rules"
role = "daemon"
password_hash = "{HASH}"

[[broker.users]]
name = "pi"
role = "bridge"
password_hash = "{HASH}"

[[broker.users]]
name = "gm"
role = "gm"
tables = ["kitchen", "cellar"]
password_hash = "{HASH}"

[[broker.users]]
name = "screen"
role = "viewer"
tables = "*"
password_hash = "{HASH}"

[broker.rules]
username = "rules"
password_file = "RULES_SECRET"

[broker.bridge]
username = "pi"
password = "bridge-pw"
"""


def document(extra: str = USERS) -> dict[str, Any]:
    return tomllib.loads(BASE + extra)


def test_users_and_logins_load(tmp_path: Path) -> None:
    secret = tmp_path / "rules.secret"
    secret.write_text("rules-pw\n")
    config = parse_config(document(USERS.replace("RULES_SECRET", str(secret))))
    broker = config.broker
    assert [(u.name, u.role, u.tables) for u in broker.users] == [
        ("rules", Role.DAEMON, ("kitchen",)),  # default: this table
        ("pi", Role.BRIDGE, ("kitchen",)),
        ("gm", Role.GM, ("kitchen", "cellar")),
        ("screen", Role.VIEWER, (ALL_TABLES,)),
    ]
    assert broker.embedded and broker.users[0].password_hash == HASH
    url = parse_broker_url("mqtt://127.0.0.1:1883")
    rules, bridge = broker.url_for("rules", url), broker.url_for("bridge", url)
    assert (rules.username, rules.password) == ("rules", "rules-pw")
    assert (bridge.username, bridge.password) == ("pi", "bridge-pw")
    # credentials written in a --broker URL win
    given = parse_broker_url("mqtt://other:pw@127.0.0.1:1883")
    assert broker.url_for("bridge", given).username == "other"


def test_the_old_single_login_still_serves_both_processes() -> None:
    config = parse_config(
        document('[broker]\nurl = "mqtt://pi.local"\nusername = "table"\npassword = "x"\n')
    )
    for process in ("rules", "bridge"):
        url = config.broker.url_for(process, parse_broker_url("mqtt://pi.local"))  # type: ignore[arg-type]
        assert (url.username, url.password) == ("table", "x")


def test_a_password_file_is_read_by_its_process_only(tmp_path: Path) -> None:
    config = parse_config(document(USERS.replace("RULES_SECRET", str(tmp_path / "missing"))))
    url = parse_broker_url("mqtt://127.0.0.1")
    assert config.broker.url_for("bridge", url).username == "pi"  # the bridge never reads it
    with pytest.raises(ConfigError, match="broker.rules.password_file: cannot read .*missing"):
        config.broker.url_for("rules", url)
    empty = tmp_path / "empty"
    empty.write_text("\n")
    config = parse_config(document(USERS.replace("RULES_SECRET", str(empty))))
    with pytest.raises(ConfigError, match="broker.rules.password_file: .* is empty"):
        config.broker.url_for("rules", url)


def swap(old: str, new: str) -> dict[str, Any]:
    assert old in USERS
    return document(USERS.replace(old, new, 1))


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (swap('role = "daemon"', 'role = "admin"'), "broker.users\\[1\\].role: role 'admin'"),
        (
            swap('name = "pi"', 'name = "rules"'),
            "broker.users\\[2\\].name: 'rules' is listed twice",
        ),
        (swap('name = "gm"', 'name = "g m"'), "broker.users\\[3\\].name: user name 'g m'"),
        (
            swap('tables = ["kitchen", "cellar"]', 'tables = ["kitchen", "*"]'),
            'broker.users\\[3\\].tables: "\\*" \\(every table\\) stands alone',
        ),
        (swap('tables = ["kitchen", "cellar"]', 'tables = ["a/b"]'), "broker.users\\[3\\].tables"),
        (swap('tables = ["kitchen", "cellar"]', "tables = []"), "broker.users\\[3\\].tables"),
        (swap(f'password_hash = "{HASH}"', 'password_hash = "pw"'), "users\\[1\\].password_hash"),
        (swap(f'password_hash = "{HASH}"', ""), "users\\[1\\].password_hash: missing; .*passwd"),
        (swap('role = "gm"', 'colour = "red"'), "broker.users\\[3\\].colour: unknown key"),
        (swap('username = "pi"', 'username = "gm"'), "broker.bridge.username: user 'gm' has"),
        (swap('username = "pi"', 'username = "nobody"'), "broker.bridge.username: 'nobody' is not"),
        (swap('password = "bridge-pw"', ""), "broker.bridge.password_file: missing"),
        (
            swap('password = "bridge-pw"', 'password = "x"\npassword_file = "y"'),
            "broker.bridge.password_file: give password or password_file, not both",
        ),
        (document(USERS.split("[broker.rules]", maxsplit=1)[0]), "broker.rules: missing; with"),
        (document('[broker]\npassword = "x"\n'), "broker.password: a password needs"),
        (document("[broker]\nusers = 3\n"), "broker.users: expected"),
    ],
)
def test_user_mistakes_name_the_key(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(raw)


def test_users_for_mosquitto_need_no_hash() -> None:
    """Mosquitto keeps its own password_file; the users are there for `tabletop broker acl`."""
    text = USERS.replace(f'password_hash = "{HASH}"', "")
    config = parse_config(document('[broker]\nurl = "mqtts://pi.local"\n' + text))
    assert [user.password_hash for user in config.broker.users] == [None] * 4


def test_a_lone_surrogate_never_gets_into_a_table(tmp_path: Path) -> None:
    """tomllib refuses the escape itself; bytes that are not UTF-8 name their line."""
    file = tmp_path / "table.toml"
    file.write_text(BASE.replace('"Ana"', '"\\ud800"'))
    with pytest.raises(ConfigError, match="not valid TOML: .*Unicode scalar value"):
        load_config(file)
    file.write_bytes(BASE.replace('"Ana"', '"A\udc80"').encode("utf-8", "surrogateescape"))
    with pytest.raises(ConfigError, match="table.toml: line 6 is not UTF-8 text"):
        load_config(file)
    raw = document()
    raw["seats"][0]["name"] = "\ud800"  # a document that did not come from a file
    with pytest.raises(ConfigError, match="seats\\[1\\].name: holds '\\\\ud800'"):
        parse_config(raw)


def test_a_roster_with_a_lone_surrogate_is_refused_before_it_is_sent(tmp_path: Path) -> None:
    roster = tmp_path / "roster.json"
    roster.write_text(json.dumps({"players": [{"name": "Ana"}, {"name": "\ud800"}]}))
    with pytest.raises(RosterError, match="players\\[1\\].name holds a lone surrogate"):
        load_roster(str(roster), ("players",))
    roster.write_bytes(b'{"players": [{"name": "\xed\xa0\x80"}]}')
    with pytest.raises(RosterError, match="is not UTF-8 text"):
        load_roster(str(roster), ("players",))
