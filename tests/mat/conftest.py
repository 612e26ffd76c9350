"""Shared pieces for the mat tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

VECTORS = (
    Path(__file__).resolve().parents[2]
    / "src"
    / "tabletop"
    / "firmware"
    / "vectors"
    / "protocol-v1.json"
)


@pytest.fixture(scope="session")
def vectors() -> dict[str, Any]:
    """The golden protocol vectors the firmware tests also use."""
    data: dict[str, Any] = json.loads(VECTORS.read_text())
    return data
