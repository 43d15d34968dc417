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

import numba
import numpy as np

from .. import bitsets as bs
from ..cache import ScoreCache
from .clusters import cluster_activity, cluster_rows_csr

#: Violation (1 - activity of eq. 6, or excess of eq. 5) under which a row counts as satisfied.
VIOLATION_TOL = 1e-6
#: η values at or below this are treated as zero in support graphs and the sub-IP.
SUPPORT_TOL = 1e-9


# ---------------------------------------------------------------------- support graph
def edge_marginals(cache: ScoreCache, eta: np.ndarray) -> np.ndarray:
    """μ (n, n) with μ[j, i] = Σ_{s∋j} η_i(s), the edge marginals of eq. 3."""
    return _edge_marginals(cache.n, cache.family, cache.pset_ptr, cache.pset_items,
                           np.asarray(eta, dtype=np.float64), SUPPORT_TOL)


@numba.njit(cache=True)
def _edge_marginals(n, family, ptr, items, eta, tol):
    mu = np.zeros((n, n))
    for j in range(eta.shape[0]):
        e = eta[j]
        if e > tol:
            i = family[j]
            for a in range(ptr[j], ptr[j + 1]):
                mu[items[a], i] += e
    return mu


@numba.njit(cache=True)
def scc_labels(adj):
    """Strongly connected components of a dense boolean adjacency matrix (Tarjan 1972,
    iterative): returns (label per node, number of components).  A numba kernel because
    separation calls it several times per LP round, where building a scipy sparse graph
    cost more than the search itself."""
    n = adj.shape[0]
    index = np.full(n, -1, dtype=np.int64)
    low = np.zeros(n, dtype=np.int64)
    onstack = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    call_v = np.empty(n, dtype=np.int64)
    call_w = np.empty(n, dtype=np.int64)
    labels = np.full(n, -1, dtype=np.int64)
    sp = 0
    nlab = 0
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        top = -1
        enter = root                     # node to push on the call stack next (-1: none)
        while True:
            if enter >= 0:
                top += 1
                call_v[top] = enter
                call_w[top] = 0
                index[enter] = counter
                low[enter] = counter
                counter += 1
                stack[sp] = enter
                sp += 1
                onstack[enter] = True
                enter = -1
            if top < 0:
                break
            v = call_v[top]
            w = call_w[top]
            while w < n:
                if adj[v, w]:
                    if index[w] < 0:
                        call_w[top] = w + 1
                        enter = w
                        break
                    if onstack[w] and index[w] < low[v]:
                        low[v] = index[w]
                w += 1
            if enter >= 0:
                continue
            if low[v] == index[v]:
                while True:
                    sp -= 1
                    x = stack[sp]
                    onstack[x] = False
                    labels[x] = nlab
                    if x == v:
                        break
                nlab += 1
            top -= 1
            if top >= 0 and low[v] < low[call_v[top]]:
                low[call_v[top]] = low[v]
    return labels, nlab


def strong_components(adj: np.ndarray) -> list[np.ndarray]:
    """Strongly connected components with >= 2 nodes of a boolean adjacency matrix."""
    n = adj.shape[0]
    if n == 0 or not adj.any():
        return []
    labels, k = scc_labels(np.ascontiguousarray(adj, dtype=np.bool_))
    sizes = np.bincount(labels, minlength=k)
    return [np.flatnonzero(labels == c) for c in np.flatnonzero(sizes >= 2)]


