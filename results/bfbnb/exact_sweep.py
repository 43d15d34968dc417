"""method="bfbnb" against the exact optima of the shared collection (157 files) and the bundled
KNOWN_OPTIMA.json; writes results/bfbnb/exact_sweep.csv and prints a summary.

usage: python results/bfbnb/exact_sweep.py [SHARED_DIR]   (default ../shared or $LPBN_SHARED)
"""
import csv
import json
import os
import sys
import time
import warnings
from pathlib import Path

import lpbn
from lpbn.formats import read_scores

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def main() -> int:
    shared = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("LPBN_SHARED", ROOT.parent / "shared"))
    data = json.loads((shared / "instances" / "KNOWN_OPTIMA.json").read_text())
    table = data.get("computed_exact_dp") or data["exact_dp"]
    rows, bad = [], 0
    warnings.simplefilter("ignore")
    for path, entry in table.items():
        cache = read_scores(shared / "instances" / path)
        t = time.perf_counter()
        r = lpbn.solve(cache, "bfbnb")
        dt = time.perf_counter() - t
        ok = (r.status == "optimal" and abs(r.score - entry["optimum"]) <= 1e-6 * max(1, abs(entry["optimum"]))
              and r.upper_bound >= entry["optimum"] - 1e-6 * max(1, abs(entry["optimum"]))
              and abs(cache.dag_score(r.dag.parents) - r.score) <= 1e-9 * max(1, abs(r.score)))
        bad += not ok
        rows.append({"file": path, "n": cache.n, "optimum": entry["optimum"], "score": r.score,
                     "upper_bound": r.upper_bound, "status": r.status, "agrees": ok,
                     "seconds": round(dt, 3), "expanded": r.stats.get("expanded")})
    with open(HERE / "exact_sweep.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    total = sum(r["seconds"] for r in rows)
    print(f"{len(rows)} files, {len(rows) - bad} agree with the exact optimum, {bad} disagree; "
          f"total solve time {total:.1f} s, max {max(r['seconds'] for r in rows):.2f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
