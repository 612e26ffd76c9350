"""The electrical rules check of the mat's circuit, its findings collected as text."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from .mat import MatCircuit


@dataclass(frozen=True)
class ErcResult:
    """What SKiDL's ERC said: errors and warnings, each one line."""

    errors: tuple[str, ...]
    warnings: tuple[str, ...]


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def run_erc(mat: MatCircuit) -> ErcResult:
    """Runs SKiDL's ERC on the circuit; every pin left open on purpose was marked no-connect
    (or its net excused) with a reason in `mat.waivers`, so any finding is a real one."""
    logger = logging.getLogger("ERC_Logger")
    handler = _Collect()
    logger.addHandler(handler)
    try:
        mat.circuit.ERC()
    finally:
        logger.removeHandler(handler)
    errors = tuple(r.getMessage() for r in handler.records if r.levelno >= logging.ERROR)
    warnings = tuple(r.getMessage() for r in handler.records if r.levelno == logging.WARNING)
    return ErcResult(errors, warnings)
