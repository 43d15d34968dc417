"""Local cuts: inequalities of the family-variable polytope of k variables, lifted to the cache.

For a set S of k variables, restricting a DAG to S (each i in S keeps P_i ∩ S as parents) gives
a DAG on S.  So the projection of the family-variable polytope onto the coordinates
q_i(T) = Σ_{P: P ∩ S = T} η_i(P) (i in S, T ⊆ S \\ {i}) lies in the family-variable polytope of
k nodes, the convex hull of the DAGs on S (25 for k = 3, 543 for k = 4, 29,281 for k = 5), and
every valid inequality y·q <= z of that small polytope gives a valid row of the cache's LP:

    Σ_{i in S} Σ_{P in cand(i)} y_i(P ∩ S) · η_i(P) <= z.

Cluster inequalities of clusters inside S and k-cluster inequalities are among these rows;
Cussens, Järvisalo, Korhonen & Bartlett (2017, "Bayesian network structure learning with
integer programming: polytopes, facets and complexity", JAIR 58) list the facets of the
4-node polytope, most of them neither.  Instead of a facet list, separation solves the target
LP of Applegate, Bixby, Chvátal & Cook's local cuts ("TSP cuts which do not conform to the
template paradigm", 2001) over the projection: max y·q - z subject to y·a_G <= z for every
DAG G on S and -1 <= y <= 1, reduced to the projection's support (:class:`TargetLP`).  A
positive optimum is a most violated valid row for that normalisation.

Which sets: those around the LP point's fractional structure — each variable with up to
``neighbours`` variables of largest edge marginal (Σ of η over the candidates that hold the
arc, either direction) and every (k - 1)-subset of them.

On the explored accidents cache (111 variables, 97,151 candidates), where the HiGHS root's
cut loop moves the bound by 9 in five minutes at its tail (-348,766 -> -348,775, gap 0.88%
against ASOBS's DAG; the k-clusters and {0, 1/2}-cuts stop below a 1% gap), five more minutes
with local cuts of k = 4 (658 rows) move it to -349,566 (results/scale/README.md).  Five
variables cut much deeper where four have run dry: at connect4's stalled root (-233,254 after
180 s, 4 violated 4-variable sets of ~2,500, the largest violation 0.036), 72 of 1,521
5-variable sets are violated (up to 1.26), and one round of them lowers the bound by 60.

The rows have fractional coefficients: the {0, 1/2}-cut separation skips them
(:mod:`lpbn.lp.zero_half` combines integral rows only).
"""
from __future__ import annotations

import itertools
from functools import lru_cache

import highspy
import numpy as np

from ..bitsets import csr_to_bitsets, to_bitset
from ..cache import ScoreCache, gather_csr
from .highs_session import new_highs, run
from ..tuning import LOCAL_CUTS_MIN_VIOLATION as MIN_VIOLATION, LOCAL_CUTS_NEIGHBOURS as NEIGHBOURS


#: The family polytopes whose rows are separated: DAGs on 3, 4 or 5 nodes (25, 543, 29,281).
SIZES = (3, 4, 5)


@lru_cache(maxsize=None)
def dag_vertices(k: int) -> tuple[np.ndarray, np.ndarray]:
    """The DAGs on k nodes as 0/1 rows over the coordinates (i, T), T ⊆ {0..k-1} \\ {i} a
    bitmask, and the coordinates' positions ``i * 2**k + T`` (the unused T ∋ i left out)."""
    G, coord = dag_coordinates(k), coordinates(k)
    A = np.zeros((len(G), len(coord)))
    A[np.arange(len(G))[:, None], G] = 1.0
    return A, coord


@lru_cache(maxsize=None)
def coordinates(k: int) -> np.ndarray:
    """The coordinates (i, T) of k nodes as positions ``i * 2**k + T``, T ∌ i."""
    return np.array([i * (1 << k) + t for i in range(k) for t in range(1 << k) if not t >> i & 1])


@lru_cache(maxsize=None)
def dag_coordinates(k: int) -> np.ndarray:
    """The DAGs on k nodes, one row each: node i's coordinate as a position among
    :func:`coordinates`.  Every DAG has a topological order in which each node's
    parents precede it, so the DAGs are the parent choices from predecessors over all k!
    orders, without repeats (5 nodes: 122,880 choices, 29,281 DAGs)."""
    where = np.full(k << k, -1)
    where[coordinates(k)] = np.arange(len(coordinates(k)))
    rows = set()
    for perm in itertools.permutations(range(k)):
        choices = []
        for pos, v in enumerate(perm):
            before = sum(1 << u for u in perm[:pos])
            choices.append([v * (1 << k) + t for t in range(1 << k) if t & ~before == 0])
        rows.update(itertools.product(*(choices[perm.index(i)] for i in range(k))))
    return where[np.array(sorted(rows))]


