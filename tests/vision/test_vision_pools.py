"""Pools, rerolls and expectations: throws of many dice on the simulated camera, never silent."""

from __future__ import annotations

import pytest

from tabletop.hardware.camera import EDGES, SimulatedCamera, ThrowPlan
from tabletop.vision.errors import SettingsError
from tabletop.vision.reader import DiceReader
from tabletop.vision.reading import DieReading, DieStatus, FrameReading
from tabletop.vision.watch import (
    SETTLED_KINDS,
    DieOrigin,
    Expectation,
    ThrowEvent,
    ThrowEventKind,
    ThrowWatcher,
    dice_word,
    match_dice,
)


def settled(
    camera: SimulatedCamera, reader: DiceReader, expectations: list[Expectation | None]
) -> tuple[list[ThrowEvent], list[ThrowEvent]]:
    """Every event of the film and the settled ones; before throw k the watcher is told
    expectations[k]."""
    watcher = ThrowWatcher(reader)
    events: list[ThrowEvent] = []
    told = -1
    with camera:
        for frame in camera:
            number = frame.truth.throw
            if 0 <= number < len(expectations) and number != told:
                told = number
                watcher.expect(expectations[number])
            events.extend(watcher.feed(frame.image, frame.timestamp))
    return events, [e for e in events if e.kind in SETTLED_KINDS]


def rest_truth(
    camera: SimulatedCamera, number: int
) -> tuple[tuple[int | None, ...], tuple[str, ...]]:
    truth = next(t for t in camera.rendered if t.phase == "rest" and t.throw == number)
    return truth.values, truth.origins


def test_ten_dice_from_the_right_with_the_hand_staying_are_one_throw(reader: DiceReader) -> None:
    # Ten dice flying in together, blurred, and the hand that threw them resting at the edge
    # while they roll: once a hand, the throw was cancelled and nothing was said.
    plan = ThrowPlan(dice=10, edge="right", hand_stays=5)
    camera = SimulatedCamera([plan], seed=31)
    events, ends = settled(camera, reader, [Expectation(10, who="the game master")])
    values, _ = rest_truth(camera, 0)
    assert [e.kind for e in ends] == [ThrowEventKind.ROLLED]
    assert ends[0].values == tuple(sorted(v for v in values if v is not None))
    assert ends[0].who == "the game master"
    assert camera.rendered[ends[0].frame].phase == "rest"
    assert [e.kind for e in events].count(ThrowEventKind.ROLLING) == 1


@pytest.mark.parametrize("edge", ["left", "top", "bottom"])
def test_five_dice_from_any_edge_are_announced_once(reader: DiceReader, edge: str) -> None:
    camera = SimulatedCamera([ThrowPlan(dice=5, edge=edge)], seed=12)
    _, ends = settled(camera, reader, [None])
    values, _ = rest_truth(camera, 0)
    assert len(ends) == 1
    assert ends[0].kind is ThrowEventKind.ROLLED
    assert ends[0].values == tuple(sorted(v for v in values if v is not None))


def test_a_heap_of_twenty_is_announced_not_dropped(reader: DiceReader) -> None:
    camera = SimulatedCamera([ThrowPlan(dice=20, heap=True, edge="top")], seed=3)
    _, ends = settled(camera, reader, [Expectation(20)])
    assert len(ends) == 1  # rolled, or unclear with its reason: never silence
    if ends[0].kind is not ThrowEventKind.ROLLED:
        assert ends[0].reason


def test_a_wrong_number_of_dice_is_unclear_in_plain_words(reader: DiceReader) -> None:
    camera = SimulatedCamera([ThrowPlan(dice=3)], seed=5)
    _, ends = settled(camera, reader, [Expectation(4, who="Ann")])
    assert [e.kind for e in ends] == [ThrowEventKind.UNCLEAR]
    assert ends[0].reason == "expected 4 dice for Ann, found 3 dice in the tray"
    assert ends[0].to_json()["reason"] == ends[0].reason
    assert ends[0].to_json()["who"] == "Ann"


def test_dice_left_from_the_last_throw_are_unclear_for_a_fresh_throw(reader: DiceReader) -> None:
    # The hand takes only three of the five dice; the game asked for a fresh throw of five.
    plans = [ThrowPlan(dice=5, hand_first=False), ThrowPlan(dice=3, keep=2)]
    camera = SimulatedCamera(plans, seed=9)
    _, ends = settled(camera, reader, [Expectation(5), Expectation(5)])
    assert [e.kind for e in ends] == [ThrowEventKind.ROLLED, ThrowEventKind.UNCLEAR]
    assert ends[1].reason == "2 dice of the last throw are still in the tray"


