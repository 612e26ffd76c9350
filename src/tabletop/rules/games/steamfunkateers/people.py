"""Random but legal Steamfunkateers people: a command picker, and simulated players with a GM.

Both choose from what anyone at the table sees (the public JSON view), so the simulated people
know nothing a person at the table would not. The caller owns the random generator.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..game import RerollHands
from ..people import People
from .model import GM_COSTS, OrderKind

NAMES = ("Ana", "Bo", "Cy", "Dee", "Eli", "Fay")
NPCS = ("Thug", "Automaton", "Constable")


def new_game_command(rng: random.Random, names: Sequence[str] | None = None) -> dict[str, Any]:
    """A `new_game` with 2 to 4 players and a little starting Vigor."""
    players = list(names) if names else list(NAMES[: rng.randint(2, 4)])
    return {
        "cmd": "new_game",
        "players": players,
        "options": {"starting_vigor": rng.randint(0, 3), "gm_vigor": rng.randint(0, 2)},
    }


def throw(rng: random.Random, count: int) -> list[int]:
    return [rng.randint(1, 6) for _ in range(count)]


def rerolled_tray(rng: random.Random, values: Sequence[int]) -> list[int]:
    """The tray after a Vigor reroll: the sixes stay, every other die is thrown again."""
    return [v if v == 6 else rng.randint(1, 6) for v in values]


def _vigor(view: Mapping[str, Any], name: str) -> int:
    for player in view["players"]:
        if player["name"] == name:
            return int(player["vigor"])
    return int(view["gm_vigor"])


def _player_pool(view: Mapping[str, Any], name: str, rng: random.Random) -> dict[str, Any]:
    pool: dict[str, Any] = {"player": name, "rank": rng.randint(1, 6), "skill": "Athletics"}
    if rng.random() < 0.2 and pool["rank"] >= 2:
        pool["obstacle"] = rng.randint(1, min(2, pool["rank"] - 1))  # leave a die to throw
    if rng.random() < 0.2:
        pool["bonus"] = 1
    if rng.random() < 0.2 and _vigor(view, name) >= 1:
        pool["extra_die"] = True
    return pool


def _npc_pool(name: str, rng: random.Random) -> dict[str, Any]:
    pool: dict[str, Any] = {"npc": name}
    if rng.random() < 0.3:
        pool["outnumbering"] = rng.randint(1, 2)
    if rng.random() < 0.1:
        pool["extra_die"] = True
    return pool


def _pool_for(view: Mapping[str, Any], who: str, rng: random.Random) -> dict[str, Any]:
    players = [p["name"] for p in view["players"]]
    return _player_pool(view, who, rng) if who in players else _npc_pool(who, rng)


def gm_command(view: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """A game master's call the rules allow when nothing waits for dice."""
    players = [p["name"] for p in view["players"]]
    contest = view.get("contest")
    folded = {p["name"] for p in view["players"] if p["folded"]}  # out of the action in play
    if contest and not contest["over"]:
        if rng.random() < 0.03:
            return {"cmd": "end_contest"}
        live = [w for w in contest["participants"] if w not in folded]
        return {"cmd": "exchange", "pools": [_pool_for(view, w, rng) for w in live]}
    order = view.get("order")
    if order and order["current"] is not None:
        roll = rng.random()
        current = order["current"]
        if roll < 0.35 or current in folded:  # a folded player's turn is over
            return {"cmd": "end_turn"}
        if roll < 0.4:
            return {"cmd": "end_conflict"}
        others = [w for w in order["order"] if w != current and w not in folded]
        target = rng.choice(others or [current])
        if roll < 0.5 and target != current:
            return {"cmd": "condition", "target": target, "by": current}
        return {
            "cmd": "check",
            "pools": [_pool_for(view, current, rng)]
            + ([_pool_for(view, target, rng)] if target != current else []),
        }
    roll = rng.random()
    gm_vigor = int(view["gm_vigor"])
    if roll < 0.3:
        pools = [_player_pool(view, rng.choice(players), rng)]
        if rng.random() < 0.5:
            pools.append(_npc_pool("GM", rng))
        return {"cmd": "check", "pools": pools}
    if roll < 0.5:
        a, b = rng.sample([*players, rng.choice(NPCS)], 2)
        return {"cmd": "contest", "participants": [a, b], "goal": "the race"}
    if roll < 0.62:
        kind = rng.choice(list(OrderKind))
        size = 1 if kind is OrderKind.SCENE else 3
        entrants = [*players, *([rng.choice(NPCS)] if kind is not OrderKind.SCENE else [])]
        return {
            "cmd": "turn_order",
            "kind": kind.value,
            "entrants": [
                {"who": w, "ranks": [rng.randint(1, 3) for _ in range(size)]} for w in entrants
            ],
        }
    if roll < 0.7:
        # "Characters who fold receive no Vigor from the GM after a given conflict."
        deserving = [p["name"] for p in view["players"] if not p["unrewarded"]]
        if deserving:
            return {"cmd": "award", "player": rng.choice(deserving), "points": 1}
    if roll < 0.78:
        rich = [p for p in players if _vigor(view, p) >= 1]
        if rich:
            bids = {p: rng.randint(1, _vigor(view, p)) for p in rng.sample(rich, 1)}
            return {"cmd": "narrate", "bids": bids}
    if roll < 0.86:
        affordable = [c for c, (low, _) in GM_COSTS.items() if low <= gm_vigor]
        if affordable:
            return {"cmd": "gm_buy", "on": rng.choice(affordable).value}
    if roll < 0.93:
        return {"cmd": "condition", "target": rng.choice(players), "by": "GM", "name": "bruised"}
    return {"cmd": "check", "pools": [_player_pool(view, rng.choice(players), rng)]}


