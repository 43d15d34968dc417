"""``lpbn convert IN OUT``: between jkl and pss, optionally pruned."""

from __future__ import annotations

import sys

from ..formats import FORMATS, read_scores, write_scores

HELP = "convert a score file between jkl and pss (format of OUT from --to or its name)"


def add_arguments(p) -> None:
    p.add_argument("input", help="score file (jkl or pss, optionally .gz)")
    p.add_argument("output", help="output file (.pss -> pss, anything else -> jkl)")
    p.add_argument("--to", choices=FORMATS, help="output format (default: from OUT's name)")
    p.add_argument("--prune-dominated", action="store_true",
                   help="drop candidates dominated by a subset (safe for optimality)")
    p.add_argument("--max-parents", type=int, metavar="K", help="keep parent sets of size <= K")


def run(args) -> int:
    cache = read_scores(args.input)
    before = cache.m
    if args.max_parents is not None:
        cache = cache.restrict_in_degree(args.max_parents)
    if args.prune_dominated:
        cache = cache.prune_dominated()
    write_scores(cache, args.output, args.to)
    print(f"wrote {args.output}: {cache.n} variables, {cache.m} candidate sets (read {before})",
          file=sys.stderr)
    return 0
