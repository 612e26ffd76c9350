"""Fault soak (issue 30): many games of every game, random seeds, mistakes on, faults injected.

Each game is played on its own simulated table (`tabletop.sim.runner.SimulatedTable`: an
embedded broker, the rules daemon, the bridge with the simulated mat behind a pty, the dice
tray, simulated people), with `tabletop.sim.faults.Faults` injecting faults at random moments
while it is played: the rules daemon killed and restarted on its log, the broker restarted,
the mat unplugged and plugged back, the camera's frames frozen or dropped, the bridge and the
web console restarted (docs/sim.md, "Faults", says which of these is a real kill). The games
go round (Six Shooter, OS-SIX, Steamfunkateers, Six-Gun Showdown, ...), each with a random
seed and 2 to 4 seats (Showdown: 2); some are played through the simulated camera and the
dice vision, some with the web console.

For every game it checks:
- it finished, with no stall (nothing moved for the table's stall time);
- every alert it raised was resolved;
- refusals: how many, and how many more than the people's deliberate mistakes (a mistake may
  be refused, as a bullet turned out of turn is; anything beyond them is the table's fault);
- the log replayed from the start equals the final state;
- nothing acknowledged was lost: every command of the people that got an `ok` reply is in the
  log under its id and seq, and every command whose events the people saw is in the log.

    .venv/bin/python bench/soak.py                        # 100 games of each game
    .venv/bin/python bench/soak.py --games 10 --json      # 10 of each, the figures as JSON

Progress goes to stderr, one line per game; the figures to stdout. The exit status is 1 when
a check failed (the games that failed are listed).
"""

from __future__ import annotations

import argparse
import collections
import faulthandler
import json
import logging
import random
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabletop.rules import games as registry
from tabletop.rules.games.replay import replay_lines
from tabletop.sim.faults import Faults
from tabletop.sim.runner import SimulatedTable
from tabletop.vision.progress import progress

GAMES = ("sixshooter", "ossix", "steamfunkateers", "showdown")
# The people's deliberate mistakes that the table may refuse (the others only raise alerts):
# Six-Gun Showdown's bullet turned out of turn.
REFUSABLE_MISTAKES = frozenset({"showdown"})
# Every game gets its first fault in its first seconds: OS-SIX and Steamfunkateers games last
# only a few seconds at speed 20.
FIRST_FAULT_S = 1.5


def play_watched(
    game: str, seed: int, seats: int, hang_dump: float, options: dict[str, Any]
) -> dict[str, Any]:
    """`play_one`, with every thread's stack on stderr if the game is still running after
    `hang_dump` seconds (a hang is what the soak is there to find)."""
    logging.basicConfig(level=logging.CRITICAL)  # a worker process starts without the setup
    faulthandler.dump_traceback_later(hang_dump)
    try:
        return play_one(game, seed, seats, **options)
    finally:
        faulthandler.cancel_dump_traceback_later()


def play_one(
    game: str,
    seed: int,
    seats: int,
    *,
    camera: bool,
    console: bool,
    every: float,
    mistakes: float,
    challenges: int,
    speed: float,
) -> dict[str, Any]:
    """Plays one game with faults injected and returns what was checked."""
    faults = Faults(random.Random(seed * 31 + 7), every=every, first=min(every, FIRST_FAULT_S))
    table = SimulatedTable(
        game=game,
        seats=seats,
        games=1,
        seed=seed,
        mistake_rate=mistakes,
        camera=camera,
        console=console,
        challenges_per_adventure=challenges,
        speed=speed,
        faults=faults,
    )
    started = time.monotonic()
    result: dict[str, Any] = {"game": game, "seed": seed, "seats": seats, "camera": camera}
    result["console"] = console
    try:
        summary = table.run()
    except Exception as error:  # a crash is a finding: said, and the soak goes on
        faults.stop()
        result.update(
            error=f"{type(error).__name__}: {error}",
            trace=traceback.format_exc(limit=6),
            seconds=round(time.monotonic() - started, 1),
            faults=_fault_counts(faults),
        )
        return result
    refused = [str(r.reply.get("error")) for r in table.log_records if not r.ok]
    deliberate = summary.mistakes_made if game in REFUSABLE_MISTAKES else 0
    result.update(
        finished=summary.games_finished == 1,
        stalls=summary.stalls,
        alerts_raised=summary.alerts_raised,
        alerts_resolved=summary.alerts_resolved,
        alerts_left=summary.alerts_left,
        mistakes=summary.mistakes_made,
        refused=len(refused),
        unexplained_refusals=refused[deliberate:] if len(refused) > deliberate else [],
        replay_differs=_replay_differs(table),
        acknowledged=sum(isinstance(reply.get("seq"), int) for reply in table.acknowledged),
        acknowledged_lost=_acknowledged_lost(table),
        held_never_applied=_held_never_applied(table),
        seen_lost=_seen_lost(table),
        faults=_fault_counts(faults),
        fault_failures=faults.failures,
        seconds=round(time.monotonic() - started, 1),
    )
    return result


