"""Progress of long vision work: plain lines on stderr when it is not a terminal."""

from __future__ import annotations

import pytest

from tabletop.vision.progress import progress


def test_progress_in_a_log_is_one_plain_line_a_step(capsys: pytest.CaptureFixture[str]) -> None:
    with progress(3, "cross-validation") as step:
        for fold in range(3):
            step(f"fold {fold}")
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("cross-validation: 1/3 (")
    assert lines[2].startswith("cross-validation: 3/3 (") and lines[2].endswith(" fold 2")
