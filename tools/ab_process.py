"""Whole-process A/B of two checkouts: ``python -m lpbn solve CACHE --method auto`` in each,
alternating run by run (the side that goes first alternates too), median per cache.

    python tools/ab_process.py BEFORE_DIR AFTER_DIR [RUNS]

Run from anywhere; each DIR is a checkout (e.g. ``git worktree add /some/dir COMMIT``) holding
``instances/anchors/gobnilp-bic3``.  Prints a Markdown table and the geomean of after/before.
"""

from __future__ import annotations

import math
import statistics
import subprocess
import sys
import time

CACHES = ["iris", "nltcs", "hepatitis", "water1000", "insurance1000", "barley1000", "alarm1000", "hailfinder500"]


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    sides = {"before": argv[0], "after": argv[1]}
    runs = int(argv[2]) if len(argv) > 2 else 7
    seconds: dict[tuple[str, str], list[float]] = {(s, c): [] for s in sides for c in CACHES}
    for r in range(runs):
        for c in CACHES:
            order = list(sides.items()) if r % 2 == 0 else list(reversed(sides.items()))
            for side, where in order:
                t = time.perf_counter()
                subprocess.run([sys.executable, "-m", "lpbn", "solve", f"instances/anchors/gobnilp-bic3/{c}.BIC.p3.jkl",
                                "--method", "auto"], cwd=where, stdout=subprocess.DEVNULL, check=True)
                seconds[(side, c)].append(time.perf_counter() - t)
    print("| cache | before median s | after median s | after/before |\n|---|---|---|---|")
    ratios = []
    for c in CACHES:
        b, a = statistics.median(seconds[("before", c)]), statistics.median(seconds[("after", c)])
        ratios.append(a / b)
        print(f"| {c} | {b:.3f} | {a:.3f} | {a / b:.3f} |")
    print(f"geomean after/before: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f} ({runs} runs each)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
