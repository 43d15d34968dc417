"""Conditional Gaussian BIC (``bic-cg``) for mixed data, as R's bnlearn 4.9 defines it.

* A **discrete** node takes only discrete parents (a continuous parent gives -inf in bnlearn;
  such sets are simply not candidates).  Its score is the discrete BIC ``Σ n_jk ln(n_jk/n_j) -
  ln(N)/2 · (r-1)·q`` with ``q`` the product of the parents' level counts: lpbn's discrete
  scorer (:func:`lpbn.scoring.score_data` with ``score="bic"``) on the discrete columns, with
  all its safe pruning (Tian 2000, subset dominance).
* A **continuous** node ``x`` with discrete parents ``D`` (``q`` = product of their level
  counts, every combination) and continuous parents ``G`` (``g = |G|``): one OLS of ``x`` on
  ``[1, x_G]`` per *observed* configuration ``c`` of ``D`` with ``n_c`` rows and the unbiased
  ``σ̂_c² = RSS_c/(n_c-g-1)``; ``loglik = Σ_c -(n_c/2) ln(2π σ̂_c²) - (n_c-g-1)/2``;
  ``bic-cg = loglik - ln(N)/2 · q·(g+2)``.  As in bnlearn, a configuration with ``n_c <= g+1``
  rows or an exact fit (σ̂_c = 0) makes the density singular: the set scores -inf and is not a
  candidate (never a NaN or an infinite score in a cache).

Sufficient statistics: per discrete parent set ``D`` the rows are grouped by configuration
once and each group's centred scatter matrix of the continuous columns is formed; every ``G``
is then scored from those matrices by the incremental Cholesky enumeration of
:func:`lpbn.scoring.gaussian.enumerate_sets` (``O(q_obs·g²)`` per set).

Pruning (safe; the kept sets contain an optimal DAG's families within the parent limit):

* **dead discrete sets**: if some configuration of ``D`` has a single row, every ``(D', G)``
  with ``D' ⊇ D`` is singular (refining a partition keeps that singleton), so they are skipped.
* **size bound per D** (the bic-g bound of :mod:`lpbn.scoring.gaussian` applied per
  configuration): for a fixed ``D``, with ``RSS_c^A`` the RSS of ``x`` on *all* continuous
  candidates within configuration ``c``, every ``G`` of size ``g`` has
  ``bic-cg(D, G) <= U_D(g) = Σ_c [-(n_c/2) ln(2π RSS_c^A) + (n_c/2) ln(n_c-g-1) - (n_c-g-1)/2]
  - ln(N)/2 · q·(g+2)`` (each ``RSS_c >= RSS_c^A``; every term decreases in ``g``), so the
  enumeration of ``G`` for that ``D`` is cut as for bic-g.  When some configuration has too few
  rows for the full regression (``n_c <= |candidates|+1``) or an exact full fit, no bound is
  used for that ``D``.  The bound is raised by ``1e-9·(1+|U_D|)`` for rounding (prunes less).
* **subset dominance** over all kept ``(D, G)`` of a variable (Teyssier & Koller 2005):
  :func:`lpbn.scoring.explore.exhaustive.dominance_keep`.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from ..errors import ResourceLimitError
from .explore.exhaustive import dominance_keep
from .gaussian import MAX_SETS, REL_PIVOT, enumerate_sets, sets_within
from .typed import Table


def config_codes(codes: np.ndarray, arities: np.ndarray, D: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """Mixed-radix configuration index of every row over the discrete columns ``D``, and ``q``."""
    z = np.zeros(codes.shape[1], dtype=np.int64)
    q = 1
    for d in D:
        z = z * int(arities[d]) + codes[d]
        q *= int(arities[d])
    return z, q


def config_scatter(Xc: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per observed configuration: row count and centred scatter matrix of the columns of ``Xc``
    (N x k); two-pass centring within each group."""
    order = np.argsort(z, kind="stable")
    zs = z[order]
    cut = np.flatnonzero(np.diff(zs)) + 1
    starts = np.concatenate(([0], cut))
    ends = np.concatenate((cut, [len(zs)]))
    k = Xc.shape[1]
    Ms = np.empty((len(starts), k, k))
    counts = (ends - starts).astype(np.float64)
    Xs = Xc[order]
    for g, (a, b) in enumerate(zip(starts, ends)):
        B = Xs[a:b] - Xs[a:b].mean(axis=0)
        B -= B.mean(axis=0)
        Ms[g] = B.T @ B
    return counts, Ms


