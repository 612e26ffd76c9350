"""The simulated gunslingers play whole games at an in-process table, through the reader:
with touch pads (they touch, then turn) and without (the first lift or flip decides)."""

from __future__ import annotations

import random

import pytest

from rules.game import PeopleSettings
from rules.showdown.game import SHOWDOWN
from rules.showdown.state import Phase

from .helpers import Table, TouchTable


@pytest.mark.parametrize(("pads", "seed"), [(True, 1), (True, 2), (False, 3), (False, 4)])
def test_gunslingers_play_whole_games_through_the_table(pads: bool, seed: int) -> None:
    table: Table = TouchTable() if pads else Table()
    people = SHOWDOWN.simulated_people(
        ["Ana", "Bo"],
        table,
        random.Random(seed),
        table.send,
        PeopleSettings(mistake_rate=0.1, pause=table.advance),
    )
    people.start_game(seed)
    races = 0
    between: dict[str, object] | None = None
    for _ in range(3000):
        if table.state.over:
            break
        # At a real table each command's state comes over MQTT a moment after the cards moved:
        # after a move that made two commands (a touch, then the turn), people look once while
        # only the first is in.
        view = between or SHOWDOWN.public_view(table.state)
        between = None
        phase = table.state.phase
        done = len(table.applied)
        if not people.step(view, {"pending": view["pending"]}, dict(table.alerts)):
            table.advance(0.5)
        if len(table.applied) - done >= 2:
            between = table.views[done]
        if phase is Phase.RACE and table.state.phase is not Phase.RACE:
            races += 1
    assert table.state.over and table.state.winner is not None
    assert table.state.round >= 3 and races >= 1
    races_applied = [c for c in table.applied if c["cmd"] == "race"]
    assert races_applied, "at least one race was judged by the table"
    how = {c.get("how") for c in races_applied}
    if pads:
        assert "touch pads" in how or "a touch, not turned" in how
    else:
        assert "touch pads" not in how
    assert people.mistakes_made >= people.mistakes_caught
    # Their slips are bullets turned out of turn; a bullet the game has revealed is never laid
    # back face down by their own hands.
    assert not [m for m in table.raised if m.endswith("it was revealed; turn it face up")]


def test_the_gunslingers_decks_are_cards_the_simulated_mat_has_tags_for() -> None:
    """`tabletop sim` lays their decks on the simulated mat: every card must carry a tag of the
    bundled card map (the example decks' ids)."""
    from hardware.mat.cardmap import simulated_deck
    from rules.cards import parse_tagged
    from rules.showdown.decks import enrolment_codes, load_deck
    from rules.showdown.people import mat_deck

    from .helpers import EXAMPLES

    tags = simulated_deck()
    for name in ("cowboy", "desperado"):
        deck = mat_deck(random.Random(7), name)
        example = load_deck(EXAMPLES / f"{name}.toml")
        assert enrolment_codes(deck) == enrolment_codes(example)
        assert all(tags.uid_for(parse_tagged(code)) for code in enrolment_codes(deck))
