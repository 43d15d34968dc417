"""``lpbn verify CACHE RESULT [CERT]``: re-check a result and its bound certificate independently."""

from __future__ import annotations

import json
import sys

from .common import emit

HELP = "re-score a result's DAG and re-evaluate its bound from a certificate (plain numpy, no solver code)"
DESCRIPTION = (HELP + ". RESULT is `lpbn solve --format json` output, CERT what `lpbn solve --certificate` "
               "wrote. Exit 0: everything checked (\"bound verified\"); 1: a check failed (which one is "
               "printed); 2: unreadable or malformed input.")


def add_arguments(p) -> None:
    p.add_argument("cache", help="the score file the result was solved from (jkl or pss, optionally .gz)")
    p.add_argument("result", help="the result JSON (lpbn solve --format json -o RESULT), or a certificate that "
                                  "embeds its result (lpbn learn's NET.cert.json.gz)")
    p.add_argument("certificate", nargs="?", default=None,
                   help="the certificate (lpbn solve --certificate CERT); without it only the DAG is checked")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("-o", "--output", default=None, help="write the report here (default stdout)")


def run(args) -> int:
    from ..verify import verify
    report = verify(args.cache, args.result, args.certificate)
    text = json.dumps(report.to_dict(), indent=1) + "\n" if args.format == "json" else report.to_text()
    emit(text, args.output)
    if not report.ok:
        print(f"lpbn: verify: {report.summary()}", file=sys.stderr)
        return 1
    return 0
