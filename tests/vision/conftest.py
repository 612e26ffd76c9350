"""Shared fixtures for the dice-vision tests: the real photos, the networks and a reader."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from tabletop.vision.classify import DieClassifier, ValueClassifier
from tabletop.vision.evaluate import LabelledDie, load_labels
from tabletop.vision.reader import DiceReader

PHOTOS = Path(__file__).resolve().parents[1] / "data" / "dice-tray"


@pytest.fixture(scope="session", autouse=True)
def _one_thread() -> None:
    cv2.setNumThreads(1)


@pytest.fixture(scope="session")
def photo_labels() -> dict[str, list[LabelledDie]]:
    return load_labels(PHOTOS / "labels.csv")


@pytest.fixture(scope="session")
def _networks() -> tuple[DieClassifier, ValueClassifier]:
    detector, values = DieClassifier(), ValueClassifier()
    detector.load()
    values.load()
    return detector, values


@pytest.fixture
def reader(_networks: tuple[DieClassifier, ValueClassifier]) -> DiceReader:
    """A fresh reader for each test (a watcher leaves its learnt die size on its reader), with
    the networks loaded once for all."""
    detector, values = _networks
    return DiceReader(detector, values=values)
