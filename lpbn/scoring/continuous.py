"""Front door of the continuous and mixed scores: typed data -> a pruned :class:`ScoreCache`.

``score_continuous(data, score)`` with ``score`` one of ``bic-g``, ``bge`` (all columns
continuous; :mod:`.gaussian`) or ``bic-cg`` (mixed; :mod:`.cg`).  :func:`lpbn.scoring.score_data`
sends these scores (and ``auto`` on data that are not all discrete) here.  The exploration is
exhaustive within the parent limit with the safe pruning of those modules (the cache then holds
the families of an optimal DAG within the limit), or on large problems independence selection
(:mod:`.gaussian_independence`); every lpbn solver takes the cache
unchanged.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ..cache import ScoreCache
from ..errors import InputError
from .typed import Table, auto_score, read_typed
from ..tuning import AUTO_EXHAUSTIVE_MAX_SETS

SCORES = ("bic-g", "bge", "bic-cg")


def score_continuous(data: Any, score: str = "auto", max_parents: int | None = None, *,
                     alpha: tuple[float, float | None] = (1.0, None), jobs: int | None = None,
                     explore: str = "auto", max_evaluations: int | None = None, k_best: int = 1,
                     rules=("limit", "dominance", "bnb"), read: dict | None = None) -> ScoreCache:
    """Score continuous or mixed data (module docstring).

    ``alpha = (α_μ, α_w)``: BGe's prior, bnlearn's ``iss.mu`` (default 1) and ``iss.w`` (None:
    n + 2).  ``rules``: pruning rules (``limit``/``bnb``: the size bounds,
    ``dominance``: subset dominance), for testing each alone.  ``read``: options of
    :func:`lpbn.scoring.typed.read_typed` (``discrete``, ``continuous``, ``header``, ``missing``,
    ``drop_missing``).  ``jobs``: worker processes over the variables (default: every core,
    or this process alone for small data, as :func:`lpbn.scoring.score_data`).
    ``explore``: ``"exhaustive"`` (every set within the limit, safely pruned: the cache holds an
    optimal DAG), ``"independence"`` (:mod:`.gaussian_independence`, a budget of
    ``max_evaluations`` scored sets per variable, default 2000, no parent limit needed) or
    ``"auto"``: exhaustive when every variable has at most AUTO_EXHAUSTIVE_MAX_SETS sets within
    the parent limit, else independence.  ``k_best > 1``: a cache for the
    k best DAGs (``lpbn solve --k-best``): every set within the parent limit is kept, exhaustive
    only (the pruning rules here are proved for the single best DAG only).
    """
    t0 = time.perf_counter()
    alpha_mu, alpha_w = alpha
    score = str(score).lower()
    table = read_typed(data, score=score, **(read or {}))
    if score == "auto":
        score = auto_score(table)
    if score not in SCORES:
        raise InputError(f"score {score!r} is not a continuous or mixed score ({', '.join(SCORES)})")
    if max_parents is not None and int(max_parents) < 0:
        raise InputError("max_parents must be >= 0")
    workers = _workers(jobs, table)
    strategy = _strategy(explore, score, table, max_parents)
    if int(k_best) < 1:
        raise InputError("k_best must be >= 1")
    if int(k_best) > 1:
        if strategy != "exhaustive":
            raise InputError("k_best > 1 needs the exhaustive exploration (give a parent limit)")
        rules = ()
    budget = None if strategy != "independence" else 2000 if max_evaluations is None else int(max_evaluations)
    if score == "bic-cg":
        results = _explore_cg(table, max_parents, rules, workers, budget)
        extra: dict[str, Any] = {}
    elif budget is not None:
        results, extra = _explore_gaussian(table, score, max_parents, alpha_mu, alpha_w, rules, workers, budget)
    else:
        results, extra = _explore_gaussian(table, score, max_parents, alpha_mu, alpha_w, rules, workers)
    cache = assemble(table.names, results, table.source)
    cache.meta.update({
        "score": score, "N": table.N, "max_parents": max_parents, "source": table.source,
        "dropped_rows": table.dropped_rows, "explore": strategy, "k_best": int(k_best),
        "types": ["continuous" if c else "discrete" for c in table.continuous],
        "arities": [int(a) for a in table.arities], **extra,
        "scoring": {"candidates_after": cache.m, "candidates_before": sum(r["candidates_before"] for r in results),
                    "families_counted": sum(r["scored"] for r in results),
                    "branches_cut": sum(r["cut"] for r in results),
                    "parent_limits": [r["limit"] for r in results], "seconds": time.perf_counter() - t0,
                    "jobs": workers, "joint_memo_hits": 0, "entropy_rule_cuts": 0},
    })
    return cache


def _workers(jobs, table: Table) -> int:
    from .discrete import SERIAL_CELLS
    from .parallel import default_jobs
    if jobs is not None:
        if int(jobs) < 1:
            raise InputError("jobs must be >= 1")
        return int(jobs)
    return 1 if table.n * table.N <= SERIAL_CELLS else min(default_jobs(), table.n)


_TASK: Any = None


def _init(task) -> None:
    import signal
    global _TASK
    _TASK = task
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the parent handles Ctrl-C


def _run(x: int) -> dict:
    func, before, after = _TASK
    return func(*before, x, *after)


def map_variables(func, before: tuple, after: tuple, xs, workers: int) -> list[dict]:
    """``func(*before, x, *after)`` for the variables ``x`` in ``xs``, in this process or in a
    pool of ``workers`` forked processes that receive the arguments once; results in order."""
    xs = [int(x) for x in xs]
    if workers <= 1 or len(xs) <= 1:
        return [func(*before, x, *after) for x in xs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    methods = multiprocessing.get_all_start_methods()
    mp = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(max_workers=min(workers, len(xs)), mp_context=mp, initializer=_init,
                             initargs=((func, before, after),)) as ex:
        return list(ex.map(_run, xs))


def _strategy(explore: str, score: str, table: Table, max_parents) -> str:
    from .gaussian import sets_within
    if explore not in ("auto", "exhaustive", "independence"):
        raise InputError(f"explore={explore!r}: continuous and mixed scores support auto, exhaustive and "
                         "independence")
    if explore != "auto":
        return explore
    L = table.n - 1 if max_parents is None else min(int(max_parents), table.n - 1)
    return "exhaustive" if sets_within(table.n - 1, L) <= AUTO_EXHAUSTIVE_MAX_SETS else "independence"


def _explore_gaussian(table: Table, score, max_parents, alpha_mu, alpha_w, rules, workers=1, budget=None):
    from .gaussian import (
        BGE,
        NAMES,
        GaussianStats,
        bge_parameters,
        check_full_rank,
        explore_variable,
    )
    if table.kind != "continuous":
        raise InputError(f"{score} needs every column continuous; use bic-cg for mixed data")
    stats = GaussianStats.from_matrix(table.values, table.names, table.source)
    check_full_rank(stats)
    kind = NAMES[score]
    am, aw = bge_parameters(stats.n, alpha_mu, alpha_w) if kind == BGE else (1.0, 0.0)
    M = stats.matrix(kind, am, aw)
    if budget is None:
        results = map_variables(explore_variable, (stats, M, kind), (max_parents, am, aw, rules), range(stats.n),
                                workers)
    else:
        from .gaussian_independence import explore_variable as independence
        results = map_variables(independence, (stats, M, kind), (max_parents, am, aw, budget), range(stats.n),
                                workers)
    extra = {"bge": {"alpha_mu": am, "alpha_w": aw, "nu": "sample mean"}} if kind == BGE else {}
    return results, extra


def _explore_cg(table: Table, max_parents, rules, workers=1, budget=None):
    """bic-cg: the discrete nodes by the discrete scorer, the continuous ones exhaustively
    (:func:`.cg.explore_continuous`) or, with a ``budget`` of scored sets per variable, by
    independence selection (:func:`.gaussian_independence.explore_cg_variable`)."""
    from .cg import explore_continuous, explore_discrete_all
    if table.continuous.any():
        from .gaussian import GaussianStats, check_full_rank
        cont = np.flatnonzero(table.continuous)
        check_full_rank(GaussianStats.from_matrix(table.values[:, cont], [table.names[j] for j in cont],
                                                  table.source))
    res = {r["x"]: r for r in explore_discrete_all(table, max_parents, workers, budget)}
    if budget is None:
        func, after = explore_continuous, (max_parents, rules)
    else:
        from .gaussian_independence import explore_cg_variable
        func, after = explore_cg_variable, (max_parents, budget)
    for r in map_variables(func, (table,), after, np.flatnonzero(table.continuous), workers):
        res[r["x"]] = r
    return [res[x] for x in range(table.n)]


def assemble(names, results, source) -> ScoreCache:
    """Per-variable kept sets (rows of variable ids padded with -1) -> a :class:`ScoreCache`
    (its constructor sorts best first).  Every score is finite by construction."""
    offsets = [0]
    scores, ptr, items = [], [0], []
    for r in results:
        for row, k, sc in zip(r["sets"], r["sizes"], r["scores"]):
            if not math.isfinite(sc):
                raise AssertionError(f"non-finite local score {sc} for variable {names[r['x']]}")
            items.extend(sorted(int(v) for v in row[:k]))
            ptr.append(ptr[-1] + int(k))
            scores.append(float(sc))
        offsets.append(len(scores))
    return ScoreCache(names, np.array(offsets), np.array(scores), np.array(ptr),
                      np.array(items, dtype=np.int32), source=source)


def family_score(table: Table, score: str, x: int, parents, alpha_mu: float = 1.0,
                 alpha_w: float | None = None) -> float:
    """Local score of one family (for DAG scores and tests; -inf where bnlearn gives -inf)."""
    parents = sorted(int(p) for p in parents)
    if score == "bic-cg":
        return _cg_family(table, x, parents)
    from .gaussian import BGE, NAMES, GaussianStats, bge_parameters, set_score
    stats = GaussianStats.from_matrix(table.values, table.names)
    kind = NAMES[score]
    am, aw = bge_parameters(stats.n, alpha_mu, alpha_w) if kind == BGE else (1.0, 0.0)
    t = am * (aw - stats.n - 1) / (am + 1) if kind == BGE else 0.0
    return float(set_score(stats.matrix(kind, am, aw), kind, x, np.array(parents, dtype=np.int64), stats.N,
                           am, aw, t))


def dag_score(table: Table, score: str, parents_of, alpha_mu: float = 1.0, alpha_w: float | None = None) -> float:
    """Score of a DAG given as ``parents_of[x]`` (indices), the sum of its local scores (the
    sufficient statistics are formed once)."""
    if score == "bic-cg":
        return sum(_cg_family(table, x, sorted(parents_of[x])) for x in range(table.n))
    from .gaussian import BGE, NAMES, GaussianStats, bge_parameters, set_score
    stats = GaussianStats.from_matrix(table.values, table.names)
    kind = NAMES[score]
    am, aw = bge_parameters(stats.n, alpha_mu, alpha_w) if kind == BGE else (1.0, 0.0)
    t = am * (aw - stats.n - 1) / (am + 1) if kind == BGE else 0.0
    M = stats.matrix(kind, am, aw)
    return float(sum(set_score(M, kind, x, np.array(sorted(parents_of[x]), dtype=np.int64), stats.N, am, aw, t)
                     for x in range(table.n)))


def _cg_family(table: Table, x: int, parents) -> float:
    from .cg import config_codes, config_scatter
    from .gaussian import enumerate_sets
    D = tuple(p for p in parents if not table.continuous[p])
    G = [p for p in parents if table.continuous[p]]
    z, q = config_codes(table.codes, table.arities, D)
    N = table.N
    if not table.continuous[x]:
        if G:
            return -math.inf
        r = int(table.arities[x])
        cnt = np.bincount(z * r + table.codes[x], minlength=q * r).reshape(q, r).astype(np.float64)
        nj = cnt.sum(axis=1, keepdims=True)
        nz = cnt > 0
        ll = float((cnt[nz] * np.log((cnt / np.where(nj > 0, nj, 1))[nz])).sum())
        return ll - 0.5 * math.log(N) * (r - 1) * q
    cols = G + [x]
    counts, Ms = config_scatter(table.values[:, cols], z)
    g = len(G)
    _sets, sizes, scores, _ = enumerate_sets(Ms, counts, 0, g, np.arange(g, dtype=np.int64), g, N,
                                             np.array([0.0, 0.0, float(q)]), np.full(g + 1, np.inf), False)
    hit = np.flatnonzero(sizes == g)
    return float(scores[hit[0]]) if len(hit) else -math.inf
