"""``lpbn info FILE``: what a score cache holds."""

from __future__ import annotations

import json

from ..formats import read_scores
from .common import emit

HELP = "summarise a local-score file (variables, candidate sets, in-degrees, scores)"


def add_arguments(p) -> None:
    p.add_argument("file", help="score file (jkl or pss, optionally .gz)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--per-variable", action="store_true", help="list every variable's candidate count")


def run(args) -> int:
    cache = read_scores(args.file)
    s = cache.summary().as_dict()
    s["file"] = args.file
    s["format"] = cache.meta.get("format")
    if args.per_variable:
        s["per_variable"] = {v: int(c) for v, c in zip(cache.names, cache.counts())}
    if args.format == "json":
        emit(json.dumps(s, indent=2, default=str) + "\n", None)
        return 0
    lines = [
        f"file:              {args.file} ({s['format']})",
        f"variables:         {s['n']}",
        f"candidate sets:    {s['candidates']} (per variable min {s['min_candidates']}, "
        f"mean {s['mean_candidates']:.1f}, max {s['max_candidates']})",
        f"max in-degree:     {s['max_in_degree']}  histogram "
        + ", ".join(f"{k}:{v}" for k, v in s["in_degree_histogram"].items()),
        f"scores:            {s['score_min']:.6f} .. {s['score_max']:.6f}",
        f"trivial bound:     {s['bound_sum_best']:.6f} (sum of best local scores)",
    ]
    if args.per_variable:
        lines += [f"  {v}: {c}" for v, c in s["per_variable"].items()]
    emit("\n".join(lines) + "\n", None)
    return 0
