"""Each role on a real broker, played as an attacker would: what it may and may not publish and read.

Both brokers get the same users: the embedded one from the user list, Mosquitto through the
acl_file `tabletop broker acl` writes and a password_file of the same `$7$` hashes.
Nothing here relies on timing: a barrier message sent after the forbidden ones, on the same
connection, arrives only after anything the broker let through before it.
"""

from __future__ import annotations

import contextlib
import os

import pytest

from tabletop.wire.roles import User

from .brokers import (
    ACCOUNTS,
    OTHER,
    TABLE,
    Probe,
    RoleAmqtt,
    RoleBroker,
    raw_connect,
    topic,
    users,
)

WITNESS_FILTER = "tabletop/v1/+/#"  # everything of every table: what the witness reads


def role_user(name: str) -> User:
    return next(user for user in users([ACCOUNTS[name]]))


@contextlib.contextmanager
def probe(broker: RoleBroker, name: str | None, **options: str):  # type: ignore[no-untyped-def]
    client = (
        Probe(broker.port, None, None, **options)
        if name is None
        else Probe.of(broker.port, name, **options)
    )
    try:
        yield client
    finally:
        client.close()


# (user, topics it may publish, topics it may not, a barrier topic it may publish or None)
PUBLISHING = [
    (
        "rules",
        ["game/state", "game/reply", "referee/state", "leds/frame", "table/alert", "seat/1/view"],
        ["mat/snapshot", "dice/event", "bridge/availability", f"{OTHER}:game/state"],
        "game/prompt",
    ),
    (
        "pi",
        ["mat/snapshot", "mat/event", "dice/event", "bridge/availability"],
        [
            "game/command",
            "game/state",
            "referee/state",
            "leds/frame",
            "table/alert",
            f"{OTHER}:mat/snapshot",
        ],
        "bridge/probe",
    ),
    (
        "gm",
        ["game/command"],
        [
            "game/state",
            "game/reply",
            "referee/state",
            "mat/snapshot",
            "dice/event",
            "leds/frame",
            f"{OTHER}:game/command",
        ],
        "game/command",
    ),
    ("screen", [], ["game/command", "game/state", "dice/event", "mat/snapshot"], None),
]


def full(relative: str) -> str:
    """`game/state` on this table, `cellar:game/state` on the other one."""
    table, _, rest = relative.rpartition(":")
    return topic(rest, table or TABLE)


@pytest.mark.parametrize(
    ("name", "allowed", "refused", "barrier"), PUBLISHING, ids=[case[0] for case in PUBLISHING]
)
def test_each_role_publishes_only_its_own_topics(
    role_broker: RoleBroker, name: str, allowed: list[str], refused: list[str], barrier: str | None
) -> None:
    tag = os.urandom(4).hex()
    with probe(role_broker, "witness") as witness, probe(role_broker, name) as user:
        assert witness.connect() == "Success" and user.connect() == "Success"
        assert witness.subscribe(WITNESS_FILTER) == {WITNESS_FILTER: True}
        for relative in allowed + refused:
            # retained, as a forged game/state or mat/snapshot would be
            user.publish(full(relative), f"{tag} {relative}".encode(), retain=True)
        sender, mark = (user, full(barrier)) if barrier else (witness, topic("game/command"))
        sender.publish(mark, f"{tag} barrier".encode())
        witness.wait_for(mark, f"{tag} barrier".encode())
        arrived = {
            p.decode().split(" ", 1)[1] for p in witness.payloads() if p.startswith(tag.encode())
        }
        assert arrived == {*allowed, "barrier"}

    # Nor did the broker keep a refused retained message for later subscribers.
    with probe(role_broker, "witness") as late:
        assert late.connect() == "Success"
        late.subscribe(*(full(relative) for relative in allowed + refused))
        for relative in allowed:
            late.wait_for(full(relative), f"{tag} {relative}".encode())
        kept = {p.decode().split(" ", 1)[1] for p in late.payloads() if p.startswith(tag.encode())}
        assert kept == set(allowed)


# (reader, [(publisher, topic, may the reader read it)], publisher -> barrier topic)
READING = [
    (
        "screen",
        [
            ("rules-all", "game/state", True),
            ("rules-all", "game/event", True),
            ("rules-all", "game/prompt", True),
            ("rules-all", "table/alert", True),
            ("rules-all", "leds/frame", True),
            ("rules-all", "rules/availability", True),
            ("pi-all", "dice/event", True),
            ("pi-all", "bridge/availability", True),
            ("rules-all", "referee/state", False),
            ("rules-all", "referee/event", False),
            ("rules-all", "game/reply", False),
            ("rules-all", "game/command", False),
            ("rules-all", "seat/1/view", False),
            ("rules-all", f"{OTHER}:game/state", False),
            ("pi-all", "mat/snapshot", False),
            ("pi-all", "mat/event", False),
        ],
        {"rules-all": "game/state", "pi-all": "dice/event"},
    ),
    (
        "pi",
        [
            ("rules-all", "leds/frame", True),
            ("rules-all", "table/alert", True),
            ("rules-all", "game/state", True),
            ("rules-all", "game/prompt", True),
            ("rules-all", "rules/availability", True),
            ("rules-all", "referee/state", False),
            ("rules-all", "game/command", False),
            ("rules-all", "game/event", False),
            ("rules-all", "game/reply", False),
            ("rules-all", f"{OTHER}:leds/frame", False),
        ],
        {"rules-all": "leds/frame"},
    ),
    (
        "rules",
        [
            ("witness", "game/command", True),
            ("pi-all", "mat/snapshot", True),
            ("pi-all", "dice/event", True),
            ("pi-all", "bridge/availability", True),
            ("pi-all", f"{OTHER}:mat/snapshot", False),
            ("witness", f"{OTHER}:game/command", False),
            ("rules-all", "referee/state", False),
            ("rules-all", "leds/frame", False),
            ("rules-all", "game/state", False),
        ],
        {"rules-all": "game/command", "pi-all": "mat/event", "witness": "game/command"},
    ),
    (
        "gm",
        [
            ("rules-all", "referee/state", True),
            ("rules-all", "game/reply", True),
            ("rules-all", "game/state", True),
            ("rules-all", "seat/2/view", True),
            ("pi-all", "mat/snapshot", True),
            ("rules-all", f"{OTHER}:referee/state", False),
            ("rules-all", f"{OTHER}:game/state", False),
            ("pi-all", f"{OTHER}:mat/snapshot", False),
        ],
        {"rules-all": "game/state", "pi-all": "mat/event"},
    ),
]


