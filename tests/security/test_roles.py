"""The role table as code: topic matching, filters within filters, and the Mosquitto ACL."""

from __future__ import annotations

import pytest

from tabletop.wire.roles import (
    ALL_TABLES,
    ROLE_ACCESS,
    Role,
    RoleError,
    User,
    check_user_name,
    filter_within,
    mosquitto_acl,
    parse_role,
    topic_matches,
)


@pytest.mark.parametrize(
    ("topic_filter", "topic", "matches"),
    [
        ("a/b", "a/b", True),
        ("a/+", "a/b", True),
        ("a/+", "a/b/c", False),
        ("a/#", "a/b/c", True),
        ("a/#", "a", True),  # MQTT: the parent level too
        ("+/b", "a/b", True),
        ("#", "$SYS/broker", False),  # wildcards never match $ topics
        ("a/b", "a/c", False),
        ("a/+/c", "a//c", True),
    ],
)
def test_topic_matches_as_mqtt_does(topic_filter: str, topic: str, matches: bool) -> None:
    assert topic_matches(topic_filter, topic) is matches


@pytest.mark.parametrize(
    ("inner", "outer", "within"),
    [
        ("t/k/game/state", "t/k/game/state", True),
        ("t/k/game/state", "t/k/#", True),
        ("t/k/#", "t/k/#", True),
        ("t/k", "t/k/#", True),
        ("t/k/#", "t/k/game/state", False),  # the viewer's wide subscription
        ("t/k/game/+", "t/k/game/state", False),
        ("t/+/game/state", "t/k/game/state", False),  # another table's too
        ("t/+/game/state", "t/+/game/state", True),
        ("t/k/game/state", "t/+/game/state", True),
        ("t/#", "t/+/#", False),
        ("t/k/game/#", "t/k/game/+", False),
    ],
)
def test_a_filter_is_within_another_only_if_every_topic_it_matches_is(
    inner: str, outer: str, within: bool
) -> None:
    assert filter_within(inner, outer) is within


def test_each_role_has_the_agreed_topics() -> None:
    """The contract of docs/security.md, spelt out once more so a change is a decision."""
    assert ROLE_ACCESS[Role.DAEMON].write == (
        "game/#",
        "referee/#",
        "rules/#",
        "table/#",
        "leds/#",
        "seat/#",
    )
    assert ROLE_ACCESS[Role.DAEMON].read == (
        "game/command",
        "mat/#",
        "dice/#",
        "bridge/#",
    )
    assert ROLE_ACCESS[Role.BRIDGE].write == ("mat/#", "dice/#", "bridge/#")
    assert ROLE_ACCESS[Role.GM].write == ("game/command",) and ROLE_ACCESS[Role.GM].read == ("#",)
    assert ROLE_ACCESS[Role.VIEWER].write == ()
    assert not any(
        t.startswith(("referee/", "seat/", "mat/")) for t in ROLE_ACCESS[Role.VIEWER].read
    )


def test_a_user_is_held_to_its_tables() -> None:
    gm = User("gm", Role.GM, ("kitchen",))
    assert gm.may_publish("tabletop/v1/kitchen/game/command")
    assert not gm.may_publish("tabletop/v1/cellar/game/command")
    assert gm.may_subscribe("tabletop/v1/kitchen/#")
    assert not gm.may_subscribe("tabletop/v1/+/game/state")
    assert not gm.may_subscribe("#")
    everywhere = User("all", Role.GM, (ALL_TABLES,))
    assert everywhere.may_publish("tabletop/v1/cellar/game/command")
    assert everywhere.may_subscribe("tabletop/v1/+/game/state")
    assert not everywhere.may_subscribe("tabletop/#")  # could match other roots


def test_no_wildcard_is_a_topic_to_publish_and_no_broken_filter_a_subscription() -> None:
    rules = User("rules", Role.DAEMON, ("kitchen",))
    assert not rules.may_publish("tabletop/v1/kitchen/game/#")
    assert not rules.may_receive("tabletop/v1/kitchen/game/+")
    gm = User("gm", Role.GM, ("kitchen",))
    assert not gm.may_subscribe("tabletop/v1/kitchen/a#")
    assert not gm.may_subscribe("tabletop/v1/kitchen/#/x")
    assert not gm.may_subscribe("")


def test_names_and_roles_are_checked() -> None:
    assert check_user_name("rules.kitchen-1") == "rules.kitchen-1"
    for bad in ("", "a b", "a:b", "#", "-x", "ä"):
        with pytest.raises(RoleError, match="user name"):
            check_user_name(bad)
    assert parse_role("viewer") is Role.VIEWER
    with pytest.raises(RoleError, match="the roles are daemon, bridge, gm, viewer"):
        parse_role("admin")


def test_the_mosquitto_acl_gives_each_user_its_role_per_table() -> None:
    acl = mosquitto_acl(
        [User("pi", Role.BRIDGE, ("kitchen",)), User("screen", Role.VIEWER, (ALL_TABLES,))]
    )
    blocks = {
        block.splitlines()[1]: block.splitlines()[2:]
        for block in acl.split("\n\n")
        if block.startswith("# pi") or block.startswith("# screen")
    }
    assert blocks["user pi"][:3] == [
        "topic write tabletop/v1/kitchen/mat/#",
        "topic write tabletop/v1/kitchen/dice/#",
        "topic write tabletop/v1/kitchen/bridge/#",
    ]
    assert "topic read tabletop/v1/kitchen/leds/#" in blocks["user pi"]
    assert all(line.startswith("topic read tabletop/v1/+/") for line in blocks["user screen"])
    # Nothing before the first user: anonymous clients get no topic at all.
    first = acl.index("\nuser ")
    assert not any(line.startswith("topic") for line in acl[:first].splitlines())
