"""In-process solve seconds of a few (cache, method) pairs: one warm-up solve, then REPEATS
timed solves (``result.seconds``); prints the minimum (the least disturbed by other load on
the machine), the median and every repeat.

    PYTHONPATH=TREE python tools/experiments/solve_seconds.py DIR REPEATS NAME:METHOD ...

``DIR/NAME.BIC.p3.jkl`` are the gobnilp-bic3 caches.  Run it once per source tree (``PYTHONPATH``
chooses which ``lpbn``), alternating the trees, to compare a refactoring's cost on the hot
paths (results/layers/README.md).
"""
import statistics
import sys

import lpbn

folder, repeats = sys.argv[1], int(sys.argv[2])
for pair in sys.argv[3:]:
    name, method = pair.split(":")
    cache = lpbn.read_scores(f"{folder}/{name}.BIC.p3.jkl")
    lpbn.solve(cache, method=method, time_limit=120)
    times = []
    for _ in range(repeats):
        r = lpbn.solve(cache, method=method, time_limit=120)
        times.append(r.seconds)
    print(f"{name:14s} {method:6s} {r.status:8s} {r.score:.4f} min {min(times):.3f}s "
          f"median {statistics.median(times):.3f}s "
          f"{[round(t, 3) for t in times]}", flush=True)