@pytest.mark.parametrize(("name", "cases", "barriers"), READING, ids=[case[0] for case in READING])
def test_each_role_reads_only_its_own_topics(
    role_broker: RoleBroker,
    name: str,
    cases: list[tuple[str, str, bool]],
    barriers: dict[str, str],
) -> None:
    tag = os.urandom(4).hex()
    reader_user = role_user(name)
    # Wide filters a curious client would try, and each topic by name.
    filters = [topic("#"), "tabletop/v1/+/game/state", *{full(t) for _, t, _ in cases}]
    allowed = {relative for _, relative, ok in cases if ok}

    def subscribe(reader: Probe) -> None:
        assert reader.connect() == "Success"
        granted = reader.subscribe(*filters, *(full(b) for b in barriers.values()))
        for topic_filter in filters:
            if reader_user.may_subscribe(topic_filter):
                assert granted[topic_filter], topic_filter
            elif isinstance(role_broker, RoleAmqtt):
                # amqtt sends retained messages without a delivery check: it must refuse
                assert not granted[topic_filter], topic_filter

    publishers = {publisher for publisher, _, _ in cases}
    with contextlib.ExitStack() as stack:
        reader = stack.enter_context(probe(role_broker, name))
        subscribe(reader)
        senders = {p: stack.enter_context(probe(role_broker, p)) for p in publishers}
        for sender in senders.values():
            assert sender.connect() == "Success"
        for publisher, relative, _ in cases:
            senders[publisher].publish(full(relative), f"{tag} {relative}".encode(), retain=True)
        for publisher, sender in senders.items():
            sender.publish(full(barriers[publisher]), f"{tag} barrier {publisher}".encode())
            reader.wait_for(full(barriers[publisher]), f"{tag} barrier {publisher}".encode())
        arrived = {
            p.decode().split(" ", 1)[1]
            for p in reader.payloads()
            if p.startswith(tag.encode()) and b" barrier " not in p
        }
        assert arrived == allowed

    # The retained copies: a reader that subscribes now gets the allowed ones and no others.
    with probe(role_broker, name) as late:
        subscribe(late)
        for relative in allowed:
            late.wait_for(full(relative), f"{tag} {relative}".encode())
        kept = {p.decode().split(" ", 1)[1] for p in late.payloads() if p.startswith(tag.encode())}
        assert kept == allowed


def test_nobody_logs_in_without_a_user_and_its_password(role_broker: RoleBroker) -> None:
    with probe(role_broker, None) as anonymous:
        assert anonymous.connect() == "Not authorized"
    with contextlib.closing(Probe(role_broker.port, "gm", "not-the-password")) as wrong:
        assert wrong.connect() == "Not authorized"
    with contextlib.closing(Probe(role_broker.port, "nobody", "pw-nobody")) as stranger:
        assert stranger.connect() == "Not authorized"


def test_a_last_will_cannot_forge_what_the_role_may_not_publish(role_broker: RoleBroker) -> None:
    """The bridge's user leaves a retained will on game/state and drops the connection."""
    forged = os.urandom(4).hex().encode()
    with probe(role_broker, "witness") as witness:
        assert witness.connect() == "Success"
        witness.subscribe(WITNESS_FILTER)
        pi = ACCOUNTS["pi"]
        # amqtt refuses the login outright; Mosquitto takes it and drops the will
        sock, code = raw_connect(
            role_broker.port, "will-forger", pi.name, pi.password, (topic("game/state"), forged)
        )
        assert code in (0, 5)
        sock.close()  # no DISCONNECT: the broker would publish the will now
        # A will the role may publish does arrive: the barrier.
        sock, code = raw_connect(
            role_broker.port, "will-ok", pi.name, pi.password, (topic("bridge/probe"), forged)
        )
        assert code == 0
        sock.close()
        witness.wait_for(topic("bridge/probe"), forged)
        assert not witness.received(topic("game/state"), forged)


def test_a_new_client_gets_retained_messages_of_its_own_subscriptions_only(
    role_broker: RoleBroker,
) -> None:
    """amqtt 0.12 sent a connecting client the retained messages of every filter that any
    other client had subscribed: a viewer got referee/state while a game master watched it."""
    secret, public = (os.urandom(4).hex().encode() for _ in range(2))
    with probe(role_broker, "gm") as gm, probe(role_broker, "rules") as rules:
        assert gm.connect() == "Success" and rules.connect() == "Success"
        gm.subscribe(topic("referee/state"), topic("game/state"))
        rules.publish(topic("referee/state"), secret, retain=True)
        rules.publish(topic("game/state"), public, retain=True)
        gm.wait_for(topic("game/state"), public)
        with probe(role_broker, "screen") as screen:
            assert screen.connect() == "Success"
            screen.subscribe(topic("game/prompt"))
            screen.subscribe(topic("game/state"))
            screen.wait_for(topic("game/state"), public)
            assert topic("referee/state") not in screen.topics()
