"""How a client times its sendings of one command (tabletop.wire.resend), on a simulated clock."""

from __future__ import annotations

import json

from tabletop.wire.resend import resend_waits, with_id


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_command_is_sent_again_every_resend_after_until_the_deadline() -> None:
    clock = Clock()
    waits = []
    for wait in resend_waits(5.0, 2.0, clock):
        waits.append(wait)
        clock.now += wait  # no reply came in the wait
    assert waits == [2.0, 2.0, 1.0]
    assert clock.now == 105.0


def test_a_late_start_of_the_wait_is_taken_off_the_last_one() -> None:
    clock = Clock()
    waits = []
    for wait in resend_waits(3.0, 2.0, clock):
        waits.append(wait)
        clock.now += wait + 0.5  # a busy host: each wait overran by half a second
    assert waits == [2.0, 0.5]


def test_an_id_is_kept_or_made() -> None:
    key, data = with_id({"cmd": "roll", "id": "mine"}, "c")
    assert key == "mine" and json.loads(data) == {"cmd": "roll", "id": "mine"}
    key, data = with_id({"cmd": "roll", "id": "page's"}, "console", keep_id=False, source="console")
    sent = json.loads(data)
    assert key.startswith("console-") and sent == {"cmd": "roll", "id": key, "source": "console"}
    first, _ = with_id({"cmd": "roll"}, "c")
    second, _ = with_id({"cmd": "roll"}, "c")
    assert first.startswith("c-") and first != second
