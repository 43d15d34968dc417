"""`lpbn solve` (auto) run R times on each uci-bic3 cache, as separate processes: the number of
distinct DAGs, statuses and scores printed (issue 54: the same DAG run after run).

    python tools/experiments/trust_repeat.py [R] [NAME ...]        # from the repository root
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUITE = tomllib.loads((ROOT / "instances/suites/uci-bic3.toml").read_text())


def main(runs: int, names: list[str]) -> None:
    print("| cache | n | runs | statuses | distinct scores | distinct DAGs | seconds (min-max) |")
    print("|---|---|---|---|---|---|---|")
    for inst in SUITE["instance"]:
        if (names and inst["name"] not in names) or "file" not in inst:
            continue                  # carpo100, hailfinder100: scored from the CSV only
        dags, scores, statuses, secs = set(), set(), [], []
        for _ in range(runs):
            t0 = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "lpbn", "solve", str(ROOT / inst["file"]), "--format", "json",
                                  "--time-limit", "120"], capture_output=True, text=True, cwd=ROOT, check=False)
            secs.append(time.perf_counter() - t0)
            res = json.loads(out.stdout)
            dags.add(json.dumps(res["parents"], sort_keys=True))
            scores.add(round(res["score"], 6))
            statuses.append(res["status"])
        print(f"| {inst['name']} | {inst.get('n', '')} | {runs} | {', '.join(sorted(set(statuses)))} | {len(scores)} | "
              f"{len(dags)} | {min(secs):.1f}-{max(secs):.1f} |", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    runs = int(args.pop(0)) if args and args[0].isdigit() else 5
    main(runs, args)
