"""Shared fixtures for the dice-vision tests: the real photos and one reader for all tests."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from vision.evaluate import LabelledDie, load_labels
from vision.reader import DiceReader

PHOTOS = Path(__file__).resolve().parents[1] / "data" / "dice-tray"


@pytest.fixture(scope="session", autouse=True)
def _one_thread() -> None:
    cv2.setNumThreads(1)


@pytest.fixture(scope="session")
def photo_labels() -> dict[str, list[LabelledDie]]:
    return load_labels(PHOTOS / "labels.csv")


@pytest.fixture(scope="session")
def reader() -> DiceReader:
    return DiceReader()
