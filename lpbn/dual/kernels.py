"""Numba kernels of the cluster dual (Jaakkola et al. 2010, §5).

Notation (paper eq. 8 and 14): ``vals[j] = W_i(s_j) + adj[j]`` with
``adj[j] = sum_{C ∋ i} λ_C I_C(s_j)`` for the candidate ``j`` of variable ``i``, and
``I_C(s) = [s ∩ C = ∅]``.  The dual objective is ``sum_i max_{allowed j} vals[j] - sum_C λ_C``.

Each cluster also carries ``ck[c] = k >= 1``: ``I_C(s) = [|s ∩ C| < k]`` and its constant
is ``k λ_C``, the dual of the k-cluster row ``sum_{i∈C} sum_{s: |s∩C|<k} η_i(s) >= k``
(Cussens et al. 2017; k = 1 is eq. 6, where every formula reduces to the paper's).

``allowed`` (bool per candidate) carries the branch-and-bound restrictions (§6); ``adj``
is kept for every candidate so a child only needs a new mask.  Clusters are ``(K, W)``
uint64 bitsets with a members CSR (``cptr``, ``citems``).

Membership tests ``|s_j ∩ C|`` use the candidates' bitsets ``bits`` (one AND per word) or,
when ``bits`` has no rows, their CSR parent lists ``ptr``/``items`` (one bit test per parent):
with thousands of variables a bitset is a hundred words for a set of a few parents (see
:data:`lpbn.dual.state.CSR_MIN_WORDS`).
"""

from __future__ import annotations

import numba
import numpy as np

NEG = -np.inf
#: Largest k of a k-cluster constraint (the CD sweep keeps the k + 1 smallest δ).
MAX_K = 7


@numba.njit(cache=True, inline="always")
def _active(bits, ptr, items, j, cbits, c, k):
    """I_C(s_j) for a k-cluster: |s_j ∩ C| < k (k = 1: s_j ∩ C = ∅)."""
    inside = 0
    if bits.shape[0] == 0:
        for a in range(ptr[j], ptr[j + 1]):
            v = items[a]
            if (cbits[c, v >> 6] >> np.uint64(v & 63)) & np.uint64(1):
                inside += 1
                if inside >= k:
                    return False
        return True
    if k == 1:
        for w in range(bits.shape[1]):
            if bits[j, w] & cbits[c, w]:
                return False
        return True
    for w in range(bits.shape[1]):
        x = bits[j, w] & cbits[c, w]
        while x:
            x &= x - np.uint64(1)
            inside += 1
            if inside >= k:
                return False
    return True


@numba.njit(cache=True)
def recompute_adj(bits, ptr, items, offsets, cbits, ck, cptr, citems, lam, adj):
    """adj[j] = sum_{C ∋ family(j)} λ_C I_C(s_j) from scratch (no drift)."""
    adj[:] = 0.0
    for c in range(lam.shape[0]):
        lc = lam[c]
        if lc == 0.0:
            continue
        for t in range(cptr[c], cptr[c + 1]):
            i = citems[t]
            for j in range(offsets[i], offsets[i + 1]):
                if _active(bits, ptr, items, j, cbits, c, ck[c]):
                    adj[j] += lc


@numba.njit(cache=True)
def node_maxima(scores, adj, allowed, offsets, M, arg):
    """M[i] = max_{allowed j of i} W(s_j; λ) (eq. 14) and its argmax (-1, -inf if none)."""
    n = offsets.shape[0] - 1
    for i in range(n):
        best = NEG
        a = -1
        for j in range(offsets[i], offsets[i + 1]):
            if allowed[j]:
                v = scores[j] + adj[j]
                if v > best:
                    best = v
                    a = j
        M[i] = best
        arg[i] = a


@numba.njit(cache=True)
def dual_value(M, lam, ck):
    """Eq. 8: sum_i max_s W_i(s; λ) - sum_C k_C λ_C."""
    return M.sum() - (lam * ck).sum()


