"""The two k-best engines rank by rank on every bundled score file with n <= 20 (issue 13's check).

    python tools/experiments/crosscheck_engines.py [K] [SECONDS]     # default K = 10, 120 s per run

For each file: lpbn.solve(cache, k_best=K, engine="bnb") and engine="ilp"; both must be proven
(status optimal) and list the same scores at every rank (1e-9 absolute) with the same ranks and
the same number of entries (ties included); the best must equal lpbn's dp optimum.  A line per
file; files where the ILP engine hits the time limit are reported as such, not as agreement.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from pathlib import Path

import lpbn

ROOT = Path(__file__).resolve().parents[2]
DATA = (".csv", ".dat", ".json", ".md", ".toml", ".net", ".png", ".rda", ".bif", ".py")


def score_files():
    for p in sorted((ROOT / "instances").rglob("*")):
        if p.is_file() and "suites" not in p.parts and not any(p.name.endswith(e) or p.name.endswith(e + ".gz") for e in DATA):
            yield p


def main(k: int = 10, seconds: float = 120.0) -> int:
    bad = 0
    for path in score_files():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                cache = lpbn.read_scores(path)
            except lpbn.LpbnError:
                continue
            if cache.n > 20:
                continue
            t0 = time.perf_counter()
            a = lpbn.solve(cache, k_best=k, engine="bnb", time_limit=seconds)
            t1 = time.perf_counter()
            b = lpbn.solve(cache, k_best=k, engine="ilp", time_limit=seconds)
            t2 = time.perf_counter()
        name = path.relative_to(ROOT / "instances")
        if b.status != "optimal" or a.status != "optimal":
            print(f"{name}: n={cache.n} m={cache.m} not compared: bnb {a.status}, ilp {b.status} "
                  f"({t1 - t0:.1f} s, {t2 - t1:.1f} s)", flush=True)
            continue
        sa = [s["score"] for s in a.solutions]
        sb = [s["score"] for s in b.solutions]
        same = (len(sa) == len(sb) and all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(sa, sb))
                and [s["rank"] for s in a.solutions] == [s["rank"] for s in b.solutions])
        opt = lpbn.solve(cache, method="dp").score
        same = same and math.isclose(sa[0], opt, abs_tol=1e-7)
        bad += not same
        print(f"{name}: n={cache.n} m={cache.m} K={k} listed {len(sa)} {'AGREE' if same else 'DISAGREE'} "
              f"(bnb {t1 - t0:.1f} s, ilp {t2 - t1:.1f} s; best {sa[0]:.6f}, K-th {sa[min(k, len(sa)) - 1]:.6f})",
              flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*(int(sys.argv[1]),) if len(sys.argv) > 1 else (), *(float(a) for a in sys.argv[2:3])))
