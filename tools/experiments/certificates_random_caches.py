"""Every method's certificate on random caches (issue 54): for each seed, a random cache
(lpbn.testing.random_cache, 3-7 variables: brute refuses some of 8), every method of lpbn.solve.available_methods(),
the answer certified (its own, or lpbn.certificate.certify_after) and checked by lpbn.verify
through JSON.  Prints the counts per method and any failure.

    python tools/experiments/certificates_random_caches.py [COUNT]        # from the repository root
"""

from __future__ import annotations

import json
import sys
import time

import lpbn
from lpbn.certificate import CERTIFYING_METHODS, build_certificate, certify_after
from lpbn.solve import available_methods
from lpbn.testing import random_cache
from lpbn.verify import verify


def main(count: int) -> None:
    methods = available_methods()
    ok = {m: 0 for m in methods}
    seconds = {m: 0.0 for m in methods}
    size = {m: 0 for m in methods}
    for seed in range(count):
        cache = random_cache(3 + seed % 5, seed=seed).prune_dominated()
        for m in methods:
            res = lpbn.solve(cache, m, certificate=True) if m in CERTIFYING_METHODS else \
                certify_after(cache, lpbn.solve(cache, m))
            cert = json.loads(json.dumps(build_certificate(cache, res)))
            t0 = time.perf_counter()
            report = verify(cache, json.loads(json.dumps(res.to_dict())), cert)
            seconds[m] += time.perf_counter() - t0
            size[m] = max(size[m], len(json.dumps(cert)))
            if report.ok and report.bound_verified:
                ok[m] += 1
            else:
                print(f"seed {seed} {m}: {report.summary()}", flush=True)
    print("| method | caches | verified | verify seconds (total) | largest certificate (bytes) |")
    print("|---|---|---|---|---|")
    for m in methods:
        print(f"| {m} | {count} | {ok[m]} | {seconds[m]:.2f} | {size[m]:,} |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
