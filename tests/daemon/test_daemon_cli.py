"""`tabletop gm ...`, `tabletop rules` and `tabletop broker` as a game master types them."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from daemon_helpers import (
    AmqttBroker,
    client,
    port_open,
    pump_until,
    running_daemon,
    wait_until,
)

from tabletop.cli import build_parser, main
from tabletop.rules.games.sixshooter import parse_command
from tabletop.wire.broker import broker_for, free_port
from tabletop.wire.mqtt import BrokerUrlError, parse_broker_url

ROSTER_TOML = """
seed = 4
[[players]]
name = "Ana"
descriptor = "sly"
archetype = "Cat burglar"
lucky = [7]

[[players]]
name = "Bo"
descriptor = "sharp"
archetype = "Sniper"
lucky = [3]
"""


def gm(
    capsys: pytest.CaptureFixture[str], broker: AmqttBroker, table: str, *words: str
) -> tuple[int, str, str]:
    status = main(
        [
            "gm",
            words[0],
            "--broker",
            f"mqtt://127.0.0.1:{broker.port}",
            "--table",
            table,
            *words[1:],
        ]
    )
    out, err = capsys.readouterr()
    return status, out, err


def test_a_game_master_starts_a_game_from_a_roster_and_plays(
    amqtt: AmqttBroker, table: str, db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    roster = tmp_path / "roster.toml"
    roster.write_text(ROSTER_TOML)
    with running_daemon(amqtt.url, table, db) as daemon:
        status, out, _ = gm(capsys, amqtt, table, "new", str(roster))
        assert status == 0
        assert "New game: Ana (sly, Cat burglar, lucky 7), Bo (sharp, Sniper, lucky 3)" in out
        assert "waiting for: Ana and Bo: turn one card of your choice face-up" in out
        assert gm(capsys, amqtt, table, "reveal", "Ana", "2")[0] == 0
        status, _, err = gm(capsys, amqtt, table, "reveal", "Ana", "3")
        assert status == 1
        assert err.startswith("refused: Ana has already turned a card")
        assert gm(capsys, amqtt, table, "reveal", "Bo", "1")[0] == 0
        status, out, _ = gm(capsys, amqtt, table, "challenge", "Ana", "slyness", "4")
        assert "Ana attempts a slyness challenge" in out
        assert "waiting for: Ana: roll the die for the slyness challenge" in out
        status, out, _ = gm(capsys, amqtt, table, "roll", "6")
        assert status == 0 and "Ana rolls 6" in out and "overcomes the challenge" in out
        status, out, _ = gm(capsys, amqtt, table, "state")
        assert status == 0 and out.startswith("Adventure 1, play")
        assert "strikes ..." in out and "1 command(s) refused so far" in out
        status, out, _ = gm(capsys, amqtt, table, "state", "--json")
        assert json.loads(out) == daemon.daemon.referee.state_json()


def test_a_json_roster_and_a_bad_one(
    amqtt: AmqttBroker, table: str, db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "roster.json"
    good.write_text(json.dumps([{"name": "Cy", "descriptor": "dangerous", "lucky": [10]}]))
    bad = tmp_path / "bad.toml"
    bad.write_text("playrs = 1\n" + ROSTER_TOML)
    with running_daemon(amqtt.url, table, db):
        status, _, err = gm(capsys, amqtt, table, "new", str(bad))
        assert status == 2 and "unknown key 'playrs'" in err
        status, out, _ = gm(capsys, amqtt, table, "new", str(good), "--seed", "3")
        assert status == 0 and "Cy (dangerous" in out


def test_follow_prints_the_table_live(amqtt: AmqttBroker, table: str, db: Path) -> None:
    with running_daemon(amqtt.url, table, db):
        follower = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tabletop",
                "gm",
                "follow",
                "--table",
                table,
                "--broker",
                f"mqtt://127.0.0.1:{amqtt.port}",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert follower.stdout is not None
        lines_out: queue.SimpleQueue[str] = queue.SimpleQueue()
        stdout = follower.stdout
        reader = threading.Thread(
            target=lambda: [lines_out.put(line.strip()) for line in stdout], daemon=True
        )
        reader.start()

        def next_line() -> str:
            return lines_out.get(timeout=15)  # a hang fails the test instead of blocking it

        try:
            # first what is retained, in the broker's order
            retained = {next_line() for _ in range(2)}
            assert retained == {
                "[rules daemon online]",
                "waiting for: no game yet: the game master starts one",
            }
            with client(amqtt.url, table) as other:
                other.send({"cmd": "teleport"})
                other.send(
                    {
                        "cmd": "new_game",
                        "players": [{"name": "Cy", "descriptor": "dangerous", "lucky": [10]}],
                    }
                )
            lines = [next_line() for _ in range(4)]
            assert lines[0].startswith("refused (command 1): unknown command 'teleport'")
            assert lines[1] == "New game: Cy (dangerous, no archetype, lucky 10)"
            assert lines[2] == "Dealt six cards face-down to Cy"
            assert lines[3] == "waiting for: Cy: turn one card of your choice face-up"
        finally:
            follower.send_signal(signal.SIGINT)
            follower.wait(10)
            reader.join(10)  # it ends at the end of the output
            stdout.close()


def test_problems_the_game_master_can_fix_are_one_line(
    amqtt: AmqttBroker, table: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = gm(capsys, amqtt, table, "roll", "4", "--timeout", "0.5")
    assert status == 2
    assert err.strip() == (
        f"tabletop gm: no reply in 0.5 s: no rules daemon has ever announced table '{table}' "
        f"on mqtt://127.0.0.1:{amqtt.port}"
    )
    closed = free_port()
    assert main(["gm", "state", "--timeout", "0.5", "--broker", f"mqtt://127.0.0.1:{closed}"]) == 2
    assert "no connection to the MQTT broker" in capsys.readouterr().err
    assert main(["gm", "state", "--broker", "http://example.org"]) == 2
    assert "unknown scheme 'http'" in capsys.readouterr().err
    assert main(["gm", "state", "--table", "a/b"]) == 2
    assert "table id 'a/b'" in capsys.readouterr().err
    assert main(["gm", "contest", "Ana", "Bo", "--card", "Ana=bad"]) == 2
    assert "--card 'bad': expected PLAYER:SLOT" in capsys.readouterr().err


def test_the_daemon_brings_its_own_broker_and_stops_cleanly(tmp_path: Path, table: str) -> None:
    port = free_port()
    daemon = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tabletop",
            "rules",
            "--table",
            table,
            "--broker",
            f"embedded://127.0.0.1:{port}",
            "--db",
            str(tmp_path / "g.sqlite3"),
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until(lambda: port_open(port), 15, "the embedded broker")
        url = parse_broker_url(f"mqtt://127.0.0.1:{port}")
        with client(url, table) as gm_client:
            reply = gm_client.send({"cmd": "roll", "value": 3})
            assert reply["error"].startswith("there is no game yet")
            pump_until(gm_client, lambda: gm_client.topics.prompt in gm_client.retained, 5)
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(15) == 0
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
        assert daemon.stderr is not None
        err = daemon.stderr.read()
        daemon.stderr.close()
    assert f"table '{table}'" in err and "(embedded)" in err


def test_tabletop_broker_says_when_its_port_is_taken(
    amqtt: AmqttBroker, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["broker", "--bind", f"127.0.0.1:{amqtt.port}"]) == 2
    assert "address is in use" in capsys.readouterr().err
    assert main(["broker", "--bind", "nowhere"]) == 2


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("mqtt://pi.local", ("mqtt", "pi.local", 1883, None, None)),
        ("mqtt://table:s%40cret@10.0.0.5:1884", ("mqtt", "10.0.0.5", 1884, "table", "s@cret")),
        ("mqtts://broker.example.org", ("mqtts", "broker.example.org", 8883, None, None)),
        ("embedded://127.0.0.1:18830", ("embedded", "127.0.0.1", 18830, None, None)),
        ("MQTT://[::1]:1883/", ("mqtt", "::1", 1883, None, None)),
    ],
)
def test_broker_urls(url: str, expected: tuple[object, ...]) -> None:
    parsed = parse_broker_url(url)
    found = (parsed.scheme, parsed.host, parsed.port, parsed.username, parsed.password)
    assert found == expected
    assert "s@cret" not in str(parsed) and "s@cret" not in repr(parsed)


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("localhost:1883", "has no scheme"),
        ("ws://host", "unknown scheme 'ws'"),
        ("mqtt://", "names no host"),
        ("mqtt://host:99999", "the port must be a number"),
        ("mqtt://host/topic", "a path"),
        ("mqtt://host?ca=/x", "need mqtts"),
        ("mqtts://host?cert=/x", "unknown option 'cert'"),
        ("embedded://u:p@host", "takes no credentials"),
    ],
)
def test_broker_urls_that_cannot_work_say_why(url: str, words: str) -> None:
    with pytest.raises(BrokerUrlError, match=words):
        parse_broker_url(url)


def test_mqtts_options() -> None:
    parsed = parse_broker_url("mqtts://u:p@host?ca=/etc/ca.pem&insecure=1")
    assert parsed.tls and parsed.ca_file == "/etc/ca.pem" and parsed.insecure


@pytest.mark.parametrize(
    ("words", "command"),
    [
        (["reveal", "Ana", "3"], {"cmd": "reveal", "player": "Ana", "slot": 3}),
        (["order", "Ana", "Bo"], {"cmd": "turn_order", "players": ["Ana", "Bo"]}),
        (["stage", "dragon", "3"], {"cmd": "multi_stage", "id": "dragon", "needed": 3}),
        (
            ["challenge", "Ana", "slyness", "4", "--card", "Bo:2", "--stage", "dragon"],
            {
                "cmd": "challenge",
                "player": "Ana",
                "method": "slyness",
                "critical": 4,
                "card": {"player": "Bo", "slot": 2},
                "stage": "dragon",
            },
        ),
        (
            ["challenge", "Cy", "danger", "impossible", "--wager", "2"],
            {
                "cmd": "challenge",
                "player": "Cy",
                "method": "danger",
                "critical": "impossible",
                "wager": 2,
            },
        ),
        (["roll", "5"], {"cmd": "roll", "value": 5}),
        (["roll", "2", "6"], {"cmd": "roll", "values": [2, 6]}),
        (["lucky", "Ana", "no"], {"cmd": "lucky", "player": "Ana", "replace": False}),
        (
            ["contest", "Ana", "Bo", "--method", "charm", "--card", "Ana=Ana:1", "--wager", "Bo=1"],
            {
                "cmd": "contest",
                "players": ["Ana", "Bo"],
                "method": "charm",
                "cards": {"Ana": {"player": "Ana", "slot": 1}},
                "wagers": {"Bo": 1},
            },
        ),
        (["boost", "Bo", "--wager", "1"], {"cmd": "boost", "player": "Bo", "wager": 1}),
        (["concede", "Bo"], {"cmd": "concede", "player": "Bo"}),
        (["end-adventure"], {"cmd": "end_adventure"}),
        (
            ["grant", "Ana", "Bo", "5"],
            {"cmd": "grant_lucky", "from": "Ana", "to": "Bo", "number": 5},
        ),
        (["return", "Cy", "7"], {"cmd": "return", "player": "Cy", "drop_lucky": 7}),
        (["retire", "Cy"], {"cmd": "retire", "player": "Cy"}),
        (["start-adventure"], {"cmd": "start_adventure"}),
        (["end-game"], {"cmd": "end_game"}),
        (["send", '{"cmd": "roll", "value": 1}'], {"cmd": "roll", "value": 1}),
    ],
)
def test_every_gm_action_builds_a_command_the_engine_can_read(
    words: list[str], command: dict[str, object]
) -> None:
    args = build_parser().parse_args(["gm", *words])
    built = args.build(args)
    assert built == command
    parse_command(built)  # the engine reads it: right names, right types


def test_an_embedded_url_uses_a_broker_already_listening_there(amqtt: AmqttBroker) -> None:
    url, started = broker_for(f"embedded://127.0.0.1:{amqtt.port}")
    assert started is None and (url.scheme, url.port) == ("mqtt", amqtt.port)
    port = free_port()
    url, started = broker_for(f"embedded://127.0.0.1:{port}")
    try:
        assert started is not None and port_open(port) and url.port == port
    finally:
        assert started is not None
        started.stop()
    assert not port_open(port)
