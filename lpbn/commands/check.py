"""``lpbn check FILE``: LP duality cross-check (dual vs HiGHS) and agreement of exact methods."""

from __future__ import annotations

import sys

from ..formats import read_scores
from .common import emit

HELP = "cross-check solvers on a score file (LP duality, agreement of exact methods); exit 1 on disagreement"


def add_arguments(p) -> None:
    p.add_argument("file", help="score file (jkl or pss, optionally .gz)")
    p.add_argument("--methods", default=None,
                   help="comma-separated methods to compare (default: highs, dp for n<=20, "
                        "pulp-cbc for n<=15, dual when available)")
    p.add_argument("--time-limit", type=float, default=None, help="seconds per solver run")
    p.add_argument("--no-dual", action="store_true", help="skip the dual root relaxation check")
    p.add_argument("--dual-cd-only", action="store_true",
                   help="check the dual's coordinate-descent value without its exact LP polish")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("-o", "--output", default=None, help="write the report here (default stdout)")


def run(args) -> int:
    from ..compare.crosscheck import crosscheck
    cache = read_scores(args.file)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()] if args.methods else None
    report = crosscheck(cache, methods=methods, time_limit=args.time_limit, dual=not args.no_dual,
                        dual_options={"lp_polish": False} if args.dual_cd_only else None)
    text = report.to_json(indent=2) + "\n" if args.format == "json" else report.to_text()
    emit(text, args.output)
    if not report.ok:
        print(f"lpbn: DISAGREEMENT: {len(report.failures)} check(s) failed on {args.file}:",
              file=sys.stderr)
        for c in report.failures:
            print("  " + c.line(), file=sys.stderr)
        return 1
    return 0
