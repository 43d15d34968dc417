"""The discrete scorer behind :func:`lpbn.scoring.score_data`: a :class:`~.data.Dataset`
explored variable by variable with one strategy (:mod:`.explore`: exhaustive, independence,
greedy or sequential) in parallel (:mod:`.parallel`), the kept sets assembled into one
:class:`~lpbn.cache.ScoreCache`.

It sits below the front door (:mod:`.api`, which routes continuous and mixed data to
:mod:`.continuous`) so that the conditional-Gaussian scorer (:mod:`.cg`) can score its discrete
columns here without importing the front door that imports it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import numpy as np

from ..cache import ScoreCache
from ..errors import InputError
from .context import ExploreOptions, ScoringContext
from .data import Dataset, read_data
from .explore import STRATEGIES
from .kbest import algorithm2_bounds
from .parallel import default_jobs, explore_all, progress_bar
from .pruning import tian_global_bound
from .scores import BDEU, LN2, MDL, kind_of
from ..tuning import AUTO_EXHAUSTIVE_MAX_SETS, ISOLATE_MIN_SETS, AUTO_EXPLORE_SECONDS, SERIAL_CELLS


@dataclass(frozen=True)
class DiscreteScoring:
    """The options of one discrete scoring run, as :func:`lpbn.scoring.score_data` documents
    them (one field per keyword argument but the three reading ones)."""

    score: str = "bic"
    ess: float = 1.0
    max_parents: int | None = None
    k_best: int = 1
    jobs: int | None = None
    progress: Callable[[int, int, str], None] | bool | None = None
    explore: str = "auto"
    time_per_variable: float | str | None = "auto"
    max_evaluations: int | None = None
    max_candidates: int | None = None
    scheduler: Any = None
    entropy_bound: str = "all"
    order: Sequence[int | str] | None = None
    kbest_global: bool = True
    rules: Sequence[str] = ("limit", "dominance", "bnb")
    explore_options: dict[str, Any] | None = None
    constraints: Any = None


def score_discrete(data: Any, run: DiscreteScoring, read: dict[str, Any] | None = None,
                   started: float | None = None) -> ScoreCache:
    """Score discrete ``data`` (a path, array, DataFrame or :class:`Dataset`, read with
    :func:`read_data` and the options ``read``) under ``run``: the body of
    :func:`lpbn.scoring.score_data` for discrete scores, whose docstring says what each option
    does and why every pruning rule is safe.  ``started``: the ``time.perf_counter()`` the
    scoring's ``seconds`` count from (default: now)."""
    t0 = time.perf_counter() if started is None else started
    kind = kind_of(run.score)
    ds = read_data(data, **(read or {}))
    if ds.N == 0:
        raise InputError("empty data")
    _check_numbers(run.ess, run.max_parents, run.k_best, run.jobs, run.entropy_bound, run.rules)
    constraints = run.constraints
    if constraints is not None:      # unknown names and contradictions before any work
        from ..constraints import Constraints
        constraints = Constraints.coerce(constraints)
        constraints.resolve(ds.names)
    ordr = _order_indices(ds, run.order, run.k_best)
    strategy = _choose_strategy(run.explore, ds, run.max_parents, run.k_best, ordr)
    k = int(run.k_best)
    if strategy != "exhaustive" and (k != 1 or ordr is not None or tuple(run.rules) != ("limit", "dominance", "bnb")
                                     or run.entropy_bound != "all"):
        raise InputError(f"explore={strategy!r} supports k_best=1 and the default rules, order and "
                         "entropy bound only; use explore='exhaustive'")
    workers = _workers(run.jobs, ds, run.scheduler)
    opts = _explore_options(strategy, run.time_per_variable, run.max_evaluations, run.max_candidates,
                            run.explore_options, ds.n, workers)
    kb = kb_info = None
    if (k > 1 and kind != BDEU and run.kbest_global and ordr is None and int(ds.arities.min()) >= 2
            and "limit" in run.rules):
        base = score_discrete(ds, DiscreteScoring(score="bic" if kind == MDL else run.score, ess=run.ess,
                                                  max_parents=run.max_parents, k_best=1, jobs=workers,
                                                  entropy_bound=run.entropy_bound, explore="exhaustive"))
        kb, kb_info = algorithm2_bounds(base, ds, kind, k)
    ctx = ScoringContext(ds, kind, float(run.ess), k=k,
                         max_parents=None if run.max_parents is None else int(run.max_parents),
                         explore=strategy, options=opts, use_tw=run.entropy_bound == "tw", order=ordr,
                         kbest_limits=kb, rules=frozenset(run.rules))
    bar = run.progress if callable(run.progress) else (progress_bar() if run.progress else None)
    long_run = strategy == "exhaustive" and _exhaustive_sets(ds, run.max_parents, k) > ISOLATE_MIN_SETS
    results = explore_all(ctx, jobs=workers, scheduler=run.scheduler, progress=bar, isolate=long_run)
    cache = _assemble(ds, results, kind)
    cache.meta.update(_meta(ds, replace(run, k_best=k), kind, strategy, opts, results, cache,
                            time.perf_counter() - t0, workers))
    if kb_info is not None:
        cache.meta["scoring"]["algorithm2"] = kb_info
    if ordr is not None:
        cache.meta["order"] = [ds.names[i] for i in ordr]
    if constraints is not None:
        from .constrained import constrain_scored
        cache = constrain_scored(cache, ds, kind, run.ess, run.max_parents, k, ordr, constraints)
    return cache


