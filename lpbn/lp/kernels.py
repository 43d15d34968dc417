"""numba kernels of the η LP's rows and separation (:mod:`lpbn.lp.clusters`,
:mod:`lpbn.lp.separation`, :mod:`lpbn.lp.exact_separation`).

Those modules import this one on first use, so that a process that never needs a kernel
never imports numba: small caches use the numpy twins of :mod:`lpbn.lp.numpy_kernels` while
numba is not loaded (see :func:`lpbn.lp.numpy_kernels.use_numpy`).
"""

from __future__ import annotations

import numba
import numpy as np

from .. import bitsets as bs
from ..cache_kernels import lower_bound


@numba.njit(cache=True, inline="always")
def _few_inside(bits, j, clusters, c, limit):
    """|parents(j) ∩ C_c| < limit?"""
    inside = 0
    for w in range(clusters.shape[1]):
        x = bits[j, w] & clusters[c, w]
        while x and inside < limit:
            x &= x - np.uint64(1)
            inside += 1
    return inside < limit


@numba.njit(cache=True, inline="always")
def _row_holds(bits, j, family, clusters, c, limit):
    """Does row c hold candidate j: family(j) ∈ C_c and |parents(j) ∩ C_c| < limit?"""
    return bs.has_bit(clusters[c], family[j]) and _few_inside(bits, j, clusters, c, limit)


@numba.njit(cache=True)
def _joined(chunks, ptr):
    """The rows' candidate lists ``chunks`` as one CSR index array over ``ptr``."""
    idx = np.empty(ptr[-1], dtype=np.int64)
    for c in range(len(chunks)):
        idx[ptr[c]:ptr[c + 1]] = chunks[c]
    return idx


@numba.njit(cache=True)
def cluster_rows_csr(bits, family, clusters, ks):
    """CSR rows: candidates j with family(j) ∈ C_c and |parents(j) ∩ C_c| < ks[c]
    (ks = 1: the eq. 6 rows; larger k: the k-cluster rows, see :func:`cluster_rows_csr`)."""
    K = clusters.shape[0]
    m = bits.shape[0]
    ptr = np.zeros(K + 1, dtype=np.int64)
    buf = np.empty(max(1, m), dtype=np.int64)
    chunks = []
    for c in range(K):
        n_row = 0
        limit = ks[c]
        for j in range(m):
            if _row_holds(bits, j, family, clusters, c, limit):
                buf[n_row] = j
                n_row += 1
        chunks.append(buf[:n_row].copy())
        ptr[c + 1] = ptr[c] + n_row
    return ptr, _joined(chunks, ptr)


@numba.njit(cache=True)
def cluster_rows_by_variable(bits, offsets, clusters, ks):
    """:func:`cluster_rows_csr` over a whole cache, whose candidates are grouped by variable
    (``offsets``): the same rows, reading only the members' ranges ``offsets[i]:offsets[i + 1]``
    (a scan of all m candidates per row took 5.7 of connect4's 60-s root in its {0, 1/2}-cuts)."""
    K = clusters.shape[0]
    n = offsets.shape[0] - 1
    ptr = np.zeros(K + 1, dtype=np.int64)
    buf = np.empty(max(1, bits.shape[0]), dtype=np.int64)
    chunks = []
    for c in range(K):
        n_row = 0
        limit = ks[c]
        for i in range(n):
            if not bs.has_bit(clusters[c], i):
                continue
            for j in range(offsets[i], offsets[i + 1]):
                if _few_inside(bits, j, clusters, c, limit):
                    buf[n_row] = j
                    n_row += 1
        chunks.append(buf[:n_row].copy())
        ptr[c + 1] = ptr[c] + n_row
    return ptr, _joined(chunks, ptr)


@numba.njit(cache=True)
def sparse_activity(bits, family, eta, clusters, ks):
    """Σ of η over the rows of :func:`cluster_rows_csr` at a sparse point: ``bits``,
    ``family`` and ``eta`` are those of the support's candidates only."""
    out = np.zeros(clusters.shape[0])
    for c in range(clusters.shape[0]):
        total = 0.0
        for t in range(bits.shape[0]):
            if _row_holds(bits, t, family, clusters, c, ks[c]):
                total += eta[t]
        out[c] = total
    return out


