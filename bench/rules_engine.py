"""Benchmark: a game's commands applied per second on random legal games, on one core.

    .venv/bin/python bench/rules_engine.py [--game sixshooter] [--games 200] [--commands 500]
        [--repeat 5]

Random legal games are generated first (by the game's random player, seeded); only the replay of
their commands into fresh games is timed, from the JSON objects a client would send (parsing,
checking, events, fold). The best and the median of --repeat runs are reported.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabletop.rules import games as registry
from tabletop.rules.games.errors import RulesError
from tabletop.rules.games.game import GameRules
from tabletop.vision.progress import progress


def legal_games(
    rules: GameRules,
    games: int,
    commands: int,
    step: Callable[[str], None] = lambda note: None,
) -> list[list[dict[str, Any]]]:
    """Plays `games` random games of up to `commands` accepted commands each."""
    out = []
    for seed in range(games):
        rng = random.Random(seed)
        game = rules.new_engine()
        accepted: list[dict[str, Any]] = []
        while len(accepted) < commands:
            command = rules.random_command(game.state, rng)
            if command is None or (command["cmd"] == "new_game" and accepted):
                break
            try:
                game.execute(command)
            except RulesError:
                continue
            accepted.append(command)
        out.append(accepted)
        step(f"{len(accepted)} commands")
    return out


def replay_all(rules: GameRules, games: list[list[dict[str, Any]]]) -> tuple[float, int]:
    events = 0
    start = time.perf_counter()
    for commands in games:
        game = rules.new_engine()
        for command in commands:
            events += len(game.execute(command))
    return time.perf_counter() - start, events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=registry.DEFAULT_GAME, help="which game")
    parser.add_argument("--games", type=int, default=200, help="random games (default 200)")
    parser.add_argument(
        "--commands", type=int, default=500, help="most commands per game (default 500)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed runs (default 5)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core

    rules = registry.get(args.game)
    # Progress only between timed runs (and while generating), never inside one.
    with progress(args.games, "random legal games generated") as step:
        games = legal_games(rules, args.games, args.commands, step)
    total = sum(len(g) for g in games)
    times = []
    events = 0
    with progress(args.repeat, "timed replays") as step:
        for _ in range(args.repeat):
            elapsed, events = replay_all(rules, games)
            times.append(elapsed)
            step(f"{total / elapsed:,.0f} commands/s")

    best = min(times)
    median = sorted(times)[len(times) // 2]
    tracemalloc.start()
    game = rules.new_engine()
    for command in max(games, key=len):
        game.execute(command)
    memory, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    print(
        json.dumps(
            {
                "benchmark": "rules_engine",
                "game": rules.name,
                "python": platform.python_version(),
                "machine": platform.machine(),
                "games": len(games),
                "commands": total,
                "events": events,
                "best_seconds": round(best, 4),
                "commands_per_second": round(total / best),
                "commands_per_second_median": round(total / median),
                "events_per_second": round(events / best),
                "microseconds_per_command": round(best / total * 1e6, 2),
                "bytes_for_longest_game_with_log": memory,
                "commands_in_longest_game": len(max(games, key=len)),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
