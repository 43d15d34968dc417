"""{0, 1/2}-Chvátal–Gomory cuts for the η ILP (Caprara & Fischetti 1996).

At the end of cluster separation the LP point η* satisfies every cluster inequality (eq. 6)
and is still far from the optimum on some caches: on bnlearn's alarm and hailfinder (N =
20,000) it is half-integral, variables taking half of one parent set and half of another in
2-cycles and 3-cliques (results/bnlearn20000).  Such points are cut off by {0, 1/2}-CG cuts:
add up a set of valid rows ``a_r η <= b_r`` with weight 1/2 each, and round,

    Σ_j ⌊½ Σ_r a_rj⌋ η_j  <=  ⌊½ Σ_r b_r⌋,

valid for every integral η >= 0 satisfying the rows (the left side is an integer below
½ Σ_r a_r η).  It is violated by η* by ``(1 - Σ_r slack_r - Σ_{odd j} cost_j) / 2`` when the
rows' right sides add up to an odd number; a column j whose combined coefficient is odd costs
η*_j (rounded down through η_j >= 0) or 1 - η*_j (through η_j <= 1, which adds one to the
right side).  The 2-cluster inequality of three variables (Cussens et al., JAIR 2017) is the
sum of the three pairs' cluster rows, rounded this way.

Separation here takes the zero-cost combinations: the rows are the convexity rows
(Σ_s η_i(s) <= 1) and the cluster rows tight at η* (−Σ_{i∈C} Σ_{s∩C=∅} η_i(s) <= −1),
columns with η* at 0 or 1 are free (bound rows with no slack), and a combination must give
every fractional column an even coefficient.  Those combinations are the left null space of
the rows' incidence matrix on the fractional columns over GF(2); each basis vector with an
odd right side is a cut violated by 1/2 (found by Gaussian elimination mod 2).  Only rows
valid for every DAG of the cache enter, so the cuts are global (valid in every node and for
every DAG, not only the best).

When no zero-cost combination is left, ``slack`` > 0 widens the search in the way of Koster,
Zymolka & Kutschka (Algorithmica 2009, the preprocessing of their {0, 1/2} separation): rows
with slack below ``slack`` may enter, and columns with η* within ``slack`` of 0 or 1 count as
integral, each paying its slack, η*_j or 1 - η*_j in the violation formula above.  Every
combination is rounded as before and kept only when η* violates it (by ``min_violation``), so
the cuts stay valid whatever the heuristic picks; a cost above 1 only means no cut.
"""

from __future__ import annotations

import numpy as np

from ..cache import ScoreCache
from .clusters import cluster_activity, cluster_rows_csr

#: η at most this far from 0 or 1 counts as integral (its bound row has no slack).
INTEGRAL_TOL = 1e-6
#: A cut is kept when η* violates it by more than this.
MIN_VIOLATION = 1e-6
#: No separation when the GF(2) elimination table (rows x (fractional columns + rows)) would
#: be larger than this (a point with thousands of fractional columns on a wide cache).
MAX_ELIMINATION_CELLS = 25_000_000