@numba.njit(cache=True)
def cd_sweep(scores, bits, ptr, items, offsets, allowed, cbits, ck, cptr, citems, lam, adj, M, arg, flips, order):
    """One block coordinate descent sweep over the clusters in ``order`` (eqs. 9-11).

    For cluster C: W^1_{C;i} and W^0_{C;i} (eqs. 10-11) over the allowed candidates with
    λ_C's own contribution removed; δ_i = W^0 - W^1; λ_C = max((δ_(1) + δ_(2))/2, 0).
    For a k-cluster the block objective is sum_i max(W^1_i + λ, W^0_i) - kλ, minimised by
    any λ in [δ_(k), δ_(k+1)], so λ_C = max((δ_(k) + δ_(k+1))/2, 0) (eq. 11 at k = 1).
    ``adj``, ``M`` and ``arg`` are updated incrementally.  ``flips[i]`` counts how often
    node i's maximiser turned from I_C = 0 to I_C = 1 (the §6 key-node criterion).
    Returns False when some cluster can never be satisfied (the restricted problem is
    infeasible: fewer than k members have an allowed parent set satisfying C).
    """
    ds = np.empty(MAX_K + 1, dtype=np.float64)
    for oc in range(order.shape[0]):
        c = order[oc]
        lc = lam[c]
        k = ck[c]
        for q in range(k + 1):
            ds[q] = np.inf
        for t in range(cptr[c], cptr[c + 1]):
            i = citems[t]
            w0 = NEG
            w1 = NEG
            for j in range(offsets[i], offsets[i + 1]):
                if not allowed[j]:
                    continue
                if _active(bits, ptr, items, j, cbits, c, k):
                    v = scores[j] + adj[j] - lc
                    if v > w1:
                        w1 = v
                else:
                    v = scores[j] + adj[j]
                    if v > w0:
                        w0 = v
            if w0 == NEG and w1 == NEG:
                return False
            if w1 == NEG:
                d = np.inf
            elif w0 == NEG:
                d = NEG
            else:
                d = w0 - w1
            # keep the k + 1 smallest δ in ds[0..k], ascending
            if d < ds[k]:
                q = k
                while q > 0 and ds[q - 1] > d:
                    ds[q] = ds[q - 1]
                    q -= 1
                ds[q] = d
        dk = ds[k - 1]
        dk1 = ds[k]
        if dk == np.inf:
            return False
        if dk == NEG:
            new = 0.0
        elif dk1 == np.inf:
            new = max(dk, 0.0)
        else:
            new = max(0.5 * (dk + dk1), 0.0)
        delta = new - lc
        if delta == 0.0:
            continue
        lam[c] = new
        for t in range(cptr[c], cptr[c + 1]):
            i = citems[t]
            before_one = arg[i] >= 0 and _active(bits, ptr, items, arg[i], cbits, c, k)
            best = NEG
            a = -1
            for j in range(offsets[i], offsets[i + 1]):
                if _active(bits, ptr, items, j, cbits, c, k):
                    adj[j] += delta
                if allowed[j]:
                    v = scores[j] + adj[j]
                    if v > best:
                        best = v
                        a = j
            M[i] = best
            arg[i] = a
            if a >= 0 and not before_one and _active(bits, ptr, items, a, cbits, c, k):
                flips[i] += 1
    return True


@numba.njit(cache=True)
def subgradient_step(bits, ptr, items, cbits, ck, cptr, citems, lam, arg, eps):
    """Eqs. 12-13 at the current maximisers ŝ_i = arg[i]; returns how many λ_C moved.

    The subgradient of eq. 8 in λ_C is sum_{i∈C} I_C(ŝ_i) - k_C: λ_C rises when fewer
    than k members satisfy C and falls (not below 0) when more do."""
    moved = 0
    for c in range(lam.shape[0]):
        cnt = 0
        k = ck[c]
        for t in range(cptr[c], cptr[c + 1]):
            a = arg[citems[t]]
            if a >= 0 and _active(bits, ptr, items, a, cbits, c, k):
                cnt += 1
        if cnt < k:
            lam[c] += eps
            moved += 1
        elif cnt > k and lam[c] > 0.0:
            lam[c] = max(lam[c] - eps, 0.0)
            moved += 1
    return moved


