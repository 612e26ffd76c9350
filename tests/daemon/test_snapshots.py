"""Snapshots in the game log (issue 51): a restart folds only the commands after a table's last
snapshot, and ends in the very state the whole log folds to; nothing lost, nothing twice.

Each test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import contextlib
import json
import logging
import random
import signal
import subprocess
import sys
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
from daemon_helpers import (
    ROSTER,
    Broker,
    Mosquitto,
    client,
    full_game_commands,
    kill_hard,
    pump_until,
)
from test_room import running_room

from tabletop.daemon.referee import Referee
from tabletop.daemon.server import TableOptions
from tabletop.daemon.store import GameLog
from tabletop.rules import games
from tabletop.rules.games.replay import replay_lines
from tabletop.rules.games.snapshots import SnapshotError, load_state

GAMES = ["sixshooter", "ossix", "steamfunkateers", "showdown"]
_opened: list[GameLog] = []


@pytest.fixture
def db(log_db: str | Path) -> str | Path:
    return log_db


@pytest.fixture(autouse=True)
def _close_logs() -> Iterator[None]:
    yield
    while _opened:
        _opened.pop().close()


def referee(db: str | Path, every: int, *, from_snapshot: bool = True) -> Referee:
    """The table's referee as a daemon starting on the log builds it."""
    log = GameLog(db, "main")
    log.open()
    _opened.append(log)
    found = Referee(log)
    found.snapshot_every = every
    found.load(from_snapshot=from_snapshot)
    return found


def restart(ref: Referee, db: str | Path, every: int, **options: Any) -> Referee:
    ref.log.close()
    _opened.remove(ref.log)
    return referee(db, every, **options)


def snapshot_seq(db: str | Path, table: str = "main") -> int | None:
    """The command the table's snapshot in the log follows (None: it has none)."""
    log = GameLog(db, "probe")
    log.open()
    try:
        rows = log.database._query("SELECT seq FROM snapshots WHERE table_id = ?", (table,))
    finally:
        log.close()
    return int(rows[0][0]) if rows else None


def views(ref: Referee) -> dict[str, Any]:
    """Everything a restarted referee must agree on."""
    return {
        "state": ref.game.state,
        "referee": ref.state_json(),
        "public": ref.public_state_json(),
        "prompt": ref.referee_prompt_json(),
        "seq": ref.last_seq,
        "events": ref.event_count,
        "game": ref.rules.name,
    }


def random_payloads(seed: int, count: int) -> Generator[bytes, tuple[Any, Any], None]:
    """Commands of random games, one after another (a game over, another begins), with the
    mistakes people make: unknown keys, bad JSON, an id sent again."""
    rng = random.Random(seed)
    rules: Any = games.get(rng.choice(GAMES))
    state: Any = rules.new_engine().state
    sent: list[bytes] = []
    for n in range(count):
        command = rules.random_command(state, rng)
        if command is None or rng.random() < 0.01:
            other = games.get(rng.choice(GAMES))
            command = {**(other.random_command(other.new_engine().state, rng) or {})}
            command["game"] = other.name
        roll = rng.random()
        if roll < 0.05 and sent:
            payload = rng.choice(sent)  # a repeat: answered again, never applied again
        elif roll < 0.08:
            payload = json.dumps({**command, "id": f"c{n}", "extra": 1}).encode()
        elif roll < 0.10:
            payload = b'{"cmd": '
        else:
            payload = json.dumps({**command, "id": f"c{n}"}).encode()
            sent.append(payload)
        rules, state = yield payload


