"""Users, roles and per-process logins in the table's file: every mistake names its key."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tabletop.config.table import ConfigError, load_config, parse_config
from tabletop.rules.games.roster import RosterError, load_roster
from tabletop.wire.mqtt import parse_broker_url
from tabletop.wire.passwords import hash_password
from tabletop.wire.roles import ALL_TABLES, Role

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


def test_the_room_view_logs_in_as_its_own_viewer(tmp_path: Path) -> None:
    """Issue 33.7: [broker.console] is the room view's login, a user with the role viewer."""
    console = '\n[broker.console]\nusername = "screen"\npassword = "screen-pw"\n'
    config = parse_config(document(USERS.replace("RULES_SECRET", "x") + console))
    url = config.broker.url_for("console", parse_broker_url("mqtt://127.0.0.1:1883"))
    assert (url.username, url.password) == ("screen", "screen-pw")
    # the shared [broker] username serves the rules daemon and the bridge, not the console
    shared = parse_config(document('[broker]\nusername = "pi"\npassword = "pw"\n'))
    assert shared.broker.login("console") is None
    assert shared.broker.login("bridge") is not None


def test_a_room_view_login_that_is_not_a_viewer_is_refused() -> None:
    console = '\n[broker.console]\nusername = "gm"\npassword = "gm-pw"\n'
    with pytest.raises(ConfigError, match="broker.console.username: user 'gm' has role gm"):
        parse_config(document(USERS.replace("RULES_SECRET", "x") + console))
    stranger = '\n[broker.console]\nusername = "nobody"\npassword = "pw"\n'
    with pytest.raises(ConfigError, match="broker.console.username: 'nobody' is not one of"):
        parse_config(document(USERS.replace("RULES_SECRET", "x") + stranger))


def test_the_console_without_a_room_login_says_a_viewer_is_needed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33.7: with users and no room login the console says so at once, rather than
    showing a room view that stays offline with "Not authorized" for ever."""
    from tabletop.cli import main

    table = tmp_path / "table.toml"
    table.write_text(
        BASE + USERS.replace("RULES_SECRET", str(tmp_path / "rules.secret")), encoding="utf-8"
    )
    assert main(["console", "--config", str(table), "--bind", "127.0.0.1:0"]) != 0
    err = capsys.readouterr().err
    assert "the room view needs its own broker login, a user with the role viewer" in err
    assert "[broker.console]" in err


def test_the_console_logs_its_room_view_in_with_the_files_console_login(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tabletop.cli import main
    from tabletop.console import ConsoleError
    from tabletop.console import server as console_server

    seen: list[Any] = []

    class Recorder:
        def __init__(self, url: Any, table: str, **options: Any) -> None:
            seen.append((url.username, url.password, table))

        def start(self) -> None:
            raise ConsoleError("recorded, not started")

    monkeypatch.setattr(console_server, "ConsoleServer", Recorder)
    table = tmp_path / "table.toml"
    secret = tmp_path / "screen.secret"
    secret.write_text("screen-pw\n", encoding="utf-8")
    login = f'\n[broker.console]\nusername = "screen"\npassword_file = "{secret}"\n'
    table.write_text(BASE + USERS.replace("RULES_SECRET", "x") + login, encoding="utf-8")
    assert main(["console", "--config", str(table), "--bind", "127.0.0.1:0"]) != 0
    assert seen == [("screen", "screen-pw", "kitchen")]
    assert "recorded, not started" in capsys.readouterr().err
