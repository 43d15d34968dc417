"""Random score caches for property tests and benchmarks of the solvers.

:func:`random_cache` lives in :mod:`lpbn.synthetic` (the bench harness uses it, and must not
import this test helper); it is re-exported here under its old name.

Scores are drawn so that bigger parent sets usually score better per family (as real
BIC/BDeu caches look) while many candidates stay undominated; the empty set is always a
candidate, so every cache admits a DAG.
"""

from __future__ import annotations

import numpy as np

from .cache import ScoreCache
from .synthetic import random_cache  # noqa: F401  (moved there; old name kept)


def random_sparse_cache(n: int, per_variable: int | tuple[int, int] = (200, 500),
                        max_parents: int = 6, seed: int | np.random.Generator = 0, *,
                        neighbourhood: int = 40, far: float = 0.1) -> ScoreCache:
    """A large random cache built directly as CSR arrays (vectorised; for benchmarks).

    Variables sit on a hidden random line; each one's candidate parents are drawn from its
    ``neighbourhood`` nearest variables on that line (a symmetric relation, so two
    neighbours usually want each other as parents and cycles are an issue), except a share
    ``far`` drawn from all variables.  Variable ``i`` gets about ``per_variable`` candidates
    (an int, or a ``(lo, hi)`` range drawn uniformly; duplicates are merged): the empty set
    (so a DAG exists) and sets of size 1..``max_parents``.  A set scores
    ``base_i + sum_p s(i, p) - 6 |set| + noise`` with a symmetric, skewed pair strength
    ``s`` in [0, 30) (mean 7.5), so bigger sets of strong neighbours score best, as in BIC
    caches.  Built in blocks of variables: n = 10,000 with 200..500 candidates each
    (3.2 million) takes a few seconds and little memory beyond the cache.
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if isinstance(per_variable, (tuple, list)):
        counts = rng.integers(per_variable[0], per_variable[1] + 1, size=n)
    else:
        counts = np.full(n, int(per_variable))
    counts = np.maximum(counts, 1)
    k = max(0, min(max_parents, n - 1))
    line = rng.permutation(n)                     # variable at each line position
    where = np.empty(n, dtype=np.int64)
    where[line] = np.arange(n)
    half = max(1, min(neighbourhood, n - 1) // 2)
    mix = np.uint64(int(rng.integers(0, 2**62)))
    base = -rng.uniform(500.0, 5000.0, size=n)
    blocks = []
    step = max(1, 200_000 // max(1, int(counts.mean())))
    for lo in range(0, n, step):
        fam = np.repeat(np.arange(lo, min(n, lo + step)), counts[lo:lo + step] - 1)
        if k and len(fam):
            blocks.append(_sparse_block(rng, fam, n, k, line, where, half, far, mix, base))
    if blocks:
        fam, par, size, sc = (np.concatenate(x) for x in zip(*blocks))
    else:
        fam, par, size, sc = (np.zeros(0, np.int64), np.zeros((0, 1), np.int32),
                              np.zeros(0, np.int64), np.zeros(0))
    # CSR: per family, the empty set first, then its non-empty sets
    per = np.bincount(fam, minlength=n) + 1
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(per, out=offsets[1:])
    m = int(offsets[-1])
    slot = offsets[fam] + 1 + (np.arange(len(fam)) - np.searchsorted(fam, np.arange(n))[fam])
    scores = np.empty(m)
    scores[offsets[:-1]] = base
    scores[slot] = sc
    sizes = np.zeros(m, dtype=np.int64)
    sizes[slot] = size
    ptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    items = np.empty(int(ptr[-1]), dtype=np.int32)
    mask = np.arange(par.shape[1])[None, :] < size[:, None]
    items[(ptr[slot][:, None] + np.arange(par.shape[1])[None, :])[mask]] = par[mask]
    names = [f"X{i}" for i in range(n)]
    return ScoreCache(names, offsets, scores, ptr, items,
                      meta={"generator": "lpbn.testing.random_sparse_cache"})


def _sparse_block(rng, fam, n, k, line, where, half, far, mix, base):
    """Parent sets (padded with n, sorted, distinct within the family) and scores of ``fam``."""
    M = len(fam)
    size = rng.integers(1, k + 1, size=M)
    off = rng.integers(1, half + 1, size=(M, k)) * (2 * rng.integers(0, 2, size=(M, k)) - 1)
    par = line[(where[fam][:, None] + off) % n]
    glob = rng.random((M, k)) < far
    par[glob] = rng.integers(0, n, size=int(glob.sum()))
    par[np.arange(k)[None, :] >= size[:, None]] = n   # beyond the drawn size: padding
    par[par == fam[:, None]] = n                      # no self parents
    par.sort(axis=1)
    par[:, 1:][par[:, 1:] == par[:, :-1]] = n         # repeated parents -> padding
    par.sort(axis=1)
    size = (par < n).sum(axis=1)
    # merge empty and duplicate sets of a family (order-free 64-bit set hash)
    h = np.random.default_rng(int(mix) & 0xFFFFFFFF).integers(0, 2**63, size=n + 1,
                                                              dtype=np.int64).astype(np.uint64)
    h[n] = 0
    key = h[par].sum(axis=1, dtype=np.uint64) ^ (fam.astype(np.uint64)
                                                 * np.uint64(0x9E3779B97F4A7C15))
    _, first = np.unique(key, return_index=True)
    first = first[size[first] > 0]
    first.sort()
    fam, par, size = fam[first], par[first], size[first]
    # symmetric pair strengths from a hash of the unordered pair
    a = np.minimum(fam[:, None], par).astype(np.uint64)
    b = np.maximum(fam[:, None], par).astype(np.uint64)
    z = a * np.uint64(2654435761) + b * np.uint64(0x9E3779B97F4A7C15) + mix
    z ^= z >> np.uint64(29)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(32)
    u = (z >> np.uint64(11)).astype(np.float64) / float(2**53)
    strength = np.where(par < n, 30.0 * u ** 3, 0.0).sum(axis=1)
    sc = base[fam] + strength - 6.0 * size + rng.normal(0.0, 2.0, size=len(fam))
    return fam, par.astype(np.int32), size, sc


def best_through_each_candidate(cache: ScoreCache) -> np.ndarray:
    """Per candidate j, the best score of a DAG that takes j (-inf if none does): the subset
    DP on the cache with j's variable restricted to j.  The brute-force reference for bounds
    per candidate (reduced-cost fixing: :func:`lpbn.dual.fixing.candidate_bounds`,
    :meth:`lpbn.lp.model.EtaLP.column_bounds`); for small caches only."""
    from .control import SolveControl
    from .dp import solve_dp
    out = np.full(cache.m, -np.inf)
    for j in range(cache.m):
        i = int(cache.family[j])
        keep = np.ones(cache.m, dtype=bool)
        keep[cache.offsets[i]:cache.offsets[i + 1]] = False
        keep[j] = True
        res = solve_dp(cache.select(keep), SolveControl())
        if res.dag is not None and np.isfinite(res.score):
            out[j] = res.score
    return out


def random_dags(cache: ScoreCache, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Candidate choices (one index per variable) of ``count`` random DAGs of ``cache``: a
    random order, then for each variable a random candidate whose parents all precede it —
    the points on which property tests check that a cut is valid."""
    out = []
    pos = np.empty(cache.n, dtype=np.int64)
    for _ in range(count):
        order = rng.permutation(cache.n)
        pos[order] = np.arange(cache.n)
        choice = []
        for i in range(cache.n):
            ok = [j for j in cache.family_range(i) if all(pos[p] < pos[i] for p in cache.parents(j))]
            choice.append(ok[int(rng.integers(len(ok)))])
        out.append(np.array(choice))
    return out
