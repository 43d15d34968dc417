"""Benchmark method="highs" against the GOBNILP anchors (instances/anchors/gobnilp-bic3).

Usage (from the repository root)::

    python results/highs/bench_anchors.py [--time-limit 300] [--only a,b] [--out results/highs/bench_anchors]

For every anchor cache: wall time of ``lpbn.solve(method="highs")`` (in-process, reading
the file excluded, numba kernels warmed up first), status, score, bound, and GOBNILP's
"solve from jkl" time and optimum from instances/KNOWN_OPTIMA.json (``gobnilp_bic3``).
Writes ``<out>.csv`` and ``<out>.md``.  The machine is shared, so times are ±30%.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from pathlib import Path

import lpbn
from lpbn.testing import random_cache


def main(argv=None) -> int:
    root = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser()
    ap.add_argument("--time-limit", type=float, default=300.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default=str(root / "results" / "highs" / "bench_anchors"))
    args = ap.parse_args(argv)
    known = json.loads((root / "instances" / "KNOWN_OPTIMA.json").read_text())["gobnilp_bic3"]
    only = {x for x in args.only.split(",") if x}
    lpbn.solve(random_cache(6, seed=0), method="highs")  # warm numba caches
    rows = []
    for key, info in sorted(known.items(), key=lambda kv: (kv[1]["gobnilp_solve_seconds"], kv[0])):
        name = Path(key).name.split(".")[0]
        if only and name not in only:
            continue
        cache = lpbn.read_scores(root / "instances" / key)
        t = time.perf_counter()
        r = lpbn.solve(cache, method="highs", time_limit=args.time_limit)
        sec = time.perf_counter() - t
        opt = info["optimum"]
        agree = None if opt is None or r.status != "optimal" else \
            abs(r.score - opt) <= 1e-6 * max(1.0, abs(opt))
        ref = opt if opt is not None else info["best"]  # a DAG score: every bound must cover it
        bound_ok = r.upper_bound >= ref - 1e-6 * max(1.0, abs(ref))
        rows.append({"instance": name, "n": cache.n, "candidates": cache.m, "status": r.status,
                     "seconds": round(sec, 2), "score": r.score, "bound": r.upper_bound,
                     "gap": r.gap, "gobnilp_seconds": info["gobnilp_solve_seconds"],
                     "gobnilp_status": info["status"], "gobnilp_best": info["best"],
                     "gobnilp_bound": info["bound"], "agrees_with_gobnilp": agree, "bound_valid": bound_ok,
                     "mip_rounds": r.stats.get("mip_rounds"), "clusters": r.stats.get("clusters"),
                     "root_bound": r.stats.get("root_bound")})
        print(f"{name:14s} n={cache.n:3d} m={cache.m:6d} {r.status:10s} {sec:8.2f}s "
              f"(GOBNILP {info['gobnilp_solve_seconds']:.2f}s) score {r.score:.6f} bound "
              f"{r.upper_bound:.6f} agree={agree} bound_valid={bound_ok}", flush=True)
    out = Path(args.out)
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = [
        "# method=highs vs GOBNILP anchors (BIC, at most 3 parents)", "",
        f"Command: `python results/highs/bench_anchors.py --time-limit {args.time_limit:g}`"
        + (f" `--only {args.only}`" if args.only else ""), "",
        "lpbn: in-process wall seconds of `lpbn.solve(cache, method=\"highs\")` (1 HiGHS thread, shared "
        "2-core machine). GOBNILP: 'solve from jkl' seconds from shared/anchors/ANCHORS.md (SCIP 6 + SoPlex).", "",
        "| instance | n | candidates | lpbn status | lpbn s | GOBNILP s | speed-up | lpbn score | lpbn bound | GOBNILP optimum/best | agrees |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        both = r["status"] == "optimal" and r["gobnilp_status"] == "optimal"
        sp = r["gobnilp_seconds"] / max(r["seconds"], 0.01) if both else math.nan
        lines.append(f"| {r['instance']} | {r['n']} | {r['candidates']} | {r['status']} | {r['seconds']:.2f} | "
                     f"{r['gobnilp_seconds']:.2f} | {'—' if math.isnan(sp) else f'{sp:.2f}x'} | {r['score']:.4f} | {r['bound']:.4f} | "
                     f"{r['gobnilp_best']:.4f} ({r['gobnilp_status']}) | {r['agrees_with_gobnilp']} |")
    solved = [r for r in rows if r["status"] == "optimal"]
    lines += ["", f"Solved to optimality: {len(solved)}/{len(rows)}; disagreements with GOBNILP optima: "
              f"{sum(r['agrees_with_gobnilp'] is False for r in rows)}; invalid bounds: "
              f"{sum(not r['bound_valid'] for r in rows)}."]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
