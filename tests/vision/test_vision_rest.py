"""The rest detector frame by frame on rendered trays."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hardware.camera.render import Hand, random_scene, render
from vision.rest import RestDetector, TrayState


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
