"""The rest detector frame by frame on rendered trays."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from tabletop.hardware.camera.render import Hand, random_scene, render
from tabletop.hardware.camera.sim import SimulatedCamera, ThrowPlan
from tabletop.vision.rest import RestDetector, TrayState


def test_a_still_tray_with_a_die_is_still_and_empty_is_empty() -> None:
    scene = random_scene(np.random.default_rng(1), 1, die_size=36)
    empty = replace(scene, dice=())
    detector = RestDetector()
    states = [detector.observe(render(empty, seed=k)).state for k in range(5)]
    assert states == [TrayState.EMPTY] * 5
    states = [detector.observe(render(scene, seed=k)).state for k in range(5)]
    # The die appearing is one frame of change; then it lies still.
    assert states[1:] == [TrayState.STILL] * 4
    assert detector.still_frames == 4


def test_a_moving_die_is_moving() -> None:
    scene = random_scene(np.random.default_rng(2), 1, die_size=36)
    die = scene.dice[0]
    detector = RestDetector()
    states = []
    for k in range(6):
        moved = replace(die, x=die.x + 12 * k, angle=die.angle + 20 * k)
        states.append(detector.observe(render(replace(scene, dice=(moved,)), seed=k)).state)
    assert states[1:] == [TrayState.MOVING] * 5


def test_a_hand_in_the_tray_is_a_hand() -> None:
    scene = random_scene(np.random.default_rng(3), 2, die_size=36)
    detector = RestDetector()
    detector.observe(render(scene))
    hand = Hand(scene.width / 2, scene.height * 0.7, scene.height * 0.3, -90.0)
    assert detector.observe(render(replace(scene, hand=hand))).state is TrayState.HAND


def test_a_slow_light_change_is_not_motion() -> None:
    scene = random_scene(np.random.default_rng(4), 3, die_size=36)
    detector = RestDetector()
    states = [
        detector.observe(render(replace(scene, light=scene.light * (1 - 0.03 * k)), seed=k)).state
        for k in range(12)
    ]
    assert TrayState.MOVING not in states


def test_rest_detection_works_at_any_resolution() -> None:
    scene = random_scene(np.random.default_rng(5), 1, width=1280, height=720, die_size=70)
    detector = RestDetector()
    assert detector.observe(render(scene)).state is TrayState.STILL


def test_ten_blurred_dice_flying_in_over_the_edge_are_motion_not_a_hand() -> None:
    # Together they change more of the frame than a hand reaching in does, but none of them
    # is thicker than a die.
    for edge in ("left", "bottom"):
        with SimulatedCamera([ThrowPlan(dice=10, edge=edge, hand_first=False)], seed=6) as camera:
            frames = list(camera)
        detector = RestDetector()
        states = [detector.observe(f.image).state for f in frames if f.truth.phase == "rolling"]
        assert TrayState.HAND not in states
        assert states.count(TrayState.MOVING) >= len(states) - 2  # the first: still outside


def test_dice_rolling_away_from_a_hand_at_the_edge_are_motion_beside_it() -> None:
    scene = random_scene(np.random.default_rng(7), 2, die_size=36)
    hand = Hand(scene.width - 30, scene.height / 2, scene.height * 0.3, 180.0)
    detector = RestDetector()
    detector.observe(render(replace(scene, dice=())))
    detector.observe(render(replace(scene, dice=(), hand=hand)))
    moving = []
    for k in range(4):
        dice = tuple(replace(d, x=d.x + 25 * k, angle=d.angle + 15 * k) for d in scene.dice)
        observation = detector.observe(render(replace(scene, dice=dice, hand=hand), seed=k))
        assert observation.state is TrayState.HAND
        moving.append(observation.moving > detector.settings.moving_fraction)
    assert moving[1:] == [True, True, True]


def test_a_hand_holding_still_is_not_motion() -> None:
    scene = random_scene(np.random.default_rng(8), 2, die_size=36)
    hand = Hand(scene.width / 2, scene.height * 0.8, scene.height * 0.3, -90.0)
    detector = RestDetector()
    detector.observe(render(scene))
    for k in range(4):
        nudged = replace(hand, y=hand.y - 6 * k)  # a hand never holds perfectly still
        observation = detector.observe(render(replace(scene, hand=nudged), seed=k))
    assert observation.state is TrayState.HAND
    assert observation.moving <= detector.settings.moving_fraction