@numba.njit(cache=True)
def rows_activity(ptr, idx, val, eta, sup, rows):
    """Σ val · η[idx] over each CSR row of ``rows`` (sorted columns) at a point whose nonzeros
    are at the sorted columns ``sup`` (:meth:`lpbn.lp.general_rows.GeneralRows.activity`): a
    row much longer than the support is searched for the support's columns (binary search
    from where the last one was found), a shorter one summed whole."""
    out = np.zeros(len(rows))
    ns = len(sup)
    for t in range(len(rows)):
        r = rows[t]
        lo, hi = ptr[r], ptr[r + 1]
        s = 0.0
        if hi - lo <= 8 * ns:
            for k in range(lo, hi):
                s += val[k] * eta[idx[k]]
        else:
            for q in range(ns):
                j = sup[q]
                a = lower_bound(idx, lo, hi, j)
                if a == hi:
                    break
                if idx[a] == j:
                    s += val[a] * eta[j]
                lo = a
        out[t] = s
    return out


@numba.njit(cache=True)
def edge_marginals(n, family, ptr, items, eta, tol):
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


@numba.njit(cache=True)
def floyd_cycles(cost):
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
def _greedy_path(n, fam, eta, ptr, items, in_c, hit, add, rem, path, grow, k, keys, seen):
    """Greedy growth (``grow``) or shrinking from the current cluster, one variable at a
    time by the move of least activity; leaves the cluster at the best |C| > k point met.

    Growth paths from different seeds soon meet (connect4: 41 distinct clusters from 354
    seeds) and from a meeting point on they are the same path, so a growth path stops at a
    cluster an earlier one passed (``seen``: Zobrist hashes, ``keys`` per variable)."""
    S = fam.shape[0]
    size = 0
    code = np.int64(0)
    for v in range(n):
        size += in_c[v]
        if in_c[v]:
            code ^= keys[v]
    act = _activity(fam, eta, in_c, hit, k)
    best_act = act if size > k else np.inf
    steps = 0
    best_steps = 0
    if grow:
        if code in seen:
            return np.inf
        seen.add(code)
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
        if grow:
            code ^= keys[v_best]
            if code in seen:
                break
            seen.add(code)
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
def grow_from_seeds(n, fam, eta, ptr, items, seeds, threshold, k):
    """For each seed cluster (rows of ``seeds``): greedy growth to the point of least
    k-activity, then a local search by single additions and removals; plus one top-down run
    (greedy shrinking from all variables).  Rows of a bool matrix, all-False where the final
    activity is not below ``threshold`` or the growth met an earlier seed's path."""
    S = fam.shape[0]
    K = seeds.shape[0]
    out = np.zeros((K + 1, n), dtype=np.bool_)
    in_c = np.zeros(n, dtype=np.bool_)
    hit = np.zeros(S, dtype=np.int64)        # |s ∩ C| of each support candidate
    add = np.zeros(n)
    rem = np.zeros(n)
    path = np.empty(n, dtype=np.int64)
    np.random.seed(12345)
    keys = np.random.randint(1, 2 ** 62, size=n).astype(np.int64)
    seen = {np.int64(0)}
    for r in range(K + 1):
        if r < K:
            _set_cluster(seeds[r], fam, ptr, items, in_c, hit)
        else:
            _set_cluster(np.ones(n, dtype=np.bool_), fam, ptr, items, in_c, hit)
        act = _greedy_path(n, fam, eta, ptr, items, in_c, hit, add, rem, path, r < K, k, keys, seen)
        if act == np.inf:
            continue
        act = _improve(n, fam, eta, ptr, items, in_c, hit, add, rem, act, k)
        if act < threshold:
            out[r, :] = in_c
    return out


@numba.njit(cache=True)
def enum_subsets(k, fam, pmask, eta, threshold, max_nodes, max_found):
    """Depth-first branch and bound over subsets of k <= 63 local variables; keeps the
    ``max_found`` least-active violated clusters (the pruning threshold tightens to the
    worst kept one once the list is full).  Returns (masks, complete)."""
    S = fam.shape[0]
    full = (np.uint64(1) << np.uint64(k)) - np.uint64(1)
    stack_d = np.empty(2 * k + 2, dtype=np.int64)
    stack_in = np.empty(2 * k + 2, dtype=np.uint64)
    found = np.empty(max_found, dtype=np.uint64)
    found_act = np.empty(max_found)
    n_found = 0
    stack_d[0] = 0
    stack_in[0] = np.uint64(0)
    top = 1
    nodes = 0
    while top > 0:
        top -= 1
        d = stack_d[top]
        cin = stack_in[top]
        nodes += 1
        if nodes > max_nodes:
            return found[:n_found], False
        decided = (np.uint64(1) << np.uint64(d)) - np.uint64(1)
        upper = cin | (full & ~decided)
        lb = 0.0
        for t in range(S):
            if (cin >> np.uint64(fam[t])) & np.uint64(1) and (pmask[t] & upper) == 0:
                lb += eta[t]
        if lb >= threshold:
            continue
        if d == k:
            members = 0
            x = cin
            while x:
                x &= x - np.uint64(1)
                members += 1
            if members < 2:
                continue
            # here upper == cin, so lb is the activity of cin itself
            if n_found < max_found:
                found[n_found] = cin
                found_act[n_found] = lb
                n_found += 1
            else:
                worst = np.argmax(found_act)
                found[worst] = cin
                found_act[worst] = lb
            if n_found == max_found:
                threshold = found_act.max()
            continue
        stack_d[top] = d + 1
        stack_in[top] = cin
        top += 1
        stack_d[top] = d + 1
        stack_in[top] = cin | (np.uint64(1) << np.uint64(d))
        top += 1
    return found[:n_found], True


