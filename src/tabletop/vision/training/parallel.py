"""Trains the detector's folds and value-reader recipes in parallel processes, then
cross-validates each recipe; for many cores, or a GPU shared by the processes.

    PYTHONPATH=. /tmp/torchenv/bin/python -m tabletop.vision.training.parallel --out out/recipes \\
        --recipe today= --recipe cameras="--cameras 0.5 --kinds 800" --jobs 16 [--device cuda]

Each `--recipe NAME=ARGS` is `tabletop.vision.training.train_reader` with ARGS: its crops are made
once (`--crops-cache`), then each fold and the final network (trained on every photo) train in a
process of their own. `--folds-only NAME=ARGS` leaves the final network out (the shipped
recipe, as a baseline); `--final-only NAME=ARGS` trains just the final network (a recipe
measured on rendered kinds held out, say). The detector's folds (`train_classifier`, today's recipe,
`--detector ARGS` added) are trained once and shared by every recipe's cross-validation
(`tabletop.vision.training.cross_validate`), so recipes differ by their value networks alone.

Writes OUT/detector/foldK-of-N.onnx, OUT/NAME/values-foldK-of-N.onnx, OUT/NAME/dice_values.onnx,
OUT/NAME/cv.json and a log per process in OUT/logs/. At `--deadline` seconds whatever is still
running is stopped, and the summary says what finished.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]


@dataclass
class Job:
    """One process to run: its name (the log's), its command, and the jobs it waits for."""

    name: str
    argv: list[str]
    after: list[str] = field(default_factory=list)
    process: subprocess.Popen[bytes] | None = None
    result: str = ""  # "", "ok", "failed (rc N)", "stopped at the deadline", "skipped"


def recipe(text: str) -> tuple[str, list[str]]:
    """NAME=ARGS, as the options take it."""
    name, _, args = text.partition("=")
    if not name or "/" in name:
        raise argparse.ArgumentTypeError(f"a recipe is NAME=ARGS, not {text!r}")
    return name, shlex.split(args)


def plan(args: argparse.Namespace) -> list[Job]:
    """Every process, in the order they should start: crops and detector folds first."""
    python, out, folds = args.python, args.out, args.folds
    device = ["--device", args.device]
    module = [python, "-m"]
    jobs: list[Job] = []

    def one_fold(fold: int, models: Path) -> list[str]:
        """The options that train fold `fold` alone and keep its model in `models`."""
        only = ["--folds", str(folds), "--only-folds", str(fold), "--no-final"]
        return [*device, *only, "--fold-models", str(models)]

    for fold in range(folds):
        detector = [
            *module,
            "tabletop.vision.training.train_classifier",
            *one_fold(fold, out / "detector"),
        ]
        report = ["--report", str(out / "detector" / f"detector-cv-fold{fold}.json")]
        jobs.append(Job(f"detector-fold{fold}", [*detector, *report, *shlex.split(args.detector)]))
    trained = [(name, extra, True, True) for name, extra in args.recipe]
    trained += [(name, extra, True, False) for name, extra in args.folds_only]
    trained += [(name, extra, False, True) for name, extra in args.final_only]
    for name, extra, with_folds, with_final in trained:
        cache = out / name / "crops.pkl"
        reader = [
            *module,
            "tabletop.vision.training.train_reader",
            *extra,
            "--crops-cache",
            str(cache),
        ]
        jobs.append(Job(f"{name}-crops", [*reader, "--prepare-only"]))
        steps = []
        if with_final:
            final = [
                *reader,
                *device,
                "--folds",
                "0",
                "--out",
                str(out / name / "dice_values.onnx"),
            ]
            steps.append(Job(f"{name}-final", final, after=[f"{name}-crops"]))
        if with_folds:
            steps = [
                Job(f"{name}-fold{k}", [*reader, *one_fold(k, out / name)], after=[f"{name}-crops"])
                for k in range(folds)
            ] + steps
        jobs += steps
    for name, _ in [*args.recipe, *args.folds_only]:
        jobs.append(
            Job(
                f"{name}-cv",
                [
                    *module,
                    "tabletop.vision.training.cross_validate",
                    "--folds",
                    str(folds),
                    "--fold-models",
                    str(out / name),
                    "--detector-models",
                    str(out / "detector"),
                    "--report",
                    str(out / name / "cv.json"),
                ],
                after=[f"{name}-fold{k}" for k in range(folds)]
                + [f"detector-fold{k}" for k in range(folds)],
            )
        )
    return jobs


def run(jobs: list[Job], out: Path, slots: int, deadline: float, poll: float = 1.0) -> None:
    """Runs the jobs, at most `slots` at a time, each once the jobs it waits for are done;
    looks at them every `poll` seconds."""
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    by_name = {job.name: job for job in jobs}
    begun = time.monotonic()
    while True:
        now = time.monotonic() - begun
        running = [j for j in jobs if j.process is not None and not j.result]
        for job in running:
            assert job.process is not None
            rc = job.process.poll()
            if rc is not None:
                job.result = "ok" if rc == 0 else f"failed (rc {rc}, see logs/{job.name}.log)"
                print(f"[{now:6.0f} s] {job.name}: {job.result}", flush=True)
        waiting = [j for j in jobs if j.process is None and not j.result]
        for job in waiting:
            if any(by_name[a].result not in ("", "ok") for a in job.after):
                job.result = "skipped (a job it waits for did not finish)"
                print(f"[{now:6.0f} s] {job.name}: {job.result}", flush=True)
        running = [j for j in jobs if j.process is not None and not j.result]
        ready = [
            j
            for j in jobs
            if j.process is None
            and not j.result
            and all(by_name[a].result == "ok" for a in j.after)
        ]
        for job in ready[: max(0, slots - len(running))]:
            with (logs / f"{job.name}.log").open("wb") as log:
                job.process = subprocess.Popen(
                    job.argv, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT
                )
            print(f"[{now:6.0f} s] {job.name}: started", flush=True)
        if all(j.result for j in jobs):
            return
        if now > deadline:
            for job in jobs:
                if not job.result:
                    if job.process is not None:
                        job.process.kill()
                    job.result = "stopped at the deadline"
            return
        time.sleep(poll)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "recipes")
    parser.add_argument("--recipe", type=recipe, action="append", default=[], metavar="NAME=ARGS")
    parser.add_argument(
        "--folds-only", type=recipe, action="append", default=[], metavar="NAME=ARGS"
    )
    parser.add_argument(
        "--final-only", type=recipe, action="append", default=[], metavar="NAME=ARGS"
    )
    parser.add_argument("--detector", default="", help="train_classifier's options for its folds")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2, help="processes at a time")
    parser.add_argument("--device", default="cpu", help="cpu or cuda, for every network")
    parser.add_argument("--python", default=sys.executable, help="the Python that has PyTorch")
    parser.add_argument("--deadline", type=float, default=float("inf"), help="seconds")
    args = parser.parse_args()
    jobs = plan(args)
    run(jobs, args.out, args.jobs, args.deadline)
    summary: dict[str, object] = {job.name: job.result for job in jobs}
    for name, _ in [*args.recipe, *args.folds_only]:
        report = args.out / name / "cv.json"
        if report.exists():
            cv = json.loads(report.read_text(encoding="utf-8"))
            keys = ("found", "read_right", "not_read", "wrong_values", "value_accuracy")
            summary[f"{name} cross-validated"] = {k: cv[k] for k in keys}
    print(json.dumps(summary, indent=1))
    return 0 if all(job.result == "ok" for job in jobs) else 1


if __name__ == "__main__":
    sys.exit(main())
