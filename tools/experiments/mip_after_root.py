"""Does HiGHS's own MIP, after a capped root, move the bound further than the root alone?

    python tools/experiments/mip_after_root.py CACHE.jkl ROOT_SECONDS TOTAL_SECONDS ASOBS_SECONDS

ASOBS (trivial bound, seed 0) for ASOBS_SECONDS gives the start DAG; then
`lpbn.solve(cache, "highs", start=dag, log=True)` for TOTAL_SECONDS with its root cut loop
capped at ROOT_SECONDS (the loop otherwise runs until the time limit on these caches), so the
MIP over every column not fixed by reduced costs (generation rows, HiGHS's own cuts) gets the
rest.  HiGHS's log shows the MIP's bound over time; the last lines the result and its stats.
"""
import sys
import time

import lpbn
import lpbn.highs.ilp as ilp


def main(path, root_seconds, total, asobs_seconds):
    cache = lpbn.read_scores(path).prune_dominated()
    ra = lpbn.solve(cache, "asobs", time_limit=asobs_seconds, bound="trivial", seed=0)
    print("asobs", ra.score, flush=True)
    loop = ilp.cut_loop

    def capped(model, **kw):
        kw["time_limit"] = min(kw["time_limit"], root_seconds)
        return loop(model, **kw)

    ilp.cut_loop = capped
    t = time.perf_counter()
    r = lpbn.solve(cache, "highs", time_limit=total, prune=False, start=ra.dag, log=True)
    print("highs", r.status, r.score, r.upper_bound, r.gap, f"{time.perf_counter() - t:.1f} s")
    print({k: v for k, v in r.stats.items() if not isinstance(v, (list, dict))})


if __name__ == "__main__":
    main(sys.argv[1], *map(float, sys.argv[2:5]))