def test_a_draw_may_leave_any_dice_of_the_last_throw_lying(reader: DiceReader) -> None:
    # The same film, but a poker draw: the player chooses how many stay (`may_keep`).
    plans = [ThrowPlan(dice=5, hand_first=False), ThrowPlan(dice=3, keep=2)]
    camera = SimulatedCamera(plans, seed=9)
    _, ends = settled(camera, reader, [Expectation(5), Expectation(5, may_keep=True)])
    assert [e.kind for e in ends] == [ThrowEventKind.ROLLED, ThrowEventKind.ROLLED]
    assert len(ends[1].values_of(DieOrigin.KEPT)) == 2


def test_a_reroll_tells_the_kept_dice_from_the_rethrown(reader: DiceReader) -> None:
    plans = [ThrowPlan(dice=5, hand_first=False), ThrowPlan(dice=3, keep=2, edge="bottom")]
    camera = SimulatedCamera(plans, seed=9)
    _, ends = settled(camera, reader, [Expectation(5), Expectation(5, rethrown=3)])
    assert [e.kind for e in ends] == [ThrowEventKind.ROLLED, ThrowEventKind.ROLLED]
    values, origins = rest_truth(camera, 1)
    kept = sorted(v for v, o in zip(values, origins, strict=True) if o == "kept")
    thrown = sorted(v for v, o in zip(values, origins, strict=True) if o == "thrown")
    assert list(ends[1].values_of(DieOrigin.KEPT)) == kept
    assert list(ends[1].values_of(DieOrigin.THROWN)) == thrown
    as_json = ends[1].to_json()
    assert as_json["kept"] == kept and as_json["thrown"] == thrown
    assert sorted(d["origin"] for d in as_json["dice"]) == ["kept"] * 2 + ["thrown"] * 3


def test_a_kept_die_pushed_by_the_throw_is_reported_moved(reader: DiceReader) -> None:
    plans = [
        ThrowPlan(dice=4, hand_first=False),
        ThrowPlan(dice=2, keep=2, nudged=1, edge="top"),
    ]
    camera = SimulatedCamera(plans, seed=14)
    _, ends = settled(camera, reader, [Expectation(4), Expectation(4, rethrown=2)])
    assert ends[1].kind is ThrowEventKind.ROLLED
    values, origins = rest_truth(camera, 1)
    moved = [v for v, o in zip(values, origins, strict=True) if o == "moved"]
    assert list(ends[1].values_of(DieOrigin.MOVED)) == moved
    assert len(ends[1].values_of(DieOrigin.KEPT)) == 1


def test_dice_set_down_by_a_hand_among_lying_dice_are_not_a_throw(reader: DiceReader) -> None:
    plans = [ThrowPlan(dice=2, hand_first=False), ThrowPlan(dice=2, keep=2, placed=True)]
    _, ends = settled(SimulatedCamera(plans, seed=6), reader, [None, None])
    assert len(ends) == 1


def die(x: float, y: float, value: int, size: int = 36) -> DieReading:
    half = size // 2
    box = (round(x) - half, round(y) - half, round(x) + half, round(y) + half)
    return DieReading(value, 0.99, box, DieStatus.READ)


def test_matching_keeps_a_die_in_its_place_and_calls_a_turned_one_moved() -> None:
    before = FrameReading((die(100, 100, 6), die(300, 100, 2), die(200, 300, 4)))
    after = FrameReading((die(102, 99, 6), die(301, 102, 5), die(400, 400, 3)))
    assert match_dice(before, after) == (DieOrigin.KEPT, DieOrigin.MOVED, DieOrigin.THROWN)
    assert match_dice(None, after) == (DieOrigin.THROWN,) * 3


def test_matching_with_the_rethrown_count_finds_a_pushed_die() -> None:
    before = FrameReading((die(100, 100, 6), die(300, 100, 6)))
    # The die at (300, 100) was pushed 30 px; one die was rethrown and landed far away.
    after = FrameReading((die(100, 100, 6), die(325, 118, 6), die(500, 380, 1)))
    assert match_dice(before, after)[1] is DieOrigin.THROWN
    assert match_dice(before, after, rethrown=1) == (
        DieOrigin.KEPT,
        DieOrigin.MOVED,
        DieOrigin.THROWN,
    )


def test_matching_never_pairs_dice_of_different_sizes() -> None:
    before = FrameReading((die(100, 100, 6, size=60),))
    after = FrameReading((die(100, 100, 6, size=30),))
    assert match_dice(before, after) == (DieOrigin.THROWN,)


