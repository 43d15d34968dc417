"""Heuristic separation of cluster constraints (Jaakkola et al. 2010, eq. 6), k-cluster
constraints (Cussens et al., JAIR 2017) and cycle inequalities (eq. 5).

At a fractional point η* the support graph has an edge j -> i with weight
μ_ji = Σ_{s∋j} η*_i(s) (eq. 3).  Candidates for violated rows come from it:

* **support graph** – its strongly connected components and its shortest cycles under the
  length 1 - μ are tried as clusters, and kept when eq. 6 is violated (:func:`cheap_clusters`);
* **greedy growth** – clusters grown from seeds by adding and removing the variable that
  lowers the eq. 6 activity most, with local search (:func:`grown_clusters`; the dual's eq. 20
  growth works on λ instead), and the same for k-clusters (:func:`grown_kclusters`);
* **k-clusters** of known clusters (:func:`separate_kclusters`);
* **cycle inequalities** (eq. 5), separated exactly by shortest cycles under 1 - μ
  (a cycle E_C is violated iff Σ_{E_C} (1 - μ) < 1).

Exact cluster separation is :mod:`lpbn.lp.exact_separation`; the loop that alternates LP
solves and separation is :func:`lpbn.lp.cut_loop.cut_loop`.  Both back ends use these
routines: the HiGHS ILP (:mod:`lpbn.highs`) and the dual's primal separation (:mod:`lpbn.dual`).
"""

from __future__ import annotations

import math

import numpy as np

from .. import bitsets as bs
from ..cache import ScoreCache
from . import numpy_kernels
from .clusters import cluster_activity
from .numpy_kernels import use_numpy
from ..tuning import TAIL_GAIN, TAIL_MIN_GAP, TAIL_ROUNDS
from ..tuning import LOCAL_TAIL_MIN_GAP, LOCAL_TIME_SHARE  # noqa: F401  (re-exported to the cut loops)

#: Violation (1 - activity of eq. 6, or excess of eq. 5) under which a row counts as satisfied.
VIOLATION_TOL = 1e-6
#: η values at or below this are treated as zero in support graphs and the sub-IP.
SUPPORT_TOL = 1e-9


# ---------------------------------------------------------------------- when to separate what
def tailing_off(values: list[float], best: float, rounds: int = TAIL_ROUNDS,
                min_gap: float = TAIL_MIN_GAP, gain: float = TAIL_GAIN) -> bool:
    """The bounds ``values`` (one per round, the current last) tail off against the incumbent
    score ``best``: the last ``rounds`` rounds gained less than ``gain`` (TAIL_GAIN) of a gap
    that is still above ``min_gap`` (TAIL_MIN_GAP) of the incumbent's score."""
    if len(values) <= rounds or not math.isfinite(best):
        return False
    gap = values[-1] - best
    return gap > min_gap * max(1.0, abs(best)) and values[-1 - rounds] - values[-1] < gain * gap


class TailBackoff:
    """Exponential back-off for the k-cluster separation beside tailing cluster rounds: after
    an attempt that found nothing, skip the next 1, 2, 4, ... tailing rounds (pathfinder-5000:
    each attempt grows clusters from 2n seeds and finds none, and trying in every tailing round
    made the dual's root 26 s -> 41 s); an attempt that finds rows resets it."""

    def __init__(self) -> None:
        self.wait = 0
        self.skip = 0

    def due(self) -> bool:
        """Whether to try in this tailing round."""
        if self.skip > 0:
            self.skip -= 1
            return False
        return True

    def found(self, added: int) -> None:
        """Record an attempt's yield."""
        self.wait = 0 if added else max(1, 2 * self.wait)
        self.skip = self.wait


