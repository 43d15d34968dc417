"""``lpbn export FILE --lp out.lp | --mps out.mps``: the η ILP with root cuts for any MILP solver."""

from __future__ import annotations

import sys

from ..formats import read_scores

HELP = "write the ILP (with root cluster cuts) in LP or MPS format for CBC, Gurobi, CPLEX, HiGHS"


def add_arguments(p) -> None:
    p.add_argument("file", help="score file (jkl or pss, optionally .gz)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--lp", metavar="OUT", help="write CPLEX LP format")
    g.add_argument("--mps", metavar="OUT", help="write (free) MPS format")
    p.add_argument("--no-cuts", action="store_true", help="leave out the root cluster cuts")
    p.add_argument("--cheap-cuts", action="store_true",
                   help="root cuts from support-graph cycles only (no exact sub-IP)")
    p.add_argument("--no-generation", action="store_true",
                   help="leave out the generation-number rows (the model is then a relaxation: "
                        "check answers for cycles)")
    p.add_argument("--time-limit", type=float, default=None, help="seconds for the root cut loop")


def run(args) -> int:
    from ..highs.pulp_model import export_model
    cache = read_scores(args.file)
    path, fmt = (args.lp, "lp") if args.lp else (args.mps, "mps")
    info = export_model(cache, path, fmt, root_cuts=not args.no_cuts, exact=not args.cheap_cuts,
                        time_limit=args.time_limit, generation=not args.no_generation)
    print(f"wrote {path}: {info['columns']} columns, {info['rows']} rows "
          f"({info['clusters']} cluster cuts, {info['generation_rows']} generation rows, "
          f"root LP bound {info['root_bound']:.6f})", file=sys.stderr)
    return 0
