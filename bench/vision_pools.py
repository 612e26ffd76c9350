"""Pools and rerolls on the simulated camera: right, wrong, unclear and silent, per pool size.

    .venv/bin/python bench/vision_pools.py [--sizes 1,3,5,7,10,15,20] [--throws 50]
        [--rerolls 50] [--vigor 50] [--no-expect]

Pools: for each size, `--throws` throws in trays of 5 throws (one seed per tray; the seeds
follow from the size, so every run plays the same films). A hand takes the last throw's dice
before each throw, 0.8 s after they came to rest. The throws vary as at a table: the dice
fly in from each edge in turn, every third throw the throwing hand stays in view 5 frames,
and pools of 15 or more (a cup emptied by the game master), and every fifth throw of 5 or
more, land in a heap. Every frame
goes through the ThrowWatcher and the reader with the committed models, uncalibrated, and the
watcher is told what to expect (`Expectation(dice=size)`, as a game does; `--no-expect` leaves
it to itself). A throw is "right" when its first announcement has exactly its values, "not
read" when announced cocked or unreadable, "unclear" when announced unclear, "wrong" when
announced with other values, "silent" when nothing was announced before the next throw began.

Rerolls: OS-SIX poker, 5 dice: a throw of 5, then rerolls in which the hand takes 5 - K dice
(K = 1..4 in turn) and throws them again; in every third reroll a thrown die pushes a kept
one aside. The watcher is told `Expectation(dice=5, rethrown=5 - K)`. A reroll is told apart
right when it is announced rolled with the right values and its kept (and pushed) dice and its
thrown dice are exactly the ones that were. A pushed die is "reported moved" when the
reading names exactly it moved; in the other rerolls no die may be named moved.

Vigor (Steamfunkateers): a pool of 3 to 8 dice with 1 to 3 sixes, then its Vigor reroll ("reroll
all dice not showing sixes"): the sixes stay where they lie, the others are thrown again, the
watcher told `Expectation(n, rethrown=n - sixes)` as the prompt's `rethrow` says. A reroll is
accepted when it is read right and Steamfunkateers' table reader (through the game interface,
fed the kept, moved and thrown dice the watcher saw) takes it as the reroll, not an alert.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass

import cv2

from tabletop.hardware.camera.sim import EDGES, SimTruth, SimulatedCamera, ThrowPlan
from tabletop.rules import games
from tabletop.rules.games.game import Reroll
from tabletop.rules.games.reading import Execute
from tabletop.vision.progress import progress
from tabletop.vision.reader import DiceReader
from tabletop.vision.watch import (
    SETTLED_KINDS,
    DieOrigin,
    Expectation,
    ThrowEvent,
    ThrowEventKind,
    ThrowWatcher,
)

TRAY_THROWS = 5
# The dice lie 0.8 s (at 30 fps) before the hand takes them: time for the watcher to read them
# the same three frames in a row, or to say after 15 that it cannot.
STILL_FRAMES = 24
OUTCOMES = ("right", "not read", "unclear", "wrong", "silent")


@dataclass(frozen=True)
class Heard:
    """A throw's truth at rest and its first announcement (None: silent)."""

    truth: SimTruth
    event: ThrowEvent | None


def pool_plans(size: int, count: int) -> list[ThrowPlan]:
    """The varied throws of one tray (see the module's docstring)."""
    return [
        ThrowPlan(
            dice=size,
            hand_first=k > 0,
            edge=EDGES[k % len(EDGES)],
            hand_stays=5 if k % 3 == 1 else 0,
            heap=size >= 15 or (size >= 5 and k % 5 == 3),
            still_frames=STILL_FRAMES,
        )
        for k in range(count)
    ]


def reroll_plans(count: int) -> list[ThrowPlan]:
    """A poker hand: 5 dice, then `count - 1` rerolls keeping 1..4 dice in turn."""
    plans = [ThrowPlan(dice=5, hand_first=False, still_frames=STILL_FRAMES)]
    for k in range(1, count):
        keep = 1 + (k - 1) % 4
        plans.append(
            ThrowPlan(
                dice=5 - keep,
                keep=keep,
                nudged=1 if k % 3 == 0 else 0,
                edge=EDGES[k % len(EDGES)],
                still_frames=STILL_FRAMES,
            )
        )
    return plans


