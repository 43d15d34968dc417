"""Does ASOBS gain from fresh chains when its iterated local search stalls?  (issue 12, primal side)

    python results/scale/stall_restart.py CACHE.jkl SECONDS SEED STALL

CACHE.jkl is an explored cache (e.g. `lpbn score connect4.train.csv.gz -o connect4.jkl`).
Runs `lpbn.solve(cache, "asobs", bound="trivial", seed=SEED)` for SECONDS; with STALL > 0,
a chain whose restarts have improved neither its base nor the best DAG for STALL restarts in
a row climbs again from a fresh random ordering (the best DAG is kept).  STALL = 0 is the
default search.  A probe: it wraps the driver's private restart step (lpbn.ordering.search).
"""
import sys

import lpbn
import lpbn.ordering.search as search

cache = lpbn.read_scores(sys.argv[1])
seconds, seed, stall = float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
step, fresh = search._restart, [0]


def restart(ws, ch, best, budget, stats, *args, **kwargs):
    if stall and budget.since > stall:
        best = search._begin(ws, ch, "random", best, budget.interrupted, stats)
        budget.since = 0
        fresh[0] += 1
    return step(ws, ch, best, budget, stats, *args, **kwargs)


search._restart = restart
r = lpbn.solve(cache, "asobs", time_limit=seconds, bound="trivial", seed=seed)
when = next(t for t, b, _ in r.trace if b == r.score)
print(f"seed {seed} stall {stall}: BIC {r.score:.1f}, best at {when:.0f} s, {fresh[0]} fresh chains")