def test_an_expectation_refuses_impossible_counts() -> None:
    with pytest.raises(SettingsError, match="Expectation.dice"):
        Expectation(0)
    with pytest.raises(SettingsError, match="Expectation.rethrown"):
        Expectation(5, rethrown=6)


def test_counts_are_in_words() -> None:
    assert [dice_word(n) for n in (0, 1, 2)] == ["0 dice", "1 die", "2 dice"]


def test_a_plan_can_name_which_dice_stay_the_sixes_of_a_vigor_reroll() -> None:
    plans = [
        ThrowPlan(dice=4, values=(6, 2, 6, 3), hand_first=False),
        ThrowPlan(dice=2, values=(5, 1), keep_at=(0, 2)),
    ]
    camera = SimulatedCamera(plans, seed=5)
    with camera:
        for _ in camera:
            pass
    first = next(t for t in camera.rendered if t.phase == "rest" and t.throw == 0)
    values, origins = rest_truth(camera, 1)
    assert values == (6, 6, 5, 1) and origins == ("kept", "kept", "thrown", "thrown")
    second = next(t for t in camera.rendered if t.phase == "rest" and t.throw == 1)
    assert second.dice[:2] == (first.dice[0], first.dice[2])  # the sixes did not move
    with pytest.raises(ValueError, match="keep_at"):
        ThrowPlan(dice=2, keep_at=(1, 1))


def test_the_sim_tray_plans_a_reroll_by_the_faces_left_lying() -> None:
    from tabletop.sim.dice import RenderedDiceTray

    _plan = RenderedDiceTray._plan

    camera = SimulatedCamera([ThrowPlan(dice=3, values=(4, 6, 1), hand_first=False)], seed=2)
    with camera:
        for _ in camera:
            pass
    plan = _plan(camera, (6, 2, 5), (6,), first=False)
    assert (plan.keep_at, plan.values, plan.dice) == ((1,), (2, 5), 2)
    fresh = _plan(camera, (3, 3, 3), (), first=False)
    assert (fresh.keep_at, fresh.dice, fresh.hand_first) == ((), 3, True)
    # A face no die shows cannot stay: that die is thrown too.
    odd = _plan(camera, (5, 2, 3), (5,), first=False)
    assert (odd.keep_at, odd.values) == ((), (5, 2, 3))


def test_the_watcher_learns_the_die_size_and_searches_every_size_when_it_misleads(
    reader: DiceReader,
) -> None:
    plans = [ThrowPlan(dice=3, hand_first=False), ThrowPlan(dice=3)]
    camera = SimulatedCamera(plans, seed=21, die_size=36)
    watcher = ThrowWatcher(reader)
    ends: list[ThrowEvent] = []
    told = -1
    with camera:
        for frame in camera:
            number = frame.truth.throw
            if number >= 0 and number != told:
                told = number
                watcher.expect(Expectation(3))
                if number == 1:
                    learnt = watcher._die_size
                    assert learnt is not None and 30 <= learnt <= 44  # rendered 36 px a side
                    # As if the dice of the last throw had been twice as big: the quick search
                    # misses these, the full one finds them, and the size is forgotten.
                    watcher._die_size = 80.0
            ends.extend(
                e for e in watcher.feed(frame.image, frame.timestamp) if e.kind in SETTLED_KINDS
            )
    assert [e.kind for e in ends] == [ThrowEventKind.ROLLED, ThrowEventKind.ROLLED]
    values, _ = rest_truth(camera, 1)
    assert ends[1].values == tuple(sorted(v for v in values if v is not None))
    assert watcher._die_size is not None and 30 <= watcher._die_size <= 44  # learnt again


@pytest.mark.slow
def test_a_die_pressed_against_others_is_found_by_a_closer_look(reader: DiceReader) -> None:
    """The pools benchmark's 5-dice film of seed 5004: in its fourth throw a dark purple die
    lies pressed between a red one and an orange one on a dark tray, and the locator sees no
    peak of its own there. Told to expect 5 dice, the watcher found 4, frame after frame; the
    closer look on a grid at the dice's size finds the fifth."""
    plans = [
        ThrowPlan(
            dice=5,
            hand_first=k > 0,
            edge=EDGES[k % len(EDGES)],
            hand_stays=5 if k % 3 == 1 else 0,
            heap=k == 3,
            still_frames=24,
        )
        for k in range(4)
    ]
    camera = SimulatedCamera(plans, seed=5004)
    _, ends = settled(camera, reader, [Expectation(5)] * 4)
    values, _ = rest_truth(camera, 3)
    assert [e.kind for e in ends] == [ThrowEventKind.ROLLED] * 4, [e.reason for e in ends]
    assert ends[3].values == tuple(sorted(v for v in values if v is not None))
