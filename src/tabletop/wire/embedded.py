"""The amqtt side of the embedded broker: its broker class and the plugins that enforce the roles.

Imported only on the broker's own thread (src/tabletop/wire/broker.py), so nothing else loads amqtt.

- `TableAuthPlugin` logs clients in: with users, by name and a `$7$` password hash, and a
  last will only on a topic the user may publish; with no users, anonymous clients, but only
  from this machine (a loopback address).
- `TableTopicPlugin` checks every publish, every subscription and every delivery against the
  user's role (src/tabletop/wire/roles.py).
- `TableBroker` ties client ids to users: amqtt would drop the session that holds a client id
  as soon as a CONNECT names it, before it checks the newcomer's password; this class holds
  that back until the newcomer has logged in, and refuses it (CONNACK "identifier rejected")
  when the id is held by another user's session. docs/security.md states the rule.
  It also sends retained messages only for the client's own subscriptions and only those
  its user may read: amqtt 0.12 checks neither (on connecting, a client got the retained
  messages of every filter any other client had subscribed).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from amqtt.broker import Broker
from amqtt.contexts import Action
from amqtt.errors import MQTTError
from amqtt.mqtt.connack import IDENTIFIER_REJECTED, NOT_AUTHORIZED, ConnackPacket
from amqtt.plugins.base import BaseAuthPlugin, BaseTopicPlugin

from .passwords import verify_password
from .roles import User, parse_role

log = logging.getLogger(__name__)

# The session fields amqtt overwrites when a CONNECT resumes a persistent session; restored
# when that CONNECT is refused.
_RESUMED_FIELDS = (
    "will_flag",
    "will_message",
    "will_topic",
    "will_qos",
    "keep_alive",
    "username",
    "password",
    "parent",
)
# Client ids whose old session amqtt asked to delete while a CONNECT is being checked.
_held_back: ContextVar[list[str] | None] = ContextVar("tabletop_held_back", default=None)


@dataclass
class UserEntry:
    """One user as the plugins' configuration carries it (amqtt builds it with dacite)."""

    name: str
    role: str
    tables: list[str]
    password_hash: str = field(repr=False)

    @classmethod
    def of(cls, user: User) -> UserEntry:
        if user.password_hash is None:
            raise ValueError(f"user {user.name!r} has no password hash")
        return cls(user.name, user.role.value, list(user.tables), user.password_hash)

    def user(self) -> User:
        return User(self.name, parse_role(self.role), tuple(self.tables), self.password_hash)


def is_loopback(address: str | None) -> bool:
    """True for an address of this machine (127.0.0.0/8, ::1, or IPv4 ::1 mapped)."""
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


class TableAuthPlugin(BaseAuthPlugin):  # type: ignore[misc]
    """Logs clients in: configured users by password, else anonymous ones from this machine."""

    @dataclass
    class Config:
        users: list[UserEntry] = field(default_factory=list)

    def __init__(self, context: Any) -> None:
        super().__init__(context)
        self.users = {entry.name: entry.user() for entry in self.config.users}

    async def authenticate(self, *, session: Any) -> bool:
        if session is None:
            return False
        address = session.remote_address
        if not self.users:
            if is_loopback(address):
                return True
            log.warning(
                "refused an anonymous client from %s: the embedded broker has no users, so it "
                "serves this machine only (add [[broker.users]] to the table's file)",
                address,
            )
            return False
        user = self.users.get(session.username) if session.username else None
        if user is None or user.password_hash is None or session.password is None:
            log.warning(
                "refused a client from %s: %s",
                address,
                "unknown user" if session.username else "no user name (anonymous)",
            )
            return False
        # PBKDF2 takes milliseconds: keep the broker's loop serving others meanwhile.
        if not await asyncio.to_thread(verify_password, session.password, user.password_hash):
            log.warning("refused user %r from %s: wrong password", user.name, address)
            return False
        if session.will_flag and not user.may_publish(session.will_topic or ""):
            log.warning(
                "refused user %r from %s: its last will is on %r, which role %s may not publish",
                user.name,
                address,
                session.will_topic,
                user.role.value,
            )
            return False
        return True


