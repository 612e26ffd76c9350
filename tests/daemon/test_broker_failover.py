"""Several brokers: a URL list, and every program moving to the next broker when one goes.

Two private Mosquittos on free ports stand for a cluster's nodes: killing the first in the
middle of play, the daemon and the game master's client move to the second, which knows
nothing of the table until they resubscribe and republish what they retain.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from daemon_helpers import (
    Mosquitto,
    client,
    daemon_process,
    full_game_commands,
    kill_hard,
    pump_until,
    wait_until,
)

from tabletop.config.table import ConfigError, load_config
from tabletop.daemon.service import RoomDaemon
from tabletop.rules.games.replay import replay_lines
from tabletop.wire.broker_option import BrokerOption
from tabletop.wire.mqtt import (
    BrokerUrl,
    BrokerUrlError,
    Connected,
    Message,
    MqttLink,
    parse_broker_url,
)

# -- the list ------------------------------------------------------------------------------


def test_a_comma_list_names_each_broker_in_turn_with_its_own_login() -> None:
    url = parse_broker_url("mqtt://a:1883, mqtt://rules:pw,x@b:1884,mqtt://c")
    assert [(b.host, b.port) for b in url.every] == [("a", 1883), ("b", 1884), ("c", 1883)]
    assert url.every[1].password == "pw,x"  # a comma inside a password is not a separator
    assert str(url) == "mqtt://a:1883,mqtt://rules@b:1884,mqtt://c:1883"
    logged_in = url.with_login("gm", "secret")
    assert {(b.username, b.password) for b in logged_in.every} == {("gm", "secret")}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("mqtt://a,mqtts://b", "all mqtt://, or all mqtts://"),
        ("mqtts://a?ca=/x.pem,mqtts://b", "all mqtts:// with the same options"),
        ("mqtt://a,embedded://127.0.0.1:1883", "the embedded broker"),
        ("mqtt://a:1883,mqtt://a", "names a:1883 twice"),
        ("mqtt://a,b", "a host name has no comma"),
    ],
)
def test_a_list_that_cannot_be_one_service_is_refused_saying_why(text: str, words: str) -> None:
    with pytest.raises(BrokerUrlError, match=words.replace("?", r"\?")):
        parse_broker_url(text)


def test_broker_given_twice_on_the_command_line_is_one_list() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--broker", action=BrokerOption)
    args = parser.parse_args(["--broker", "mqtt://a", "--broker", "mqtt://b,mqtt://c"])
    assert [b.host for b in parse_broker_url(args.broker).every] == ["a", "b", "c"]


def test_a_table_file_names_a_cluster_as_a_list(tmp_path: Path) -> None:
    text = Path("examples/table.toml").read_text()
    nodes = 'url = ["mqtt://n1:1883", "mqtt://n2:1883"]\n'
    listed = tmp_path / "listed.toml"
    listed.write_text(text.replace("[broker]\n", "[broker]\n" + nodes, 1))
    url = load_config(listed).broker.url
    assert url is not None
    assert [b.host for b in parse_broker_url(url).every] == ["n1", "n2"]
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(text.replace("[broker]\n", '[broker]\nurl = ["mqtt://n1", "n2"]\n', 1))
    with pytest.raises(ConfigError, match="broker.url: 'n2' must start with mqtt://"):
        load_config(wrong)


# -- moving to the next broker ---------------------------------------------------------------


@pytest.fixture
def two_brokers(tmp_path: Path) -> Iterator[tuple[Mosquitto, Mosquitto]]:
    first, second = Mosquitto(tmp_path), Mosquitto(tmp_path)
    try:
        first.start()
        second.start()
        yield first, second
    finally:
        for broker in (first, second):
            if broker.process is not None:
                broker.stop()


def both(pair: tuple[Mosquitto, Mosquitto]) -> BrokerUrl:
    return parse_broker_url(",".join(f"mqtt://127.0.0.1:{b.port}" for b in pair))


@pytest.mark.parametrize("threaded", [True, False], ids=["threaded", "unthreaded"])
def test_a_link_moves_on_resubscribes_and_republishes_what_it_retains(
    two_brokers: tuple[Mosquitto, Mosquitto], threaded: bool
) -> None:
    first, second = two_brokers
    link = MqttLink(both(two_brokers), "failover-link", threaded=threaded)
    link.subscribe("test/in")
    link.start(timeout=5)
    try:
        assert isinstance(link.get(timeout=5), Connected)
        link.publish_retained("test/view", b"seen")
        assert link.broker.port == first.port
        first.stop()
        moved = None
        while not isinstance(moved, Connected):
            moved = link.get(timeout=10)
            assert moved is not None, "the link did not reconnect"
        assert moved.reconnect and moved.broker is not None
        assert moved.broker.port == second.port == link.broker.port
        # the second broker has the retained view now, and routes to the link's subscription
        watcher = MqttLink(second.url, "failover-watcher", subscriptions=[("test/view", 1)])
        watcher.start(timeout=5)
        try:
            watcher.get(timeout=5)
            seen = watcher.get(timeout=5)
            assert isinstance(seen, Message) and seen.payload == b"seen" and seen.retain
            watcher.publish("test/in", b"hello").wait_for_publish(5)
        finally:
            watcher.stop()
        arrived = link.get(timeout=5)
        assert isinstance(arrived, Message) and arrived.payload == b"hello"
        # after a loss the list is tried from its first broker again: where the others meet
        first.start()
        second.stop()
        back = None
        while not isinstance(back, Connected):
            back = link.get(timeout=10)
            assert back is not None, "the link did not go back to the first broker"
        assert back.broker is not None and back.broker.port == first.port
    finally:
        link.stop()


def test_a_table_goes_on_when_its_broker_dies_mid_game_nothing_lost_or_applied_twice(
    two_brokers: tuple[Mosquitto, Mosquitto], table: str, db: Path
) -> None:
    import threading

    first, second = two_brokers
    url = both(two_brokers)
    commands = [
        {**c, "id": f"f-{n}"} if c["cmd"] != "multi_stage" else c
        for n, c in enumerate(full_game_commands())
    ]
    expected = replay_lines([json.dumps(c) for c in commands]).to_json()
    daemon = RoomDaemon(url, [table], db, name=f"failover-{table}")
    daemon.start(timeout=10)
    stop = threading.Event()
    thread = threading.Thread(target=daemon.run, args=(stop,))
    thread.start()
    try:
        with client(url, table) as gm:
            half = len(commands) // 2
            replies = [gm.send(command) for command in commands[:half]]
            first.stop()  # the broker both are connected to, in the middle of the game
            replies += [gm.send(command, timeout=20) for command in commands[half:]]
            # each command applied once, in order: a resend got its stored reply, not a new seq
            assert [r["seq"] for r in replies] == list(range(1, len(commands) + 1))
            assert gm.link.broker.port == second.port
            pump_until(gm, lambda: gm.retained.get(gm.state_topic) == expected, 10, "the state")
        wait_until(lambda: daemon.link.broker.port == second.port, 5, "the daemon to move")
        assert daemon.servers[table].referee.last_seq == len(commands)
        # a client that comes only now finds the views the daemon republished on the second
        with client(second.url, table) as late:
            assert late.state() == expected
            assert late.wait_for(late.topics.rules_availability) == "online"
    finally:
        stop.set()
        thread.join(10)
        daemon.close()


def test_the_daemon_s_last_will_is_set_on_whichever_broker_it_moved_to(
    two_brokers: tuple[Mosquitto, Mosquitto], table: str, db: Path
) -> None:
    first, second = two_brokers
    process = daemon_process(both(two_brokers), table, db)  # --broker given twice
    try:
        with client(first.url, table) as before:
            online = before.topics.rules_availability
            pump_until(before, lambda: before.retained.get(online) == "online", 30, "the daemon")
        with client(second.url, table) as watcher:
            assert online not in watcher.retained
            first.stop()
            # the daemon moves over and republishes `online` where there was nothing
            pump_until(watcher, lambda: watcher.retained.get(online) == "online", 30, "online")
            kill_hard(process)
            pump_until(watcher, lambda: watcher.retained.get(online) == "offline", 30, "the will")
    finally:
        if process.poll() is None:
            kill_hard(process)