# ---------------------------------------------------------------------- decoding (§5.2)
@numba.njit(cache=True)
def regret_order(vals, allowed, offsets, family, sizes, inv_ptr, inv_items):
    """Minimum-regret node ordering (eqs. 15-16); returns (order, sum of regrets).

    ``best_sub[i]`` = max over allowed candidates inside P_t is maintained incrementally:
    a candidate becomes available when its last missing parent is placed (``inv`` lists
    the candidates containing each variable), so one decode costs O(n² + Σ|s|).  When no
    allowed candidate of any remaining node fits (possible under branch restrictions),
    the node with the smallest regret over all candidates is taken.
    """
    n = offsets.shape[0] - 1
    m = vals.shape[0]
    best_all = np.full(n, NEG)
    best_sub = np.full(n, NEG)
    best_all_u = np.full(n, NEG)
    best_sub_u = np.full(n, NEG)
    missing = sizes.astype(np.int64).copy()
    for j in range(m):
        i = family[j]
        v = vals[j]
        if v > best_all_u[i]:
            best_all_u[i] = v
        if allowed[j] and v > best_all[i]:
            best_all[i] = v
        if missing[j] == 0:
            if v > best_sub_u[i]:
                best_sub_u[i] = v
            if allowed[j] and v > best_sub[i]:
                best_sub[i] = v
    placed = np.zeros(n, dtype=np.bool_)
    order = np.empty(n, dtype=np.int64)
    total = 0.0
    for t in range(n):
        bi = -1
        br = np.inf
        for i in range(n):
            if placed[i] or best_sub[i] == NEG:
                continue
            r = best_all[i] - best_sub[i]
            if r < br:
                br = r
                bi = i
        if bi < 0:
            total = np.inf
            for i in range(n):
                if placed[i] or best_sub_u[i] == NEG:
                    continue
                r = best_all_u[i] - best_sub_u[i]
                if r < br:
                    br = r
                    bi = i
        if bi < 0:  # cache admits no DAG from here; place anything
            for i in range(n):
                if not placed[i]:
                    bi = i
                    break
        else:
            total += br
        placed[bi] = True
        order[t] = bi
        for k in range(inv_ptr[bi], inv_ptr[bi + 1]):
            j = inv_items[k]
            missing[j] -= 1
            if missing[j] == 0:
                i = family[j]
                v = vals[j]
                if v > best_sub_u[i]:
                    best_sub_u[i] = v
                if allowed[j] and v > best_sub[i]:
                    best_sub[i] = v
    return order, total




# ---------------------------------------------------------------------- separation (§5.3)
@numba.njit(cache=True, inline="always")
def _contains(bits, ptr, items, j, w, b, p):
    """p ∈ s_j (bitset word ``w``, bit ``b``; or the CSR list when ``bits`` has no rows)."""
    if bits.shape[0] == 0:
        for a in range(ptr[j], ptr[j + 1]):
            if items[a] == p:
                return True
        return False
    return (bits[j, w] & b) != 0


