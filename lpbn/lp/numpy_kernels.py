"""numpy twins of the kernels in :mod:`lpbn.lp.kernels`, for small caches in a process
without numba.

Loading numba's runtime and a method's cached kernels costs about a second per process
(results/startup), while the LP rows and cheap separation of a cache with at most
``COLD_MAX_N`` variables (one bitset word) take milliseconds in numpy.  So while numba is
not loaded, :mod:`lpbn.lp.clusters`, :mod:`lpbn.lp.separation` and
:mod:`lpbn.lp.exact_separation` use these functions for such caches, and the HiGHS ILP
(:mod:`lpbn.highs.ilp`, option ``numba=False``) runs without importing numba.  The
heuristics that exist only as kernels — greedy cluster growth, the ordering search for a start
DAG — are then skipped; the subset enumeration runs here with a smaller node budget, and the
exact sub-IP proves what it leaves open.  Each twin returns what its kernel returns (tests
compare them on random caches; the enumeration's clusters up to ties).
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager

import numpy as np

#: Caches up to this many variables (one uint64 word per set) may use the numpy twins.
COLD_MAX_N = 64


class _Mode(threading.local):
    numpy = False


_MODE = _Mode()


def numba_loaded() -> bool:
    """Whether numba is loaded in this process (what :mod:`lpbn.warmup` and the start-up
    measurements ask; no solve takes a different path because of it, see :func:`use_numpy`)."""
    return "numba" in sys.modules


@contextmanager
def numpy_lp(on: bool):
    """Within the block (one solve, this thread), the LP helpers run their numpy twins on
    caches of at most COLD_MAX_N variables when ``on`` (``method="highs"`` with
    ``numba=False``), the numba kernels otherwise.  An explicit choice of the caller, never
    what an earlier call happened to import (issue 54: the same call takes the same path)."""
    before = _MODE.numpy
    _MODE.numpy = bool(on)
    try:
        yield
    finally:
        _MODE.numpy = before


def use_numpy(n: int) -> bool:
    """Whether the LP helpers use numpy for a cache of ``n`` variables: n <= COLD_MAX_N within
    a :func:`numpy_lp` block that asked for it."""
    return n <= COLD_MAX_N and _MODE.numpy


def can_use_numpy(n: int) -> bool:
    """Whether a cache of ``n`` variables is small enough for the numpy twins (COLD_MAX_N)."""
    return n <= COLD_MAX_N


_BYTE_BITS = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)


def _popcount(x: np.ndarray) -> np.ndarray:
    """Set bits of each uint64 (np.bitwise_count from numpy 2; a byte table before)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x)
    x = np.ascontiguousarray(x, dtype=np.uint64)
    return _BYTE_BITS[x.view(np.uint8)].reshape(*x.shape, 8).sum(axis=-1)


