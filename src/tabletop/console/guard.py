"""What the console checks before a request reaches a page: its body's size, and its Host and
Origin; and the headers every answer carries.

A console at a café or a convention sits on a network shared with strangers (issue 33):

- every request body is bounded *while it is read*: a declared Content-Length over the route's
  limit is refused before a byte is read, and a body streamed past the limit (chunked, or
  longer than declared) stops being read at the limit, so no body can grow the console's
  memory;
- the `Host` header must name the console (the names it is configured to serve; in no-users
  mode only loopback names), which stops a DNS-rebinding page from reaching it under another
  name; a request that changes something (POST) must come from the console's own pages:
  its `Origin`, when the browser sends one, is the console's own origin;
- a route that reads no body gets none: a declared or chunked body there is answered 413 and
  the connection closed, and an answer given before the body was read to its end (a refusal)
  closes the connection too, so the rest of the body is never read (issue 51);
- every answer carries the usual security headers (`SECURITY_HEADERS`: the pages load only
  the console's own files, may not be framed, are not sniffed as another type, and send no
  Referer to another site: `same-origin`, since with `no-referrer` a browser sends a form's
  `Origin` as "null", which the Origin check refuses), and over TLS
  `Strict-Transport-Security`.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The largest body each route reads; every other route reads none.
LOGIN_BODY_LIMIT = 4_096  # a user name and a password, urlencoded
FORM_BODY_LIMIT = 16_384  # one filled-in action form (the roster included), JSON
JOIN_BODY_LIMIT = 1_024  # a seat's code, urlencoded
OTHER_BODY_LIMIT = 0

# Every file a page loads is the console's own (no CDN, no inline script or style); images
# may also be drawn from data: and blob: URLs (a throw's photo). No page may be framed.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
)
# Over TLS only: browsers that once reached the console over TLS refuse plain HTTP to it
HSTS = (b"strict-transport-security", b"max-age=31536000")

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


class BodyTooLarge(Exception):
    """A request body went past its route's limit while it was read."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the request body is over {limit} bytes")
        self.limit = limit


def body_limit(path: str) -> int:
    """How many bytes of body the route at `path` reads at most."""
    if path == "/gm/login":
        return LOGIN_BODY_LIMIT
    if path.startswith("/gm/actions/") or path == "/gm/dice/correction":
        return FORM_BODY_LIMIT  # a correction: up to 40 dice, each a centre and a value
    if path.startswith("/seat/") and (path.endswith("/join") or path.endswith("/act")):
        return JOIN_BODY_LIMIT  # a seat's code, or its player's decision (JSON)
    return OTHER_BODY_LIMIT


def is_loopback(host: str) -> bool:
    """True for a name or address that only reaches this machine."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class ServedNames:
    """The host names (without port) a request may address the console by."""

    names: frozenset[str]

    @classmethod
    def of(cls, names: Iterable[str]) -> ServedNames:
        return cls(frozenset(name.strip("[]").lower() for name in names if name))

    def allows(self, host_header: str) -> bool:
        """True when a Host header (`name[:port]`, IPv6 in brackets) names the console."""
        host = host_header.strip().lower()
        if host.startswith("["):
            name = host[1 : host.find("]")] if "]" in host else ""
        else:
            name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
        return bool(name) and name in self.names


class Guard:
    """ASGI middleware: the Host and Origin checks, then the body limit, on every request;
    the security headers on every answer."""

    def __init__(self, app: ASGIApp, served: ServedNames) -> None:
        self.app = app
        self.served = served

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = _Body(scope)
        await self._check(scope, body.bounded(receive), body.closing(_secured(scope, send)))

    async def _check(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {
            key.decode("latin-1"): value.decode("latin-1") for key, value in scope["headers"]
        }
        host = headers.get("host", "")
        if not self.served.allows(host):
            await _refuse(
                send,
                421,
                f"this console does not serve the name {host!r}; open it by the name it is "
                "configured to serve (tabletop console --server-name)",
            )
            return
        if scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            origin = headers.get("origin")
            scheme = scope.get("scheme", "http")
            if origin is not None and origin != f"{scheme}://{host}":
                await _refuse(send, 403, f"a form from {origin!r} may not act on this console")
                return
            if headers.get("sec-fetch-site") == "cross-site":
                await _refuse(send, 403, "a page of another site may not act on this console")
                return
        limit = body_limit(scope["path"])
        declared = headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await _refuse(send, 413, _over(limit), close=True)
            return
        if limit == 0 and "transfer-encoding" in headers:
            await _refuse(send, 413, _over(limit), close=True)
            return
        await self.app(scope, _limited(receive, limit), send)


def _over(limit: int) -> str:
    return "this route reads no body" if limit == 0 else f"the request body is over {limit} bytes"


class _Body:
    """Whether a request's body has been read to its end, for the answer to know."""

    def __init__(self, scope: Scope) -> None:
        names = {key.lower() for key, _ in scope["headers"]}
        declared = next(
            (value for key, value in scope["headers"] if key.lower() == b"content-length"), b""
        )
        self.pending = b"transfer-encoding" in names or declared.strip() not in (b"", b"0")

    def bounded(self, receive: Receive) -> Receive:
        async def following() -> Message:
            message = await receive()
            ended = message["type"] == "http.request" and not message.get("more_body", False)
            if ended or message["type"] == "http.disconnect":
                self.pending = False
            return message

        return following

    def closing(self, send: Send) -> Send:
        """`send` that closes the connection after an answer given before the body's end:
        the server would otherwise read the rest of it, however long, to keep it open."""

        async def closing(message: Message) -> None:
            if message["type"] == "http.response.start" and self.pending:
                headers = [
                    (key, value)
                    for key, value in message.get("headers", [])
                    if key.lower() != b"connection"
                ]
                message = {**message, "headers": [*headers, (b"connection", b"close")]}
            await send(message)

        return closing


def _secured(scope: Scope, send: Send) -> Send:
    """`send` that adds the security headers to every answer (HSTS over TLS)."""
    extra = [*SECURITY_HEADERS, HSTS] if scope.get("scheme") == "https" else [*SECURITY_HEADERS]

    async def secured(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return secured


def _limited(receive: Receive, limit: int) -> Receive:
    """`receive` that raises BodyTooLarge once the body read so far is over `limit` bytes."""
    read = 0

    async def bounded() -> Message:
        nonlocal read
        message = await receive()
        if message["type"] == "http.request":
            read += len(message.get("body", b""))
            if read > limit:
                raise BodyTooLarge(limit)
        return message

    return bounded


async def _refuse(send: Send, status: int, message: str, close: bool = False) -> None:
    body = json.dumps({"ok": False, "error": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if close:  # the body was not read: the connection cannot carry another request
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
