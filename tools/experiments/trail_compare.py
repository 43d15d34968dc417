"""ASOBS's trails against OBS at equal time and seed, search alone on one core.

    python tools/experiments/trail_compare.py CACHE.jkl SECONDS [SEED,SEED,...]

Prints one JSON line per seed: the BIC of OBS and of ASOBS with trail "obs", "asobs" and
"both" (see lpbn.ordering.search), each with its restart count.  The caches of the table in
README.md are `lpbn score DATA.train.csv.gz -o NAME.jkl` (defaults: independence selection,
time_per_variable="auto") of the eight density-estimation data sets.
"""
import json
import sys

import lpbn
from lpbn.ordering import ordering_search
from lpbn.testing import random_cache

path, seconds = sys.argv[1], float(sys.argv[2])
seeds = [int(x) for x in sys.argv[3].split(",")] if len(sys.argv) > 3 else [0]
cache = lpbn.read_scores(path)
warm = random_cache(8, seed=1)                    # load the compiled kernels before timing
for trail in ("obs", "asobs", "both"):
    ordering_search(warm, "asobs", max_restarts=3, trail=trail)
ordering_search(warm, "obs", max_restarts=3)
for seed in seeds:
    row = {"cache": path.split("/")[-1], "seed": seed}
    for label, rule, kw in (("obs", "obs", {}), ("asobs-obs", "asobs", {"trail": "obs"}),
                            ("asobs-asobs", "asobs", {"trail": "asobs"}),
                            ("asobs-both", "asobs", {"trail": "both"})):
        r = ordering_search(cache, rule, seed=seed, time_limit=seconds, **kw)
        row[label] = round(r.score, 2)
        row[label + "-restarts"] = r.stats["restarts"]
    print(json.dumps(row), flush=True)
