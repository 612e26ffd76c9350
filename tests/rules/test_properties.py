"""Random legal and illegal command sequences keep the game's invariants after every step."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.rules.games.cards import standard_deck
from tabletop.rules.games.errors import RulesError
from tabletop.rules.games.sixshooter import (
    Game,
    GameState,
    Status,
    event_from_json,
    event_to_json,
    state_to_json,
)
from tabletop.rules.games.sixshooter.commands import COMMAND_NAMES
from tabletop.rules.games.sixshooter.players import random_command

# Commands with plausible but often wrong fields: names, slots, values that may not fit now.
NAMES = st.sampled_from(["Ana", "Bo", "Cy", "Dee", "Eli", "Fay", "Zed"])
noise_command = st.one_of(
    st.fixed_dictionaries({"cmd": st.just("roll"), "value": st.integers(-1, 8)}),
    st.fixed_dictionaries({"cmd": st.just("reveal"), "player": NAMES, "slot": st.integers(0, 7)}),
    st.fixed_dictionaries(
        {
            "cmd": st.just("challenge"),
            "player": NAMES,
            "method": st.sampled_from(["danger", "sharpness", "slyness", "charm", "luck"]),
            "critical": st.one_of(st.integers(-2, 9), st.just("impossible")),
            "card": st.fixed_dictionaries({"player": NAMES, "slot": st.integers(1, 6)}),
        }
    ),
    st.fixed_dictionaries({"cmd": st.just("lucky"), "player": NAMES, "replace": st.booleans()}),
    st.fixed_dictionaries({"cmd": st.sampled_from(COMMAND_NAMES)}),
    st.fixed_dictionaries({"cmd": st.just("concede"), "player": NAMES}),
    st.fixed_dictionaries(
        {"cmd": st.just("grant_lucky"), "from": NAMES, "to": NAMES, "number": st.integers(1, 11)}
    ),
)


def check_invariants(state: GameState) -> None:
    if state.phase is None:
        return
    places = list(state.deck) + list(state.discard)
    places += [s.card for op in state.operators.values() for s in op.slots if s.card is not None]
    full = standard_deck(state.jokers)
    # Every card is in exactly one place: deck, discard pile or a slot; 52 or 54 in all.
    assert len(places) == len(full) == (54 if state.jokers else 52)
    assert sorted(c.code for c in places) == sorted(c.code for c in full)
    for op in state.operators.values():
        assert 0 <= op.strikes <= 3
        assert (op.strikes == 3) <= (op.status is not Status.ACTIVE)
        for slot in op.slots:
            assert (slot.card is None) == (slot.state.value == "discarded")
    for item in state.pending:
        assert state.operators[item.player].status is Status.ACTIVE


def step(game: Game, command: dict[str, Any]) -> None:
    before = copy.deepcopy(state_to_json(game.state))
    logged = len(game.events)
    try:
        game.execute(command)
    except RulesError:
        # A refused command changes nothing.
        assert state_to_json(game.state) == before
        assert len(game.events) == logged
    else:
        if game.state.phase is not None:
            removed = {
                n for n, op in game.state.operators.items() if op.status is not Status.ACTIVE
            }
            # A removed Operator can do nothing: no event names them as the actor afterwards.
            actor = command.get("player")
            assert actor not in removed or command["cmd"] in ("return", "retire", "roll")
    check_invariants(game.state)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    noise=st.lists(st.tuples(st.integers(0, 300), noise_command), max_size=40),
)
def test_random_games_keep_every_invariant(
    seed: int, noise: list[tuple[int, dict[str, Any]]]
) -> None:
    rng = random.Random(seed)
    game = Game()
    inserts: dict[int, list[dict[str, Any]]] = {}
    for at, command in noise:
        inserts.setdefault(at, []).append(command)
    for index in range(300):
        for command in inserts.get(index, []):
            step(game, command)
        step(game, random_command(game.state, rng))
    # Rebuilding from the event log, also through its JSON form, gives the same state.
    rebuilt = Game.from_events(event_from_json(event_to_json(e)) for e in game.events)
    assert state_to_json(rebuilt.state) == state_to_json(game.state)


def test_removed_operators_are_refused_every_action() -> None:
    rng = random.Random(11)
    game = Game()
    checked = 0
    for _ in range(5000):
        step(game, random_command(game.state, rng))
        state = game.state
        for name, op in state.operators.items():
            if op.status is Status.ACTIVE or state.phase is None or state.phase.value != "play":
                continue
            for command in (
                {"cmd": "challenge", "player": name, "method": "charm", "critical": 2},
                {"cmd": "reveal", "player": name, "slot": 1},
            ):
                try:
                    game.execute(command)
                except RulesError:
                    checked += 1
                else:
                    raise AssertionError(f"{name} ({op.status.value}) was allowed {command}")
    assert checked > 10