def play(
    ref: Referee, seed: int, count: int, rng: random.Random
) -> Generator[Referee, Referee, None]:
    """Plays `count` random payloads, committing at random; yields after each commit."""
    source = random_payloads(seed, count)
    payload = next(source)
    while True:
        ref.handle(payload)
        if rng.random() < 0.3:
            ref.commit()
            ref = yield ref
        try:
            payload = source.send((ref.rules, ref.game.state))
        except StopIteration:
            break
    ref.commit()
    yield ref


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_restart_from_a_snapshot_is_the_state_the_whole_log_folds_to(
    db: str | Path, seed: int, caplog: pytest.LogCaptureFixture
) -> None:
    rng = random.Random(seed)
    every = rng.randint(3, 17)
    ref = referee(db, every)
    steps = play(ref, seed, 400, rng)
    ref = next(steps)
    restarts = 0
    while True:
        if rng.random() < 0.08:
            before = views(ref)
            ref = restart(ref, db, every)
            assert views(ref) == before
            # And the same as a daemon that reads the whole log (a log without snapshots).
            ref = restart(ref, db, 0, from_snapshot=False)
            assert views(ref) == before
            ref = restart(ref, db, every)
            restarts += 1
        try:
            ref = steps.send(ref)
        except StopIteration:
            break
    assert restarts >= 3
    assert (snapshot_seq(db) or 0) > 0
    # Every restart went on from its snapshot: none was passed over for the whole log.
    assert [r.getMessage() for r in caplog.records if "snapshot" in r.getMessage()] == []


def test_a_log_without_snapshots_is_read_whole_and_then_gets_one(db: str | Path) -> None:
    commands = [{**c, "id": f"o{n}"} for n, c in enumerate(_never_ending(120))]
    old = referee(db, 0)  # a daemon from before snapshots writes none
    for command in commands:
        old.handle(json.dumps(command).encode())
    old.commit()
    assert snapshot_seq(db) is None
    expected = replay_lines([json.dumps(c) for c in commands]).to_json()
    ref = restart(old, db, 50)
    assert ref.state_json() == expected
    assert snapshot_seq(db) == 120  # written at the start: the next one folds nothing
    ref = restart(ref, db, 50)
    assert ref.state_json() == expected and ref.event_count == len(old.game.events)


def test_ids_from_before_the_snapshot_are_answered_again_and_never_applied_twice(
    db: str | Path,
) -> None:
    ref = referee(db, 5)
    replies = {}
    for n, command in enumerate(_never_ending(23)):
        payload = json.dumps({**command, "id": f"x{n}"}).encode()
        replies[f"x{n}"] = ref.handle(payload).reply
        ref.commit()
    assert snapshot_seq(db) == 20
    ref = restart(ref, db, 5)
    seq, events = ref.last_seq, ref.event_count
    for n, command in enumerate(_never_ending(23)):
        outcome = ref.handle(json.dumps({**command, "id": f"x{n}"}).encode())
        assert outcome.duplicate and outcome.reply == {**replies[f"x{n}"], "duplicate": True}
    ref.commit()
    assert (ref.last_seq, ref.event_count) == (seq, events)
    assert ref.trial({"cmd": "roll", "value": 6, "id": "x3"}) is None  # a repeat: at once


def test_a_refused_key_after_a_snapshot_takes_back_only_that_command(db: str | Path) -> None:
    """A key the verb does not take is found after the engine decided: the command is taken
    back by rebuilding the engine from the snapshot's state and the events after it."""
    ossix = games.get("ossix")
    rng = random.Random(7)
    ref = referee(db, 4)
    ref.handle(json.dumps({"cmd": "new_game", "game": "ossix", "players": ["Ana", "Bo"]}).encode())
    while ref.last_seq < 30:
        ref.handle(json.dumps(ossix.random_command(ref.game.state, rng)).encode())
        ref.commit()
    ref = restart(ref, db, 4)
    assert 0 < ref.last_seq - ref.log.snapshot_seq < 4  # a snapshot, and commands after it
    while True:  # a command the game takes now
        following = ossix.random_command(ref.game.state, rng)
        assert following is not None  # OS-SIX never ends by itself
        try:
            ossix.resume_engine(ref.game.state).execute(following)
            break
        except games.RulesError:
            continue
    before = views(ref)
    reply = ref.handle(json.dumps({**following, "oops": 1}).encode()).reply
    assert not reply["ok"] and reply["field"] == "oops", reply
    unchanged = ("state", "prompt", "events", "game")
    assert {k: views(ref)[k] for k in unchanged} == {k: before[k] for k in unchanged}
    outcome = ref.handle(json.dumps(following).encode())
    assert outcome.ok and outcome.first_event_number == before["events"] + 1