def vigor_plans(film: int, pairs: int) -> list[ThrowPlan]:
    """Steamfunkateers pools and their Vigor rerolls: a fresh throw with sixes, then the reroll
    that leaves the sixes lying and throws the others (see the module's docstring)."""
    rng = random.Random(film)
    plans = []
    for k in range(pairs):
        n = 3 + (film + k) % 6
        sixes = 1 + (film + k) % min(3, n - 1)
        values = [6] * sixes + [rng.randint(1, 5) for _ in range(n - sixes)]
        rng.shuffle(values)
        edge = EDGES[k % len(EDGES)]
        plans.append(
            ThrowPlan(
                dice=n, values=tuple(values), hand_first=k > 0, edge=edge, still_frames=STILL_FRAMES
            )
        )
        keep_at = tuple(i for i, v in enumerate(values) if v == 6)
        plans.append(
            ThrowPlan(
                dice=n - sixes,
                keep_at=keep_at,
                edge=EDGES[(k + 1) % len(EDGES)],
                still_frames=STILL_FRAMES,
            )
        )
    return plans


def _kept(plan: ThrowPlan) -> int:
    return len(plan.keep_at) if plan.keep_at else plan.keep


def play(seed: int, plans: list[ThrowPlan], reader: DiceReader, expect: bool) -> list[Heard]:
    """Each planned throw with its first announcement, from one film."""
    watcher = ThrowWatcher(reader)
    heard: dict[int, ThrowEvent] = {}
    rest: dict[int, SimTruth] = {}
    expected = -1
    with SimulatedCamera(plans, seed=seed) as camera:
        for frame in camera:
            truth: SimTruth = frame.truth
            if truth.phase == "rest":
                rest[truth.throw] = truth
            if expect and truth.throw != expected and truth.throw >= 0:
                expected = truth.throw
                plan = plans[expected]
                rethrown = plan.dice if _kept(plan) else None
                watcher.expect(Expectation(plan.dice + _kept(plan), rethrown=rethrown))
            for event in watcher.feed(frame.image, frame.timestamp):
                if event.kind in SETTLED_KINDS and truth.throw not in heard:
                    heard[truth.throw] = event
    return [Heard(rest[n], heard.get(n)) for n in range(len(plans))]


def outcome(heard: Heard) -> str:
    """right / not read / unclear / wrong / silent for one throw."""
    event, values = heard.event, heard.truth.values
    if event is None:
        return "silent"
    if event.kind is ThrowEventKind.UNCLEAR:
        return "unclear"
    if event.kind is not ThrowEventKind.ROLLED:
        return "not read"
    truth = tuple(sorted(v for v in values if v is not None))
    return "right" if None not in values and event.values == truth else "wrong"


def told_apart(heard: Heard) -> bool:
    """Whether a reroll's kept and thrown dice were told apart right (values and origins)."""
    if heard.event is None or outcome(heard) != "right":
        return False
    truth = heard.truth
    stayed = sorted(v for v, o in zip(truth.values, truth.origins, strict=True) if o != "thrown")
    thrown = sorted(v for v, o in zip(truth.values, truth.origins, strict=True) if o == "thrown")
    event = heard.event
    seen_stayed = sorted(event.values_of(DieOrigin.KEPT) + event.values_of(DieOrigin.MOVED))
    return seen_stayed == stayed and list(event.values_of(DieOrigin.THROWN)) == thrown


def moved_right(heard: Heard) -> bool:
    """Whether the dice named moved are exactly the ones the throw pushed (none if none)."""
    truth = heard.truth
    pushed = sorted(
        v for v, o in zip(truth.values, truth.origins, strict=True) if o == "moved" and v
    )
    if heard.event is None or outcome(heard) != "right":
        return False
    return list(heard.event.values_of(DieOrigin.MOVED)) == pushed


def vigor_accepted(before: Heard, after: Heard) -> bool:
    """Whether the reroll was read right and Steamfunkateers' table reader (through the game
    interface, fed the kept, moved and thrown dice the watcher saw) takes it as the reroll."""
    if after.event is None or outcome(after) != "right":
        return False
    event = after.event
    stayed = event.values_of(DieOrigin.KEPT) + event.values_of(DieOrigin.MOVED)
    seen = (
        Reroll(
            event.values_of(DieOrigin.KEPT),
            event.values_of(DieOrigin.MOVED),
            event.values_of(DieOrigin.THROWN),
        )
        if stayed
        else None
    )
    first = [v for v in before.truth.values if v is not None]
    rules = games.get("steamfunkateers")
    engine = rules.new_engine()
    engine.execute({"cmd": "new_game", "players": ["P"], "options": {"starting_vigor": 2}})
    # Pools of up to 8: a rank of at most 6, a bonus die, a circumstance's die. Not an extra
    # die bought with Vigor: "You can only spend a point of Vigor once for each roll", so a
    # pool with one is kept at once and no reroll is awaited.
    pool: dict[str, object] = {"player": "P", "rank": min(6, len(first))}
    if len(first) >= 7:
        pool["bonus"] = 1
    if len(first) == 8:
        pool["circumstance"] = 1
    engine.execute({"cmd": "check", "pools": [pool]})
    engine.execute({"cmd": "roll", "values": first})
    reader = rules.table_reader(["P"], 1.0)
    actions = reader.observe_dice(engine.state, list(event.values), 0.0, seen)
    return any(isinstance(a, Execute) and a.command["cmd"] == "reroll" for a in actions)