def _check_numbers(ess, max_parents, k_best, jobs, entropy_bound, rules) -> None:
    if ess is None or not (float(ess) > 0) or not math.isfinite(float(ess)):
        raise InputError(f"ess must be a positive number, got {ess!r}")
    if max_parents is not None and int(max_parents) < 0:
        raise InputError("max_parents must be >= 0")
    if int(k_best) < 1:
        raise InputError("k_best must be >= 1")
    if jobs is not None and int(jobs) < 1:
        raise InputError("jobs must be >= 1")
    if entropy_bound not in ("tw", "all"):
        raise InputError("entropy_bound must be 'tw' or 'all'")
    bad = set(rules) - {"limit", "dominance", "bnb"}
    if bad:
        raise InputError(f"unknown pruning rule(s) {sorted(bad)}")


def _order_indices(ds: Dataset, order, k_best: int) -> list[int] | None:
    if order is None:
        return None
    ordr = [ds.names.index(str(v)) if str(v) in ds.names else int(v) for v in order]
    if sorted(ordr) != list(range(ds.n)):
        raise InputError("order must be a permutation of the variables")
    if k_best != 1:
        raise InputError("a fixed order supports k_best = 1 only")
    return ordr


def _choose_strategy(explore: str, ds: Dataset, max_parents, k_best: int, order) -> str:
    """``explore`` checked, with ``"auto"`` resolved (see AUTO_EXHAUSTIVE_MAX_SETS)."""
    if explore not in (*STRATEGIES, "auto"):
        raise InputError(f"unknown explore strategy {explore!r}; choose auto, {', '.join(STRATEGIES)}")
    if explore != "auto":
        return explore
    if k_best != 1 or order is not None:
        return "exhaustive"
    return "exhaustive" if _exhaustive_sets(ds, max_parents) <= ds.n * AUTO_EXHAUSTIVE_MAX_SETS else "independence"


def exhaustive_fits(ds: Dataset, max_parents=None) -> bool:
    """True when ``explore="auto"`` would enumerate exhaustively (see AUTO_EXHAUSTIVE_MAX_SETS):
    :func:`lpbn.learn` searches on the data instead when it would not."""
    return _exhaustive_sets(ds, max_parents) <= ds.n * AUTO_EXHAUSTIVE_MAX_SETS


def _workers(jobs, ds: Dataset, scheduler) -> int:
    if scheduler is not None:
        return 1
    if jobs is not None:
        return int(jobs)
    return 1 if ds.n * ds.N <= SERIAL_CELLS else min(default_jobs(), ds.n)


def _explore_options(strategy, time_per_variable, max_evaluations, max_candidates, extra, n, workers):
    fields = dict(extra or {})
    unknown = set(fields) - {"pool_extra", "max_pool", "heap_cap", "pairs_share", "triples_share"}
    if unknown:
        raise InputError(f"unknown explore option(s): {', '.join(sorted(unknown))}")
    total = None
    if time_per_variable == "auto":
        time_per_variable = min(1.0, max(0.05, AUTO_EXPLORE_SECONDS * workers / max(n, 1)))
        total = time_per_variable * n / max(workers, 1)
    elif time_per_variable is not None and not isinstance(time_per_variable, (int, float)):
        raise InputError(f"time_per_variable must be seconds, 'auto' or None, got {time_per_variable!r}")
    opts = ExploreOptions(time_per_variable=None if time_per_variable is None else float(time_per_variable),
                          total_seconds=total, max_evaluations=max_evaluations,
                          max_candidates=1000 if max_candidates is None else max_candidates, **fields)
    return opts.validate()