@pytest.mark.parametrize("damage", ["state", "fingerprint", "format", "meta", "seq"])
def test_a_snapshot_that_cannot_be_used_is_passed_over_for_the_whole_log(
    db: str | Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    ref = referee(db, 8)
    for command in _never_ending(30):
        ref.handle(json.dumps(command).encode())
        ref.commit()
    expected = views(ref)
    ref.log.close()
    _opened.remove(ref.log)
    change, values = {
        "state": ("state = ?", (b"\x80\x05garbage",)),
        "fingerprint": ("fingerprint = ?", ("written by other code",)),
        "format": ("format = 0", ()),
        "meta": ("meta = ?", ("{not json",)),
        "seq": ("seq = 3", ()),
    }[damage]
    log = GameLog(db, "main")
    log.open()
    log.database.execute(f"UPDATE snapshots SET {change} WHERE table_id = 'main'", values)
    log.close()
    with caplog.at_level(logging.WARNING, logger="tabletop.daemon"):
        ref = referee(db, 8)
    assert views(ref) == expected
    assert any("snapshot" in record.getMessage() for record in caplog.records)


class _CallsAFunction:
    """Unpickled, this would call a function of the games (the registry's `get`)."""

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (games.get, ("sixshooter",))


@pytest.mark.parametrize(
    "hostile", [Path("/tmp/never-made-by-a-snapshot"), _CallsAFunction()], ids=["path", "call"]
)
def test_a_snapshot_holds_only_a_state_it_may_build(db: str | Path, hostile: Any) -> None:
    """A snapshot written into the log by hand cannot make the daemon build or run anything
    but a game's state."""
    import pickle

    ref = referee(db, 8)
    for command in _never_ending(10):
        ref.handle(json.dumps(command).encode())
        ref.commit()
    expected = views(ref)
    ref = restart(ref, db, 0)
    data = pickle.dumps(hostile)
    with pytest.raises(SnapshotError, match="is no part of a game's state"):
        load_state(data, games.get("sixshooter"))
    ref.log.database.execute("UPDATE snapshots SET state = ? WHERE table_id = 'main'", (data,))
    ref = restart(ref, db, 8)
    assert views(ref) == expected


def _never_ending(count: int) -> list[dict[str, Any]]:
    """A Six Shooter game that goes on for `count` commands (bench/daemon_mqtt.py)."""
    out: list[dict[str, Any]] = [
        ROSTER,
        {"cmd": "reveal", "player": "Ana", "slot": 1},
        {"cmd": "reveal", "player": "Bo", "slot": 1},
    ]
    while len(out) < count:
        player = "Ana" if len(out) % 4 == 1 else "Bo"
        out.append({"cmd": "challenge", "player": player, "method": "slyness", "critical": 3})
        out.append({"cmd": "roll", "value": 6})
    return out[:count]


def _daemon(broker: Mosquitto, table: str, db: Path, every: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tabletop",
            "rules",
            "--table",
            table,
            "--broker",
            f"mqtt://127.0.0.1:{broker.port}",
            "--db",
            str(db),
            "--snapshot-every",
            str(every),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_kill_9_across_snapshots_loses_nothing_acknowledged_and_applies_nothing_twice(
    mosquitto: Mosquitto, table: str, tmp_path: Path
) -> None:
    """The daemon as a table runs it, a snapshot every 7 commands, killed mid-stream."""
    db = tmp_path / "games.sqlite3"
    commands = [
        c if c["cmd"] == "multi_stage" else {**c, "id": f"s9-{n}"}
        for n, c in enumerate(full_game_commands())
    ]
    expected = replay_lines([json.dumps(c) for c in commands]).to_json()
    first = _daemon(mosquitto, table, db, 7)
    second: subprocess.Popen[bytes] | None = None
    try:
        with client(mosquitto.url, table) as gm:
            availability = gm.topics.rules_availability
            pump_until(gm, lambda: gm.retained.get(availability) == "online", 15, "daemon up")
            for command in commands[:60]:
                gm.send_raw(json.dumps(command).encode())
            pump_until(gm, lambda: len(gm.replies) >= 30, 15, "30 replies")
            kill_hard(first)
            acknowledged = {r["id"]: r for r in gm.replies}
            pump_until(gm, lambda: gm.retained.get(availability) == "offline", 10, "the will")
            assert (snapshot_seq(db, table) or 0) >= 24  # the restart goes on from a snapshot
            second = _daemon(mosquitto, table, db, 7)
            pump_until(gm, lambda: gm.retained.get(availability) == "online", 15, "restart")
            replies = [gm.send(command) for command in commands]
            for reply in replies:
                if reply["id"] in acknowledged:
                    assert reply.get("duplicate"), f"{reply['id']} was applied twice"
                    assert reply["seq"] == acknowledged[reply["id"]]["seq"]
            assert [r["seq"] for r in replies] == list(range(1, len(commands) + 1))
            gm.sync()
            assert gm.state() == expected
            second.send_signal(signal.SIGTERM)
            assert second.wait(10) == 0
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                kill_hard(process)


def test_a_room_comes_back_from_its_tables_snapshots(
    mosquitto: Mosquitto, log_db: str | Path
) -> None:
    """Four tables of one daemon, each its own length of a game, snapshots every 5 commands:
    after a restart each is its replay, and every command sent again is a repeat."""
    broker: Broker = mosquitto
    tables = [f"room-snap-{n}" for n in range(4)]
    full = full_game_commands()
    plans = {
        name: [
            c if c["cmd"] == "multi_stage" else {**c, "id": f"{name}-{k}"}
            for k, c in enumerate(full[: 12 + 17 * n])
        ]
        for n, name in enumerate(tables)
    }
    setup = TableOptions(snapshot_every=5)
    with running_room(broker, tables, log_db, setup=setup), contextlib.ExitStack() as stack:
        clients = {name: stack.enter_context(client(broker.url, name)) for name in tables}
        # Each raw send below is sent once: first the room has subscribed to every table (its
        # `online` follows its subscriptions), or a command sent before them is lost.
        for gm in clients.values():
            online = gm.topics.rules_availability
            pump_until(gm, lambda gm=gm, t=online: gm.retained.get(t) == "online", 30, "room up")
        for step in range(max(len(plan) for plan in plans.values())):
            for name, plan in plans.items():
                if step < len(plan):
                    clients[name].send_raw(json.dumps(plan[step]).encode())
        for name, gm in clients.items():
            count = len(plans[name])
            pump_until(gm, lambda gm=gm, count=count: len(gm.replies) >= count, 20, name)
    for name, plan in plans.items():
        assert len(plan) - 5 < (snapshot_seq(log_db, name) or 0) <= len(plan)
    with running_room(broker, tables, log_db, setup=setup), contextlib.ExitStack() as stack:
        for name, plan in plans.items():
            gm = stack.enter_context(client(broker.url, name))
            expected = replay_lines([json.dumps(c) for c in plan]).to_json()
            assert gm.state() == expected
            replies = [gm.send(command) for command in plan]
            assert all(reply.get("duplicate") for reply in replies), name
            assert [r["seq"] for r in replies] == list(range(1, len(plan) + 1))
            assert gm.state() == expected
