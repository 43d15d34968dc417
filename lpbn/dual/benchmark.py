"""Benchmarks of ``method="dual"`` (results go to ``results/dual/``).

Usage::

    python -m lpbn.dual.benchmark exact   [--shared DIR] [--time-limit S] [--out results/dual]
    python -m lpbn.dual.benchmark gobnilp [--time-limit S] [--out results/dual]
    python -m lpbn.dual.benchmark large   [--shared DIR] [--time-limit 60] [--out results/dual]
    python -m lpbn.dual.benchmark blip    [--shared DIR] [--time-limit 300] [--out results/dual]

``exact`` runs every file with an exact-DP optimum (``KNOWN_OPTIMA.json`` of the shared
collection when found, else the bundled one) and checks agreement to 1e-6 relative;
``gobnilp`` runs ``instances/anchors/gobnilp-bic3`` and compares with GOBNILP's optimum and
solve-from-jkl time; ``large`` runs the 413-1041-variable caches with a time limit and
reports the gap; ``blip`` runs the BLIP-style N=5000 caches that GOBNILP solves (37-186
variables) against GOBNILP's times and optima from ANCHORS.md.  Every row is checked for bound
validity (score <= optimum <= bound).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import time
from pathlib import Path

from ..formats import read_scores
from ..solve import solve

ROOT = Path(__file__).resolve().parents[2]
LARGE = ["diabetes-5000.jkl", "pigs-5000.jkl", "munin-5000.jkl.gz"]
#: BLIP-style caches GOBNILP solves within 300 s: file -> (GOBNILP seconds, its proven optimum),
#: from ../shared/anchors/ANCHORS.md ("GOBNILP on large score caches").
BLIP = {"alarm-5000.jkl": (17.3, -53781.3386), "hailfinder-5000.jkl": (12.9, -252358.1055),
        "hepar2-5000.jkl": (2.5, -164432.7558), "pathfinder-5000.jkl": (54.6, -149209.6744),
        "munin1-5000.jkl": (75.6, -230117.88)}


def _shared(arg: str | None) -> Path | None:
    cand = Path(arg) if arg else Path(os.environ.get("LPBN_SHARED", ROOT.parent / "shared"))
    return cand if (cand / "instances" / "KNOWN_OPTIMA.json").exists() else None


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(1.0, abs(b))


_WARM = [False]


def _warm_up() -> None:
    """Load the numba kernels once (a per-process cost, like an import) before timing."""
    if not _WARM[0]:
        from ..testing import random_cache
        solve(random_cache(6, seed=1), method="dual")
        _WARM[0] = True


def _run(path: Path, time_limit: float, optimum: float | None) -> dict:
    _warm_up()
    cache = read_scores(path)
    t = time.perf_counter()
    r = solve(cache, method="dual", time_limit=time_limit)
    secs = time.perf_counter() - t
    row = {"file": os.path.relpath(path, ROOT), "n": cache.n, "m": cache.m, "status": r.status, "score": r.score,
           "upper_bound": r.upper_bound, "gap": r.gap, "seconds": round(secs, 3),
           "nodes": r.stats.get("nodes"), "clusters": r.stats.get("clusters"),
           "iterations": r.stats.get("iterations"), "optimum": optimum}
    if optimum is not None:
        tol = 1e-6
        row["agree"] = (r.status != "optimal") or _rel(r.score, optimum) <= tol
        row["valid"] = r.score <= optimum + tol * max(1, abs(optimum)) and \
            r.upper_bound >= optimum - tol * max(1, abs(optimum))
    return row


def _write(rows: list[dict], out: Path, name: str, command: str, header: str) -> None:
    from ..atomic import atomic_write
    out.mkdir(parents=True, exist_ok=True)
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with atomic_write(out / f"{name}.csv") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    lines = [f"# dual benchmark: {name}", "", f"Command: `{command}`", "", header, "",
             "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(k)) for k in keys) + " |")
    with atomic_write(out / f"{name}.md") as fh:
        fh.write("\n".join(lines) + "\n")


def _fmt(v) -> str:
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        return f"{v:.6g}" if abs(v) < 1 else f"{v:.4f}"
    if isinstance(v, str) and "/" in v:
        return v.split("instances/")[-1]
    return str(v)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lpbn.dual.benchmark")
    ap.add_argument("suite", choices=["exact", "gobnilp", "large", "blip"])
    ap.add_argument("--shared", default=None)
    ap.add_argument("--time-limit", type=float, default=None)
    ap.add_argument("--out", default=str(ROOT / "results" / "dual"))
    ap.add_argument("--only", default=None, help="comma-separated substrings of file names")
    args = ap.parse_args(argv)
    command = "python -m lpbn.dual.benchmark " + " ".join(argv if argv is not None else sys.argv[1:])
    rows: list[dict] = []
    only = args.only.split(",") if args.only else None

    def want(p: str) -> bool:
        return only is None or any(s in p for s in only)

    if args.suite == "exact":
        sh = _shared(args.shared)
        if sh is not None:
            known = json.loads((sh / "instances" / "KNOWN_OPTIMA.json").read_text())["computed_exact_dp"]
            base = sh / "instances"
        else:
            known = json.loads((ROOT / "instances" / "KNOWN_OPTIMA.json").read_text())["exact_dp"]
            base = ROOT / "instances"
        tl = args.time_limit or 60.0
        for rel, v in sorted(known.items(), key=lambda kv: kv[1]["n"]):
            if not want(rel):
                continue
            row = _run(base / rel, tl, v["optimum"])
            rows.append(row)
            print(json.dumps(row), flush=True)
        ok = sum(bool(r.get("agree")) and r["status"] == "optimal" for r in rows)
        header = (f"{ok}/{len(rows)} files solved to optimality and agreeing with the exact DP to 1e-6; "
                  f"bounds valid on {sum(bool(r.get('valid')) for r in rows)}/{len(rows)}; "
                  f"time limit {tl} s per file; total {sum(r['seconds'] for r in rows):.1f} s.")
        _write(rows, Path(args.out), "exact", command, header)
    elif args.suite == "gobnilp":
        known = json.loads((ROOT / "instances" / "KNOWN_OPTIMA.json").read_text())["gobnilp_bic3"]
        tl = args.time_limit or 300.0
        for rel, v in known.items():
            if not want(rel):
                continue
            row = _run(ROOT / "instances" / rel, tl, v["optimum"])
            row["gobnilp_seconds"] = v["gobnilp_solve_seconds"]
            row["gobnilp_status"] = v["status"]
            row["gobnilp_best"] = v["best"]
            row["gobnilp_bound"] = v["bound"]
            rows.append(row)
            print(json.dumps(row), flush=True)
        header = (f"GOBNILP = solve-from-jkl times of ANCHORS.md (SCIP/SoPlex, 300 s limit). Time limit "
                  f"{tl} s per file. `agree`: optimal and equal to GOBNILP's optimum to 1e-6.")
        _write(rows, Path(args.out), "gobnilp", command, header)
    else:
        sh = _shared(args.shared)
        if sh is None:
            print("shared collection not found", file=sys.stderr)
            return 2
        base = sh / "instances" / "alexjilkin__sampling-markov-equivalent-dag" / "data"
        tl = args.time_limit or (60.0 if args.suite == "large" else 300.0)
        files = LARGE if args.suite == "large" else list(BLIP)
        for f in files:
            if not want(f):
                continue
            peer = BLIP.get(f)
            row = _run(base / f, tl, None if peer is None else peer[1])
            if peer is not None:
                row["gobnilp_seconds"] = peer[0]
            rows.append(row)
            print(json.dumps(row), flush=True)
        header = f"Time limit {tl} s; gap = (bound - score) / |score|."
        if args.suite == "blip":
            header += " GOBNILP seconds and optima (its proven ones) from ANCHORS.md, 300 s limit."
        _write(rows, Path(args.out), args.suite, command, header)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