# ---------------------------------------------------------------------- support graph
def edge_marginals(cache: ScoreCache, eta: np.ndarray) -> np.ndarray:
    """μ (n, n) with μ[j, i] = Σ_{s∋j} η_i(s), the edge marginals of eq. 3."""
    args = (cache.n, cache.family, cache.pset_ptr, cache.pset_items, np.asarray(eta, dtype=np.float64),
            SUPPORT_TOL)
    if use_numpy(cache.n):
        return numpy_kernels.edge_marginals(*args)
    from .kernels import edge_marginals as kernel
    return kernel(*args)


def scc_labels(adj: np.ndarray) -> tuple[np.ndarray, int]:
    """Strongly connected components of a dense boolean adjacency matrix (Tarjan 1972):
    (label per node, number of components); a numba kernel (numpy twin for small graphs
    while numba is not loaded), because separation calls it several times per LP round,
    where building a scipy sparse graph cost more than the search itself."""
    if use_numpy(adj.shape[0]):
        return numpy_kernels.scc_labels(adj)
    from .kernels import scc_labels as kernel
    return kernel(adj)


def strong_components(adj: np.ndarray) -> list[np.ndarray]:
    """Strongly connected components with >= 2 nodes of a boolean adjacency matrix."""
    n = adj.shape[0]
    if n == 0 or not adj.any():
        return []
    labels, k = scc_labels(np.ascontiguousarray(adj, dtype=np.bool_))
    sizes = np.bincount(labels, minlength=k)
    return [np.flatnonzero(labels == c) for c in np.flatnonzero(sizes >= 2)]


def _floyd_cycles(cost: np.ndarray, n: int):
    if use_numpy(n):
        return numpy_kernels.floyd_cycles(cost)
    from .kernels import floyd_cycles
    return floyd_cycles(cost)


def shortest_cycles(mu: np.ndarray, tol: float = SUPPORT_TOL, unit: bool = False) -> list[tuple[list[int], float]]:
    """Shortest directed cycle through each node of the support graph of μ.

    Length of an edge j -> i is ``1 - μ[j, i]`` (or 1 when ``unit``).  Returns distinct
    ``(cycle, length)`` pairs; a cycle is ``[v0, v1, ...]`` meaning v0 -> v1 -> ... -> v0.
    Only nodes of non-trivial strongly connected components are searched.
    """
    adj = mu > tol
    found: dict[tuple[int, ...], float] = {}
    for comp in strong_components(adj):
        sub = mu[np.ix_(comp, comp)]
        cost = np.where(sub > tol, 1.0 if unit else np.maximum(1.0 - sub, 0.0), np.inf)
        np.fill_diagonal(cost, np.inf)
        weights, flat = _floyd_cycles(cost, mu.shape[0])
        cyc: list[int] = []
        for v in flat:
            if v < 0:
                if len(cyc) >= 2:
                    glob = [int(comp[u]) for u in cyc]
                    r = glob.index(min(glob))
                    key = tuple(glob[r:] + glob[:r])
                    w = float(sum(1.0 if unit else 1.0 - mu[key[t], key[(t + 1) % len(key)]]
                                  for t in range(len(key))))
                    found[key] = w
                cyc = []
            else:
                cyc.append(int(v))
    return sorted(((list(c), w) for c, w in found.items()), key=lambda cw: cw[1])


# ---------------------------------------------------------------------- rows of eq. 5
def cycle_rows_csr(cache: ScoreCache, cycles: list[tuple[int, ...]]):
    """CSR rows (ptr, candidate indices, rhs) of the lifted cycle inequalities (eq. 5)."""
    ptrs = [0]
    chunks = []
    rhs = np.empty(len(cycles))
    fam = cache.family
    for r, cyc in enumerate(cycles):
        pred = np.full(cache.n, -1, dtype=np.int64)
        k = len(cyc)
        for t in range(k):
            pred[cyc[(t + 1) % k]] = cyc[t]
        sel = np.flatnonzero(pred[fam] >= 0)
        p = pred[fam[sel]]
        word = cache.bits[sel, p >> 6]
        hit = ((word >> (p & 63).astype(np.uint64)) & np.uint64(1)).astype(bool)
        chunk = sel[hit]
        chunks.append(chunk)
        ptrs.append(ptrs[-1] + len(chunk))
        rhs[r] = k - 1
    idx = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int64)
    return np.asarray(ptrs, dtype=np.int64), idx, rhs