@numba.njit(cache=True, inline="always")
def _holds_by_items(pset_ptr, pset_items, j, cluster, limit):
    """:func:`_row_holds` for a candidate whose family is in the cluster, by its parent list
    (a few has_bit tests instead of a pass over the bitset's words)."""
    inside = 0
    for t in range(pset_ptr[j], pset_ptr[j + 1]):
        if bs.has_bit(cluster, pset_items[t]):
            inside += 1
            if inside >= limit:
                return False
    return True


@numba.njit(cache=True)
def row_weights(pset_ptr, pset_items, family, cands, clusters, ks, y, var_ptr, var_rows):
    """Σ_c y[c] over the rows c of :func:`cluster_rows_csr` that hold each candidate of
    ``cands``, visiting only the rows whose cluster has the candidate's variable
    (``var_rows[var_ptr[i]:var_ptr[i+1]]``): the part of a column's reduced cost that the
    cluster and k-cluster rows' duals take (column generation,
    :meth:`lpbn.lp.model.EtaLP.reduced_costs`)."""
    out = np.zeros(cands.shape[0])
    for t in range(cands.shape[0]):
        j = cands[t]
        i = family[j]
        total = 0.0
        for a in range(var_ptr[i], var_ptr[i + 1]):
            c = var_rows[a]
            if _holds_by_items(pset_ptr, pset_items, j, clusters[c], ks[c]):
                total += y[c]
        out[t] = total
    return out


@numba.njit(cache=True)
def row_weights_pair(pset_ptr, pset_items, family, cands, clusters, ks, y, var_ptr, var_rows):
    """:func:`row_weights` at ``y`` and at ``|y|`` from one walk over the rows (the rigorous
    bound needs both, :meth:`lpbn.lp.model.EtaLP.safe_bound`): each sum is taken in the same
    order as :func:`row_weights` takes it, so each equals that function's to the last bit."""
    out = np.zeros(cands.shape[0])
    out_abs = np.zeros(cands.shape[0])
    for t in range(cands.shape[0]):
        j = cands[t]
        i = family[j]
        total = 0.0
        total_abs = 0.0
        for a in range(var_ptr[i], var_ptr[i + 1]):
            c = var_rows[a]
            if _holds_by_items(pset_ptr, pset_items, j, clusters[c], ks[c]):
                total += y[c]
                total_abs += abs(y[c])
        out[t] = total
        out_abs[t] = total_abs
    return out, out_abs


@numba.njit(cache=True)
def rows_holding(pset_ptr, pset_items, family, cands, clusters, ks):
    """CSR over ``cands``: the rows c of :func:`cluster_rows_csr` that hold each candidate
    (a new column's entries in the cluster and k-cluster rows of a restricted model)."""
    k = cands.shape[0]
    ptr = np.zeros(k + 1, dtype=np.int64)
    for t in range(k):
        j = cands[t]
        for c in range(clusters.shape[0]):
            if bs.has_bit(clusters[c], family[j]) and _holds_by_items(pset_ptr, pset_items, j, clusters[c], ks[c]):
                ptr[t + 1] += 1
    for t in range(k):
        ptr[t + 1] += ptr[t]
    rows = np.empty(ptr[k], dtype=np.int64)
    for t in range(k):
        j = cands[t]
        at = ptr[t]
        for c in range(clusters.shape[0]):
            if bs.has_bit(clusters[c], family[j]) and _holds_by_items(pset_ptr, pset_items, j, clusters[c], ks[c]):
                rows[at] = c
                at += 1
    return ptr, rows
