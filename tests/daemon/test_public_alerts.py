"""Issue 33 finding 6: the public alert never names a card the public view hides.

Table alerts are retained on `table/alert`, which the viewer role reads and the room page
shows. The tester saw "Bo's slot 1: discard 6C ..." and "Ana's slot 5: turn 9C face-up"
there before those cards were shown. Now the daemon publishes the reader's words on
`referee/alert` (game masters only) and the same alerts on `table/alert` with every name the
public view hides said as "the card".
"""

from __future__ import annotations

import json
import re
from typing import Any

from tabletop.daemon.table import HIDDEN_CARD_WORDS, PhysicalTable, hidden_names
from tabletop.rules.games import get
from tabletop.rules.games.reading import Alert
from tabletop.wire.topics import TableTopics
from tests.daemon.daemon_helpers import ROSTER

SIXSHOOTER = get("sixshooter")


def _dealt() -> Any:
    engine = SIXSHOOTER.new_engine()
    engine.execute(dict(ROSTER))
    return engine.state


def _face_down(view: dict[str, Any], player: str) -> list[str]:
    seat = next(p for p in view["players"] if p["name"] == player)
    return [s["card"] for s in seat["slots"] if s.get("state") == "face_down" and s.get("card")]


def test_the_public_alert_says_a_face_down_card_where_the_referee_names_it() -> None:
    state = _dealt()
    referee, public = SIXSHOOTER.referee_view(state), SIXSHOOTER.public_view(state)
    bo = _face_down(referee, "Bo")
    assert bo, "the deal leaves Bo face-down cards"
    hidden = hidden_names(referee, public)
    assert set(bo) <= hidden
    table = PhysicalTable(TableTopics("t1"), ["Ana", "Bo"], 0.3, SIXSHOOTER)
    leak = f"Bo's slot 1: discard {bo[0]} (the slot should be empty)"
    table.alerts["s2.1"] = Alert("s2.1", leak, 1, 1)
    table.alerts["refused:roll"] = Alert("refused:roll", f"{bo[1]} is not yours, {bo[2]}.")

    public_payload = table.alert_payload(hidden)
    referee_payload = table.alert_payload()

    text = json.dumps(public_payload)
    for card in hidden:  # no hidden card anywhere in what the room reads
        assert not re.search(rf"(?<![\w/-]){re.escape(card)}(?![\w/-])", text), card
    assert public_payload["alerts"][0]["message"] == (
        f"Bo's slot 1: discard {HIDDEN_CARD_WORDS} (the slot should be empty)"
    )
    assert public_payload["alerts"][0]["seat"] == 1  # still points at the slot to fix
    assert referee_payload["alerts"][0]["message"] == leak


def test_a_card_the_public_view_shows_is_named_in_public() -> None:
    engine = SIXSHOOTER.new_engine()
    engine.execute(dict(ROSTER))
    turned = _face_down(SIXSHOOTER.referee_view(engine.state), "Ana")[1]
    engine.execute({"cmd": "reveal", "player": "Ana", "slot": 2})
    referee, public = SIXSHOOTER.referee_view(engine.state), SIXSHOOTER.public_view(engine.state)
    hidden = hidden_names(referee, public)
    assert turned not in hidden  # face-up now: the public alert may say "turn 9C face-down"
    assert set(_face_down(referee, "Bo")) <= hidden
    assert not {p["name"] for p in public["players"]} & hidden  # names are not cards
