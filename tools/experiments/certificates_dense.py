"""Every method's certificate on the dense uci-bic3 caches (issue 54): letter, mushroom,
sensors, steel, where the dual's after-the-fact tree was unfinished at 120 s.  Per method: solve
(pruned cache, --time-limit SOLVE), its certificate as `lpbn solve --certificate` builds it (dual
and highs record their own; the others lpbn.certificate.certify_after within CERT seconds; an
unfinished tree on n <= 25 becomes an exhaustive certificate), then lpbn.verify on the JSON.

    python tools/experiments/certificates_dense.py SOLVE CERT NAME [NAME ...]   # repository root
    python tools/experiments/certificates_dense.py SOLVE CERT NAME --methods bfbnb,dual   # some methods
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import lpbn
from lpbn.errors import ResourceLimitError
from lpbn.certificate import CERTIFYING_METHODS, certify_after, exhaustive_if_unfinished
from lpbn.solve import BUILTIN_METHODS, available_methods

from certificates_measure import checked  # noqa: E402  (beside this script: its table cells)

ROOT = Path(__file__).resolve().parents[2]
BRUTE_MAX_N = 8      # brute force enumerates every DAG: the tests' caches only


def _row(name: str, cache, method: str, solve_s: float, cert_s: float) -> None:
    t0 = time.perf_counter()
    try:
        res = lpbn.solve(cache, method, time_limit=solve_s, **({"certificate": True} if method in CERTIFYING_METHODS else {}))
    except ResourceLimitError as exc:       # e.g. dp's 2^n tables on 28 variables: no answer to certify
        print(f"| {name} | {method} | not run: {str(exc)[:60]} | | | | | | | | |", flush=True)
        return
    t1 = time.perf_counter()
    if method in CERTIFYING_METHODS:
        exhaustive_if_unfinished(cache, res)
    else:
        certify_after(cache, res, time_limit=cert_s)
    t2 = time.perf_counter()
    print(f"| {name} | {method} | {res.status} | {t1 - t0:.1f} | {t2 - t1:.1f} | {checked(cache, res)} |", flush=True)


def main(solve_s: float, cert_s: float, names: list[str], methods: list[str] | None = None) -> None:
    print("| cache | method | status | solve s | certify s | kind/covers | nodes | JSON bytes | gzip bytes | verify s | verified |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        path = ROOT / f"instances/anchors/gobnilp-bic3/{name}.BIC.p3.jkl"
        cache = lpbn.read_scores(path if path.exists() else Path(str(path) + ".gz")).prune_dominated()
        for method in available_methods():
            if method not in BUILTIN_METHODS or (method == "brute" and cache.n > BRUTE_MAX_N) \
                    or (methods and method not in methods):
                continue
            _row(name, cache, method, solve_s, cert_s)


if __name__ == "__main__":
    args = sys.argv[3:]
    only = None
    if "--methods" in args:
        at = args.index("--methods")
        only, args = args[at + 1].split(","), args[:at] + args[at + 2:]
    main(float(sys.argv[1]), float(sys.argv[2]), args, only)