def separate_cycles(cache: ScoreCache, eta: np.ndarray, tol: float = VIOLATION_TOL) -> list[list[int]]:
    """Violated lifted cycle inequalities (eq. 5) at η*, exactly: Σ_{E_C}(1 - μ) < 1 - tol."""
    mu = edge_marginals(cache, eta)
    return [c for c, w in shortest_cycles(mu) if w < 1.0 - tol]


# ---------------------------------------------------------------------- clusters, cheap
def _violated(cache: ScoreCache, eta: np.ndarray, candidates: list, tol: float) -> list[np.ndarray]:
    if not candidates:
        return []
    bits = np.stack([bs.to_bitset(c, cache.n) for c in candidates])
    act = cluster_activity(cache, eta, bits)
    order = np.argsort(act, kind="stable")
    return [bits[k] for k in order if act[k] < 1.0 - tol]


def cheap_clusters(cache: ScoreCache, eta: np.ndarray, tol: float = VIOLATION_TOL,
                   max_cuts: int = 50) -> list[np.ndarray]:
    """Violated clusters among support-graph SCCs and shortest cycles (bitsets, most violated first)."""
    mu = edge_marginals(cache, eta)
    cands: dict[tuple[int, ...], None] = {}
    for comp in strong_components(mu > SUPPORT_TOL):
        cands[tuple(int(v) for v in comp)] = None
    for cyc, _ in shortest_cycles(mu):
        cands[tuple(sorted(cyc))] = None
    # also the support graph restricted to strong edges (mass > 1/2) finds tight clusters
    for comp in strong_components(mu > 0.5):
        cands[tuple(int(v) for v in comp)] = None
    return _violated(cache, eta, list(cands), tol)[:max_cuts]


def grown_clusters(cache: ScoreCache, eta: np.ndarray, tol: float = VIOLATION_TOL,
                   max_cuts: int = 50) -> list[np.ndarray]:
    """Violated clusters found by greedy growth at η* (bitsets, most violated first).

    From every variable and every strongly joined pair as a seed, the cluster grows one
    variable at a time, always by the variable that gives the smallest eq. 6 activity
    Σ_{i∈C} Σ_{s∩C=∅} η*_i(s); the point of least activity is then improved by single
    additions and removals, and kept when its activity is below 1 - tol.  One more run
    shrinks greedily from the set of all variables.  It is the primal twin of the
    dual's greedy growth (Jaakkola et al. 2010, eq. 20) and finds most violated clusters
    at a small fraction of the cost of the exact sub-IP, which is then needed mainly to
    prove that none is left.
    """
    eta = np.asarray(eta, dtype=np.float64)
    members = _grow(cache, eta, 1, tol)
    if members is None:
        return []
    seen: dict[tuple[int, ...], None] = {}
    for row in members:
        key = tuple(np.flatnonzero(row).tolist())
        if len(key) >= 2:
            seen[key] = None
    return _violated(cache, eta, list(seen), tol)[:max_cuts]


def grown_kclusters(cache: ScoreCache, eta: np.ndarray, k: int,
                    tol: float = VIOLATION_TOL) -> np.ndarray:
    """Clusters whose k-cluster inequality (:func:`lpbn.lp.clusters.cluster_rows_csr` with k) is violated at η*,
    found by the greedy growth of :func:`grown_clusters` on the k-activity (bitsets)."""
    eta = np.asarray(eta, dtype=np.float64)
    members = _grow(cache, eta, k, tol)
    W = bs.n_words(cache.n)
    if members is None:
        return np.zeros((0, W), dtype=np.uint64)
    rows = {tuple(np.flatnonzero(r).tolist()) for r in members}
    rows = [r for r in rows if len(r) > k]
    if not rows:
        return np.zeros((0, W), dtype=np.uint64)
    bits = np.stack([bs.to_bitset(r, cache.n) for r in rows])
    bad, _ = separate_kclusters(cache, eta, bits, k_min=k, k_max=k, tol=tol)
    return bad