def _kind_of(reason: str) -> str:
    """A reason with its numbers left out, so that alike reasons count together."""
    return " ".join("N" if word.isdigit() else word for word in reason.split())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,3,5,7,10,15,20", help="pool sizes, comma-separated")
    parser.add_argument("--throws", type=int, default=50, help="throws per pool size")
    parser.add_argument("--rerolls", type=int, default=50, help="poker rerolls (0: none)")
    parser.add_argument("--vigor", type=int, default=50, help="Vigor rerolls (0: none)")
    parser.add_argument("--no-expect", action="store_true", help="do not tell the watcher")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    reader = DiceReader()
    reader.load()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    trays = -(-args.throws // TRAY_THROWS)
    print(f"pools ({'no expectation' if args.no_expect else 'expected count'}):")
    print("| dice | throws | right | not read | unclear | wrong | silent | s/throw |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    reasons: Counter[str] = Counter()
    for size in sizes:
        total: Counter[str] = Counter()
        started = time.perf_counter()
        with progress(trays, f"{size} dice") as step:
            for tray in range(trays):
                seed = 1000 * size + tray
                for heard in play(seed, pool_plans(size, TRAY_THROWS), reader, not args.no_expect):
                    total[outcome(heard)] += 1
                    if heard.event is not None and heard.event.kind is ThrowEventKind.UNCLEAR:
                        reasons[_kind_of(heard.event.reason)] += 1
                step(str(dict(total)))
        count = trays * TRAY_THROWS
        cells = " | ".join(f"{total[o]} ({100.0 * total[o] / count:.1f} %)" for o in OUTCOMES)
        per = (time.perf_counter() - started) / count
        print(f"| {size} | {count} | {cells} | {per:.1f} |", flush=True)
    if reasons:
        print("\nwhy unclear: " + "; ".join(f"{n} x {r}" for r, n in reasons.most_common()))
    if args.rerolls:
        hands = -(-args.rerolls // TRAY_THROWS)
        rerolls: Counter[str] = Counter()
        apart = 0
        pushed = [0, 0]  # rerolls that pushed a kept die: all, the moved die named right
        calm = [0, 0]  # the others: all, none named moved
        with progress(hands, "rerolls") as step:
            for hand in range(hands):
                plans = reroll_plans(TRAY_THROWS + 1)
                films = play(500 + hand, plans, reader, not args.no_expect)
                for plan, heard in zip(plans[1:], films[1:], strict=True):
                    rerolls[outcome(heard)] += 1
                    apart += told_apart(heard)
                    tally = pushed if plan.nudged else calm
                    tally[0] += 1
                    tally[1] += moved_right(heard)
                step(f"{apart} told apart")
        count = hands * TRAY_THROWS
        print(
            f"\nrerolls of 5 dice: {count}; kept and thrown told apart right: {apart} "
            f"({100.0 * apart / count:.1f} %); " + ", ".join(f"{o} {rerolls[o]}" for o in OUTCOMES)
        )
        print(
            f"a kept die pushed by the throw: reported moved in {pushed[1]} of {pushed[0]}; "
            f"rerolls that pushed none: no die reported moved in {calm[1]} of {calm[0]}"
        )
    if args.vigor:
        films_count = -(-args.vigor // TRAY_THROWS)
        fresh: Counter[str] = Counter()
        again: Counter[str] = Counter()
        accepted = apart = 0
        with progress(films_count, "vigor") as step:
            for film in range(films_count):
                plans = vigor_plans(film, TRAY_THROWS)
                throws = play(700 + film, plans, reader, not args.no_expect)
                for first, second in zip(throws[::2], throws[1::2], strict=True):
                    fresh[outcome(first)] += 1
                    again[outcome(second)] += 1
                    apart += told_apart(second)
                    accepted += vigor_accepted(first, second)
                step(f"{accepted} accepted")
        count = films_count * TRAY_THROWS
        print(
            f"\nVigor rerolls (3-8 dice, the sixes left lying): {count}; read right and taken by "
            f"the game's check: {accepted} ({100.0 * accepted / count:.1f} %); sixes and "
            f"rethrown dice told apart: {apart}; rerolls "
            + ", ".join(f"{o} {again[o]}" for o in OUTCOMES)
            + "; first throws "
            + ", ".join(f"{o} {fresh[o]}" for o in OUTCOMES)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
