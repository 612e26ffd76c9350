"""The seats' phones' joins (src/tabletop/console/seats.py), without a browser: kept across a restart as
digests, ended by their time or by the game master, and a phone's decision built for its own
seat's player only (issue 48 items 5 and 7)."""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path
from typing import Any

import pytest

from tabletop.console.seats import SeatActionRefused, SeatScreens, seat_command


class NoSessions:
    """What SeatScreens reads of the game masters' sessions: the lifetime, and no feed."""

    lifetime = 100.0

    def live_feed(self) -> None:
        return None


def screens(store: Path, now: list[float]) -> SeatScreens:
    return SeatScreens(NoSessions(), store, clock=lambda: now[0])  # type: ignore[arg-type]


def test_a_join_is_kept_across_a_restart_as_a_digest_only(tmp_path: Path) -> None:
    store = tmp_path / "seats" / "main.json"
    now = [1000.0]
    first = screens(store, now)
    codes = first.issue([1, 2])
    token = first.join(2, codes[2].lower())
    assert first.joined(2, token) and not first.joined(1, token)
    text = store.read_text(encoding="utf-8")
    assert token not in text and codes[2] not in text
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    again = screens(store, now)  # the console restarted
    assert again.joined(2, token) and again.seconds_left(token) == pytest.approx(100.0)
    assert not again.joined(2, token + "x")
    now[0] += 101  # past its lifetime
    assert not again.joined(2, token)
    assert json.loads(store.read_text(encoding="utf-8"))["phones"] == {}


def test_ending_every_join_is_kept_too(tmp_path: Path) -> None:
    store = tmp_path / "main.json"
    now = [0.0]
    first = screens(store, now)
    token = first.join(1, first.issue([1])[1])
    assert first.forget() == 1 and not first.joined(1, token)
    assert not screens(store, now).joined(1, token)


def test_a_store_that_cannot_be_read_starts_anew(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = tmp_path / "main.json"
    store.write_text("{not json", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        fresh = screens(store, [0.0])
    assert fresh.phones == 0
    assert any("phones join anew" in r.getMessage() for r in caplog.records)
    token = fresh.join(1, fresh.issue([1])[1])
    assert screens(store, [0.0]).joined(1, token)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"cmd": "bet", "action": "fold", "answers": 3, "player": "Bo"}, "player"),
        ({"cmd": "bet", "action": "fold", "answers": 3, "seat": 2}, "seat"),
        ({"cmd": "bet", "action": "shove", "answers": 3}, "action"),
        ({"cmd": "bet", "action": "raise", "amount": 0, "answers": 3}, "amount"),
        ({"cmd": "bet", "action": "raise", "amount": True, "answers": 3}, "amount"),
        ({"cmd": "poker_hand", "values": [1, 2, 7], "answers": 3}, "values"),
        ({"cmd": "draw", "keep": "1 2", "answers": 3}, "keep"),
        ({"cmd": "lucky", "replace": "yes", "answers": 3}, "replace"),
        ({"cmd": "new_game", "players": ["Bo"], "answers": 3}, "cmd"),
        ({"cmd": "undo", "answers": 3}, "cmd"),
        ({"cmd": "bet", "action": "fold"}, "answers"),
        (["bet"], "cmd"),
    ],
)
def test_a_phone_s_decision_takes_only_what_the_page_sends(body: Any, field: str) -> None:
    with pytest.raises(SeatActionRefused) as refused:
        seat_command(body, 1, "Ana")
    assert refused.value.field == field
    assert "{" not in str(refused.value) and "_" not in str(refused.value)


def test_a_phone_s_decision_is_its_own_seat_s_player_s() -> None:
    command = seat_command({"cmd": "bet", "action": "raise", "amount": 4, "answers": 9}, 1, "Ana")
    assert command == {
        "cmd": "bet",
        "player": "Ana",
        "seat": 1,
        "answers": 9,
        "action": "raise",
        "amount": 4,
    }
    hand = seat_command({"cmd": "poker_hand", "values": [6, 6, 1, 2, 3], "answers": 9}, 2, "Bo")
    assert hand["player"] == "Bo" and hand["seat"] == 2 and hand["values"] == [6, 6, 1, 2, 3]
