"""Run the sensitivity chapter's large Sobol design of the thesis's skier and keep its outputs.

    python scripts/sobol_study.py                 # N = 16384, seed 2026, a Dask LocalCluster
    python scripts/sobol_study.py --check 20      # re-run 20 kept rows: within KEPT_RTOL, or exit 1

Writes data/sobol/thesis_sobol_N<N>.parquet (the factors and each row's periodic stroke's mean
CM speed and mean push power) and a JSON beside it: N, seed, ranges, when and by which commit it
was produced, on how many workers and in how long (``skilib.models.thesis.sobol_study``).
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    import numpy as np

    from skilib.models.thesis.sobol_study import (SOBOL_FILE, SOBOL_RANGES, SOBOL_SEED, SOBOL_SOLVER, check_rows,
                                                  read_sobol_study, sobol_study)

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=16384, help="base size N (a power of 2); N (D + 2) runs")
    ap.add_argument("--workers", type=int, default=None, help="Dask workers (default: one per core)")
    ap.add_argument("--check", type=int, metavar="K", help="re-run K evenly spaced kept rows: their largest relative "
                    "difference from the kept outputs, against KEPT_RTOL (bit for bit on the machine that wrote them)")
    args = ap.parse_args(argv)
    path = SOBOL_FILE.with_name(f"thesis_sobol_N{args.n}.parquet")
    if args.check:
        frame, meta = read_sobol_study(path)
        rows = sorted({int(round(x)) for x in np.linspace(0, len(frame) - 1, args.check)})
        found = check_rows(frame, rows)
        print(f"[sobol] {path.name}: {found}")
        return 0 if found.ok else 1
    # the commit whose code runs the study: read before it starts (a commit made while it runs is not it)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    t0 = time.perf_counter()
    frame, info = sobol_study(args.n, seed=SOBOL_SEED, n_workers=args.workers)
    wall = time.perf_counter() - t0
    meta = {"n": args.n, "seed": SOBOL_SEED, "ranges": SOBOL_RANGES, "solver": SOBOL_SOLVER, "runs": len(frame),
            "produced": _dt.datetime.now().isoformat(timespec="seconds"), "commit": commit or "unknown",
            "wall_s": round(wall, 1), "n_workers": info.get("n_workers"), "cpus": os.cpu_count(),
            "python": platform.python_version(), "machine": platform.machine()}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp, tmp_meta = path.with_suffix(".tmp"), path.with_suffix(".jtmp")  # both complete, or neither replaced
    frame.to_parquet(tmp, index=False)
    tmp_meta.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    tmp_meta.replace(path.with_suffix(".json"))
    tmp.replace(path)
    print(f"[sobol] {len(frame)} runs in {wall:.0f} s on {info.get('n_workers')} worker(s): {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