def zero_half_cuts(cache: ScoreCache, eta: np.ndarray, clusters: np.ndarray, *,
                   extra: list[tuple[np.ndarray, np.ndarray, float]] | None = None,
                   max_cuts: int = 200, slack: float = 0.0,
                   min_violation: float = MIN_VIOLATION) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Violated {0, 1/2}-CG cuts at ``eta`` from the convexity rows, the cluster rows of
    ``clusters`` ((K, W) bitsets) and the integral rows ``extra`` (earlier cuts, which makes
    the cuts of rank two and more) tight at ``eta`` (or, with ``slack`` > 0, nearly tight,
    with nearly integral columns counted as integral; see the module docstring): a list of
    ``(columns, coefficients, rhs)`` for rows ``Σ coefficients · η[columns] <= rhs``
    violated by more than ``min_violation``, sparsest combinations first, at most
    ``max_cuts``; none when the elimination would exceed MAX_ELIMINATION_CELLS."""
    eta = np.asarray(eta, dtype=np.float64)
    near = max(float(slack), INTEGRAL_TOL)
    rows = _tight_rows(cache, eta, clusters, extra or [], near)
    frac = np.flatnonzero((eta > near) & (eta < 1.0 - near))
    if len(rows) * (len(rows) + len(frac)) > MAX_ELIMINATION_CELLS:
        return []
    at_one = eta >= 1.0 - near
    combos = _odd_even_combinations(rows, frac, at_one, cache.m)
    cuts = []
    for combo in combos[np.argsort(combos.sum(axis=1), kind="stable")]:
        cut = _rounded_cut(rows, np.flatnonzero(combo), at_one, cache.m)
        cols, coef, rhs = cut
        if float(coef @ eta[cols]) > rhs + min_violation:
            cuts.append(cut)
            if len(cuts) >= max_cuts:
                break
    return cuts


class _Rows:
    """The rows ``Σ val · η[idx] <= rhs`` a combination may use (CSR, integral values)."""

    def __init__(self, blocks: list[tuple[np.ndarray, np.ndarray, int]]):
        lens = np.array([len(i) for i, _, _ in blocks], dtype=np.int64)
        self.ptr = np.zeros(len(blocks) + 1, dtype=np.int64)
        np.cumsum(lens, out=self.ptr[1:])
        self.idx = np.concatenate([i for i, _, _ in blocks]).astype(np.int64)
        self.val = np.concatenate([v for _, v, _ in blocks]).astype(np.int64)
        self.rhs = np.array([r for _, _, r in blocks], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.rhs)


def _tight_rows(cache: ScoreCache, eta: np.ndarray, clusters: np.ndarray,
                extra: list[tuple[np.ndarray, np.ndarray, float]], near: float = INTEGRAL_TOL) -> _Rows:
    """Convexity rows (+1, rhs 1), and the cluster rows (−1, rhs −1) and ``extra`` rows
    with slack at most ``near`` at ``eta``."""
    off = cache.offsets.tolist()
    blocks = [(np.arange(off[i], off[i + 1]), np.ones(off[i + 1] - off[i]), 1) for i in range(cache.n)]
    if len(clusters):
        tight = np.asarray(clusters)[cluster_activity(cache, eta, clusters) <= 1.0 + near]
        ptr, idx = cluster_rows_csr(cache, tight)
        for c in range(len(tight)):
            cols = idx[ptr[c]:ptr[c + 1]]
            blocks.append((cols, -np.ones(len(cols)), -1))
    for cols, coef, rhs in extra:
        if float(coef @ eta[cols]) >= rhs - near:
            blocks.append((cols, coef, int(round(rhs))))
    return _Rows(blocks)


def _odd_even_combinations(rows: _Rows, frac: np.ndarray, at_one: np.ndarray, m: int) -> np.ndarray:
    """Row subsets (bool rows) that give every fractional column an even coefficient and an
    odd right side (after the bound rows η_j <= 1 that even out the columns at 1)."""
    R = len(rows)
    pos = np.full(m, -1, dtype=np.int64)
    pos[frac] = np.arange(len(frac))
    owner = np.repeat(np.arange(R), np.diff(rows.ptr))
    odd = rows.val % 2 != 0
    col = pos[rows.idx]
    hit = (col >= 0) & odd
    M = np.zeros((R, len(frac)), dtype=bool)
    np.logical_xor.at(M, (owner[hit], col[hit]), True)
    ones = np.bincount(owner[odd], weights=at_one[rows.idx[odd]].astype(np.float64),
                       minlength=R).astype(np.int64)
    odd_rhs = ((rows.rhs + ones) % 2).astype(bool)
    null = _left_null_space_gf2(M)
    return null[(null & odd_rhs[None, :]).sum(axis=1) % 2 == 1]


def _left_null_space_gf2(M: np.ndarray) -> np.ndarray:
    """A basis (bool rows) of {y : y M = 0 over GF(2)} by Gaussian elimination on [M | I]."""
    R, F = M.shape
    A = np.concatenate([M, np.eye(R, dtype=bool)], axis=1)
    rank = 0
    for c in range(F):
        if rank == R:
            break
        piv = np.flatnonzero(A[rank:, c])
        if len(piv) == 0:
            continue
        p = rank + int(piv[0])
        if p != rank:
            A[[rank, p]] = A[[p, rank]]
        others = np.flatnonzero(A[:, c])
        others = others[others != rank]
        A[others] ^= A[rank]
        rank += 1
    return A[rank:, F:]


def _rounded_cut(rows: _Rows, chosen: np.ndarray, at_one: np.ndarray, m: int
                 ) -> tuple[np.ndarray, np.ndarray, float]:
    """½ × (the chosen rows + the bound rows η_j <= 1 of the odd columns at 1), rounded down."""
    coef = np.zeros(m, dtype=np.int64)
    rhs = 0
    for r in chosen.tolist():
        a, b = rows.ptr[r], rows.ptr[r + 1]
        np.add.at(coef, rows.idx[a:b], rows.val[a:b])
        rhs += int(rows.rhs[r])
    odd_one = np.flatnonzero(at_one & (coef % 2 != 0))
    coef[odd_one] += 1
    rhs += len(odd_one)
    coef = np.floor_divide(coef, 2)
    cols = np.flatnonzero(coef)
    return cols, coef[cols].astype(np.float64), float(rhs // 2)
