"""Local cuts: inequalities of the family-variable polytope of k variables, lifted to the cache.

For a set S of k variables, restricting a DAG to S (each i in S keeps P_i ∩ S as parents) gives
a DAG on S.  So the projection of the family-variable polytope onto the coordinates
q_i(T) = Σ_{P: P ∩ S = T} η_i(P) (i in S, T ⊆ S \\ {i}) lies in the family-variable polytope of
k nodes, the convex hull of the DAGs on S (25 for k = 3, 543 for k = 4), and every valid
inequality y·q <= z of that small polytope gives a valid row of the cache's LP:

    Σ_{i in S} Σ_{P in cand(i)} y_i(P ∩ S) · η_i(P) <= z.

Cluster inequalities of clusters inside S and k-cluster inequalities are among these rows;
Cussens, Järvisalo, Korhonen & Bartlett (2017, "Bayesian network structure learning with
integer programming: polytopes, facets and complexity", JAIR 58) list the facets of the
4-node polytope, most of them neither.  Instead of a facet list, separation solves the target
LP of Applegate, Bixby, Chvátal & Cook's local cuts ("TSP cuts which do not conform to the
template paradigm", 2001) over the projection: max y·q - z subject to y·a_G <= z for every
DAG G on S and -1 <= y <= 1 (one HiGHS model per k, only its costs change between sets).  A
positive optimum is a most violated valid row for that normalisation.

Which sets: those around the LP point's fractional structure — each variable with up to
``neighbours`` variables of largest edge marginal (Σ of η over the candidates that hold the
arc, either direction) and every (k - 1)-subset of them.

On the explored accidents cache (111 variables, 97,151 candidates), where the HiGHS root's
cut loop moves the bound by 9 in five minutes at its tail (-348,766 -> -348,775, gap 0.88%
against ASOBS's DAG; the k-clusters and {0, 1/2}-cuts stop below a 1% gap), five more minutes
with local cuts of k = 4 (658 rows) move it to -349,566 (results/scale/README.md).

The rows have fractional coefficients: the {0, 1/2}-cut separation skips them
(:mod:`lpbn.lp.zero_half` combines integral rows only).
"""
from __future__ import annotations

import itertools
from functools import lru_cache

import highspy
import numpy as np

from ..cache import ScoreCache, gather_csr
from .highs_session import new_highs, run

#: Smallest violation (in the box normalisation -1 <= y <= 1) a local cut must have.
MIN_VIOLATION = 1e-3
#: Variables of largest edge marginal that each variable's sets are drawn from.
NEIGHBOURS = 6


@lru_cache(maxsize=None)
def dag_vertices(k: int) -> tuple[np.ndarray, np.ndarray]:
    """The DAGs on k nodes as 0/1 rows over the coordinates (i, T), T ⊆ {0..k-1} \\ {i} a
    bitmask, and the coordinates' positions ``i * 2**k + T`` (the unused T ∋ i left out)."""
    rows = []
    for ps in itertools.product(range(1 << k), repeat=k):
        if any(ps[i] >> i & 1 for i in range(k)) or not _acyclic(ps, k):
            continue
        rows.append([i * (1 << k) + t for i, t in enumerate(ps)])
    coord = np.array([i * (1 << k) + t for i in range(k) for t in range(1 << k) if not t >> i & 1])
    where = np.full(k << k, -1)
    where[coord] = np.arange(len(coord))
    A = np.zeros((len(rows), len(coord)))
    for g, r in enumerate(rows):
        A[g, where[r]] = 1.0
    return A, coord


def _acyclic(ps: tuple[int, ...], k: int) -> bool:
    left = (1 << k) - 1
    while left:
        sources = [i for i in range(k) if left >> i & 1 and not ps[i] & left]
        if not sources:
            return False
        for i in sources:
            left &= ~(1 << i)
    return True


class TargetLP:
    """max y·q - z s.t. y·a_G - z <= 0 for every DAG G on k nodes, -1 <= y <= 1: one HiGHS
    model whose costs change per projection (warm-started from the last basis)."""

    def __init__(self, k: int):
        A, self.coord = dag_vertices(k)
        self.k, self.d = k, A.shape[1]
        h = new_highs()
        inf = highspy.kHighsInf
        h.addVars(self.d + 1, np.r_[-np.ones(self.d), -inf], np.r_[np.ones(self.d), inf])
        M = np.hstack([A, -np.ones((A.shape[0], 1))])
        nz = np.nonzero(M)
        ptr = np.searchsorted(nz[0], np.arange(A.shape[0] + 1))
        h.addRows(A.shape[0], np.full(A.shape[0], -inf), np.zeros(A.shape[0]), len(nz[0]),
                  ptr[:-1].astype(np.int32), nz[1].astype(np.int32), M[nz])
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self.h = h

    def separate(self, q: np.ndarray) -> tuple[float, np.ndarray, float]:
        """(violation, y over the k * 2**k coordinates, z) for the projection ``q`` (over
        the same coordinates)."""
        cost = np.r_[q[self.coord], -1.0]
        self.h.changeColsCost(self.d + 1, np.arange(self.d + 1, dtype=np.int32), cost)
        run(self.h)
        if self.h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return 0.0, np.zeros(self.k << self.k), 0.0
        x = np.asarray(self.h.getSolution().col_value)
        y = np.zeros(self.k << self.k)
        y[self.coord] = x[:self.d]
        return float(self.h.getInfo().objective_function_value), y, float(x[self.d])