def _replay_differs(table: SimulatedTable) -> list[str]:
    """Where the log, replayed from the start, differs from the final state the daemon held
    (empty when it ends in that very state)."""
    if table.final_state is None:
        return ["no final state"]
    # A new_game that names no game is the table's game (the daemon's `--game`).
    commands = [
        {"game": table.rules.name, **command} if command.get("cmd") == "new_game" else command
        for command in table.applied
    ]
    replay = replay_lines([json.dumps(command) for command in commands])
    final = {key: value for key, value in table.final_state.items() if key != "rejected"}
    replayed = replay.rules.referee_view(replay.game.state)
    differs = [f"refused on replay: {line}" for line in replay.rejected[:3]]
    for key in sorted(set(final) | set(replayed)):
        if final.get(key) != replayed.get(key):
            differs.append(f"{key}: {final.get(key)!r:.200} != replayed {replayed.get(key)!r:.200}")
    return differs


def _acknowledged_lost(table: SimulatedTable) -> list[str]:
    """The people's commands applied by the daemon's word (an ok reply with a seq) that are
    not in the log under that id and seq."""
    logged = {(r.command_id, r.seq) for r in table.log_records if r.ok}
    return [
        f"{reply.get('id')} (seq {reply.get('seq')})"
        for reply in table.acknowledged
        if isinstance(reply.get("seq"), int)
        and not reply.get("duplicate")
        and (str(reply.get("id")), reply.get("seq")) not in logged
    ]


def _held_never_applied(table: SimulatedTable) -> list[str]:
    """The people's commands the daemon held for the mat (an ok reply `waiting` for the deal)
    that never reached the log: a game master deals again when the table does not read a
    deal, and the held one goes."""
    logged = {r.command_id for r in table.log_records if r.ok}
    return [
        str(reply.get("id"))
        for reply in table.acknowledged
        if "waiting" in reply and str(reply.get("id")) not in logged
    ]


def _seen_lost(table: SimulatedTable) -> list[int]:
    """The commands whose events the people saw that the log does not hold as applied."""
    logged = {r.seq for r in table.log_records if r.ok}
    return [seq for seq in table.seqs_seen if seq not in logged]


def _fault_counts(faults: Faults) -> dict[str, int]:
    return dict(collections.Counter(fault.kind.value for fault in faults.injected))


def failed(result: dict[str, Any]) -> list[str]:
    """What went wrong in one game, in words (empty when every check passed)."""
    if "error" in result:
        return [f"crashed: {result['error']}"]
    problems = []
    if not result["finished"]:
        problems.append("not finished")
    if result["stalls"]:
        problems.append(f"{len(result['stalls'])} stall(s)")
    if result["alerts_resolved"] != result["alerts_raised"]:
        problems.append(
            f"alerts: {result['alerts_raised']} raised, {result['alerts_resolved']} resolved; "
            f"left standing: {result.get('alerts_left') or 'none seen'}"
        )
    if result["unexplained_refusals"]:
        problems.append(f"refusals beyond the mistakes: {result['unexplained_refusals'][:3]}")
    if result["replay_differs"]:
        problems.append(
            f"the log's replay differs from the final state: {result['replay_differs'][:2]}"
        )
    if result["acknowledged_lost"]:
        problems.append(f"acknowledged commands lost: {result['acknowledged_lost'][:3]}")
    if result["seen_lost"]:
        problems.append(f"commands seen but not in the log: {result['seen_lost'][:5]}")
    if result["fault_failures"]:
        problems.append(f"parts that did not come back: {result['fault_failures'][:3]}")
    return problems


