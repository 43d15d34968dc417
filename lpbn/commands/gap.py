"""``lpbn gap FILE``: bounds of the cycle, dual-cluster and exact-cluster relaxations side by side."""

from __future__ import annotations

from ..formats import read_scores
from .common import emit

HELP = "compare the bounds of the LP relaxations (Jaakkola et al. 2010, §7) on a score file"


def add_arguments(p) -> None:
    p.add_argument("file", help="score file (jkl or pss, optionally .gz)")
    p.add_argument("--optimum", type=float, default=None, help="known optimum (adds a row; gaps refer to it)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("-o", "--output", default=None, help="write the table here (default stdout)")
    p.add_argument("--time-limit", type=float, default=300.0, help="seconds per stage (default 300)")
    p.add_argument("--no-solve", action="store_true",
                   help="best integral score from decoding only (skip method=highs)")
    p.add_argument("--no-dual", action="store_true", help="leave out the dual solver's row")


def run(args) -> int:
    from ..compare.gap import bound_gap_table
    cache = read_scores(args.file)
    table = bound_gap_table(cache, args.optimum, time_limit=args.time_limit,
                            solve=not args.no_solve, dual=not args.no_dual)
    emit(table.to_json() if args.format == "json" else table.to_text(), args.output)
    return 0
