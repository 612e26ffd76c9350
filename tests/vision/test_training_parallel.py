"""Training spread over processes (tabletop.vision.training.parallel): what waits for what, and what a
failure or the deadline leaves behind. Real processes, no PyTorch needed."""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import pytest

from tabletop.vision.training.parallel import Job, plan, recipe, run


def options(tmp_path: Path, **chosen: object) -> argparse.Namespace:
    defaults: dict[str, object] = {
        "python": "py",
        "out": tmp_path,
        "folds": 3,
        "device": "cuda",
        "detector": "--epochs 2",
        "recipe": [],
        "folds_only": [],
        "final_only": [],
    }
    return argparse.Namespace(**{**defaults, **chosen})


def test_a_recipe_makes_its_crops_once_then_trains_each_fold_and_is_cross_validated(
    tmp_path: Path,
) -> None:
    jobs = {
        job.name: job
        for job in plan(options(tmp_path, recipe=[recipe("cam=--cameras 0.5 --kinds 800")]))
    }
    assert sorted(jobs) == sorted(
        [f"detector-fold{k}" for k in range(3)]
        + ["cam-crops", "cam-fold0", "cam-fold1", "cam-fold2", "cam-final", "cam-cv"]
    )
    crops = jobs["cam-crops"].argv
    assert "--prepare-only" in crops
    assert crops[crops.index("--crops-cache") + 1] == str(tmp_path / "cam" / "crops.pkl")
    fold = jobs["cam-fold1"]
    assert fold.after == ["cam-crops"]
    assert fold.argv[:3] == ["py", "-m", "tabletop.vision.training.train_reader"]
    assert fold.argv[fold.argv.index("--only-folds") + 1] == "1"
    assert fold.argv[fold.argv.index("--cameras") + 1] == "0.5"
    assert fold.argv[fold.argv.index("--device") + 1] == "cuda"
    assert "--crops-cache" in fold.argv
    # The detector's folds are shared: the cross-validation waits for them and the recipe's.
    assert sorted(jobs["cam-cv"].after) == sorted(
        [f"cam-fold{k}" for k in range(3)] + [f"detector-fold{k}" for k in range(3)]
    )
    cv = jobs["cam-cv"].argv
    assert cv[cv.index("--fold-models") + 1] == str(tmp_path / "cam")
    assert cv[cv.index("--detector-models") + 1] == str(tmp_path / "detector")
    detector = jobs["detector-fold2"].argv
    assert detector[detector.index("--epochs") + 1] == "2"
    assert "tabletop.vision.training.train_classifier" in detector


def test_folds_only_has_no_final_and_final_only_no_folds(tmp_path: Path) -> None:
    names = [
        job.name
        for job in plan(
            options(tmp_path, folds_only=[recipe("today=")], final_only=[recipe("held=--kinds 8")])
        )
    ]
    assert "today-final" not in names and "today-cv" in names and "today-fold2" in names
    assert "held-final" in names and "held-fold0" not in names and "held-cv" not in names


def test_a_recipe_needs_a_name() -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="NAME=ARGS"):
        recipe("=--cameras 0.5")


def job(name: str, code: str, after: list[str] | None = None) -> Job:
    return Job(name, [sys.executable, "-c", code], after=after or [])


def test_jobs_wait_for_theirs_and_a_failure_skips_what_waits_on_it(tmp_path: Path) -> None:
    marker = tmp_path / "first-done"
    jobs = [
        job(
            "first", f"import pathlib, time; time.sleep(0.5); pathlib.Path({str(marker)!r}).touch()"
        ),
        job(
            "second",
            f"import pathlib, sys; sys.exit(0 if pathlib.Path({str(marker)!r}).exists() else 3)",
            ["first"],
        ),
        job("broken", "raise SystemExit(2)"),
        job("after-broken", "pass", ["broken"]),
    ]
    run(jobs, tmp_path, slots=4, deadline=60, poll=0.05)
    results = {j.name: j.result for j in jobs}
    assert results["first"] == "ok"
    assert results["second"] == "ok"  # it ran only once the first had finished
    assert results["broken"].startswith("failed (rc 2")
    assert results["after-broken"].startswith("skipped")
    assert (tmp_path / "logs" / "broken.log").exists()


def test_the_deadline_stops_what_is_still_running(tmp_path: Path) -> None:
    jobs = [job("quick", "pass"), job("slow", "import time; time.sleep(60)")]
    run(jobs, tmp_path, slots=2, deadline=2, poll=0.05)
    assert jobs[0].result == "ok"
    assert jobs[1].result == "stopped at the deadline"
    assert jobs[1].process is not None and jobs[1].process.wait(timeout=10) != 0


def test_no_more_than_the_slots_run_at_once(tmp_path: Path) -> None:
    # Each job notes when it starts and ends; with one slot no two overlap.
    log = tmp_path / "spans.txt"
    code = (
        f"import time; a = time.monotonic(); time.sleep(0.3); log = open({str(log)!r}, 'a');"
        " log.write(f'{a} {time.monotonic()}\\n')"
    )
    jobs = [job(f"j{k}", code) for k in range(3)]
    run(jobs, tmp_path, slots=1, deadline=60, poll=0.05)
    spans = sorted(tuple(map(float, line.split())) for line in log.read_text().splitlines())
    assert len(spans) == 3
    assert all(later[0] >= earlier[1] for earlier, later in itertools.pairwise(spans))
