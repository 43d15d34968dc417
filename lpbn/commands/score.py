"""``lpbn score DATA -o cache.jkl``: discrete data -> safely pruned local-score cache."""

from __future__ import annotations

import sys

from ..errors import InputError

HELP = "score discrete data (CSV/.dat) into a pruned BIC/MDL/BDeu/AIC score cache"
DESCRIPTION = (
    "Explore the candidate parent sets of every variable, compute their local scores and prune "
    "the dominated ones.  --explore exhaustive enumerates every set within the parent limit and "
    "prunes only what cannot be in an optimal DAG (Tian 2000 parent limit and DFBnB; subset "
    "dominance; superset bounds; with --k-best K, Chen et al.'s bounds keep every family of the K "
    "best DAGs).  --explore independence (Scanagatta et al. 2015) explores large data sets within "
    "a time budget per variable and no in-degree limit; greedy and sequential are that paper's "
    "baselines.  The default, auto, is exhaustive when it is small enough, else independence.")


def add_arguments(p) -> None:
    p.add_argument("data", help="data file: delimited text (.csv/.tsv/.txt; header auto-detected) or "
                                  "GOBNILP .dat, optionally .gz")
    p.add_argument("-o", "--output", required=True, help="score cache to write (.jkl or .pss, optionally .gz)")
    p.add_argument("--score", default="bic", choices=("bic", "mdl", "bdeu", "aic", "bic-g", "bge", "bic-cg", "auto"),
                   help="local score (default bic: LL - ½ ln N · q(r-1), natural log); continuous data: bic-g, "
                        "bge; mixed: bic-cg; auto: bic, bic-g or bic-cg from the column types "
                        "(docs/continuous.md)")
    add_type_arguments(p)
    p.add_argument("--ess", type=float, default=1.0, metavar="A", help="BDeu equivalent sample size (default 1)")
    p.add_argument("--max-parents", type=int, metavar="K", help="parent limit (BIC/MDL/AIC also get Tian's bound)")
    p.add_argument("--k-best", type=int, default=1, metavar="K", help="keep every family of the K best DAGs")
    p.add_argument("--explore", default="auto",
                   choices=("auto", "exhaustive", "independence", "greedy", "sequential"),
                   help="parent-set exploration (default auto: exhaustive when every variable has at most "
                        "10^6 sets within the parent limit, else independence)")
    p.add_argument("--time-per-variable", type=float, metavar="S",
                   help="seconds of exploration per variable (independence, greedy, sequential; default: "
                        "about 300 s of wall time in all: each variable its share of the time left, about 0.05-1 s)")
    p.add_argument("--max-evaluations", type=int, metavar="E",
                   help="parent sets scored per variable (budgeted strategies; reproducible on any "
                        "machine, unlike time)")
    p.add_argument("--max-candidates", type=int, metavar="C",
                   help="kept parent sets per variable (budgeted strategies; default 1000)")
    p.add_argument("--jobs", type=int, metavar="J",
                   help="worker processes (default: every core; small data in one process)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="explore on an existing Dask cluster (e.g. tcp://host:8786; needs lpbn[dask])")
    from .common import add_reading_arguments
    add_reading_arguments(p)
    p.add_argument("--entropy-bound", choices=("tw", "all"), default="all",
                   help="Tian's entropy bound: H(X|all others) (eq. 15, default) or H(X|T,W) (eq. 12)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    from ..constraints import add_arguments as add_constraint_arguments
    add_constraint_arguments(p, what="the cache (the sets required arcs need are scored too)")


def add_type_arguments(p) -> None:
    """``--discrete COLS`` / ``--continuous COLS``: force column types (continuous scores)."""
    p.add_argument("--discrete", metavar="COLS", help="comma-separated columns (names or 1-based numbers, or "
                   "'all') to treat as discrete (continuous and mixed scores; see docs/continuous.md)")
    p.add_argument("--continuous", metavar="COLS", help="comma-separated columns to treat as continuous")


def run(args) -> int:
    import time

    from ..constraints import from_args as constraints_from_args
    from ..formats import write_scores
    from ..scoring import read_data, score_data
    from ..scoring.table import describe
    from .common import reading_options

    for opt, val, lo in (("--max-parents", args.max_parents, 0), ("--k-best", args.k_best, 1),
                         ("--jobs", args.jobs, 1), ("--max-evaluations", args.max_evaluations, 1),
                         ("--max-candidates", args.max_candidates, 1)):
        if val is not None and val < lo:
            raise InputError(f"{opt} must be >= {lo}")
    t0 = time.perf_counter()
    if args.score in ("bic-g", "bge", "bic-cg", "auto"):
        from .score_typed import run_typed
        if run_typed(args, t0):
            return 0
    constraints = constraints_from_args(args)
    ds = read_data(args.data, **reading_options(args))
    if ds.dropped_rows and not args.quiet:
        print(f"lpbn: dropped {ds.dropped_rows} rows with missing values", file=sys.stderr)
    if args.time_per_variable is not None and not args.time_per_variable > 0:
        raise InputError("--time-per-variable must be > 0")
    cache = score_data(ds, score=args.score, ess=args.ess, max_parents=args.max_parents,
                       k_best=args.k_best, jobs=args.jobs, progress=not args.quiet,
                       entropy_bound=args.entropy_bound, explore=args.explore,
                       time_per_variable="auto" if args.time_per_variable is None else args.time_per_variable,
                       max_evaluations=args.max_evaluations, max_candidates=args.max_candidates,
                       scheduler=args.scheduler, constraints=constraints)
    write_scores(cache, args.output)
    if not args.quiet:
        sc = cache.meta["scoring"]
        lim = sc["parent_limits"]
        print(f"data:            {args.data}: {ds.n} variables, {ds.N} rows"
              + (f" ({ds.dropped_rows} dropped)" if ds.dropped_rows else ""), file=sys.stderr)
        print(f"read as:         {describe(ds.reading)}", file=sys.stderr)
        print(f"score:           {args.score}" + (f" (ess {args.ess:g})" if args.score == "bdeu" else "")
              + f", parent limit {args.max_parents if args.max_parents is not None else 'none'}"
              + f" (applied per variable: {min(lim)}..{max(lim)})"
              + (f", k-best {args.k_best}" if args.k_best > 1 else ""), file=sys.stderr)
        if cache.meta["explore"] == "exhaustive":
            print(f"candidate sets:  {sc['candidates_before']} before pruning, {sc['candidates_after']} after "
                  f"({sc['families_counted']} families counted, {sc['joint_memo_hits']} from the joint-table "
                  f"memo, {sc['branches_cut'] + sc['entropy_rule_cuts']} branches cut)",
                  file=sys.stderr)
        else:
            stops = ", ".join(f"{v} {k}" for k, v in sorted(sc["stopped"].items()))
            budget = (f"{sc['time_per_variable']:g} s" if sc["time_per_variable"] is not None else "no time limit")
            if sc["max_evaluations"] is not None:
                budget += f", {sc['max_evaluations']} evaluations"
            if sc.get("total_seconds") is not None:
                budget += f" (its share of {sc['total_seconds']:.0f} s in all)"
            print(f"exploration:     {cache.meta['explore']}, {budget} per variable ({stops}); "
                  f"{sc['sets_evaluated']} sets scored, {sc['candidates_after']} kept", file=sys.stderr)
        if constraints is not None:
            print(f"constraints:     {constraints.describe()}; {cache.meta.get('constraints_removed', 0)} sets "
                  f"removed, {cache.m} kept", file=sys.stderr)
        print(f"time:            {time.perf_counter() - t0:.2f} s -> {args.output}", file=sys.stderr)
    if constraints is not None and constraints.require_adjacent:
        print("lpbn: warning: required adjacencies are not enforced by a score cache alone; pass the "
              "constraints to lpbn solve as well", file=sys.stderr)
    return 0