@numba.njit(cache=True)
def edge_deltas(scores, adj, allowed, offsets, pset_ptr, pset_items, bits, M, arg):
    """Positive δ_ji of eqs. 18-19 as an edge list (j, i, δ).

    δ_ji > 0 only when j belongs to the maximiser ŝ_i, and then
    δ_ji = max_s W_i(s; λ) - max_{s ∌ j} W_i(s; λ).
    """
    n = offsets.shape[0] - 1
    cap = pset_items.shape[0] + 1
    src = np.empty(cap, dtype=np.int64)
    dst = np.empty(cap, dtype=np.int64)
    wt = np.empty(cap, dtype=np.float64)
    k = 0
    for i in range(n):
        a = arg[i]
        if a < 0:
            continue
        for q in range(pset_ptr[a], pset_ptr[a + 1]):
            p = pset_items[q]
            w = p >> 6
            b = np.uint64(1) << np.uint64(p & 63)
            best = NEG
            for j in range(offsets[i], offsets[i + 1]):
                if allowed[j] and not _contains(bits, pset_ptr, pset_items, j, w, b, p):
                    v = scores[j] + adj[j]
                    if v > best:
                        best = v
            d = M[i] - best
            if d > 0.0:
                src[k] = p
                dst[k] = i
                wt[k] = d
                k += 1
    return src[:k], dst[:k], wt[:k]


@numba.njit(cache=True)
def maxmin_cycles(D):
    """Modified all-pairs max-min paths (§5.3, steps 0-1) on a dense δ matrix.

    ``D[a, b]`` = δ of edge a -> b (-inf when absent).  Returns, for every node k, the
    node list of the cycle through k with the largest minimum δ (empty when none is
    positive), retraced with the first-step pointers p.
    """
    s = D.shape[0]
    Delta = D.copy()
    p = np.empty((s, s), dtype=np.int64)
    for a in range(s):
        for b in range(s):
            p[a, b] = b
    for k in range(s):
        for a in range(s):
            dak = Delta[a, k]
            if dak <= 0.0:
                continue
            for b in range(s):
                v = min(dak, Delta[k, b])
                if v > Delta[a, b]:
                    Delta[a, b] = v
                    p[a, b] = p[a, k]
    out = []
    for k in range(s):
        bl = -1
        bv = 0.0
        for l in range(s):
            if l == k:
                continue
            v = min(Delta[k, l], Delta[l, k])
            if v > bv:
                bv = v
                bl = l
        cyc = np.empty(0, dtype=np.int64)
        if bl >= 0:
            seen = np.zeros(s, dtype=np.bool_)
            buf = np.empty(2 * s + 2, dtype=np.int64)
            nb = 0
            for (x, y) in ((k, bl), (bl, k)):
                cur = x
                steps = 0
                while cur != y and steps <= s:
                    if not seen[cur]:
                        seen[cur] = True
                        buf[nb] = cur
                        nb += 1
                    cur = p[cur, y]
                    steps += 1
            cyc = buf[:nb].copy()
        out.append(cyc)
    return out


@numba.njit(cache=True)
def short_cycle_through(start, eptr, eitems, s):
    """Shortest cycle through ``start`` in a sparse digraph (BFS), used for huge SCCs."""
    prev = np.full(s, -1, dtype=np.int64)
    queue = np.empty(s, dtype=np.int64)
    head = 0
    tail = 0
    for k in range(eptr[start], eptr[start + 1]):
        v = eitems[k]
        if prev[v] == -1:
            prev[v] = start
            queue[tail] = v
            tail += 1
    while head < tail:
        u = queue[head]
        head += 1
        if u == start:
            break
        for k in range(eptr[u], eptr[u + 1]):
            v = eitems[k]
            if prev[v] == -1:
                prev[v] = u
                queue[tail] = v
                tail += 1
    if prev[start] == -1:
        return np.empty(0, dtype=np.int64)
    buf = np.empty(s, dtype=np.int64)
    nb = 0
    cur = prev[start]
    while cur != start and nb < s:
        buf[nb] = cur
        nb += 1
        cur = prev[cur]
    buf[nb] = start
    nb += 1
    return buf[:nb].copy()