def dice_command(
    view: Mapping[str, Any], rng: random.Random, rethrow: bool = False
) -> dict[str, Any]:
    """The command answering the throw the game waits for (a roll, a reroll or keeping);
    `rethrow` after a throw the table did not take: the dice go into the tray again."""
    pending = view["pending"]
    kind = pending["type"]
    if kind in ("severity", "tie_die"):
        return {"cmd": "roll", "values": throw(rng, 1)}
    pool = next(p for p in view["round"]["pools"] if p["who"] == pending["who"])
    folders = [
        p["name"]
        for p in view["players"]
        if p["name"] == pool["who"] and p["vigor"] >= 1 and not pool["values"]
    ]
    if folders and not rethrow and rng.random() < 0.03:
        return {"cmd": "fold", "player": folders[0]}
    if kind == "reroll":
        if rethrow or rng.random() < 0.5:
            return {"cmd": "reroll", "values": rerolled_tray(rng, pool["values"])}
        return {"cmd": "keep"}
    return {"cmd": "roll", "values": throw(rng, int(pending["dice"]))}


@dataclass
class SimulatedTable(People):
    """Simulated players and game master: the GM's calls go out by `send`, dice by the hands."""

    _slipped: bool = False  # the last throw had a die too many
    _slip_pending: Any = None  # what the table awaited when it came
    calls: int = 0  # checks, exchanges and other calls made this game

    def start_game(self, seed: int) -> None:
        """Announces a new game with the seats as players (no cards to clear, and no deck
        to shuffle, so `seed` has nothing to set: the dice come from `rng`)."""
        self.calls = 0
        self.send(new_game_command(self.rng, self.seats))

    def step(
        self, state: dict[str, Any] | None, prompt: dict[str, Any] | None, alerts: dict[str, str]
    ) -> bool:
        """Does the next thing a person would do; False when nothing is left to do."""
        if state is None or prompt is None or state.get("phase") != "play":
            return False
        if state.get("pending") != prompt.get("pending"):
            # A state and a prompt of different moments (the prompt is published after the
            # state): wait for the table to show one moment, and act on that.
            return False
        rethrow = self._slipped  # the table's alert asks for the throw again, not a keep
        if self._slipped:
            if alerts:
                self._slipped = False
                self.mistakes_caught += 1
            elif state.get("pending") == self._slip_pending:
                # A person who slipped waits to hear what the table says before throwing
                # again (on a loaded host the alert came after their next throw, and the
                # mistake was never counted as caught).
                return False
            else:
                self._slipped = False  # the table moved on without a word: not caught
        if prompt.get("waiting") == "dice" and state.get("pending") is not None:
            self._throw(state, rethrow)
        elif self.calls >= self.settings.length:
            self.send({"cmd": "end_game"})
        else:
            self.calls += 1
            self.send(gm_command(state, self.rng))
        self.settings.pause(0.5)
        return True

    def _throw(self, view: dict[str, Any], rethrow: bool = False) -> None:
        command = dice_command(view, self.rng, rethrow)
        if command["cmd"] not in ("roll", "reroll"):
            self.send(command)
            return
        values: list[int] = command["values"]
        extra: list[int] = []
        if self.rng.random() < self.settings.mistake_rate:
            # A die too many in the tray: the table must say so before anything counts.
            self.mistakes_made += 1
            self._slipped = True
            self._slip_pending = view.get("pending")
            extra = [self.rng.randint(1, 6)]
        if command["cmd"] == "reroll" and isinstance(self.hands, RerollHands):
            # "reroll all dice not showing sixes": the sixes thrown before stay where they lie.
            who = view["pending"]["who"]
            before = next(p for p in view["round"]["pools"] if p["who"] == who)["values"]
            kept = [v for v, old in zip(values, before, strict=True) if old == 6]
            thrown = [v for v, old in zip(values, before, strict=True) if old != 6]
            self.hands.reroll(kept, [*thrown, *extra])
            return
        self.hands.throw([*values, *extra])
