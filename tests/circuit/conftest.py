"""The mat's circuit, built once per test process (a few seconds: docs/circuit.md)."""

from __future__ import annotations

import pytest

from tabletop.hardware.circuit.mat import MatCircuit, build_mat


@pytest.fixture(scope="session")
def mat() -> MatCircuit:
    """The full mat (6 seats of 6 slots and the pad), as a maker builds it."""
    return build_mat()
