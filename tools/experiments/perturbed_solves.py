"""hailfinder-20000's ILP time against the last bits of its scores (results/bnlearn20000/README.md).

    lpbn score ../shared/instances/cran__bnlearn/data/hailfinder.dat.gz --max-parents 3 -o hf.jkl
    python tools/experiments/perturbed_solves.py hf.jkl 0 8 [METHOD]

Each seed multiplies every score by 1 + 1e-13 * N(0, 1) and solves with ``method=METHOD``
(default ``"highs"``).
"""
import sys
import time

import numpy as np

import lpbn

base = lpbn.read_scores(sys.argv[1])
method = sys.argv[4] if len(sys.argv) > 4 else "highs"
for seed in range(int(sys.argv[2]), int(sys.argv[3])):
    noise = 1 + 1e-13 * np.random.default_rng(seed).standard_normal(base.m)
    cache = lpbn.ScoreCache(base.names, base.offsets, base.scores * noise, base.pset_ptr, base.pset_items)
    t0 = time.perf_counter()
    res = lpbn.solve(cache, method, time_limit=300)
    print(seed, res.status, f"{time.perf_counter() - t0:.1f} s", "root bound", round(res.stats.get("root_bound", 0), 1),
          "MIP nodes", res.stats.get("mip_nodes"), "{0, 1/2}-cuts", res.stats.get("cuts_root_zero_half"),
          "race", res.stats.get("race", {}).get("core_to_rival"), flush=True)
