"""The embedded broker's subscriptions can change while a message is being sent (amqtt walks
them with awaits in the loop): the walk goes on over the filters it started with."""

from __future__ import annotations

import asyncio

from tabletop.wire.broker import EmbeddedBroker
from tabletop.wire.embedded import SubscriptionTable, TableBroker


def test_a_subscription_made_during_a_walk_does_not_end_it() -> None:
    table = SubscriptionTable({"a/#": [], "b/#": []})
    walked = []
    for topic_filter, _ in table.items():
        table[f"new/{topic_filter}"] = []  # a client subscribing meanwhile
        walked.append(topic_filter)
    for topic_filter in table:
        del table[topic_filter]  # amqtt's unsubscribing walk deletes as it goes
        walked.append(topic_filter)
    assert walked == ["a/#", "b/#", "a/#", "b/#", "new/a/#", "new/b/#"]
    assert table == {}


def test_the_broker_walks_its_subscriptions_over_a_copy() -> None:
    async def made() -> TableBroker:  # amqtt's broker is made inside an event loop
        return TableBroker(EmbeddedBroker(port=0)._config(), users=False)  # as it is started

    assert isinstance(asyncio.run(made())._subscriptions, SubscriptionTable)
