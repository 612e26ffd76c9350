"""Issue 48 item 5: each player acts on their own phone, and the game master can undo it.

A seat's command (`"seat": N`, `"answers": VERSION`, set by the console from the phone's
join) is checked by the daemon against the game as it stands (src/tabletop/daemon/seat_commands.py):
the attacks below (a seat acting for another, out of turn, an old command sent again, a game
master's verb) are each refused in words, with nothing applied and nothing logged. The game
master's `undo` takes the game's last applied command back, in memory and in every replay of
the log.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from daemon_helpers import QuietLink

from tabletop.daemon.server import TableOptions, TableServer
from tabletop.daemon.store import LogDatabase
from tabletop.wire.mqtt import Message

SEATS = ("Ana", "Bo")


class Table:
    """A one-table daemon with no broker: commands in, what it would publish kept."""

    def __init__(self, tmp_path: Path, snapshot_every: int = 100) -> None:
        self.database = LogDatabase(tmp_path / "log.db")
        self.database.open()
        assert self.database.claim("t1")
        options = TableOptions(seats=SEATS, grace=0.3, game="ossix", snapshot_every=snapshot_every)
        self.link = QuietLink()
        self.server = TableServer("t1", self.link, self.database, "full", options)  # type: ignore[arg-type]
        self.server.load()
        self.server.announce()
        self.sent = 0

    def send(self, **command: Any) -> dict[str, Any]:
        self.sent += 1
        command.setdefault("id", f"c{self.sent}")
        payload = json.dumps({"v": 1, **command}).encode()
        server = self.server
        server.decide([Message(server.topics.command, payload)], float(self.sent))
        server.referee.commit()
        server.publish_replies()
        server.publish_results()
        replies = self.link.bodies(server.topics.reply)
        return next(r for r in reversed(replies) if r.get("id") == command["id"])

    def seat_view(self, number: int) -> dict[str, Any]:
        view: dict[str, Any] = self.link.bodies(self.server.topics.seat_state(number))[-1]
        return view

    def seat(self, number: int, **command: Any) -> dict[str, Any]:
        """What the console sends for seat `number`'s phone: the seat, the version it saw."""
        if "answers" not in command:
            command["answers"] = self.seat_view(number)["version"]
        return self.send(seat=number, **command)

    def prompt(self) -> dict[str, Any]:
        return self.server.referee.referee_prompt_json()

    def events(self) -> list[str]:
        return [
            event["text"]
            for body in self.link.bodies(self.server.topics.referee_event)
            for event in body["events"]
        ]

    def close(self) -> None:
        self.database.close()


def to_the_betting(table: Table) -> None:
    """A game of OS-SIX, a hand of poker dealt: Bo to bet first."""
    assert table.send(cmd="new_game", players=list(SEATS))["ok"]
    money = [{"name": name, "money": 20} for name in SEATS]
    # played open, the hands thrown in the tray: the betting is what is tested here
    started = table.send(cmd="poker_start", players=money, open=True)
    if not started["ok"] and started.get("field") == "open":  # a game without the option
        started = table.send(cmd="poker_start", players=money)
    assert started["ok"], started
    assert table.send(cmd="ante")["ok"]
    hands = {"Ana": [2, 2, 3, 4, 6], "Bo": [1, 1, 5, 5, 6]}
    if table.prompt()["pending"] is None:  # concealed (the default): each hand is entered
        for name, values in hands.items():
            reply = table.send(cmd="poker_hand", player=name, values=values)
            assert reply["ok"], reply
    else:  # played open: each hand thrown in the tray, in turn
        for _ in hands:
            reply = table.send(cmd="roll", values=hands[table.prompt()["who"][0]])
            assert reply["ok"], reply
    prompt = table.prompt()
    assert prompt["pending"]["type"] == "poker_bet" and prompt["who"] == ["Bo"], prompt


