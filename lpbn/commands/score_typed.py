"""``lpbn score --score bic-g|bge|bic-cg|auto``: the continuous and mixed branch of ``lpbn score``
(typed reading, :func:`lpbn.scoring.continuous.score_continuous`, the same summary lines)."""

from __future__ import annotations

import sys

from ..errors import InputError


def read_options(args) -> dict:
    """The typed reader's options from the command line."""
    return {"discrete": args.discrete, "continuous": args.continuous, "header": args.header,
            "missing": args.missing, "drop_missing": args.drop_missing}


def run_typed(args, t0: float) -> bool:
    """Score, write and summarise; False when ``auto`` finds every column discrete (then
    ``args.score`` is set to ``bic`` and ``lpbn score`` goes on as for discrete data)."""
    import time

    from ..formats import write_scores
    from ..scoring.continuous import score_continuous
    from ..scoring.typed import auto_score, read_typed

    table = read_typed(args.data, score=args.score, **read_options(args))
    name = auto_score(table) if args.score == "auto" else args.score
    if name == "bic":
        args.score = "bic"
        return False
    if getattr(args, "constraints", None) or getattr(args, "forbid", None) or getattr(args, "require", None):
        raise InputError(f"--score {name} supports no constraints")
    if args.time_per_variable is not None or args.max_candidates is not None or args.scheduler is not None:
        raise InputError(f"--score {name}: independence selection is budgeted by --max-evaluations only (no "
                         "--time-per-variable, --max-candidates or --scheduler)")
    cache = score_continuous(table, name, args.max_parents, alpha=(args.ess, None), explore=args.explore,
                             max_evaluations=args.max_evaluations, jobs=args.jobs, k_best=args.k_best)
    write_scores(cache, args.output)
    if not args.quiet:
        sc = cache.meta["scoring"]
        lim = sc["parent_limits"]
        kinds = f"{int(table.continuous.sum())} continuous, {int((~table.continuous).sum())} discrete"
        print(f"data:            {args.data}: {table.n} variables ({kinds}), {table.N} rows"
              + (f" ({table.dropped_rows} dropped)" if table.dropped_rows else ""), file=sys.stderr)
        print(f"score:           {name}" + (f" (alpha_mu {args.ess:g})" if name == "bge" else "")
              + f", parent limit {args.max_parents if args.max_parents is not None else 'none'}"
              + f" (applied per variable: {min(lim)}..{max(lim)})", file=sys.stderr)
        print(f"candidate sets:  {cache.meta['explore']}: {sc['candidates_before']} before pruning, "
              f"{sc['candidates_after']} after ({sc['families_counted']} families scored, {sc['branches_cut']} "
              "sets cut by bounds)", file=sys.stderr)
        print(f"time:            {time.perf_counter() - t0:.2f} s -> {args.output}", file=sys.stderr)
    return True