def figures(results: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """The soak's figures over every game played."""
    played = [r for r in results if "error" not in r]
    faults: collections.Counter[str] = collections.Counter()
    for result in results:
        faults.update(result.get("faults", {}))
    per_game: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys(r["game"] for r in results):
        mine = [r for r in results if r["game"] == name]
        per_game[name] = {
            "started": len(mine),
            "finished": sum(bool(r.get("finished")) for r in mine),
            "mean_seconds": round(sum(r["seconds"] for r in mine) / len(mine), 1),
        }
    return {
        "games_started": len(results),
        "games_finished": sum(bool(r.get("finished")) for r in played),
        "crashed": sum("error" in r for r in results),
        "stalls": sum(len(r["stalls"]) for r in played),
        "alerts_raised": sum(r["alerts_raised"] for r in played),
        "alerts_resolved": sum(r["alerts_resolved"] for r in played),
        "games_with_an_alert_left": sum(r["alerts_raised"] != r["alerts_resolved"] for r in played),
        "refusals": sum(r["refused"] for r in played),
        "refusals_beyond_mistakes": sum(len(r["unexplained_refusals"]) for r in played),
        "mistakes": sum(r["mistakes"] for r in played),
        "replays_equal": sum(not r["replay_differs"] for r in played),
        "acknowledged_commands": sum(r["acknowledged"] for r in played),
        "acknowledged_lost": sum(len(r["acknowledged_lost"]) for r in played),
        "held_never_applied": sum(len(r["held_never_applied"]) for r in played),
        "seen_commands_lost": sum(len(r["seen_lost"]) for r in played),
        "faults_injected": sum(faults.values()),
        "faults": dict(sorted(faults.items())),
        "fault_failures": sum(len(r.get("fault_failures", [])) for r in results),
        "games_failed": sum(bool(failed(r)) for r in results),
        "per_game": per_game,
        "wall_seconds": round(seconds, 1),
    }


def words(figures: dict[str, Any]) -> str:
    """The figures in words, for a person reading the run."""
    lines = [
        f"{figures['games_finished']} of {figures['games_started']} games finished "
        f"({figures['crashed']} crashed) in {figures['wall_seconds']:.0f} s; "
        f"{figures['stalls']} stalls.",
        f"Faults injected: {figures['faults_injected']} "
        + "("
        + ", ".join(f"{kind} {count}" for kind, count in figures["faults"].items())
        + f"); parts that did not come back: {figures['fault_failures']}.",
        f"Alerts: {figures['alerts_raised']} raised, {figures['alerts_resolved']} resolved "
        f"({figures['games_with_an_alert_left']} games left one standing).",
        f"Refusals: {figures['refusals']} ({figures['refusals_beyond_mistakes']} beyond the "
        f"{figures['mistakes']} deliberate mistakes).",
        f"The log replayed equals the final state in {figures['replays_equal']} games.",
        f"Acknowledged commands: {figures['acknowledged_commands']}, lost "
        f"{figures['acknowledged_lost']}; commands seen but not in the log: "
        f"{figures['seen_commands_lost']}; deals held for the mat and never applied "
        f"(dealt again): {figures['held_never_applied']}.",
    ]
    for name, per in figures["per_game"].items():
        lines.append(
            f"  {name}: {per['finished']}/{per['started']} finished, "
            f"{per['mean_seconds']} s a game on average"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games of each game (100)")
    parser.add_argument(
        "--only", default=",".join(GAMES), help=f"the games, comma-separated ({','.join(GAMES)})"
    )
    parser.add_argument("--seed", type=int, default=1, help="the soak's own seed (1)")
    parser.add_argument(
        "--every", type=float, default=4.0, help="seconds between faults on average (4)"
    )
    parser.add_argument(
        "--mistakes", type=float, default=0.1, help="the people's chance of a mistake (0.1)"
    )
    parser.add_argument(
        "--camera", type=float, default=0.25, help="share of games played through the camera"
    )
    parser.add_argument(
        "--console", type=float, default=0.25, help="share of games with the web console"
    )
    parser.add_argument(
        "--challenges", type=int, default=4, help="challenges per adventure (game length, 4)"
    )
    parser.add_argument("--speed", type=float, default=20.0, help="the people's speed (20)")
    parser.add_argument(
        "--hang-dump",
        type=float,
        default=180.0,
        help="a game still running after this many seconds: every thread's stack on stderr",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="tables played at once, each in its own process (1; 2 fills a 2-core machine)",
    )
    parser.add_argument("--json", action="store_true", help="the figures as one JSON object")
    parser.add_argument("--verbose", action="store_true", help="the parts' warnings on stderr")
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.only.split(",") if name.strip()]
    for name in names:
        registry.get(name, "--only")
    logging.basicConfig(level=logging.WARNING if args.verbose else logging.CRITICAL)
    rng = random.Random(args.seed)
    plan = [name for _ in range(args.games) for name in names]
    results: list[dict[str, Any]] = []
    started = time.monotonic()
    # A game that hangs (a bug the soak is there to find) shows where every thread stands.
    faulthandler.register(signal.SIGUSR1)
    # Every game's seed, seats and parts are drawn up front: --jobs does not change them.
    games = [
        (
            game,
            rng.randrange(1, 1_000_000),
            2 if game == "showdown" else rng.randint(2, 4),
            {
                "camera": rng.random() < args.camera,
                "console": rng.random() < args.console,
                "every": args.every,
                "mistakes": args.mistakes,
                "challenges": args.challenges,
                "speed": args.speed,
            },
        )
        for game in plan
    ]
    with progress(len(plan), "soak games") as step:

        def done(result: dict[str, Any]) -> None:
            results.append(result)
            problems = failed(result)
            step(
                f"{result['game']} seed {result['seed']}: "
                + ("; ".join(problems) if problems else "ok")
                + f", faults {sum(result.get('faults', {}).values())}, {result['seconds']} s"
            )

        if args.jobs <= 1:
            for game, seed, seats, options in games:
                done(play_watched(game, seed, seats, args.hang_dump, options))
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed

            # Fresh processes (not forks of this one): each table's threads start clean.
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
                futures = [
                    pool.submit(play_watched, game, seed, seats, args.hang_dump, options)
                    for game, seed, seats, options in games
                ]
                for future in as_completed(futures):
                    done(future.result())
    found = figures(results, time.monotonic() - started)
    if args.json:
        print(json.dumps({**found, "failed": [r for r in results if failed(r)]}))
    else:
        print(words(found))
        for result in results:
            if failed(result):
                print(f"FAILED {result['game']} seed {result['seed']}: {'; '.join(failed(result))}")
    return 1 if found["games_failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
