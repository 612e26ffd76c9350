"""Whose hand: how often a Six-Gun Showdown race is credited to the right player (issue 31).

Simulates many races with human timings: after the Draw the attacker's hand reaches one of
the defender's face-down bullets after a reaction and a reach, and the defender's hand the
bullet they choose about 100 ms later on average (the reaction times of the simulated
gunslingers, `tabletop.rules.games.showdown.people`: 250 ms sd 40 plus a reach of 150 ms sd 30). The
two fingers land on the slots' electrodes, which the real firmware
(`tabletop.firmware.touch.TouchPads`) polls every ~3 ms and debounces, and the race is judged from
its events exactly as the table judges it (`tabletop.rules.games.showdown.race.credit_race`, then
`judge_race` with the 50 ms tie window):

* **whole pads** (today's mat): one electrode a slot; a pad cannot tell whose finger it was,
  so a touch on the bullet the defender turns is the defender's;
* **split pads**: two electrodes a slot, near half and far half (docs/mat.md, "Whose hand:
  split pads"); the half a finger reaches first names the side it came from.

The right player is the one a perfect observer would credit: `judge_race` on the two hands'
true times. The finger's approach is a model, to be checked on a built mat (MODEL below):
most fingers reach their own side's half a few ms before the other, some land across both at
once, a few curl round and reach the other half first.

    .venv/bin/python bench/showdown_hands.py                    # 20000 races, seed 1
    .venv/bin/python bench/showdown_hands.py --races 5000 --seed 3 --json
"""

# The firmware is untyped MicroPython code (pyproject.toml); the modelled loop calls into it.
# mypy: disable-error-code="no-untyped-call"

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabletop.firmware.touch import (
    SIDE_FAR,
    SIDE_NEAR,
    TouchPads,
    split_zones_per_chip,
)
from tabletop.rules.games.showdown.model import TIE_WINDOW_MS
from tabletop.rules.games.showdown.people import REACH_MS, REACTION_MS
from tabletop.rules.games.showdown.race import (
    RaceTouch,
    RaceWinner,
    TouchSide,
    credit_race,
    judge_race,
)

SLOTS = 6
DEFENDER_LAG_MS = 100.0  # the defender reacts to the attacker's reveal (people.py)
POLL_MS = (2.5, 3.7)  # the firmware's touch polls: every 3.1 ms at p50 on a full mat
SLOW_POLL = (0.02, 9.0)  # now and then a poll waits for a long scan step (at most 9 ms)

# The finger's approach (a model, not a measurement): the half on the hand's own side is
# reached first by LEAD_MS; with P_ACROSS the fingertip lands across both halves at once, and
# with P_CURLED the other half is reached first.
LEAD_MS = (2.0, 12.0)
P_ACROSS = 0.2
P_CURLED = 0.05
MODEL = {"lead_ms": LEAD_MS, "p_across": P_ACROSS, "p_curled": P_CURLED}


@dataclass(slots=True)
class _Chip:
    """A touch chip whose electrodes turn on at given times (the fingers)."""

    on_at: dict[int, float] = field(default_factory=dict)  # electrode -> when touched
    now: float = 0.0
    address: int = 0x5A

    def start(self) -> None:
        return None

    def touched(self) -> int:
        return sum(1 << e for e, at in self.on_at.items() if at <= self.now)


def _react(rng: random.Random) -> float:
    return max(120.0, rng.gauss(*REACTION_MS)) + max(60.0, rng.gauss(*REACH_MS))


def _halves(rng: random.Random, own: int, other: int, landed: float) -> dict[int, float]:
    """When each half of a pad feels a finger that lands at `landed` from the `own` side."""
    if rng.random() < P_ACROSS:
        return {own: landed, other: landed}
    lead = rng.uniform(*LEAD_MS)
    if rng.random() < P_CURLED:
        own, other = other, own
    return {own: landed, other: landed + lead}


