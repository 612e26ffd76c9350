"""How every client of the rules daemon sends a command: with an id, again and again under the
same id until the reply comes or the time allowed is over.

The daemon applies an id once and answers a repeat with the reply it gave, so a command lost
while the daemon restarted is applied exactly once. `tabletop.daemon.client.TableClient` (the
command line's, on threads) and the console's feed (`tabletop.console.feed`, on asyncio) each
wait for the reply their own way, between the sendings this module times.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any


def with_id(
    command: Mapping[str, Any], prefix: str, *, keep_id: bool = True, **envelope: Any
) -> tuple[str, bytes]:
    """`command` as sent: its id and its bytes, with `envelope`'s keys (`source`) added. The id
    is a new one, `prefix-...`, unless the command has one and `keep_id` (the console gives
    each command from a page an id of its own)."""
    payload = {**command, **envelope}
    if not keep_id or "id" not in payload:
        payload["id"] = f"{prefix}-{uuid.uuid4().hex[:16]}"
    return str(payload["id"]), json.dumps(payload).encode()


def resend_waits(
    timeout: float, resend_after: float, clock: Callable[[], float] = time.monotonic
) -> Iterator[float]:
    """How long to wait for the reply after each sending: `resend_after` each time, the last
    wait cut short at the deadline, `timeout` from the first; none once the deadline is past
    (the reply never came)."""
    deadline = clock() + timeout
    while (left := deadline - clock()) > 0:
        yield min(resend_after, left)