@numba.njit(cache=True)
def gain_of(members, nmem, inC, scores, adj, allowed, offsets, pset_ptr, pset_items, floor=NEG):
    """min_{i ∈ C} (W^0_{C;i} - W^1_{C;i}) for a new cluster (λ_C = 0); C given by ``inC``.

    Members are scanned last-first (the newest member usually limits the gain); the scan
    stops as soon as the running minimum is < ``floor`` (the caller cannot use it then).
    """
    g = np.inf
    no_row = np.empty((1, 1))
    for tt in range(nmem):
        if g < floor:
            return g
        w0, w1, _ = _member_scan(members[nmem - 1 - tt], inC, scores, adj, allowed, offsets,
                                 pset_ptr, pset_items, no_row, -1)
        d = _diff(w0, w1)
        if d < g:
            g = d
    return g


@numba.njit(cache=True)
def grow_cluster(seed, scores, adj, allowed, offsets, pset_ptr, pset_items, arg, inv_ptr, inv_items,
                 family, max_size):
    """Greedy cluster growth from ``seed`` by the dual gain criterion (eq. 20).

    Candidates k are the nodes whose current maximiser meets C and the parents in the
    members' maximisers (other nodes cannot make the gain positive).  A node is added
    when it maximises gain(C ∪ k) and the difference of eq. 20 is non-negative.
    Returns (members, gain).
    """
    n = offsets.shape[0] - 1
    inC = np.zeros(n, dtype=np.bool_)
    members = np.empty(n, dtype=np.int64)
    members[0] = seed
    nmem = 1
    inC[seed] = True
    gain = NEG
    cand = np.zeros(n, dtype=np.bool_)
    while nmem < max_size:
        # candidate set
        cand[:] = False
        for t in range(nmem):
            i = members[t]
            a = arg[i]
            if a >= 0:
                for q in range(pset_ptr[a], pset_ptr[a + 1]):
                    cand[pset_items[q]] = True
            # nodes whose maximiser contains i
            for k in range(inv_ptr[i], inv_ptr[i + 1]):
                j = inv_items[k]
                f = family[j]
                if arg[f] == j:
                    cand[f] = True
        bk = -1
        bg = NEG
        for k in range(n):
            if not cand[k] or inC[k]:
                continue
            inC[k] = True
            members[nmem] = k
            g = gain_of(members, nmem + 1, inC, scores, adj, allowed, offsets, pset_ptr, pset_items,
                         max(bg, gain))
            inC[k] = False
            if g > bg:
                bg = g
                bk = k
        if bk < 0 or bg == NEG or not (bg >= gain):
            break
        inC[bk] = True
        members[nmem] = bk
        nmem += 1
        gain = bg
    return members[:nmem].copy(), gain


@numba.njit(cache=True)
def _member_scan(i, inC, scores, adj, allowed, offsets, pset_ptr, pset_items, A, row):
    """W^0_{C;i}, W^1_{C;i} and the argmax of W^1 for member ``i`` of C (eq. 20 terms).

    With ``row >= 0`` also fills ``A[row, p]`` = best W_i(s) over allowed s disjoint from C
    that contain p (what W^0 gains when p joins C).
    """
    w0 = NEG
    w1 = NEG
    j1 = -1
    if row >= 0:
        A[row, :] = NEG
    for j in range(offsets[i], offsets[i + 1]):
        if not allowed[j]:
            continue
        hit = False
        for q in range(pset_ptr[j], pset_ptr[j + 1]):
            if inC[pset_items[q]]:
                hit = True
                break
        v = scores[j] + adj[j]
        if hit:
            if v > w0:
                w0 = v
        else:
            if v > w1:
                w1 = v
                j1 = j
            if row >= 0:
                for q in range(pset_ptr[j], pset_ptr[j + 1]):
                    p = pset_items[q]
                    if v > A[row, p]:
                        A[row, p] = v
    return w0, w1, j1


@numba.njit(cache=True, inline="always")
def _diff(w0, w1):
    if w1 == NEG:
        return np.inf
    if w0 == NEG:
        return NEG
    return w0 - w1


