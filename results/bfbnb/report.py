"""Render results/bfbnb/bench.csv as the markdown table of results/bfbnb/README.md, next to
URLearning's numbers from ../shared/anchors/ANCHORS.md (BIC, <= 3 parents, same inputs).

usage: python results/bfbnb/report.py
"""
import csv
from pathlib import Path

HERE = Path(__file__).resolve().parent
# URLearning (C++), ANCHORS.md: (A* s, A* MB, BFBnB s, BFBnB MB); None = timeout/fail (300 s)
URL = {"wine": (0.01, 5, 0.01, 5), "hepatitis": (0.02, 10, 0.70, 23), "parkinsons": (8.65, 398, 14.79, 109),
       "mushroom": (0.38, 30, 15.69, 110), "sensors": (12.61, 364, 140.08, 118),
       "autos": (57.98, 2096, 235.25, 110), "horse": (None, None, None, None),
       "steel": (None, None, None, None), "flag": (103.19, 3075, None, None)}


def fmt(x, nd=2):
    return "timeout" if x is None else (f"{x:.{nd}f}" if isinstance(x, float) else str(x))


def main() -> None:
    rows = list(csv.DictReader(open(HERE / "bench.csv")))
    print("| instance | n | status | score | GOBNILP optimum | lpbn wall s | lpbn peak RSS MB "
          "| URLearning A* s / MB | URLearning BFBnB s / MB | nodes expanded | largest layer |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        u = URL.get(r["instance"])
        ua = f"{fmt(u[0])} / {fmt(u[1])}" if u else "not run"
        ub = f"{fmt(u[2])} / {fmt(u[3])}" if u else "not run"
        print(f"| {r['instance']} | {r['n']} | {r['status']} | {float(r['score']):.6f} | "
              f"{r['gobnilp_optimum'] or '—'} | {r['wall_s']} | {r['peak_rss_mb']} | {ua} | {ub} | "
              f"{r['expanded'] or '—'} | {r['max_layer']} |")


if __name__ == "__main__":
    main()
