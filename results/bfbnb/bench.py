"""Speed/memory benchmark of method="bfbnb" on the GOBNILP BIC (<= 3 parents) anchor caches.

Each instance runs in its own process under GNU time (`/usr/bin/time -v`: wall clock and
maximum resident set size of the whole process, interpreter and imports included), one
at a time.  Writes results/bfbnb/bench.csv and prints a markdown table.

usage: python results/bfbnb/bench.py [--time-limit 1200] [--memory-limit 4G] [NAME ...]
"""
import argparse
import csv
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
ANCH = ROOT / "instances" / "anchors" / "gobnilp-bic3"
DEFAULT = ["wine", "hepatitis", "parkinsons", "mushroom", "sensors", "autos", "insurance1000",
           "horse", "steel", "flag", "wdbc"]


def run(name: str, time_limit: float, memory_limit: str) -> dict:
    path = ANCH / f"{name}.BIC.p3.jkl"
    if not path.exists():
        path = ANCH / f"{name}.BIC.p3.jkl.gz"
    cmd = ["/usr/bin/time", "-v", sys.executable, str(HERE / "run_one.py"), str(path),
           "--time-limit", str(time_limit), "--memory-limit", memory_limit]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=time_limit + 600)
    row = {"instance": name}
    lines = [x for x in p.stdout.splitlines() if x.startswith("{")]
    if lines:
        row.update(json.loads(lines[-1]))
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr)
    if m:
        parts = [float(x) for x in m.group(1).split(":")]
        row["wall_s"] = round(sum(v * 60 ** i for i, v in enumerate(reversed(parts))), 2)
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    if m:
        row["peak_rss_mb"] = round(int(m.group(1)) / 1024, 1)
    row["exit"] = p.returncode
    return row


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--time-limit", type=float, default=1200)
    ap.add_argument("--memory-limit", default="4G")
    ap.add_argument("--out", default=str(HERE / "bench.csv"))
    a = ap.parse_args()
    optima = json.loads((ROOT / "instances" / "KNOWN_OPTIMA.json").read_text())["gobnilp_bic3"]
    rows = []
    for name in a.names or DEFAULT:
        row = run(name, a.time_limit, a.memory_limit)
        key = next((k for k in optima if f"/{name}.BIC" in k), None)
        ref = optima.get(key, {}).get("optimum") if key else None
        row["gobnilp_optimum"] = ref
        if ref is not None and row.get("score") is not None:
            row["agrees"] = abs(row["score"] - ref) <= 1e-6 * abs(ref)
        rows.append(row)
        print(json.dumps(row), flush=True)
    cols = ["instance", "n", "status", "score", "upper_bound", "gobnilp_optimum", "agrees",
            "wall_s", "solve_s", "peak_rss_mb", "expanded", "generated", "max_layer", "disk_layers",
            "peak_disk_bytes", "groups", "incumbent_s", "obs_score"]
    with open(a.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    print("| instance | n | status | score | wall s | peak RSS MB | expanded | max layer |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['instance']} | {r.get('n')} | {r.get('status')} | {r.get('score')} | "
              f"{r.get('wall_s')} | {r.get('peak_rss_mb')} | {r.get('expanded')} | {r.get('max_layer')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
