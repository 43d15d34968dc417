"""Solve one score file with method="bfbnb" and print one JSON line (used by bench.sh).

usage: python results/bfbnb/run_one.py FILE [--time-limit S] [--memory-limit 4G] [--tmp-dir D]
"""
import argparse
import json
import sys
import time

import lpbn


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--time-limit", type=float, default=None)
    ap.add_argument("--memory-limit", default="4G")
    ap.add_argument("--tmp-dir", default=None)
    ap.add_argument("--progress", action="store_true")
    a = ap.parse_args()
    t = time.perf_counter()
    cache = lpbn.read_scores(a.file) if hasattr(lpbn, "read_scores") else None
    if cache is None:
        from lpbn.formats import read_scores
        cache = read_scores(a.file)
    read_s = time.perf_counter() - t
    r = lpbn.solve(cache, method="bfbnb", time_limit=a.time_limit, memory_limit=a.memory_limit,
                   tmp_dir=a.tmp_dir, progress=a.progress)
    st = r.stats
    print(json.dumps({"file": a.file, "n": cache.n, "status": r.status, "score": r.score,
                      "upper_bound": r.upper_bound, "solve_s": round(r.seconds, 3),
                      "read_s": round(read_s, 3), "obs_score": st.get("obs_score"),
                      "expanded": st.get("expanded"), "generated": st.get("generated"),
                      "max_layer": st.get("max_layer"), "disk_layers": st.get("disk_layers"),
                      "peak_disk_bytes": st.get("peak_disk_bytes"), "groups": st.get("groups"),
                      "heuristic_s": round(st.get("heuristic_seconds", 0), 3),
                      "incumbent_s": round(st.get("incumbent_seconds", 0), 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
