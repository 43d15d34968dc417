"""Issue 52, pricing against the data: for each data file, ``lpbn.learn(..., explore="search",
price=K)`` within a time limit, then (optionally) the exact optimum over every DAG with at most K
parents (exhaustive scoring + an exact solve) to check the priced bound against it.

    python tools/experiments/pricing_measure.py K SECONDS [--exact] DATA...

One JSON line per data file on stdout: status, score, bound, scope, whether pricing finished
and converged, the passes, the exact optimum (with --exact), whole-process seconds."""

from __future__ import annotations

import json
import sys
import time

import lpbn


def main(argv: list[str]) -> None:
    K, seconds = int(argv[0]), float(argv[1])
    exact = "--exact" in argv
    for path in [a for a in argv[2:] if a != "--exact"]:
        t0 = time.perf_counter()
        res = lpbn.learn(path, explore="search", price=K, time_limit=seconds)
        row = {"data": path.split("/")[-1], "n": res.data.n, "N": res.data.N, "K": K, "limit": seconds,
               "status": res.status, "score": res.score, "bound": res.upper_bound, "scope": res.bound_scope,
               "gap": res.gap, "seconds": round(time.perf_counter() - t0, 1)}
        pr = res.pricing or {}
        row.update({k: pr.get(k) for k in ("finished", "converged", "cache_upper_bound", "sets_added")})
        row["passes"] = [{k: p.get(k) for k in ("lp_bound", "priced_bound", "priced_out", "variables", "counted",
                                                "on_planes", "seconds")} for p in pr.get("passes", [])]
        if exact:
            t1 = time.perf_counter()
            opt = lpbn.solve(lpbn.score_data(path, max_parents=K, explore="exhaustive"), "auto")
            row["exact"] = {"status": opt.status, "score": opt.score, "bound": opt.upper_bound,
                            "seconds": round(time.perf_counter() - t1, 1)}
            if opt.status == "optimal" and res.bound_scope.startswith("parent_limit"):
                row["bound_minus_optimum"] = res.upper_bound - opt.score
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