def _grow(cache: ScoreCache, eta: np.ndarray, k: int, tol: float):
    """Greedy growth on the support of η* (see grown_clusters); None for an empty support,
    and on a small cache while numba is not loaded (growth exists only as a kernel; the
    exact separation that follows it in the cut loop finds the clusters it would)."""
    sup = np.flatnonzero(eta > SUPPORT_TOL)
    if len(sup) == 0 or cache.n <= k or use_numpy(cache.n):
        return None
    sizes = cache.sizes[sup].astype(np.int64)
    ptr = np.zeros(len(sup) + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    items = cache.pset_items[np.repeat(cache.pset_ptr[sup], sizes)
                             + (np.arange(int(ptr[-1])) - np.repeat(ptr[:-1], sizes))]
    from .kernels import grow_from_seeds
    return grow_from_seeds(cache.n, cache.family[sup].astype(np.int64), eta[sup], ptr,
                           items.astype(np.int64), _seed_clusters(cache, eta), k - tol, k)


def _seed_clusters(cache: ScoreCache, eta: np.ndarray) -> np.ndarray:
    """Start clusters: every single variable, and the pairs joined by the heaviest edges of
    the support graph (μ_ij + μ_ji, eq. 3; at most 2n pairs)."""
    n = cache.n
    seeds = [np.eye(n, dtype=np.bool_)]
    mu = edge_marginals(cache, eta)
    w = np.triu(mu + mu.T, 1)
    flat = np.argsort(w, axis=None)[::-1][:2 * n]
    flat = flat[w.ravel()[flat] > 0.5]
    if len(flat):
        pairs = np.zeros((len(flat), n), dtype=np.bool_)
        r = np.arange(len(flat))
        pairs[r, flat // n] = True
        pairs[r, flat % n] = True
        seeds.append(pairs)
    return np.concatenate(seeds)


def incumbent_clusters(cache: ScoreCache, choice: np.ndarray) -> list[np.ndarray]:
    """Clusters violated by an integral choice with directed cycles: its SCCs and its cycles."""
    eta = np.zeros(cache.m)
    eta[choice] = 1.0
    mu = edge_marginals(cache, eta)
    cands: dict[tuple[int, ...], None] = {}
    for comp in strong_components(mu > 0.5):
        cands[tuple(int(v) for v in comp)] = None
    for cyc, _ in shortest_cycles(mu, tol=0.5, unit=True):
        cands[tuple(sorted(cyc))] = None
    return _violated(cache, eta, list(cands), VIOLATION_TOL)


# ---------------------------------------------------------------------- k-cluster rows
def separate_kclusters(cache: ScoreCache, eta: np.ndarray, clusters: np.ndarray, k_max: int = 3,
                       tol: float = VIOLATION_TOL, k_min: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """k-cluster inequalities (k_min <= k <= k_max, k < |C|) of the given clusters violated at η*.

    Returns ``(bits, ks)``: the violated clusters and their k.  Heuristic separation over a
    known family (the clusters of the cut loop), as in branch-and-cut solvers for this ILP.
    """
    clusters = np.asarray(clusters, dtype=np.uint64).reshape(-1, bs.n_words(cache.n))
    sizes = bs.popcounts(clusters)
    rep, ks = [], []
    for k in range(k_min, k_max + 1):
        sel = np.flatnonzero(sizes > k)
        rep.append(sel)
        ks.append(np.full(len(sel), k, dtype=np.int64))
    rep, ks = np.concatenate(rep), np.concatenate(ks)
    if len(rep) == 0:
        return np.zeros((0, clusters.shape[1]), dtype=np.uint64), ks
    sums = cluster_activity(cache, eta, clusters[rep], ks)
    bad = sums < ks - tol
    return clusters[rep[bad]], ks[bad]
