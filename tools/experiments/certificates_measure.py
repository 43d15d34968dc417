"""Certificate size and verify time per uci-bic3 cache (issue 54): `lpbn solve --certificate`
as the CLI does it (auto, the cache pruned of dominated sets; methods other than dual/highs
certified afterwards by lpbn.certificate.certify_after), then lpbn.verify on the JSON.

    python tools/experiments/certificates_measure.py [NAME ...]   # from the repository root
"""

from __future__ import annotations

import gzip
import json
import sys
import time
import tomllib
from pathlib import Path

import lpbn
from lpbn.certificate import CERTIFYING_METHODS, build_certificate, certify_after
from lpbn.verify import verify

ROOT = Path(__file__).resolve().parents[2]
SUITE = tomllib.loads((ROOT / "instances/suites/uci-bic3.toml").read_text())
LIMIT = 120.0


def checked(cache, res) -> str:
    """The certificate of ``res`` built, written through JSON and verified as ``lpbn verify``
    reads it: the table's cells kind/covers | nodes | JSON bytes | gzip bytes | verify s | verified."""
    cert = json.loads(json.dumps(build_certificate(cache, res)))
    text = json.dumps(cert, separators=(",", ":")).encode()
    answer = json.loads(json.dumps(res.to_dict()))
    t0 = time.perf_counter()
    report = verify(cache, answer, cert)
    seconds = time.perf_counter() - t0
    verdict = "yes" if report.ok and report.bound_verified else "NO: " + report.summary()[:60]
    return (f"{cert.get('kind', 'tree')}/{cert['covers']} | {len(cert.get('nodes', []))} | {len(text):,} | "
            f"{len(gzip.compress(text)):,} | {seconds:.2f} | {verdict}")


def main(names: list[str]) -> None:
    print("| cache | n | method | status | solve s | certify s | kind/covers | nodes | JSON bytes | gzip bytes | verify s | verified |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for inst in SUITE["instance"]:
        if (names and inst["name"] not in names) or "file" not in inst:
            continue                  # carpo100, hailfinder100: scored from the CSV only
        cache = lpbn.read_scores(ROOT / inst["file"]).prune_dominated()
        t0 = time.perf_counter()
        res = lpbn.solve(cache, "auto", time_limit=LIMIT)
        t1 = time.perf_counter()
        if res.method in CERTIFYING_METHODS and res.extra.get("certificate_tree") is None:
            res = lpbn.solve(cache, res.method, time_limit=LIMIT, certificate=True)   # it records its own
        if "certificate_tree" not in (res.extra or {}) and "certificate_lp" not in (res.extra or {}):
            certify_after(cache, res, time_limit=LIMIT)
        t2 = time.perf_counter()
        print(f"| {inst['name']} | {cache.n} | {res.method} | {res.status} | {t1 - t0:.1f} | {t2 - t1:.1f} | "
              f"{checked(cache, res)} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
