"""A room on a three-node RabbitMQ cluster (its MQTT plugin), one node killed mid-play.

The nodes are started privately by the test (each its own name, ports and folder, one shared
Erlang cookie) and joined with `rabbitmqctl join_cluster`; every program gets the three nodes
as one broker list, in the same order. Slow: a cluster takes about half a minute to form.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from daemon_helpers import (
    client,
    full_game_commands,
    pump_until,
    wait_until,
)

from tabletop.daemon.client import NoReply, TableClient
from tabletop.daemon.service import RoomDaemon
from tabletop.rules.games.replay import replay_lines
from tabletop.servers import RabbitCluster, rabbitmq_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster() -> Iterator[RabbitCluster]:
    if rabbitmq_server() is None:
        pytest.skip(
            "rabbitmq-server is not installed and could not be: scripts/test.sh installs the "
            "Debian package rabbitmq-server"
        )
    nodes = RabbitCluster(3)
    try:
        nodes.start()
        yield nodes
    finally:
        nodes.stop()


def test_every_table_goes_on_when_the_node_it_used_is_killed_mid_play(
    cluster: RabbitCluster, table: str, db: Path
) -> None:
    assert len(json.loads(cluster.running_nodes())["running_nodes"]) == 3
    tables = [f"{table}-{n}" for n in range(3)]
    game = full_game_commands()
    commands = {
        name: [
            {**c, "id": f"{name}-{n}"} if c["cmd"] != "multi_stage" else c
            for n, c in enumerate(game)
        ]
        for name in tables
    }
    expected = replay_lines([json.dumps(c) for c in commands[tables[0]]]).to_json()
    first, second, third = cluster.nodes
    daemon = RoomDaemon(cluster.url, tables, db, name=f"cluster-{table}")
    daemon.start(timeout=20)
    stop = threading.Event()
    thread = threading.Thread(target=daemon.run, args=(stop,))
    thread.start()
    try:
        with ExitStack() as stack:
            gms = {name: stack.enter_context(client(cluster.url, name)) for name in tables}
            # on the third node alone: a viewer that no program publishes through
            aside = stack.enter_context(client(third.url, tables[0]))
            replies: dict[str, list[dict[str, object]]] = {name: [] for name in tables}
            half = len(game) // 2
            for n in range(len(game)):
                if n == half:
                    assert daemon.link.broker.port == first.port
                    first.kill()  # the node every program met on, in the middle of play
                for name, gm in gms.items():
                    replies[name].append(gm.send(commands[name][n], timeout=30))
            for name, gm in gms.items():
                # each command applied once: a resend after the move got its stored reply
                assert [r["seq"] for r in replies[name]] == list(range(1, len(game) + 1))
                assert gm.link.broker.port == second.port
                pump_until(gm, lambda gm=gm: gm.retained.get(gm.state_topic) == expected, 10)
                assert daemon.servers[name].referee.last_seq == len(game)
            # what moves between nodes: every message; the last states reached the third node
            pump_until(aside, lambda: aside.retained.get(aside.state_topic) == expected, 10)
        wait_until(lambda: daemon.link.broker.port == second.port, 5, "the daemon to move")
        # what the cluster keeps per node: retained views. The daemon republished them on the
        # second node, where every program given the list meets now...
        with client(cluster.url, tables[1]) as late:
            assert late.link.broker.port == second.port
            assert late.state() == expected
            assert late.wait_for(late.topics.rules_availability) == "online"
        # ...and the third node, where nothing was published retained, has none of them.
        lone = TableClient(third.url, tables[2])
        lone.start()
        try:
            with pytest.raises(NoReply):
                lone.wait_for(lone.state_topic, timeout=2)
        finally:
            lone.close()
    finally:
        stop.set()
        thread.join(10)
        daemon.close()