class TableTopicPlugin(BaseTopicPlugin):  # type: ignore[misc]
    """Checks publish, subscribe and delivery against the user's role."""

    @dataclass
    class Config:
        users: list[UserEntry] = field(default_factory=list)

    def __init__(self, context: Any) -> None:
        super().__init__(context)
        self.users = {entry.name: entry.user() for entry in self.config.users}

    async def topic_filtering(
        self, *, session: Any = None, topic: str | None = None, action: Any = None
    ) -> bool:
        user = self.users.get(session.username) if session is not None else None
        if user is None or topic is None:
            return False
        if action == Action.PUBLISH:
            allowed = user.may_publish(topic)
        elif action == Action.SUBSCRIBE:
            allowed = user.may_subscribe(topic)
        else:
            allowed = user.may_receive(topic)
        if not allowed and action != Action.RECEIVE:
            log.info("user %r (%s) may not %s %r", user.name, user.role.value, action, topic)
        return bool(allowed)


class SubscriptionTable(dict[str, Any]):
    """amqtt's topic filter -> subscriptions, walked over a copy: a subscription made while a
    message is being sent no longer ends the sending."""

    def __iter__(self) -> Iterator[str]:
        return iter(list(super().keys()))

    def items(self) -> Any:
        return list(super().items())


class TableBroker(Broker):  # type: ignore[misc]
    """amqtt's broker with every connection closed on stop and client ids tied to users."""

    def __init__(self, config: dict[str, Any], users: bool) -> None:
        super().__init__(config)
        self.with_users = users
        self.writers: list[asyncio.StreamWriter] = []
        # amqtt walks its subscriptions with awaits inside the loop (`_run_broadcast`): a client
        # subscribing meanwhile changed the dict's size, the walk raised, and the message was
        # lost for every subscriber not yet reached (seen as "dictionary changed size during
        # iteration" in a role test). Each walk now goes over a copy of the filters.
        self._subscriptions = SubscriptionTable(self._subscriptions)  # type: ignore[has-type]

    async def stream_connected(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, listener_name: str
    ) -> None:
        self.writers[:] = [w for w in self.writers if not w.is_closing()]
        self.writers.append(writer)
        try:
            await super().stream_connected(reader, writer, listener_name)
        finally:
            # amqtt does not always close the socket when a session ends
            if not writer.is_closing():
                writer.close()

    async def _initialize_client_session(
        self, reader: Any, writer: Any, remote_address: str, remote_port: int
    ) -> tuple[Any, Any]:
        if not self.with_users:
            accepted: tuple[Any, Any] = await super()._initialize_client_session(
                reader, writer, remote_address, remote_port
            )
            return accepted
        before = {
            client_id: (session, {name: getattr(session, name) for name in _RESUMED_FIELDS})
            for client_id, (session, _) in self._sessions.items()
        }
        held_back: list[str] = []
        token = _held_back.set(held_back)
        try:
            handler, session = await super()._initialize_client_session(
                reader, writer, remote_address, remote_port
            )
        finally:
            _held_back.reset(token)
        holder, fields = before.get(session.client_id, (None, {}))
        holder_name = fields.get("username")
        if not await self._authenticate(session, None):
            code, why = NOT_AUTHORIZED, "its login was refused"
        elif (
            holder is not None
            and (holder.transitions.is_connected() or holder.clean_session is False)
            and holder_name != session.username
        ):
            code = IDENTIFIER_REJECTED
            why = f"client id {session.client_id!r} is held by another user's session"
        else:
            for client_id in held_back:
                await super()._delete_session(client_id)
            return handler, session
        if holder is not None and holder is session:  # a resumed session: undo amqtt's changes
            for name, value in fields.items():
                setattr(holder, name, value)
        await ConnackPacket.build(0, code).to_stream(writer)
        await writer.close()
        raise MQTTError(f"refused a client from {remote_address}: {why}")

    async def _publish_retained_messages_for_subscription(
        self, subscription: tuple[str, int], session: Any
    ) -> None:
        topic_filter, qos = subscription
        holders = self._subscriptions.get(topic_filter, [])
        handler = self._get_handler(session)
        if handler is None or all(held.client_id != session.client_id for held, _ in holders):
            return  # not this client's subscription (amqtt asks for every filter on connect)
        sends = []
        for topic, retained in list(self._retained_messages.items()):
            if not self._matches(topic, topic_filter):
                continue
            if not await self._topic_filtering(session, topic=topic, action=Action.RECEIVE):
                continue
            sends.append(
                asyncio.ensure_future(
                    handler.mqtt_publish(
                        retained.topic, retained.data, min(qos, retained.qos or qos), retain=True
                    )
                )
            )
        if sends:
            await asyncio.wait(sends)

    async def _delete_session(self, client_id: str) -> None:
        held_back = _held_back.get()
        if held_back is not None:
            held_back.append(client_id)
            return
        await super()._delete_session(client_id)