def _judge(events: list[tuple[int, int, int, int]], split: bool, turned: int) -> RaceWinner:
    sides = {SIDE_NEAR: TouchSide.NEAR, SIDE_FAR: TouchSide.FAR}
    touches = [
        RaceTouch(
            zone + 1, t_ms, sides.get(side, TouchSide.UNKNOWN) if split else TouchSide.UNKNOWN
        )
        for zone, state, t_ms, side in events
        if state == 1
    ]
    attacker_ms, defender_ms = credit_race(touches, turned)
    if attacker_ms is None and defender_ms is None:
        return RaceWinner.DEFENDER
    return judge_race(attacker_ms, defender_ms, TIE_WINDOW_MS)


def one_race(people: random.Random, rng: random.Random, split: bool) -> dict[str, Any]:
    """One race: `people` draws the hands (the same races for both mats), `rng` the fingers'
    approach and the polls; what happened and who was credited."""
    face_down = people.randint(2, 5)  # after a Draw the defender has 2-5 face-down bullets
    attack_at = _react(people)
    defend_at = _react(people) + DEFENDER_LAG_MS
    grab = people.randint(1, face_down)  # the attacker's hand
    choice = people.randint(1, face_down)  # the defender's: sometimes the very same bullet
    truth = judge_race(round(attack_at), round(defend_at), TIE_WINDOW_MS)
    zones = set(range(SLOTS)) if split else set()
    wiring = split_zones_per_chip(SLOTS, zones)
    chip = _Chip()
    index = {entry: i for i, entry in enumerate(wiring[0])}
    # the fingers: the attacker from the far side, the defender from the near side
    for slot, landed, own, other in (
        (grab, attack_at, SIDE_FAR, SIDE_NEAR),
        (choice, defend_at, SIDE_NEAR, SIDE_FAR),
    ):
        zone = slot - 1
        if split:
            for side, at in _halves(rng, own, other, landed).items():
                key = index[(zone, side)]
                chip.on_at[key] = min(chip.on_at.get(key, at), at)
        else:
            key = index[zone]
            chip.on_at[key] = min(chip.on_at.get(key, landed), landed)
    pads = TouchPads([chip], wiring)
    pads.start(0)
    now = rng.uniform(0, POLL_MS[1])
    end = max(attack_at, defend_at) + 40
    while now < end:
        chip.now = now
        pads.poll(int(now))
        slow = rng.random() < SLOW_POLL[0]
        now += SLOW_POLL[1] if slow else rng.uniform(*POLL_MS)
    credited = _judge(pads.take_events_with_sides(), split, choice)
    return {"truth": truth, "credited": credited, "same_bullet": grab == choice}


def run(races: int, seed: int) -> dict[str, Any]:
    """Both mats over the same races (same seed): how often the right player is credited."""
    out: dict[str, Any] = {"races": races, "seed": seed, "model": MODEL}
    for name, split in (("whole_pads", False), ("split_pads", True)):
        people, rng = random.Random(seed), random.Random(seed + 1)
        right = same = same_right = attacker_true = attacker_right = 0
        for _ in range(races):
            race = one_race(people, rng, split)
            ok = race["credited"] is race["truth"]
            right += ok
            if race["same_bullet"]:
                same += 1
                same_right += ok
            if race["truth"] is RaceWinner.ATTACKER:
                attacker_true += 1
                attacker_right += ok
        out[name] = {
            "right_pct": round(100 * right / races, 2),
            "same_bullet_races": same,
            "same_bullet_right_pct": round(100 * same_right / max(1, same), 2),
            "attacker_first_races": attacker_true,
            "attacker_first_right_pct": round(100 * attacker_right / max(1, attacker_true), 2),
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.races < 1:
        parser.error("--races: expected 1 or more")
    figures = run(args.races, args.seed)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"{args.races} races, seed {args.seed}, finger model {MODEL}")
    for name in ("whole_pads", "split_pads"):
        f = figures[name]
        print(
            f"  {name:<11} right {f['right_pct']:6.2f} %   on the very bullet the defender "
            f"turned ({f['same_bullet_races']} races) {f['same_bullet_right_pct']:6.2f} %   "
            f"attacker first ({f['attacker_first_races']}) {f['attacker_first_right_pct']:6.2f} %"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