@numba.njit(cache=True)
def _floyd_cycles(cost):
    """Shortest cycle through every node of a (k, k) cost matrix (inf = no edge).

    Returns (weights (k,), cycles as a flat array with -1 separators).
    """
    k = cost.shape[0]
    dist = cost.copy()
    nxt = np.full((k, k), -1, dtype=np.int64)
    for a in range(k):
        for b in range(k):
            if np.isfinite(cost[a, b]):
                nxt[a, b] = b
    for m in range(k):
        for a in range(k):
            dam = dist[a, m]
            if not np.isfinite(dam):
                continue
            for b in range(k):
                d = dam + dist[m, b]
                if d < dist[a, b] - 1e-15:
                    dist[a, b] = d
                    nxt[a, b] = nxt[a, m]
    weights = np.full(k, np.inf)
    out = np.empty(k * (k + 1), dtype=np.int64)
    pos = 0
    for a in range(k):
        # dist[a, a] is the shortest closed walk through a; reconstruct it
        if not np.isfinite(dist[a, a]) or nxt[a, a] < 0:
            continue
        weights[a] = dist[a, a]
        v = a
        steps = 0
        while True:
            out[pos] = v
            pos += 1
            v = nxt[v, a]
            steps += 1
            if v == a or v < 0 or steps > k:
                break
        out[pos] = -1
        pos += 1
    return weights, out[:pos]


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
        weights, flat = _floyd_cycles(cost)
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
    """Greedy growth on the support of η* (see grown_clusters); None for an empty support."""
    sup = np.flatnonzero(eta > SUPPORT_TOL)
    if len(sup) == 0 or cache.n <= k:
        return None
    sizes = cache.sizes[sup].astype(np.int64)
    ptr = np.zeros(len(sup) + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    items = cache.pset_items[np.repeat(cache.pset_ptr[sup], sizes)
                             + (np.arange(int(ptr[-1])) - np.repeat(ptr[:-1], sizes))]
    return _grow_from_seeds(cache.n, cache.family[sup].astype(np.int64), eta[sup], ptr,
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


@numba.njit(cache=True)
def _mark(v, delta, S, ptr, items, hit):
    """Add ``delta`` to |s ∩ C| of every support candidate whose parent set holds ``v``."""
    for t in range(S):
        for a in range(ptr[t], ptr[t + 1]):
            if items[a] == v:
                hit[t] += delta


@numba.njit(cache=True)
def _move_deltas(n, fam, eta, ptr, items, in_c, hit, add, rem, k):
    """Changes of the k-activity Σ_{i∈C} Σ_{|s∩C|<k} η_i(s) (eq. 6 for k = 1) from adding
    v ∉ C (``add``) and removing u ∈ C (``rem``)."""
    S = fam.shape[0]
    add[:] = 0.0
    rem[:] = 0.0
    for t in range(S):
        i = fam[t]
        h = hit[t]
        if h < k:
            if in_c[i]:
                rem[i] -= eta[t]                  # i leaves: its counted mass leaves with it
                if h == k - 1:
                    for a in range(ptr[t], ptr[t + 1]):
                        add[items[a]] -= eta[t]   # one more parent joins: no longer counted
            else:
                add[i] += eta[t]                  # i joins with its counted mass
        elif h == k and in_c[i]:
            for a in range(ptr[t], ptr[t + 1]):
                u = items[a]
                if in_c[u] and u != i:
                    rem[u] += eta[t]              # a parent leaves: counted again


@numba.njit(cache=True)
def _activity(fam, eta, in_c, hit, k):
    act = 0.0
    for t in range(fam.shape[0]):
        if in_c[fam[t]] and hit[t] < k:
            act += eta[t]
    return act


@numba.njit(cache=True)
def _set_cluster(start, fam, ptr, items, in_c, hit):
    """Make ``start`` the current cluster (membership and |s ∩ C| counters)."""
    S = fam.shape[0]
    in_c[:] = start
    hit[:] = 0
    for t in range(S):
        for a in range(ptr[t], ptr[t + 1]):
            if in_c[items[a]]:
                hit[t] += 1


@numba.njit(cache=True)
def _greedy_path(n, fam, eta, ptr, items, in_c, hit, add, rem, path, grow, k):
    """Greedy growth (``grow``) or shrinking from the current cluster, one variable at a
    time by the move of least activity; leaves the cluster at the best |C| > k point met."""
    S = fam.shape[0]
    size = 0
    for v in range(n):
        size += in_c[v]
    act = _activity(fam, eta, in_c, hit, k)
    best_act = act if size > k else np.inf
    steps = 0
    best_steps = 0
    while (grow and size < n) or (not grow and size > k + 1):
        _move_deltas(n, fam, eta, ptr, items, in_c, hit, add, rem, k)
        v_best = -1
        v_act = np.inf
        for v in range(n):
            if in_c[v] != grow and act + (add[v] if grow else rem[v]) < v_act:
                v_act = act + (add[v] if grow else rem[v])
                v_best = v
        in_c[v_best] = grow
        _mark(v_best, 1 if grow else -1, S, ptr, items, hit)
        path[steps] = v_best
        steps += 1
        size += 1 if grow else -1
        act = v_act
        if size > k and act < best_act:
            best_act = act
            best_steps = steps
    for q in range(steps - 1, best_steps - 1, -1):   # undo the moves after the best point
        v = path[q]
        in_c[v] = not grow
        _mark(v, -1 if grow else 1, S, ptr, items, hit)
    return best_act


@numba.njit(cache=True)
def _improve(n, fam, eta, ptr, items, in_c, hit, add, rem, act, k):
    """Best-improvement local search by single additions and removals (|C| > k)."""
    S = fam.shape[0]
    size = 0
    for v in range(n):
        size += in_c[v]
    for _ in range(2 * n):
        _move_deltas(n, fam, eta, ptr, items, in_c, hit, add, rem, k)
        v_best = -1
        d_best = -1e-12
        for v in range(n):
            if in_c[v] and size <= k + 1:
                continue
            d = rem[v] if in_c[v] else add[v]
            if d < d_best:
                d_best = d
                v_best = v
        if v_best < 0:
            break
        grow = not in_c[v_best]
        in_c[v_best] = grow
        _mark(v_best, 1 if grow else -1, S, ptr, items, hit)
        size += 1 if grow else -1
        act += d_best
    return act


@numba.njit(cache=True)
def _grow_from_seeds(n, fam, eta, ptr, items, seeds, threshold, k):
    """For each seed cluster (rows of ``seeds``): greedy growth to the point of least
    k-activity, then a local search by single additions and removals; plus one top-down run
    (greedy shrinking from all variables).  Rows of a bool matrix, all-False where the final
    activity is not below ``threshold``."""
    S = fam.shape[0]
    K = seeds.shape[0]
    out = np.zeros((K + 1, n), dtype=np.bool_)
    in_c = np.zeros(n, dtype=np.bool_)
    hit = np.zeros(S, dtype=np.int64)        # |s ∩ C| of each support candidate
    add = np.zeros(n)
    rem = np.zeros(n)
    path = np.empty(n, dtype=np.int64)
    for r in range(K + 1):
        if r < K:
            _set_cluster(seeds[r], fam, ptr, items, in_c, hit)
        else:
            _set_cluster(np.ones(n, dtype=np.bool_), fam, ptr, items, in_c, hit)
        act = _greedy_path(n, fam, eta, ptr, items, in_c, hit, add, rem, path, r < K, k)
        act = _improve(n, fam, eta, ptr, items, in_c, hit, add, rem, act, k)
        if act < threshold:
            out[r, :] = in_c
    return out


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
    ptr, idx = cluster_rows_csr(cache, clusters[rep], ks)
    sums = np.add.reduceat(np.asarray(eta, dtype=np.float64)[idx], ptr[:-1]) if len(idx) else \
        np.zeros(len(rep))
    sums[np.diff(ptr) == 0] = 0.0
    bad = sums < ks - tol
    return clusters[rep[bad]], ks[bad]
