"""In-process time of :meth:`lpbn.lp.model.EtaLP.safe_bound` during ``lpbn.solve(cache,
method="auto")`` per cache: a timer around each call, min over repeats of the per-solve sum,
and a hash of every bound it returned (float.hex), so two checkouts can be compared bit for bit.

    python tools/experiments/safe_bound_timing.py [REPEATS] [CACHE ...]

Run from a checkout's root (its ``lpbn`` is the one imported).
"""

from __future__ import annotations

import hashlib
import sys
import time

import lpbn
from lpbn.formats.jkl import read_jkl
from lpbn.lp.model import EtaLP

CACHES = ["hailfinder500", "water1000", "insurance1000", "barley1000", "hepatitis"]


def main(argv: list[str]) -> int:
    repeats = int(argv[0]) if argv else 5
    caches = argv[1:] or CACHES
    inner = EtaLP.safe_bound
    log: list[tuple[float, float]] = []

    def timed(self, *a, **k):
        t = time.perf_counter()
        out = inner(self, *a, **k)
        log.append((time.perf_counter() - t, out))
        return out

    EtaLP.safe_bound = timed
    print("| cache | calls | safe_bound ms (min) | solve ms (min) | bounds sha1 |\n|---|---|---|---|---|")
    for c in caches:
        cache = read_jkl(f"instances/anchors/gobnilp-bic3/{c}.BIC.p3.jkl")
        sb, total, digests = [], [], set()
        for _ in range(repeats):
            log.clear()
            t = time.perf_counter()
            lpbn.solve(cache, method="auto")
            total.append(time.perf_counter() - t)
            sb.append(sum(d for d, _ in log))
            digests.add(hashlib.sha1(" ".join(float(b).hex() for _, b in log).encode()).hexdigest()[:12])
        print(f"| {c} | {len(log)} | {1e3 * min(sb):.1f} | {1e3 * min(total):.0f} | {','.join(sorted(digests))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
