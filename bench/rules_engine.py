"""Benchmark: Six Shooter commands applied per second on random legal games, on one core.

    .venv/bin/python bench/rules_engine.py [--games 200] [--commands 500] [--repeat 5]

Random legal games are generated first (by rules.sixshooter.players, seeded); only the replay of
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.errors import RulesError
from rules.sixshooter import Game
from rules.sixshooter.players import random_command


def legal_games(games: int, commands: int) -> list[list[dict[str, Any]]]:
    """Plays `games` random games of up to `commands` accepted commands each."""
    out = []
    for seed in range(games):
        rng = random.Random(seed)
        game = Game()
        accepted: list[dict[str, Any]] = []
        while len(accepted) < commands:
            command = random_command(game.state, rng)
            if command["cmd"] == "new_game" and accepted:
                break
            try:
                game.execute(command)
            except RulesError:
                continue
            accepted.append(command)
        out.append(accepted)
    return out


def replay_all(games: list[list[dict[str, Any]]]) -> tuple[float, int]:
    events = 0
    start = time.perf_counter()
    for commands in games:
        game = Game()
        for command in commands:
            events += len(game.execute(command))
    return time.perf_counter() - start, events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--commands", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core

    print(f"generating {args.games} random legal games...", file=sys.stderr)
    games = legal_games(args.games, args.commands)
    total = sum(len(g) for g in games)
    times = []
    events = 0
    for run in range(args.repeat):
        elapsed, events = replay_all(games)
        times.append(elapsed)
        print(f"run {run + 1}/{args.repeat}: {total / elapsed:,.0f} commands/s", file=sys.stderr)

    best = min(times)
    median = sorted(times)[len(times) // 2]
    tracemalloc.start()
    game = Game()
    for command in max(games, key=len):
        game.execute(command)
    memory, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    print(
        json.dumps(
            {
                "benchmark": "rules_engine",
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