@numba.njit(cache=True)
def grow_cluster_fast(seed, scores, adj, allowed, offsets, pset_ptr, pset_items, arg, inv_ptr, inv_items,
                      family, max_size):
    """:func:`grow_cluster` (eq. 20 greedy growth) with incremental gains; same result.

    For every member i the terms W^0_{C;i}, W^1_{C;i} (and the W^1 maximiser) are kept, and
    ``A[i, k]`` = best disjoint-from-C value of i among sets containing k, so the gain of
    C ∪ {k} costs O(|C|) per candidate k plus one scan of k's own sets (a member is rescanned
    only when k lies in its W^1 maximiser).  The scan order and the early stop at the floor
    are those of :func:`gain_of`, so the clusters are identical.
    """
    n = offsets.shape[0] - 1
    inC = np.zeros(n, dtype=np.bool_)
    members = np.empty(n, dtype=np.int64)
    members[0] = seed
    nmem = 1
    inC[seed] = True
    gain = NEG
    cand = np.zeros(n, dtype=np.bool_)
    cap = min(max_size, n)
    A = np.empty((cap, n), dtype=np.float64)
    w0m = np.empty(cap, dtype=np.float64)
    w1m = np.empty(cap, dtype=np.float64)
    j1m = np.empty(cap, dtype=np.int64)
    dummy = np.empty((1, 1), dtype=np.float64)
    while nmem < max_size:
        for t in range(nmem):
            w0m[t], w1m[t], j1m[t] = _member_scan(members[t], inC, scores, adj, allowed, offsets, pset_ptr,
                                                  pset_items, A, t)
        cand[:] = False
        for t in range(nmem):
            i = members[t]
            a = arg[i]
            if a >= 0:
                for q in range(pset_ptr[a], pset_ptr[a + 1]):
                    cand[pset_items[q]] = True
            for k in range(inv_ptr[i], inv_ptr[i + 1]):
                j = inv_items[k]
                f = family[j]
                if arg[f] == j:
                    cand[f] = True
        bk = -1
        bg = NEG
        for k in range(n):
            if not cand[k] or inC[k]:
                continue
            floor = max(bg, gain)
            inC[k] = True
            w0, w1, _ = _member_scan(k, inC, scores, adj, allowed, offsets, pset_ptr, pset_items, dummy, -1)
            g = _diff(w0, w1)
            if g >= floor:
                for tt in range(nmem):
                    if g < floor:
                        break
                    t = nmem - 1 - tt
                    i = members[t]
                    w0 = w0m[t]
                    if A[t, k] > w0:
                        w0 = A[t, k]
                    w1 = w1m[t]
                    j1 = j1m[t]
                    if j1 >= 0:
                        has = False
                        for q in range(pset_ptr[j1], pset_ptr[j1 + 1]):
                            if pset_items[q] == k:
                                has = True
                                break
                        if has:
                            w0, w1, _ = _member_scan(i, inC, scores, adj, allowed, offsets, pset_ptr,
                                                     pset_items, dummy, -1)
                    d = _diff(w0, w1)
                    if d < g:
                        g = d
            inC[k] = False
            if g > bg:
                bg = g
                bk = k
        if bk < 0 or bg == NEG or not (bg >= gain):
            break
        inC[bk] = True
        members[nmem] = bk
        nmem += 1
        gain = bg
    return members[:nmem].copy(), gain


