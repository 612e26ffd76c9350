"""Progress of long vision work (training, cross-validation, benchmarks) on stderr.

A bar on a terminal (rich), plain lines when stderr is a file or a pipe, so logs stay readable.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


@contextmanager
def progress(total: int, what: str) -> Iterator[Callable[[str], None]]:
    """Yields `step(note)`: one of `total` steps of `what` done, with a short note."""
    if sys.stderr.isatty():
        bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[note]}"),
            transient=False,
        )
        with bar:
            task = bar.add_task(what, total=total, note="")
            yield lambda note: bar.update(task, advance=1, note=note)
        return
    started = time.monotonic()
    done = 0

    def step(note: str) -> None:
        nonlocal done
        done += 1
        elapsed = time.monotonic() - started
        print(f"{what}: {done}/{total} ({elapsed:.0f} s) {note}", file=sys.stderr, flush=True)

    yield step