def size_bounds(Ms, counts, x: int, cand: np.ndarray, q: int, N: int, L: int) -> np.ndarray:
    """``U_D(g)`` for ``g = 0..L`` (module docstring), +inf when it does not apply."""
    g_all = len(cand)
    if np.any(counts <= g_all + 1):
        return np.full(L + 1, np.inf)
    g = np.arange(L + 1, dtype=np.float64)
    total = -0.5 * math.log(N) * q * (g + 2)
    for c in range(len(counts)):
        S = Ms[c]
        if g_all:
            A = S[np.ix_(cand, cand)]
            try:
                ch = np.linalg.cholesky(A)
            except np.linalg.LinAlgError:
                return np.full(L + 1, np.inf)
            y = np.linalg.solve(ch, S[cand, x])
            rss = float(S[x, x] - y @ y)
        else:
            rss = float(S[x, x])
        if not rss > REL_PIVOT * S[x, x]:
            return np.full(L + 1, np.inf)
        n_c = counts[c]
        total += -0.5 * n_c * math.log(2 * math.pi * rss) + 0.5 * n_c * np.log(n_c - g - 1) - 0.5 * (n_c - g - 1)
    return total + 1e-9 * (1.0 + np.abs(total))      # rounding slack: a bound never prunes on rounding


def explore_continuous(table: Table, x: int, max_parents: int | None, rules=("limit", "dominance", "bnb")) -> dict:
    """Kept ``(D, G)`` parent sets of continuous variable ``x`` (module docstring)."""
    cont = np.flatnonzero(table.continuous)
    disc = np.flatnonzero(~table.continuous)
    xl = int(np.searchsorted(cont, x))
    cand = np.array([i for i in range(len(cont)) if i != xl], dtype=np.int64)
    n_all = len(disc) + len(cand)
    L = n_all if max_parents is None else min(int(max_parents), n_all)
    X = table.values[:, cont]
    N = table.N
    sets, sizes, scores = [], [], []
    dead: list[frozenset] = []
    scored = cut = 0
    before = 0
    for dsize in range(min(L, len(disc)) + 1):
        for D in combinations(range(len(disc)), dsize):
            Dg = tuple(int(disc[d]) for d in D)
            if any(dd <= frozenset(Dg) for dd in dead):
                continue
            z, q = config_codes(table.codes, table.arities, Dg)
            counts, Ms = config_scatter(X, z)
            Lg = min(L - dsize, len(cand), max(int(counts.min()) - 2, -1))
            if Lg < 0:
                dead.append(frozenset(Dg))
                continue
            before += sets_within(len(cand), Lg)
            if before > MAX_SETS * 4:
                raise ResourceLimitError(f"variable {table.names[x]}: more than {MAX_SETS * 4} candidate parent "
                                         "sets; give a parent limit (--max-parents)")
            ub = (size_bounds(Ms, counts, xl, cand, q, N, Lg) if {"limit", "bnb"} <= set(rules)
                  else np.full(Lg + 1, np.inf))
            s_, z_, c_, st = enumerate_sets(Ms, counts, 0, xl, cand, Lg, N, np.array([0.0, 0.0, float(q)]), ub,
                                            "dominance" in rules)
            scored += int(st[0])
            cut += int(st[1])
            for row, k, sc in zip(s_, z_, c_):
                sets.append(Dg + tuple(int(cont[v]) for v in row[:k]))
                sizes.append(dsize + int(k))
                scores.append(float(sc))
    return _pack(x, sets, sizes, scores, table.n, "dominance" in rules,
                 {"scored": scored, "cut": cut, "limit": L, "candidates_before": before})


def _pack(x, sets, sizes, scores, n, dominance, info) -> dict:
    width = max([len(s) for s in sets] + [1])
    arr = np.full((len(sets), width), -1, dtype=np.int64)
    for i, s in enumerate(sets):
        arr[i, :len(s)] = sorted(s)
    sizes_a = np.array(sizes, dtype=np.int64)
    sc = np.array(scores, dtype=np.float64)
    if dominance and len(sc):
        keep = np.flatnonzero(dominance_keep(arr, sizes_a, sc, 1, n))
        arr, sizes_a, sc = arr[keep], sizes_a[keep], sc[keep]
    return {"x": x, "sets": arr, "sizes": sizes_a, "scores": sc, **info}


def explore_discrete_all(table: Table, max_parents: int | None, jobs: int | None = 1,
                         budget: int | None = None) -> list[dict]:
    """Kept parent sets of every discrete variable: lpbn's discrete BIC scorer on the discrete
    columns (module docstring), exhaustive or, with a ``budget`` of scored sets per variable, by
    its independence selection; indices mapped back to the table's."""
    from .discrete import DiscreteScoring, score_discrete
    disc = np.flatnonzero(~table.continuous)
    if len(disc) == 0:
        return []
    how = {"explore": "exhaustive"} if budget is None else {"explore": "independence", "max_evaluations": budget}
    cache = score_discrete(table.discrete_dataset(), DiscreteScoring(score="bic", max_parents=max_parents,
                                                                     jobs=jobs, **how))
    out = []
    for i in range(cache.n):
        sets, sizes, scores = [], [], []
        for j in cache.family_range(i):
            ps = tuple(int(disc[p]) for p in cache.parents(j))
            sets.append(ps)
            sizes.append(len(ps))
            scores.append(float(cache.scores[j]))
        out.append(_pack(int(disc[i]), sets, sizes, scores, table.n, False,
                         {"scored": len(sets), "cut": 0, "limit": cache.meta["scoring"]["parent_limits"][i],
                          "candidates_before": sets_within(len(disc) - 1, len(disc) - 1 if max_parents is None
                                                           else int(max_parents))}))
    return out
