"""Where the bound's gap on connect4 comes from: exact optima of small sub-caches against LPs.

    python tools/experiments/subcache_gap.py CONNECT4.jkl CELLS [CELLS ...]

CONNECT4.jkl is `lpbn score connect4.train.csv.gz -o connect4.jkl` (defaults).  The data set is a
one-hot encoding of the 42 board cells (column-major: a1..a6, b1..b6, ...), three 0/1 variables
per cell, so cell c owns variables 3c, 3c + 1, 3c + 2.  CELLS is a comma-separated list of cells
(e.g. 0,1,2,3,4,5 = column a); the sub-cache keeps those variables and the candidate parent sets
inside them.  Per sub-cache, one JSON line: its exact optimum (subset DP), and how far above it
(in % of |optimum|) the cluster LP with k-clusters (k <= 3) ends, without and with the
{0, 1/2}-cuts of lpbn.lp.zero_half (zero-cost only, then 'slack'), each run to completion.
"""
import json
import sys
import time

import lpbn
from lpbn.cache import ScoreCache
from lpbn.lp.cut_loop import add_kclusters, cut_loop
from lpbn.lp.model import EtaLP


def sub_cache(cache, variables):
    pos = {v: k for k, v in enumerate(variables)}
    families = []
    for v in variables:
        families.append([(float(cache.scores[j]), [pos[p] for p in cache.parents(j)])
                         for j in cache.family_range(v) if all(p in pos for p in cache.parents(j))])
    return ScoreCache.from_families([cache.names[v] for v in variables], families)


def lp_value(cache, optimum, zero_half):
    """The cut loop run dry: clusters (exact separation), k-clusters, optionally {0, 1/2}-cuts."""
    model = EtaLP(cache)
    res = cut_loop(model, exact=True, k_max=3, best=lambda: optimum, zero_half=zero_half)
    while add_kclusters(model, res.eta, 3):
        res = cut_loop(model, exact=True, k_max=3, best=lambda: optimum, zero_half=zero_half)
    return res.value, len(model.cuts)


full = lpbn.read_scores(sys.argv[1])
for arg in sys.argv[2:]:
    cells = [int(c) for c in arg.split(",")]
    sub = sub_cache(full, [3 * c + s for c in cells for s in range(3)])
    optimum = lpbn.solve(sub, "dp").score
    row = {"cells": cells, "n": sub.n, "m": sub.m, "optimum": round(optimum, 2)}
    for label, zero_half in (("clusters+k", False), ("zero-half", True), ("zero-half-slack", "slack")):
        t0 = time.perf_counter()
        value, cuts = lp_value(sub, optimum, zero_half)
        row[label] = {"above_optimum_pct": round(100 * (value - optimum) / abs(optimum), 3),
                      "cuts": cuts, "seconds": round(time.perf_counter() - t0, 1)}
    print(json.dumps(row), flush=True)
