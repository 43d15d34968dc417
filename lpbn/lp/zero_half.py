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

A combination's parity depends on the rows' entries in the fractional columns and the columns
at 1 only, that is on the support of η*, so the elimination sees each row there only (an LP
point is sparse: munin1-5000 has ~300 of 18,756 columns in it, while a cluster row or an earlier
cut may hold thousands); the whole rows are built for the chosen combinations alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..cache import ScoreCache
from .clusters import cluster_activity, cluster_rows_csr, cluster_rows_on
from .general_rows import GeneralRows
from ..tuning import MAX_ELIMINATION_CELLS

#: η at most this far from 0 or 1 counts as integral (its bound row has no slack).
INTEGRAL_TOL = 1e-6
#: A cut is kept when η* violates it by more than this.
MIN_VIOLATION = 1e-6

#: Kinds of the rows a combination may use.
CONVEXITY, CLUSTER, EXTRA = 0, 1, 2


def zero_half_cuts(cache: ScoreCache, eta: np.ndarray, clusters: np.ndarray, *,
                   extra: GeneralRows | list[tuple[np.ndarray, np.ndarray, float]] | None = None,
                   max_cuts: int = 200, slack: float = 0.0,
                   min_violation: float = MIN_VIOLATION,
                   derivations: list | None = None,
                   upper_rows: bool = True) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Violated {0, 1/2}-CG cuts at ``eta`` from the convexity rows, the cluster rows of
    ``clusters`` ((K, W) bitsets) and the integral rows ``extra`` (earlier cuts, which makes
    the cuts of rank two and more) tight at ``eta`` (or, with ``slack`` > 0, nearly tight,
    with nearly integral columns counted as integral; see the module docstring): a list of
    ``(columns, coefficients, rhs)`` for rows ``Σ coefficients · η[columns] <= rhs``
    violated by more than ``min_violation``, sparsest combinations first, at most
    ``max_cuts``; none when the elimination would exceed MAX_ELIMINATION_CELLS.

    ``derivations``: when a list, each returned cut's :class:`Derivation` is appended to it
    (None for a cut that combines ``extra`` rows), so that the cut can be extended to parent
    sets outside the cache (:func:`derived_row`, :mod:`lpbn.pricing`).  ``upper_rows=False``
    uses no bound row η_j <= 1: the columns at 1 need an even coefficient like the fractional
    ones, so that every coefficient is the :class:`Derivation`'s a(i, S), a function of the
    family alone."""
    eta = np.asarray(eta, dtype=np.float64)
    clusters = np.asarray(clusters, dtype=np.uint64)
    extra = extra if isinstance(extra, GeneralRows) else GeneralRows(extra or [])
    near = max(float(slack), INTEGRAL_TOL)
    sup = np.flatnonzero(eta > near)             # the fractional columns and the columns at 1
    rows = _tight_rows(cache, eta, clusters, extra, near, sup)
    frac = eta[sup] < 1.0 - near if upper_rows else np.ones(len(sup), dtype=bool)
    if len(rows) * (len(rows) + int(frac.sum())) > MAX_ELIMINATION_CELLS:
        return []
    combos = _odd_even_combinations(rows, frac)
    at_one = eta >= 1.0 - near if upper_rows else np.zeros(len(eta), dtype=bool)
    cuts = []
    cluster_rows: dict[int, np.ndarray] = {}     # the rows' candidates, shared by the combinations
    for combo in combos[np.argsort(combos.sum(axis=1), kind="stable")]:
        chosen = np.flatnonzero(combo)
        cut = _rounded_cut(cache, rows, chosen, at_one, clusters, extra, cluster_rows)
        cols, coef, rhs = cut
        if float(coef @ eta[cols]) > rhs + min_violation:
            cuts.append(cut)
            if derivations is not None:
                derivations.append(_derivation(rows, chosen, clusters, rhs))
            if len(cuts) >= max_cuts:
                break
    return cuts


@dataclass(frozen=True)
class Derivation:
    """How a rank-one {0, 1/2}-cut was combined: the convexity rows of the variables ``conv``
    and the eq. 6 rows of the clusters ``clusters`` ((T, W) bitsets), halved and rounded,
    with right side ``rhs``.  The same combination gives every parent set S of a variable i,
    in the cache or not, the coefficient

        a(i, S) = ⌊(|{i} ∩ conv| − #{C ∈ clusters : i ∈ C, S ∩ C = ∅}) / 2⌋,

    a valid Chvátal–Gomory row over any set of columns (each term is an integral row, and
    rounding a column's coefficient down only uses η >= 0).  Separated with
    ``upper_rows=False`` (no bound row η <= 1), the cut is exactly this row over the cache.
    a(i, S) never falls as S grows (a cluster hit stays hit), which pricing relies on
    (:mod:`lpbn.pricing`)."""

    conv: np.ndarray
    clusters: np.ndarray
    rhs: float


def _derivation(rows: "_Rows", chosen: np.ndarray, clusters: np.ndarray, rhs: float) -> Derivation | None:
    """The :class:`Derivation` of the cut combining ``rows[chosen]`` (None when it uses an
    ``extra`` row: an earlier cut or a local cut, whose extension is not recorded)."""
    kinds, refs = rows.kind[chosen], rows.ref[chosen]
    if np.any(kinds == EXTRA):
        return None
    return Derivation(np.sort(refs[kinds == CONVEXITY]).astype(np.int64),
                      np.ascontiguousarray(clusters[np.sort(refs[kinds == CLUSTER])], dtype=np.uint64), float(rhs))


def derived_row(cache: ScoreCache, d: Derivation) -> tuple[np.ndarray, np.ndarray, float]:
    """The cut of ``d`` over the candidates of ``cache`` (:class:`Derivation`'s a(i, S)):
    ``(columns, coefficients, rhs)`` of ``Σ a · η[columns] <= rhs``."""
    coef = np.zeros(cache.m, dtype=np.int64)
    off = cache.offsets
    for v in d.conv.tolist():
        coef[off[v]:off[v + 1]] += 1
    if len(d.clusters):
        ptr, idx = cluster_rows_csr(cache, d.clusters)
        coef -= np.bincount(idx, minlength=cache.m)
    coef = np.floor_divide(coef, 2)
    cols = np.flatnonzero(coef)
    return cols, coef[cols].astype(np.float64), float(d.rhs)


class _Rows:
    """The rows ``Σ val · η[idx] <= rhs`` a combination may use, each restricted to the
    support of η (CSR over positions in that support, integral values), with the kind
    (CONVEXITY, CLUSTER, EXTRA) and the variable, cluster or extra row it came from."""

    def __init__(self, blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]]):
        # each block: (ptr, local idx, val, rhs, ref, kind) of a run of rows of one kind
        lens = np.concatenate([np.diff(b[0]) for b in blocks])
        self.ptr = np.zeros(len(lens) + 1, dtype=np.int64)
        np.cumsum(lens, out=self.ptr[1:])
        self.idx = np.concatenate([b[1] for b in blocks]).astype(np.int64)
        self.val = np.concatenate([b[2] for b in blocks]).astype(np.int64)
        self.rhs = np.concatenate([b[3] for b in blocks]).astype(np.int64)
        self.ref = np.concatenate([b[4] for b in blocks]).astype(np.int64)
        self.kind = np.concatenate([np.full(len(b[4]), b[5], dtype=np.int8) for b in blocks])

    def __len__(self) -> int:
        return len(self.rhs)


def _tight_rows(cache: ScoreCache, eta: np.ndarray, clusters: np.ndarray, extra: GeneralRows,
                near: float, sup: np.ndarray) -> _Rows:
    """Convexity rows (+1, rhs 1), and the cluster rows (−1, rhs −1) and ``extra`` rows
    with slack at most ``near`` at ``eta``, each over the support columns ``sup`` only."""
    n = cache.n
    pos = np.full(cache.m, -1, dtype=np.int64)
    pos[sup] = np.arange(len(sup))
    fam = cache.family[sup]
    conv_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(fam, minlength=n), out=conv_ptr[1:])
    conv_idx = np.argsort(fam, kind="stable")
    blocks = [(conv_ptr, conv_idx, np.ones(len(sup)), np.ones(n), np.arange(n), CONVEXITY)]
    if len(clusters):
        tight = np.flatnonzero(cluster_activity(cache, eta, clusters) <= 1.0 + near)
        ptr, idx = cluster_rows_on(cache, clusters[tight], sup)
        blocks.append((ptr, pos[idx], -np.ones(len(idx)), -np.ones(len(tight)), tight, CLUSTER))
    if len(extra):
        on = np.flatnonzero((extra.activity(eta) >= extra.rhs - near) & (extra.rhs == np.rint(extra.rhs)))
        parts, integral = [], []
        for r in on.tolist():
            cols, coef, _ = extra[r]
            if np.any(coef != np.rint(coef)):
                continue           # a row with fractional coefficients (a local cut): no parity
            integral.append(r)
            loc = pos[cols]
            keep = loc >= 0
            parts.append((loc[keep], coef[keep]))
        on = np.array(integral, dtype=np.int64)
        ptr = np.zeros(len(on) + 1, dtype=np.int64)
        np.cumsum([len(p[0]) for p in parts], out=ptr[1:])
        idx = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        val = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
        blocks.append((ptr, idx, val, np.rint(extra.rhs[on]), on, EXTRA))
    return _Rows(blocks)


def _odd_even_combinations(rows: _Rows, frac: np.ndarray) -> np.ndarray:
    """Row subsets (bool rows) that give every fractional column an even coefficient and an
    odd right side (after the bound rows η_j <= 1 that even out the columns at 1); ``frac``
    marks the fractional ones among the support columns the rows are over (the rest are at 1)."""
    R = len(rows)
    pos = np.full(len(frac), -1, dtype=np.int64)
    pos[frac] = np.arange(int(frac.sum()))
    owner = np.repeat(np.arange(R), np.diff(rows.ptr))
    odd = rows.val % 2 != 0
    col = pos[rows.idx]
    hit = (col >= 0) & odd
    M = np.zeros((R, int(frac.sum())), dtype=bool)
    np.logical_xor.at(M, (owner[hit], col[hit]), True)
    ones = np.bincount(owner[odd], weights=(~frac[rows.idx[odd]]).astype(np.float64),
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


def _rounded_cut(cache: ScoreCache, rows: _Rows, chosen: np.ndarray, at_one: np.ndarray,
                 clusters: np.ndarray, extra: GeneralRows,
                 cluster_rows: dict[int, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """½ × (the chosen rows, whole, + the bound rows η_j <= 1 of the odd columns at 1),
    rounded down.  ``cluster_rows`` keeps each cluster row's candidates across calls (the
    combinations of one separation share most of their clusters: on connect4's root the
    rows were rebuilt for every cut, 4 of its 60 s)."""
    coef = np.zeros(cache.m, dtype=np.int64)
    off = cache.offsets
    rhs = int(rows.rhs[chosen].sum())
    in_clusters = []
    for r in chosen.tolist():
        kind, ref = int(rows.kind[r]), int(rows.ref[r])
        if kind == CONVEXITY:
            coef[off[ref]:off[ref + 1]] += 1
        elif kind == CLUSTER:
            in_clusters.append(ref)
        else:
            cols, val, _ = extra[ref]
            np.add.at(coef, cols, np.rint(val).astype(np.int64))
    if in_clusters:
        known = {} if cluster_rows is None else cluster_rows
        missing = [c for c in in_clusters if c not in known]
        if missing:
            ptr, idx = cluster_rows_csr(cache, clusters[np.array(missing)])
            for t, c in enumerate(missing):
                known[c] = idx[ptr[t]:ptr[t + 1]]
        coef -= np.bincount(np.concatenate([known[c] for c in in_clusters]), minlength=cache.m)
    odd_one = np.flatnonzero(at_one & (coef % 2 != 0))
    coef[odd_one] += 1
    rhs += len(odd_one)
    coef = np.floor_divide(coef, 2)
    cols = np.flatnonzero(coef)
    return cols, coef[cols].astype(np.float64), float(rhs // 2)
