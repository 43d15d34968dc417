"""Sweep: method="highs" (and pulp-cbc for n <= 15) against the exact optima of the shared collection.

Usage (from the repository root)::

    python results/highs/sweep_known_optima.py [--shared ../shared] [--time-limit 300] \
        [--pulp-max-n 15] [--out results/highs/sweep_known_optima]

Reads ``<shared>/instances/KNOWN_OPTIMA.json`` (``computed_exact_dp``: 157 files), solves each
file, and writes ``<out>.csv`` and ``<out>.md`` (one row per file and method, plus a summary).
A file passes when the method says ``optimal`` and its score equals the known optimum to
1e-6 relative.  Exit status 1 when any file fails.
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    root = Path(__file__).resolve().parents[2]
    ap.add_argument("--shared", default=str(root.parent / "shared"))
    ap.add_argument("--time-limit", type=float, default=300.0)
    ap.add_argument("--pulp-max-n", type=int, default=15)
    ap.add_argument("--methods", default="highs,pulp-cbc")
    ap.add_argument("--out", default=str(root / "results" / "highs" / "sweep_known_optima"))
    args = ap.parse_args(argv)
    shared = Path(args.shared) / "instances"
    known = json.loads((shared / "KNOWN_OPTIMA.json").read_text())["computed_exact_dp"]
    methods = [m for m in args.methods.split(",") if m]
    rows = []
    for rel, info in sorted(known.items(), key=lambda kv: (kv[1]["n"], kv[0])):
        cache = lpbn.read_scores(shared / rel)
        opt = float(info["optimum"])
        for method in methods:
            if method == "pulp-cbc" and cache.n > args.pulp_max_n:
                continue
            t = time.perf_counter()
            r = lpbn.solve(cache, method=method, time_limit=args.time_limit)
            sec = time.perf_counter() - t
            err = abs(r.score - opt) / max(1.0, abs(opt)) if math.isfinite(r.score) else math.inf
            ok = r.status == "optimal" and err <= 1e-6 and r.upper_bound >= opt - 1e-6 * max(1.0, abs(opt))
            rows.append({"file": rel, "n": cache.n, "candidates": cache.m, "method": method,
                         "status": r.status, "score": r.score, "bound": r.upper_bound,
                         "optimum": opt, "rel_error": err, "seconds": round(sec, 3), "pass": ok,
                         "mip_rounds": r.stats.get("mip_rounds"), "clusters": r.stats.get("clusters")})
            print(f"{'PASS' if ok else 'FAIL'} {method:8s} n={cache.n:3d} {sec:8.2f}s {rel}", flush=True)
    out = Path(args.out)
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = ["# method=highs / pulp-cbc vs exact optima (shared KNOWN_OPTIMA.json, computed_exact_dp)", "",
             f"Command: `python results/highs/sweep_known_optima.py --time-limit {args.time_limit:g} "
             f"--pulp-max-n {args.pulp_max_n} --methods {args.methods}`", "",
             "| method | files | pass | fail | total s | max s |", "|---|---|---|---|---|---|"]
    for m in methods:
        rs = [r for r in rows if r["method"] == m]
        if rs:
            lines.append(f"| {m} | {len(rs)} | {sum(r['pass'] for r in rs)} | "
                         f"{sum(not r['pass'] for r in rs)} | {sum(r['seconds'] for r in rs):.1f} | "
                         f"{max(r['seconds'] for r in rs):.2f} |")
    fails = [r for r in rows if not r["pass"]]
    lines += ["", "Failures: " + (", ".join(f"{r['method']} {r['file']} ({r['status']})" for r in fails)
                                  if fails else "none"), "",
              "Slowest 10:", "", "| method | file | n | candidates | seconds | status |", "|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: -r["seconds"])[:10]:
        lines.append(f"| {r['method']} | {r['file']} | {r['n']} | {r['candidates']} | {r['seconds']:.2f} | {r['status']} |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