# ---------------------------------------------------------------------- primal separation
@numba.njit(cache=True)
def sink_order(eta, scores, offsets, family, inv_ptr, inv_items):
    """A node order from an LP point η by repeated sink selection (a GOBNILP-style rounding).

    Working backwards, the next sink is the remaining node whose best still-available
    candidate (parents among the remaining nodes) has the largest η (ties: higher score);
    the order is the reverse of the sink sequence.  Availability is kept incrementally via
    the inverse index, so the cost is O(n² + Σ_v |candidates containing v| · family size).
    """
    n = offsets.shape[0] - 1
    m = eta.shape[0]
    blocked = np.zeros(m, dtype=np.int64)
    removed = np.zeros(n, dtype=np.bool_)
    bk1 = np.full(n, -np.inf)
    bk2 = np.full(n, -np.inf)
    for v in range(n):
        for j in range(offsets[v], offsets[v + 1]):
            if eta[j] > bk1[v] or (eta[j] == bk1[v] and scores[j] > bk2[v]):
                bk1[v] = eta[j]
                bk2[v] = scores[j]
    order = np.empty(n, dtype=np.int64)
    dirty = np.zeros(n, dtype=np.bool_)
    for t in range(n - 1, -1, -1):
        bv = -1
        for v in range(n):
            if removed[v] or bk1[v] == -np.inf:
                continue
            if bv < 0 or bk1[v] > bk1[bv] or (bk1[v] == bk1[bv] and bk2[v] > bk2[bv]):
                bv = v
        if bv < 0:
            for v in range(n):
                if not removed[v]:
                    bv = v
                    break
        removed[bv] = True
        order[t] = bv
        for k in range(inv_ptr[bv], inv_ptr[bv + 1]):
            j = inv_items[k]
            blocked[j] += 1
            dirty[family[j]] = True
        for v in range(n):
            if dirty[v]:
                dirty[v] = False
                if removed[v]:
                    continue
                b1 = -np.inf
                b2 = -np.inf
                for j in range(offsets[v], offsets[v + 1]):
                    if blocked[j] == 0 and (eta[j] > b1 or (eta[j] == b1 and scores[j] > b2)):
                        b1 = eta[j]
                        b2 = scores[j]
                bk1[v] = b1
                bk2[v] = b2
    return order


@numba.njit(cache=True)
def _holds(bits, ptr, items, j, i, cbits, ck, c):
    """Does cluster c's row hold candidate j of variable i (i ∈ C and I_C(s_j))?"""
    if c < 0 or not ((cbits[c, i >> 6] >> np.uint64(i & 63)) & np.uint64(1)):
        return False
    return _active(bits, ptr, items, j, cbits, c, ck[c])


@numba.njit(cache=True)
def column_rows(bits, ptr, items, family, cands, cbits, ck, cids):
    """The cluster rows that hold each candidate of ``cands`` (a new column of the polish
    LP's restricted model): CSR over ``cands`` of the positions r in ``cids`` (the model's
    row ids; negative ids are no cluster) whose cluster holds it (:func:`_holds`)."""
    k = cands.shape[0]
    out_ptr = np.zeros(k + 1, dtype=np.int64)
    for t in range(k):
        j = cands[t]
        for r in range(cids.shape[0]):
            if _holds(bits, ptr, items, j, family[j], cbits, ck, cids[r]):
                out_ptr[t + 1] += 1
    for t in range(k):
        out_ptr[t + 1] += out_ptr[t]
    rows = np.empty(out_ptr[k], dtype=np.int64)
    for t in range(k):
        j = cands[t]
        at = out_ptr[t]
        for r in range(cids.shape[0]):
            if _holds(bits, ptr, items, j, family[j], cbits, ck, cids[r]):
                rows[at] = r
                at += 1
    return out_ptr, rows


@numba.njit(cache=True)
def cluster_sums(bits, ptr, items, js, vals, sup_ptr, cbits, ck, cptr, citems, cids):
    """Left-hand side of each cluster row of ``cids`` at a sparse point η: ``vals`` on the
    candidates ``js`` (in candidate order; variable i's are ``sup_ptr[i]:sup_ptr[i+1]``),
    summed over the members' candidates the row holds, and only until it reaches the row's
    k (a violation test)."""
    out = np.zeros(cids.shape[0])
    for r in range(cids.shape[0]):
        c = cids[r]
        need = ck[c]
        total = 0.0
        for a in range(cptr[c], cptr[c + 1]):
            i = citems[a]
            for t in range(sup_ptr[i], sup_ptr[i + 1]):
                if _active(bits, ptr, items, js[t], cbits, c, need):
                    total += vals[t]
            if total >= need:
                break
        out[r] = total
    return out
