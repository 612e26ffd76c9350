"""A random but legal Six Shooter player and game master, for tests, benchmarks and simulations.

`random_command(state, rng)` looks at the state and picks a command the rules allow now, as the
JSON object a client would send. The caller owns the random generator, so a seed repeats a game.
"""

from __future__ import annotations

import random
from typing import Any

from .model import CRITICAL_CAP, MAX_STRIKES, Descriptor, Method, Phase, SlotState, Status
from .state import GameState, Operator, PendingLucky, PendingRoll

NAMES = ("Ana", "Bo", "Cy", "Dee", "Eli", "Fay")
ARCHETYPES = ("Cat burglar", "Gunslinger", "Hacker", "Knight", "Smuggler", "Con artist")


def new_game_command(rng: random.Random, players: int | None = None) -> dict[str, Any]:
    """A `new_game` with 2 to 6 random Operators, unique Lucky Numbers and a random seed."""
    count = players if players is not None else rng.randint(2, 6)
    lucky = rng.sample(range(2, 11), count)
    return {
        "cmd": "new_game",
        "players": [
            {
                "name": NAMES[i],
                "descriptor": rng.choice(list(Descriptor)).value,
                "archetype": ARCHETYPES[i],
                "lucky": [lucky[i]],
            }
            for i in range(count)
        ],
        "jokers": rng.random() < 0.5,
        "seed": rng.randrange(1_000_000),
    }


def random_command(state: GameState, rng: random.Random) -> dict[str, Any]:
    """A command the rules allow in `state`, chosen at random."""
    if state.phase is None or state.phase is Phase.FINISHED:
        return new_game_command(rng)
    if state.phase is Phase.SETUP:
        waiting = [op for op in _active(state) if not op.revealed]
        if not waiting:
            return {"cmd": "end_adventure"}
        return {"cmd": "reveal", "player": rng.choice(waiting).name, "slot": rng.randint(1, 6)}
    if state.phase is Phase.BETWEEN_ADVENTURES:
        return _between_adventures(state, rng)
    head = state.pending[0] if state.pending else None
    if isinstance(head, PendingRoll):
        if state.contest is not None and rng.random() < 0.2:
            boost = _contest_boost(state, head.player, rng)
            if boost is not None:
                return boost
        challenge = state.challenge
        if challenge is not None and not challenge.boosted and rng.random() < 0.15:
            cards = usable_cards(state, challenge.player, challenge.method)
            if cards:
                owner, slot = rng.choice(cards)
                return {
                    "cmd": "boost",
                    "player": challenge.player,
                    "card": {"player": owner, "slot": slot},
                }
        return {"cmd": "roll", "value": rng.randint(1, 6)}
    if isinstance(head, PendingLucky):
        return {"cmd": "lucky", "player": head.player, "replace": rng.random() < 0.8}
    return _game_master(state, rng)


def _active(state: GameState) -> list[Operator]:
    return [op for op in state.operators.values() if op.status is Status.ACTIVE]


def _game_master(state: GameState, rng: random.Random) -> dict[str, Any]:
    active = _active(state)
    roll = rng.random()
    if not active or roll < 0.01:
        return {"cmd": "end_adventure"}
    if roll < 0.05 and len(active) >= 2 and (state.deck or state.discard):
        chosen = rng.sample(active, rng.randint(2, len(active)))
        return {"cmd": "turn_order", "players": [op.name for op in chosen]}
    if roll < 0.12 and len(active) >= 2:
        a, b = rng.sample(active, 2)
        method = rng.choice(list(Method))
        return {"cmd": "contest", "players": [a.name, b.name], "method": method.value}
    if roll < 0.14:
        return {
            "cmd": "multi_stage",
            "id": f"stage{rng.randrange(1000)}",
            "needed": rng.randint(1, 3),
        }
    return _challenge(state, rng.choice(active), rng)


def _challenge(state: GameState, operator: Operator, rng: random.Random) -> dict[str, Any]:
    method = rng.choice(list(Method))
    command: dict[str, Any] = {
        "cmd": "challenge",
        "player": operator.name,
        "method": method.value,
        "critical": rng.randint(1, CRITICAL_CAP),
    }
    if state.stages and rng.random() < 0.3:
        command["stage"] = rng.choice(list(state.stages))
    choice = rng.random()
    if choice < 0.3:
        cards = usable_cards(state, operator.name, method)
        if cards:
            owner, slot = rng.choice(cards)
            command["card"] = {"player": owner, "slot": slot}
    elif choice < 0.4 and operator.strikes < MAX_STRIKES:
        command["wager"] = rng.randint(1, MAX_STRIKES - operator.strikes)
    return command


def usable_cards(state: GameState, user: str, method: Method) -> list[tuple[str, int]]:
    """Every (owner, slot) whose card may lower `user`'s roll with `method`."""
    found = []
    me = state.operators[user]
    for owner in _active(state):
        for number, slot in enumerate(owner.slots, start=1):
            card = slot.card
            if slot.state is not SlotState.FACE_UP or card is None or card.is_joker:
                continue
            if owner is me:
                if card.suit is method.suit or me.descriptor.method is method:
                    found.append((owner.name, number))
            elif card.suit is owner.descriptor.suit is method.suit:
                found.append((owner.name, number))
    return found


def _contest_boost(state: GameState, player: str, rng: random.Random) -> dict[str, Any] | None:
    contest = state.contest
    assert contest is not None
    if player in contest.boosts or player in contest.rolls or player not in contest.players:
        return None
    method = contest.methods.get(player)
    cards = usable_cards(state, player, method) if method is not None else []
    if cards:
        owner, slot = rng.choice(cards)
        return {"cmd": "boost", "player": player, "card": {"player": owner, "slot": slot}}
    strikes = state.operators[player].strikes
    if strikes < MAX_STRIKES:
        return {"cmd": "boost", "player": player, "wager": rng.randint(1, MAX_STRIKES - strikes)}
    return None


def _between_adventures(state: GameState, rng: random.Random) -> dict[str, Any]:
    for op in state.operators.values():
        if op.status is Status.REMOVED and not op.returning:
            if op.lucky and rng.random() < 0.7:
                return {"cmd": "return", "player": op.name, "drop_lucky": rng.choice(op.lucky)}
            return {"cmd": "retire", "player": op.name}
    givers = [
        op
        for op in _active(state)
        if not op.granted
        and any(
            s.state is SlotState.FACE_UP and s.card is not None and s.card.rank.is_face_or_ace
            for s in op.slots
        )
    ]
    if givers and rng.random() < 0.5:
        giver = rng.choice(givers)
        target = rng.choice(
            [op for op in state.operators.values() if op.status is not Status.RETIRED]
        )
        missing = [n for n in range(2, 11) if n not in target.lucky]
        if missing:
            return {
                "cmd": "grant_lucky",
                "from": giver.name,
                "to": target.name,
                "number": rng.choice(missing),
            }
    if rng.random() < 0.1:
        return {"cmd": "end_game"}
    return {"cmd": "start_adventure"}