class TargetLP:
    """max y·q - z s.t. y·a_G - z <= 0 for every DAG G on k nodes, -1 <= y <= 1, reduced to
    the coordinates in q's support (and each node's empty set).

    A coordinate outside the support has no cost, and lowering its y only relaxes the rows,
    so y = -1 there loses nothing; then a row whose DAG uses such a coordinate (i, T) is
    implied by the row of the DAG with i's parents emptied (a DAG too, and y_i(∅) >= -1).
    So the LP over the support's coordinates and the DAGs that use only those and empty sets
    has the full LP's optimum (connect4's root, k = 5: ~280 of 29,281 rows, 19 of 80
    columns; 1,521 projections in 5.5 s against 108 s over every DAG).  The optimal y is then
    lifted by ``ŷ_i(T) = max over allowed T' ⊆ T of y_i(T')``: still valid (a DAG with each node's
    parents cut down to such a T' is a DAG of the rows) and never smaller, so the cut is
    at least as violated, and sparse (a candidate whose projection's best allowed subset is
    the empty set gets coefficient 0 in :func:`local_cut`)."""

    def __init__(self, k: int):
        self.coord = coordinates(k)
        self.k, self.d = k, len(self.coord)
        self.rows = dag_coordinates(k)
        ptr = np.arange(0, self.rows.size + 1, k)
        bits = csr_to_bitsets(ptr, self.rows.ravel(), self.d)
        self.row_bits = np.ascontiguousarray(bits.T)                 # word-major
        self.empty = np.searchsorted(self.coord, np.arange(k) * (1 << k))
        self.h = new_highs()
        self.h.setOptionValue("presolve", "off")     # 3 -> 2 ms a projection

    def separate(self, q: np.ndarray) -> tuple[float, np.ndarray, float]:
        """(violation, y over the k * 2**k coordinates, z) for the projection ``q`` (over
        the same coordinates); the violation is that of the lifted y."""
        k, used = self.k, q[self.coord]
        allowed = used > 1e-12
        allowed[self.empty] = True
        cols = np.flatnonzero(allowed)
        outside = ~to_bitset(cols, self.d)
        hit = self.row_bits[0] & outside[0]
        for word in range(1, len(outside)):
            hit |= self.row_bits[word] & outside[word]
        rows = self.rows[hit == 0]              # the DAGs on allowed coordinates only
        pos = np.full(self.d, -1)
        pos[cols] = np.arange(len(cols))
        x = self._solve(used[cols], pos[rows], len(cols))
        if x is None:
            return 0.0, np.zeros(k << k), 0.0
        y = np.full(k << k, -np.inf)
        y[self.coord[cols]] = x[:-1]
        lifted = lift(y.reshape(k, 1 << k)).ravel()
        y = np.zeros(k << k)                     # 0 on the unused coordinates T ∋ i
        y[self.coord] = lifted[self.coord]
        z = float(x[-1])
        return float(y @ q) - z, y, z

    def _solve(self, cost: np.ndarray, rows: np.ndarray, nc: int) -> np.ndarray | None:
        """The reduced LP's optimal (y, z): columns y (box) and z (free); each row puts 1 on
        its DAG's k columns and -1 on z, <= 0."""
        inf = highspy.kHighsInf
        nr, k = rows.shape
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = nc + 1, nr
        lp.col_cost_ = np.r_[cost, -1.0]
        lp.col_lower_ = np.r_[-np.ones(nc), -inf]
        lp.col_upper_ = np.r_[np.ones(nc), inf]
        lp.row_lower_ = np.full(nr, -inf)
        lp.row_upper_ = np.zeros(nr)
        lp.sense_ = highspy.ObjSense.kMaximize
        a = lp.a_matrix_
        a.format_ = highspy.MatrixFormat.kRowwise
        a.start_ = np.arange(0, (k + 1) * nr + 1, k + 1, dtype=np.int32)
        a.index_ = np.c_[rows, np.full(nr, nc)].ravel().astype(np.int32)
        a.value_ = np.c_[np.ones((nr, k)), -np.ones(nr)].ravel()
        lp.a_matrix_ = a
        self.h.passModel(lp)
        run(self.h)
        if self.h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        return np.asarray(self.h.getSolution().col_value)


def lift(y: np.ndarray) -> np.ndarray:
    """Per node (rows of ``y``, over the bitmasks T): ŷ(T) = max of y(T') over T' ⊆ T (the
    subset-max transform of :mod:`lpbn.dp_kernels`; -inf marks a coordinate without a value of
    its own)."""
    from ..dp_kernels import subset_max_transform
    y = np.array(y, dtype=np.float64)
    for row in y:
        subset_max_transform(row)
    return y


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