def _meta(ds, run: DiscreteScoring, kind, strategy, opts, results, cache, seconds, workers) -> dict[str, Any]:
    score, ess, max_parents, k = run.score, run.ess, run.max_parents, run.k_best
    entropy_bound, scheduler = run.entropy_bound, run.scheduler
    meta = {
        "score": str(score).lower(), "N": ds.N, "arities": [int(a) for a in ds.arities],
        "ess": float(ess) if kind == BDEU else None, "max_parents": max_parents,
        "k_best": k, "source": ds.source, "dropped_rows": ds.dropped_rows, "explore": strategy,
        "reading": ds.reading,
        "scoring": {
            "candidates_after": cache.m,
            "families_counted": sum(r["counted"] for r in results),
            "branches_cut": sum(r["cut"] for r in results),
            "parent_limits": [r["limit"] for r in results],
            "seconds": seconds, "jobs": workers,
            "scheduler": None if scheduler is None else str(getattr(scheduler, "scheduler", scheduler)),
        },
    }
    sc = meta["scoring"]
    if strategy == "exhaustive":
        meta["entropy_bound"] = entropy_bound
        L = ds.n - 1 if max_parents is None else int(max_parents)
        sc.update(candidates_before=ds.n * _n_within(ds.n - 1, L),
                  tw_bounds=sum(r["tw_bounds"] for r in results),
                  joint_memo_hits=sum(r["joint_hits"] for r in results),
                  entropy_rule_cuts=sum(r["entropy_cuts"] for r in results))
    else:
        stops: dict[str, int] = {}
        for r in results:
            stops[r["stop"]] = stops.get(r["stop"], 0) + 1
        sc.update(time_per_variable=opts.time_per_variable, total_seconds=opts.total_seconds,
                  max_evaluations=opts.max_evaluations,
                  max_candidates=opts.max_candidates, sets_evaluated=sum(r["evaluated"] for r in results),
                  pool_sizes=[r["pool"] for r in results], stopped=stops,
                  explore_seconds=sum(r["seconds"] for r in results))
    return meta


def _exhaustive_sets(ds: Dataset, max_parents, k_best: int = 1) -> int:
    """Candidate sets an exhaustive exploration may visit: every variable's subsets within
    Tian's global bound (for k_best = 1; the k-best bounds are per variable and looser) and the
    parent limit."""
    L = min(ds.n - 1, tian_global_bound(ds.N) + 1) if k_best == 1 else ds.n - 1
    if max_parents is not None:
        L = min(L, int(max_parents))
    return ds.n * _n_within(ds.n - 1, L)


def _n_within(m: int, L: int) -> int:
    """Number of subsets of at most ``L`` of ``m`` items (stops counting past 10^18)."""
    total = 0
    for j in range(0, min(m, L) + 1):
        total += math.comb(m, j)
        if total > 10**18:
            break
    return total


def _assemble(ds: Dataset, results, kind: int) -> ScoreCache:
    """Per variable: sort best first (ties: smaller set first, then by sorted parent ids, so the
    order does not depend on the exploration's), parents sorted (CSR arrays)."""
    offsets = [0]
    all_scores = []
    all_sizes = []
    all_items = []
    for r in results:
        sc = r["scores"] / LN2 if kind == MDL else r["scores"]
        sizes = np.asarray(r["sizes"], dtype=np.int64)
        sets = np.array(r["sets"], dtype=np.int64)
        width = sets.shape[1] if sets.ndim == 2 else 0
        if width:
            pad = np.arange(width)[None, :] >= sizes[:, None]
            sets = np.where(pad, np.iinfo(np.int64).max, sets)
            sets.sort(axis=1)
        perm = np.lexsort((*(sets[:, c] for c in range(width - 1, -1, -1)), sizes, -sc))
        sizes = sizes[perm]
        if width:
            sets = sets[perm]
            all_items.append(sets[np.arange(width)[None, :] < sizes[:, None]])
        all_scores.append(sc[perm])
        all_sizes.append(sizes)
        offsets.append(offsets[-1] + len(perm))
    sizes = np.concatenate(all_sizes) if all_sizes else np.zeros(0, np.int64)
    ptr = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    flat = np.concatenate(all_items).astype(np.int32) if all_items else np.zeros(0, np.int32)
    return ScoreCache(ds.names, np.array(offsets), np.concatenate(all_scores), ptr,
                      flat, meta={}, source=ds.source)
