"""Does ASOBS gain from fresh chains when its iterated local search stalls?  (issue 12, primal side)

    python tools/experiments/stall_restart.py CACHE.jkl SECONDS SEED STALL

CACHE.jkl is an explored cache (e.g. `lpbn score connect4.train.csv.gz -o connect4.jkl`).
Runs `lpbn.solve(cache, "asobs", bound="trivial", seed=SEED, stall=STALL)` for SECONDS: with
STALL > 0 a chain whose base has not moved for STALL of its restarts climbs again from a fresh
random ordering (the best DAG is kept); STALL = 0 is the default search.  (The first
measurements of results/scale/README.md used a version of this probe, b0a605a, that counted
the stall over both chains and also reset it on every new best DAG.)
"""
import sys

import lpbn

cache = lpbn.read_scores(sys.argv[1])
seconds, seed, stall = float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
r = lpbn.solve(cache, "asobs", time_limit=seconds, bound="trivial", seed=seed, stall=stall)
when = next(t for t, b, _ in r.trace if b == r.score)
print(f"seed {seed} stall {stall}: BIC {r.score:.1f}, best at {when:.0f} s, "
      f"{r.stats.get('fresh_chains', 0)} fresh chains")