def cluster_rows_csr(masks: np.ndarray, family: np.ndarray, clusters: np.ndarray,
                     ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR rows of :func:`lpbn.lp.kernels.cluster_rows_csr` for single-word sets: row c
    holds the candidates j with family(j) in C_c and |parents(j) ∩ C_c| < ks[c]."""
    C = np.asarray(clusters, dtype=np.uint64)
    C = C.reshape(len(C), -1)[:, 0] if C.size else np.zeros(0, dtype=np.uint64)   # no rows: an empty CSR
    fam_bit = np.left_shift(np.uint64(1), np.asarray(family, dtype=np.uint64))
    inside = (fam_bit[None, :] & C[:, None]) != 0
    meets = _popcount(masks[None, :] & C[:, None]) < np.asarray(ks)[:, None]
    rows, idx = np.nonzero(inside & meets)
    ptr = np.zeros(len(C) + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=len(C)), out=ptr[1:])
    return ptr, idx.astype(np.int64)


def edge_marginals(n: int, family: np.ndarray, ptr: np.ndarray, items: np.ndarray,
                   eta: np.ndarray, tol: float) -> np.ndarray:
    """μ (n, n), μ[j, i] = Σ_{s∋j} η_i(s) over candidates with η > tol (eq. 3)."""
    mu = np.zeros((n, n))
    sup = np.flatnonzero(eta > tol)
    if len(sup) == 0:
        return mu
    sizes = (ptr[sup + 1] - ptr[sup]).astype(np.int64)
    owner = np.repeat(sup, sizes)
    within = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    at = np.repeat(ptr[sup], sizes) + within
    np.add.at(mu, (items[at], family[owner]), eta[owner])
    return mu


def scc_labels(adj: np.ndarray) -> tuple[np.ndarray, int]:
    """Strongly connected components of a dense boolean adjacency matrix: (label per node,
    number of components), labelled in the order Tarjan's algorithm closes them, as the
    kernel does (iterative, successors in increasing index)."""
    n = adj.shape[0]
    succ = [np.flatnonzero(adj[v]).tolist() for v in range(n)]
    index = [-1] * n
    low = [0] * n
    onstack = [False] * n
    labels = np.full(n, -1, dtype=np.int64)
    stack: list[int] = []
    nlab = counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        onstack[root] = True
        calls = [(root, 0)]
        while calls:
            v, k = calls[-1]
            out = succ[v]
            while k < len(out):
                w = out[k]
                k += 1
                if index[w] < 0:
                    calls[-1] = (v, k)
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    onstack[w] = True
                    calls.append((w, 0))
                    break
                if onstack[w] and index[w] < low[v]:
                    low[v] = index[w]
            else:
                calls.pop()
                if low[v] == index[v]:
                    while True:
                        x = stack.pop()
                        onstack[x] = False
                        labels[x] = nlab
                        if x == v:
                            break
                    nlab += 1
                if calls and low[v] < low[calls[-1][0]]:
                    low[calls[-1][0]] = low[v]
    return labels, nlab


def floyd_cycles(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`lpbn.lp.kernels.floyd_cycles` (shortest cycle through every node; flat
    cycles with -1 separators), the Floyd–Warshall sweep vectorised over node pairs."""
    k = cost.shape[0]
    dist = cost.copy()
    nxt = np.where(np.isfinite(cost), np.arange(k)[None, :], -1).astype(np.int64)
    for m in range(k):
        # row m and column m do not change in sweep m (dist[m, m] >= 0), so the update
        # is the kernel's element loop done at once
        cand = dist[:, m][:, None] + dist[m, :][None, :]
        better = cand < dist - 1e-15
        better &= np.isfinite(dist[:, m])[:, None]
        if better.any():
            dist = np.where(better, cand, dist)
            nxt = np.where(better, nxt[:, m][:, None], nxt)
    weights = np.full(k, np.inf)
    out: list[int] = []
    for a in range(k):
        if not np.isfinite(dist[a, a]) or nxt[a, a] < 0:
            continue
        weights[a] = dist[a, a]
        v, steps = a, 0
        while True:
            out.append(v)
            v = int(nxt[v, a])
            steps += 1
            if v == a or v < 0 or steps > k:
                break
        out.append(-1)
    return weights, np.array(out, dtype=np.int64)


def mass_order(masks: np.ndarray, family: np.ndarray, eta: np.ndarray, n: int) -> np.ndarray:
    """:func:`lpbn.highs.kernels.mass_order`: next the variable with the most η mass on
    parent sets inside the placed set (ties to the smaller index, as the kernel)."""
    sup = np.flatnonzero(eta > 0.0)
    s_mask, s_fam, s_eta = masks[sup], family[sup], eta[sup]
    placed = np.uint64(0)
    done = np.zeros(n, dtype=bool)
    order = np.empty(n, dtype=np.int64)
    for step in range(n):
        inside = (s_mask & ~placed) == 0
        mass = np.bincount(s_fam[inside], weights=s_eta[inside], minlength=n)
        best_i, best_v = -1, -1.0
        for i in np.flatnonzero(~done).tolist():
            if mass[i] > best_v + 1e-12:
                best_v, best_i = mass[i], i
        order[step] = best_i
        done[best_i] = True
        placed |= np.uint64(1) << np.uint64(best_i)
    return order


def enum_subsets(k: int, fam: np.ndarray, pmask: np.ndarray, eta: np.ndarray, threshold: float,
                 max_nodes: int, max_found: int, batch: int = 4096) -> tuple[np.ndarray, bool]:
    """:func:`lpbn.lp.kernels.enum_subsets` over batches of nodes: the ``max_found``
    least-active clusters C (|C| >= 2) of the k local variables with activity below
    ``threshold``, by the same branch and bound (variable d decided at depth d; a node is
    pruned when Σ_{i∈IN} a_i(IN ∪ FREE) >= threshold, which tightens to the worst kept
    cluster once ``max_found`` are kept).  Depth first over batches of up to ``batch``
    nodes of one depth, whose lower bounds are computed at once.  Returns (masks, complete);
    complete is False when ``max_nodes`` nodes did not suffice (the masks found so far are
    violated all the same)."""
    fam_bit = np.left_shift(np.uint64(1), np.asarray(fam, dtype=np.uint64))
    full = np.uint64((1 << k) - 1)
    stack = [(0, np.zeros(1, dtype=np.uint64))]
    found = np.zeros(0, dtype=np.uint64)
    found_act = np.zeros(0)
    nodes = 1
    while stack:
        d, cin = stack.pop()
        if len(cin) > batch:
            stack.append((d, cin[batch:]))
            cin = cin[:batch]
        if d == k:        # leaves: lower bound = activity (recomputed: the threshold may have tightened)
            act = _activity_bounds(cin, cin, fam_bit, pmask, eta)
            ok = (act < threshold) & (_popcount(cin) >= 2)
            found = np.concatenate([found, cin[ok]])
            found_act = np.concatenate([found_act, act[ok]])
            if len(found) >= max_found:
                best = np.argsort(found_act, kind="stable")[:max_found]
                found, found_act = found[best], found_act[best]
                threshold = min(threshold, float(found_act.max()))
            continue
        child = np.concatenate([cin, cin | np.uint64(1 << d)])
        nodes += len(child)
        if nodes > max_nodes:
            return found, False
        upper = child | (full & ~np.uint64((1 << (d + 1)) - 1))
        child = child[_activity_bounds(child, upper, fam_bit, pmask, eta) < threshold]
        if len(child):
            stack.append((d + 1, child))
    return found, True


def _activity_bounds(inside: np.ndarray, upper: np.ndarray, fam_bit: np.ndarray, pmask: np.ndarray,
                     eta: np.ndarray, block: int = 1 << 21) -> np.ndarray:
    """Σ_t η_t [family(t) ∈ inside] [parents(t) ∩ upper = ∅] per node (rows in blocks)."""
    out = np.empty(len(inside))
    rows = max(1, block // max(1, len(eta)))
    for a in range(0, len(inside), rows):
        cin, up = inside[a:a + rows, None], upper[a:a + rows, None]
        hit = ((cin & fam_bit[None, :]) != 0) & ((up & pmask[None, :]) == 0)
        out[a:a + rows] = hit @ eta
    return out
