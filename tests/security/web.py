"""A plain HTTP(S) client for the console's security tests: what an attacker on the venue's
network sends, byte for byte, with no browser deciding for it."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit


@dataclass
class Answer:
    """One response: its status, headers (lower-case names) and body."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class WebClient:
    """Talks to one console; keeps the session cookie it is given, as a browser would."""

    base: str
    context: ssl.SSLContext | None = None
    cookie: str | None = None
    cookies_seen: list[str] = field(default_factory=list)

    def _connection(self) -> http.client.HTTPConnection:
        parts = urlsplit(self.base)
        assert parts.hostname is not None and parts.port is not None
        if parts.scheme == "https":
            return http.client.HTTPSConnection(
                parts.hostname, parts.port, context=self.context, timeout=15
            )
        return http.client.HTTPConnection(parts.hostname, parts.port, timeout=15)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        sent = dict(headers or {})
        if self.cookie is not None and "Cookie" not in sent:
            sent["Cookie"] = self.cookie
        connection = self._connection()
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            answer = Answer(response.status, response.getheaders(), response.read())
        finally:
            connection.close()
        for key, value in answer.headers:
            if key.lower() == "set-cookie":
                self.cookies_seen.append(value)
                if "max-age=0" not in value.lower():
                    self.cookie = value.split(";", 1)[0]
        return answer

    def login(self, user: str, password: str, headers: dict[str, str] | None = None) -> Answer:
        body = urlencode({"username": user, "password": password}).encode()
        return self.request(
            "POST",
            "/gm/login",
            body,
            {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})},
        )

    def act(self, verb: str, values: dict[str, Any]) -> Answer:
        return self.request(
            "POST",
            f"/gm/actions/{verb}",
            json.dumps(values).encode(),
            {"Content-Type": "application/json"},
        )


def stream_body(host: str, port: int, path: str, chunks: int, chunk_size: int) -> tuple[int, bytes]:
    """POSTs a chunked body of `chunks` x `chunk_size` bytes as fast as the server takes it;
    returns (bytes the server took before it stopped reading, the start of its answer)."""
    sock = socket.create_connection((host, port), timeout=20)
    sent = 0
    try:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            "Transfer-Encoding: chunked\r\n\r\n".encode()
        )
        chunk = f"{chunk_size:x}\r\n".encode() + b"a" * chunk_size + b"\r\n"
        try:
            for _ in range(chunks):
                sock.sendall(chunk)
                sent += chunk_size
            sock.sendall(b"0\r\n\r\n")
        except OSError:  # the server answered and closed: it read no further
            pass
        sock.settimeout(10)
        answer = b""
        try:
            while len(answer) < 200:
                part = sock.recv(4096)
                if not part:
                    break
                answer += part
        except OSError:
            pass
        return sent, answer
    finally:
        sock.close()