def test_a_seat_sends_its_own_player_s_bet_and_the_game_master_sees_it(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        to_the_betting(table)
        assert table.seat_view(2)["your_turn"] is True
        reply = table.seat(2, cmd="bet", player="Bo", action="check")
        assert reply["ok"] is True, reply
        assert table.prompt()["who"] == ["Ana"]
        told = table.events()[-1]
        assert told.startswith("Seat 2's phone: ") and "Bo" in told, told
        # the log says which seat sent it
        record = table.server.referee.log.records(None)
        assert any(json.loads(r.payload).get("source") == "seat 2" for r in record)
    finally:
        table.close()


def refused_without_a_trace(table: Table, reply: dict[str, Any], words: str) -> None:
    assert reply["ok"] is False and reply["kind"] == "seat", reply
    assert words in reply["error"], reply
    assert "{" not in reply["error"] and "_" not in reply["error"]


def test_a_seat_acting_for_another_out_of_turn_or_again_is_refused(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        to_the_betting(table)
        referee = table.server.referee
        seq, state = referee.last_seq, referee.state_json()

        # seat 1 (Ana) acting for Bo, whose turn it is
        reply = table.seat(1, cmd="bet", player="Bo", action="fold")
        refused_without_a_trace(table, reply, "Seat 1 plays Ana: your phone cannot act for")
        # Ana out of turn, from her own seat
        reply = table.seat(1, cmd="bet", player="Ana", action="fold")
        refused_without_a_trace(table, reply, "It is not your turn: the table waits for Bo.")
        # a game master's verbs from a phone
        for verb in ({"cmd": "ante"}, {"cmd": "undo"}, {"cmd": "roll", "values": [6]}):
            reply = table.seat(2, player="Bo", **verb)
            refused_without_a_trace(table, reply, "Only the game master can do that")
        # a seat the table does not have, and a version that never was
        refused_without_a_trace(
            table, table.seat(3, cmd="bet", player="Bo", action="fold", answers=1), "no seat 3"
        )
        reply = table.seat(2, cmd="bet", player="Bo", action="fold", answers=-1)
        refused_without_a_trace(table, reply, "The table has moved on")
        # nothing applied, nothing logged, no refusal on the game master's list
        assert referee.last_seq == seq and referee.state_json() == state

        # Bo checks from his phone; the same request sent again (a double tap: a new id,
        # the version it answered) is stale, the very same message again is its old answer
        seen = table.seat_view(2)["version"]
        first = table.seat(2, cmd="bet", player="Bo", action="check", answers=seen, id="tap")
        assert first["ok"] is True
        after = referee.state_json()
        again = table.send(seat=2, cmd="bet", player="Bo", action="check", answers=seen, id="tap")
        assert again["ok"] is True and again.get("duplicate") is True
        # Ana bets; Bo's phone replays its old check with a fresh id: the turn is Bo's again,
        # but his check answered a moment that is gone
        assert table.seat(1, cmd="bet", player="Ana", action="bet", amount=2)["ok"]
        assert table.prompt()["who"] == ["Bo"]
        after = referee.state_json()
        replay = table.send(seat=2, cmd="bet", player="Bo", action="check", answers=seen)
        refused_without_a_trace(table, replay, "The table has moved on")
        assert referee.state_json() == after
    finally:
        table.close()


def test_the_game_master_undoes_a_seat_s_command_and_every_replay_agrees(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path)
    try:
        to_the_betting(table)
        referee = table.server.referee
        before = referee.state_json()
        seen = table.seat_view(2)["version"]
        assert table.seat(2, cmd="bet", player="Bo", action="fold")["ok"]
        assert referee.state_json() != before
        numbers = [
            e["number"] for b in table.link.bodies(table.server.topics.event) for e in b["events"]
        ]

        reply = table.send(cmd="undo")
        assert reply["ok"] is True and reply["undid"] == reply["seq"] - 1
        assert referee.state_json()["poker"] == before["poker"]
        assert table.prompt()["who"] == ["Bo"]
        assert table.events()[-1].startswith("The game master took back: ")
        public = table.link.bodies(table.server.topics.event)[-1]["events"][-1]
        assert public["text"].startswith("Taken back: ") and public["number"] > numbers[-1]
        # the phone's version moved on: its fold cannot be sent again as it was
        assert table.seat_view(2)["version"] != seen
        refused_without_a_trace(
            table,
            table.send(seat=2, cmd="bet", player="Bo", action="fold", answers=seen),
            "The table has moved on",
        )
        # the next event is numbered after the undo's line, never again
        assert table.seat(2, cmd="bet", player="Bo", action="check")["ok"]
        last = table.link.bodies(table.server.topics.event)[-1]["events"][0]
        assert last["number"] == public["number"] + 1
        state = referee.state_json()

        # a restart reads the same game from the log
        table.server.load()
        assert table.server.referee.state_json() == state
        assert table.server.referee.event_count == last["number"]
    finally:
        table.close()


def test_undo_reaches_back_only_to_the_game_s_start(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        reply = table.send(cmd="undo")
        assert reply["ok"] is False and "nothing to take back" in reply["error"]
        assert table.send(cmd="new_game", players=list(SEATS))["ok"]
        reply = table.send(cmd="undo")
        assert reply["ok"] is False and "nothing to take back" in reply["error"]
        reply = table.send(cmd="undo", player="Ana")
        assert reply["ok"] is False and reply["field"] == "player"
    finally:
        table.close()


def test_an_undo_of_a_command_a_snapshot_holds_is_replayed_from_the_whole_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    table = Table(tmp_path, snapshot_every=2)
    try:
        to_the_betting(table)  # snapshots written along the way, the last with the deal
        assert table.seat(2, cmd="bet", player="Bo", action="check")["ok"]
        assert table.seat(1, cmd="bet", player="Ana", action="bet", amount=3)["ok"]
        assert table.send(cmd="undo")["ok"]
        assert table.send(cmd="undo")["ok"]
        state = table.server.referee.state_json()
        assert table.prompt()["who"] == ["Bo"]
        assert table.server.referee.log.snapshot_seq > 0
        with caplog.at_level(logging.WARNING):
            table.server.load()
        assert table.server.referee.state_json() == state
        assert any("the whole log is read" in r.getMessage() for r in caplog.records)
    finally:
        table.close()


def test_each_seat_enters_its_own_concealed_hand_and_no_other(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        assert table.send(cmd="new_game", players=list(SEATS))["ok"]
        money = [{"name": name, "money": 20} for name in SEATS]
        assert table.send(cmd="poker_start", players=money)["ok"]  # concealed: the default
        assert table.send(cmd="ante")["ok"]
        assert sorted(table.prompt()["who"]) == ["Ana", "Bo"]  # both enter, in any order
        reply = table.seat(1, cmd="poker_hand", player="Bo", values=[6, 6, 6, 6, 6])
        refused_without_a_trace(table, reply, "Seat 1 plays Ana")
        ana = table.seat_view(1)["version"]
        assert table.seat(1, cmd="poker_hand", player="Ana", values=[2, 2, 3, 4, 6])["ok"]
        # Bo's phone still answers the moment it saw: Ana's entry asked nothing new of Bo
        reply = table.seat(2, cmd="poker_hand", player="Bo", values=[1, 1, 5, 5, 6])
        assert reply["ok"] is True, reply
        # Ana's hand is in: a second one, or the first sent again, changes nothing
        again = table.send(
            seat=1, cmd="poker_hand", player="Ana", values=[6, 6, 6, 6, 6], answers=ana
        )
        refused_without_a_trace(table, again, "It is not your turn")
        seats = table.server.referee.state_json()["poker"]["seats"]
        assert {s["name"]: s["dice"] for s in seats} == {
            "Ana": [2, 2, 3, 4, 6],
            "Bo": [1, 1, 5, 5, 6],
        }
    finally:
        table.close()