_TARGETS: dict[int, TargetLP] = {}


def _target(k: int) -> TargetLP:
    if k not in _TARGETS:
        _TARGETS[k] = TargetLP(k)
    return _TARGETS[k]


def _parents_of(cache: ScoreCache, cands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The parents of the candidates ``cands`` as (position in ``cands``, parent) pairs, from
    the CSR parent lists (``cache.bits`` would be gigabytes at 10,000 variables)."""
    lens = cache.pset_ptr[cands + 1] - cache.pset_ptr[cands]
    new_ptr = np.zeros(len(cands) + 1, dtype=np.int64)
    np.cumsum(lens, out=new_ptr[1:])
    items = gather_csr(cache.pset_ptr, cache.pset_items, cands, new_ptr)
    return np.repeat(np.arange(len(cands)), lens), items


def local_masks(cache: ScoreCache, S: tuple[int, ...], cands: np.ndarray) -> np.ndarray:
    """For candidates ``cands``: the bitmask of P ∩ S over S's positions."""
    owner, items = _parents_of(cache, cands)
    mask = np.zeros(len(cands), dtype=np.int64)
    for b, u in enumerate(S):
        mask[owner[items == u]] |= 1 << b        # a parent set holds u at most once
    return mask


def candidate_sets(cache: ScoreCache, eta: np.ndarray, k: int, neighbours: int = NEIGHBOURS,
                   tol: float = 1e-9) -> list[tuple[int, ...]]:
    """The k-sets to project on: each variable with every (k - 1)-subset of its ``neighbours``
    variables of largest edge marginal at η (Σ of η over the candidates holding the arc, either
    direction; a sparse count over the support, not the n x n matrix)."""
    sup = np.flatnonzero(eta > tol)
    owner, parent = _parents_of(cache, sup)
    child = cache.family[sup][owner]
    weight = eta[sup][owner]
    u, v = np.minimum(child, parent), np.maximum(child, parent)
    key = u.astype(np.int64) * cache.n + v
    keys, inv = np.unique(key, return_inverse=True)
    w = np.bincount(inv, weights=weight)
    a, b = keys // cache.n, keys % cache.n
    ends = np.r_[a, b]
    others = np.r_[b, a]
    ws = np.r_[w, w]
    order = np.lexsort((-ws, ends))
    ends, others = ends[order], others[order]
    start = np.searchsorted(ends, np.arange(cache.n + 1))
    sets = set()
    for x in range(cache.n):
        nb = others[start[x]:start[x + 1]][:neighbours].tolist()
        for rest in itertools.combinations(nb, k - 1):
            sets.add(tuple(sorted((x, *rest))))
    return sorted(sets)


def projection(cache: ScoreCache, eta: np.ndarray, S: tuple[int, ...], sup_by_var) -> np.ndarray:
    """q over the k * 2**k coordinates (i, T) of S, from the support of η."""
    k = len(S)
    q = np.zeros(k << k)
    for a, v in enumerate(S):
        c = sup_by_var[v]
        if len(c):
            np.add.at(q, a * (1 << k) + local_masks(cache, S, c), eta[c])
    return q


def local_cut(cache: ScoreCache, S: tuple[int, ...], y: np.ndarray, z: float):
    """The row Σ y_i(P ∩ S) η_i(P) <= z over the candidates of S's variables, shifted by the
    convexity rows so that a candidate with P ∩ S = ∅ has coefficient 0 (a sparse row)."""
    k = len(S)
    cols, coefs, rhs = [], [], z
    for a, v in enumerate(S):
        yy = y[a * (1 << k):(a + 1) * (1 << k)]
        rhs -= yy[0]
        r = cache.family_range(v)
        cands = np.arange(r.start, r.stop)
        cf = yy[local_masks(cache, S, cands)] - yy[0]
        nz = np.abs(cf) > 1e-12
        cols.append(cands[nz])
        coefs.append(cf[nz])
    return np.concatenate(cols), np.concatenate(coefs), float(rhs)


def local_cuts(cache: ScoreCache, eta: np.ndarray, k: int = 4, max_cuts: int = 100,
               neighbours: int = NEIGHBOURS, min_violation: float = MIN_VIOLATION, tol: float = 1e-9):
    """The most violated local cuts at η, at most ``max_cuts`` (cols, coef, rhs) rows, most
    violated first, from :func:`candidate_sets`."""
    eta = np.asarray(eta, dtype=np.float64)
    sup = np.flatnonzero(eta > tol)
    fam = cache.family[sup]
    order = np.argsort(fam, kind="stable")
    bounds = np.searchsorted(fam[order], np.arange(cache.n + 1))
    sup_by_var = [sup[order[bounds[v]:bounds[v + 1]]] for v in range(cache.n)]
    target = _target(k)
    found = []
    for S in candidate_sets(cache, eta, k, neighbours, tol):
        q = projection(cache, eta, S, sup_by_var)
        used = q[target.coord]
        if np.all((used < 1e-9) | (used > 1 - 1e-9)):
            continue         # an integral projection is a DAG on S: nothing to cut
        violation, y, z = target.separate(q)
        if violation > min_violation:
            found.append((violation, S, y, z))
    found.sort(key=lambda f: -f[0])
    return [local_cut(cache, S, y, z) for _, S, y, z in found[:max_cuts]]
