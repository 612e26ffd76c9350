"""Benchmark of the mat's circuit build, the part the test suite runs (tests/circuit/).

    .venv/bin/python bench/circuit_build.py [--repeat 3]

Each run is a fresh process (so SKiDL's import counts): import SKiDL and the circuit, build the
full mat (431 parts), run the ERC, count the BOM and the power budget, write the KiCad netlist
to memory. Prints each stage's wall time and the process's CPU time per run, then the median.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ONE_RUN = """
import json, os, time
t0 = time.perf_counter()
from tabletop.hardware.circuit._skidl import skidl
from tabletop.hardware.circuit.bom import bom_rows, power_budget
from tabletop.hardware.circuit.erc import run_erc
from tabletop.hardware.circuit.mat import build_mat
t1 = time.perf_counter()
mat = build_mat()
t2 = time.perf_counter()
erc = run_erc(mat)
t3 = time.perf_counter()
bom_rows(mat); power_budget(mat, 64)
t4 = time.perf_counter()
mat.circuit.generate_netlist(tool=skidl.KICAD6, do_backup=False)
t5 = time.perf_counter()
cpu = os.times()
print(json.dumps({"import": t1 - t0, "build": t2 - t1, "erc": t3 - t2, "bom": t4 - t3,
                  "netlist": t5 - t4, "total": t5 - t0, "cpu": cpu.user + cpu.system,
                  "errors": len(erc.errors), "warnings": len(erc.warnings)}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    runs = []
    for _ in range(args.repeat):
        done = subprocess.run(
            [sys.executable, "-c", ONE_RUN], cwd=ROOT, capture_output=True, text=True, check=True
        )
        run = json.loads(done.stdout.strip().splitlines()[-1])
        runs.append(run)
        print(
            " ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in run.items())
        )
    keys = ("import", "build", "erc", "bom", "netlist", "total", "cpu")
    print(
        "median: " + ", ".join(f"{k} {statistics.median(r[k] for r in runs):.2f} s" for k in keys)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
