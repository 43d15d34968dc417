"""Wine's cache (instances/alisterl__eBNSL/scores/wine.BIC.3) scaled by 1e-6, 1e6, 1e10 and shifted
per variable (uniform in +-1e3 x the factor, seed 0), solved by every method of
lpbn.solve.available_methods() (brute refuses 14 variables): status, the score mapped back
through the transform against the optimum, and the bound's distance above the score.

    python tools/experiments/trust_scaled.py            # from the repository root
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

import lpbn
from lpbn.cache import ScoreCache
from lpbn.solve import available_methods

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    base = lpbn.read_scores(ROOT / "instances/alisterl__eBNSL/scores/wine.BIC.3")
    optimum = lpbn.solve(base, "dp").score
    rng = np.random.default_rng(0)
    print("| factor | shift | method | status | score mapped back - optimum | (bound - score) / max(abs(score), 1) | seconds |")
    print("|---|---|---|---|---|---|---|")
    for factor in (1e-6, 1e6, 1e10):
        for shifted in (False, True):
            shift = rng.uniform(-1.0, 1.0, base.n) * 1e3 * factor if shifted else np.zeros(base.n)
            cache = ScoreCache(base.names, base.offsets, base.scores * factor + shift[base.family],
                               base.pset_ptr, base.pset_items)
            for method in available_methods():
                if method == "brute":
                    continue
                t0 = time.perf_counter()
                res = lpbn.solve(cache, method, time_limit=120)
                back = (res.score - math.fsum(shift.tolist())) / factor
                print(f"| {factor:g} | {'yes' if shifted else 'no'} | {method} | {res.status} | {back - optimum:.3g} | "
                      f"{res.gap:.3g} | {time.perf_counter() - t0:.1f} |", flush=True)


if __name__ == "__main__":
    main()
