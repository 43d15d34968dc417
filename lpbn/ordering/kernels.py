"""Numba kernels of ordering-based search over the CSR score cache (no bitsets of parent sets).

Arrays are the :class:`~lpbn.cache.ScoreCache` ones: ``offsets`` (n+1), ``scores`` (m,
best first per variable), ``ptr`` (m+1) and ``items`` (parent sets as CSR rows), plus the
inverse index ``inv_ptr``/``inv`` (the candidates containing each variable, ascending).  An
ordering is ``order`` (variable at each position) with its inverse ``pos``; a DAG is
``choice`` (global candidate index per variable, -1 for none).

* OBS (Teyssier & Koller 2005; Scanagatta et al. 2015, §4): a variable takes the first
  candidate in its best-first list whose parents all precede it, tested with ``pos`` in
  O(k) per candidate, so evaluating an ordering costs O(Ck) and memory is O(n).
* Adjacent swaps are scored incrementally: after swapping a = order[i], b = order[i+1],
  b keeps its candidate unless it contains a (then b rescans only the tail after it) and a
  rescans only the head of its list before its current candidate, and there only the sets
  containing b (the others stay inconsistent; found through ``inv``).  A worklist of
  positions replaces full passes: a swap at i only changes the swaps at i-1 and i+1.
* Insertion moves (a variable jumps up to ``window`` positions; Teyssier & Koller's other
  neighbourhood) are scored as chains of such swaps, visiting only the positions of the
  variable's potential parents and children (:func:`best_insertion`).
* ASOBS (Scanagatta et al. 2015, §4): V_n down to V_1 each take their best candidate none
  of whose parents is a descendant; descendant sets are n x ceil(n/64) uint64 bitsets
  over positions, pushed up from the new parents to their ancestors
  (:func:`asobs_decode`); O(n^2/64) words of memory.
"""

from __future__ import annotations

import numba
import numpy as np

from ..cache_kernels import lower_bound

# ---------------------------------------------------------------------- small helpers


@numba.njit(cache=True, inline="always")
def sc(scores, j):
    """Score of candidate ``j`` (-inf for -1: no consistent candidate)."""
    return scores[j] if j >= 0 else -np.inf


@numba.njit(cache=True)
def set_positions(order, pos):
    """``pos[order[k]] = k``."""
    for k in range(order.shape[0]):
        pos[order[k]] = k


@numba.njit(cache=True, inline="always")
def first_consistent(ptr, items, pos, limit, start, stop):
    """First candidate in ``[start, stop)`` whose parents all have ``pos < limit``; -1 if none."""
    for j in range(start, stop):
        ok = True
        for a in range(ptr[j], ptr[j + 1]):
            if pos[items[a]] >= limit:
                ok = False
                break
        if ok:
            return j
    return -1


@numba.njit(cache=True, inline="always")
def contains(ptr, items, j, x):
    """Does candidate ``j``'s parent set contain variable ``x``?"""
    for a in range(ptr[j], ptr[j + 1]):
        if items[a] == x:
            return True
    return False


@numba.njit(cache=True)
def choice_delta(scores, new, old):
    """score(new) - score(old), summed over the variables whose choice differs only (exact
    to the rounding of the changed terms, unlike a difference of two totals)."""
    d = 0.0
    for v in range(new.shape[0]):
        if new[v] != old[v]:
            d += sc(scores, new[v]) - sc(scores, old[v])
    return d


# ---------------------------------------------------------------------- OBS


@numba.njit(cache=True)
def obs_evaluate(offsets, ptr, items, order, pos, choice):
    """OBS decoding of ``order``: fill ``pos`` and ``choice`` (first consistent candidate)."""
    set_positions(order, pos)
    for v in range(order.shape[0]):
        choice[v] = first_consistent(ptr, items, pos, pos[v], offsets[v], offsets[v + 1])


@numba.njit(cache=True)
def obs_rescan(offsets, ptr, items, order, pos, choice, lo, hi):
    """Recompute the OBS choice of the variables at positions ``lo..hi-1`` (after they were
    permuted among themselves; ``pos`` must be current)."""
    for k in range(lo, hi):
        v = order[k]
        choice[v] = first_consistent(ptr, items, pos, k, offsets[v], offsets[v + 1])


@numba.njit(cache=True)
def push_range(stack, top, onstack, lo, hi):
    """Push positions ``hi-1`` down to ``lo`` (so ``lo`` pops first); return the new top."""
    for i in range(hi - 1, lo - 1, -1):
        if not onstack[i]:
            onstack[i] = True
            stack[top] = i
            top += 1
    return top


@numba.njit(cache=True, inline="always")
def first_containing(inv_ptr, inv, x, ptr, items, pos, limit, start, stop):
    """First candidate in ``[start, stop)`` that contains ``x`` and whose other parents all
    have ``pos < limit`` (-1 if none): only the candidates containing x are visited, via the
    inverse index ``inv`` (candidates containing each variable, ascending, CSR by
    ``inv_ptr``; :func:`inverse_index`).  A variable that gains the predecessor x can only
    switch to such a candidate."""
    a = inv_ptr[x]
    b = inv_ptr[x + 1]
    while a < b:                                  # binary search for the first >= start
        mid = (a + b) >> 1
        if inv[mid] < start:
            a = mid + 1
        else:
            b = mid
    for k in range(a, inv_ptr[x + 1]):
        j = inv[k]
        if j >= stop:
            break
        ok = True
        for c in range(ptr[j], ptr[j + 1]):
            p = items[c]
            if p != x and pos[p] >= limit:
                ok = False
                break
        if ok:
            return j
    return -1


@numba.njit(cache=True, inline="always")
def _inv_has(inv_ptr, inv, x, j):
    """Does candidate ``j`` contain ``x``?  (Binary search in x's inverse-index row, which
    stays in cache while x is scanned, instead of reading j's parent set.)"""
    a = lower_bound(inv, inv_ptr[x], inv_ptr[x + 1], j)
    return a < inv_ptr[x + 1] and inv[a] == j


@numba.njit(cache=True)
def _try_swap(offsets, ptr, items, scores, order, pos, choice, inv_ptr, inv, i, eps):
    """Score swapping positions i, i+1 incrementally; apply it if it improves by > eps."""
    a = order[i]
    b = order[i + 1]
    pos[a] = i + 1
    pos[b] = i
    cb = choice[b]
    nb = cb
    if cb >= 0 and contains(ptr, items, cb, a):
        nb = first_consistent(ptr, items, pos, i, cb + 1, offsets[b + 1])
    ca = choice[a]
    na = first_containing(inv_ptr, inv, b, ptr, items, pos, i + 1, offsets[a],
                          ca if ca >= 0 else offsets[a + 1])
    if na < 0:
        na = ca
    if sc(scores, na) + sc(scores, nb) > sc(scores, ca) + sc(scores, cb) + eps:
        order[i] = b
        order[i + 1] = a
        choice[a] = na
        choice[b] = nb
        return True
    pos[a] = i
    pos[b] = i + 1
    return False


@numba.njit(cache=True, inline="always")
def _push(stack, top, onstack, i):
    if not onstack[i]:
        onstack[i] = True
        stack[top] = i
        top += 1
    return top


@numba.njit(cache=True, inline="always")
def _first_without(ptr, items, pos, limit, start, stop, x):
    """First candidate in ``[start, stop)`` with all parents at ``pos < limit`` and none ``x``."""
    for j in range(start, stop):
        ok = True
        for a in range(ptr[j], ptr[j + 1]):
            p = items[a]
            if p == x or pos[p] >= limit:
                ok = False
                break
        if ok:
            return j
    return -1


@numba.njit(cache=True)
def potential_parents(offsets, ptr, items, pp, pc):
    """Bitsets ((n, ceil(n/64)) uint64 each): ``pp[v]`` holds the variables in any candidate
    of v, ``pc[v]`` the variables with v in some candidate (potential children)."""
    pp[:, :] = 0
    pc[:, :] = 0
    for v in range(offsets.shape[0] - 1):
        for a in range(ptr[offsets[v]], ptr[offsets[v + 1]]):
            p = items[a]
            pp[v, p >> 6] |= np.uint64(1) << np.uint64(p & 63)
            pc[p, v >> 6] |= np.uint64(1) << np.uint64(v & 63)


@numba.njit(cache=True, inline="always")
def _may_parent(pp, v, p):
    return (pp[v, p >> 6] >> np.uint64(p & 63)) & np.uint64(1)


@numba.njit(cache=True)
def relation_lists(offsets, ptr, items):
    """CSR lists (int64 ptr, int32 items) of each variable's potential parents (variables in
    any of its candidates) and potential children."""
    n = offsets.shape[0] - 1
    stamp = np.full(n, -1, dtype=np.int64)
    pptr = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        for a in range(ptr[offsets[v]], ptr[offsets[v + 1]]):
            if stamp[items[a]] != v:
                stamp[items[a]] = v
                pptr[v + 1] += 1
    for v in range(n):
        pptr[v + 1] += pptr[v]
    plist = np.empty(pptr[n], dtype=np.int32)
    cptr = np.zeros(n + 1, dtype=np.int64)
    stamp[:] = -1
    k = 0
    for v in range(n):
        for a in range(ptr[offsets[v]], ptr[offsets[v + 1]]):
            p = items[a]
            if stamp[p] != v:
                stamp[p] = v
                plist[k] = p
                k += 1
                cptr[p + 1] += 1
    for v in range(n):
        cptr[v + 1] += cptr[v]
    clist = np.empty(cptr[n], dtype=np.int32)
    fill = cptr[:n].copy()
    for v in range(n):
        for a in range(pptr[v], pptr[v + 1]):
            p = plist[a]
            clist[fill[p]] = v
            fill[p] += 1
    return pptr, plist, cptr, clist


@numba.njit(cache=True)
def _related_positions(pptr, plist, cptr, clist, pos, v, lo, hi, buf):
    """Sorted distinct positions in (lo, hi) of v's potential parents and children."""
    r = 0
    for a in range(pptr[v], pptr[v + 1]):
        q = pos[plist[a]]
        if lo < q < hi:
            buf[r] = q
            r += 1
    for a in range(cptr[v], cptr[v + 1]):
        q = pos[clist[a]]
        if lo < q < hi:
            buf[r] = q
            r += 1
    out = np.sort(buf[:r])
    k = 0
    for a in range(r):
        if a == 0 or out[a] != out[a - 1]:
            out[k] = out[a]
            k += 1
    return out[:k]


@numba.njit(cache=True)
def best_insertion(offsets, ptr, items, scores, order, pos, choice, inv_ptr, inv, rel, i, window,
                   eps, buf):
    """Best new position t (|t - i| <= window) for the variable v at position i, and the gain.

    Moving v forward past u_1..u_k is k adjacent swaps: each u loses v (it rescans the tail
    after its candidate only if that contains v), v gains all of them (it rescans only the
    head before its candidate); backwards the roles swap.  Scored without moving anything
    (tests against ``pos`` with v virtually excluded or included).  Only passing a potential
    parent of v can improve v and only passing a potential child u changes u, so the scan
    visits just those positions (``rel`` = (pp, pc, pptr, plist, cptr, clist): potential
    parent / child bitsets and lists, :func:`potential_parents`, :func:`relation_lists`;
    ``buf``: work array for their positions): O(r log r) for r related variables, whatever
    the window.  It stops once no potential parent (forward) or child (backward, bounded by
    their possible gains) is left.  Returns (i, eps) if no move gains more than ``eps``.
    """
    pp, pc, pptr, plist, cptr, clist = rel
    n = order.shape[0]
    v = order[i]
    cv = choice[v]
    sv = sc(scores, cv)
    best_t = i
    best_gain = eps
    if cv != offsets[v]:                          # forward: only useful if v can improve
        fwd = _related_positions(pptr, plist, cptr, clist, pos, v, i, min(n, i + window + 1), buf)
        ahead = 0
        for t in fwd:
            if _may_parent(pp, v, order[t]):
                ahead += 1
        acc = 0.0
        jv = cv
        for t in fwd:                             # u's lose v
            if ahead == 0 or acc + scores[offsets[v]] - sv <= best_gain:
                break
            u = order[t]
            if _may_parent(pc, v, u):
                cu = choice[u]
                if cu >= 0 and _inv_has(inv_ptr, inv, v, cu):
                    nu = _first_without(ptr, items, pos, t, cu + 1, offsets[u + 1], v)
                    if nu < 0:
                        break
                    acc += scores[nu] - scores[cu]
            if _may_parent(pp, v, u):
                ahead -= 1
                nj = first_containing(inv_ptr, inv, u, ptr, items, pos, t + 1, offsets[v],
                                      jv if jv >= 0 else offsets[v + 1])
                if nj >= 0:
                    jv = nj
                g = acc + sc(scores, jv) - sv
                if g > best_gain:
                    best_gain = g
                    best_t = t
    bwd = _related_positions(pptr, plist, cptr, clist, pos, v, max(-1, i - window - 1), i, buf)
    behind = 0                                    # potential children of v behind that can gain
    room = 0.0                                    # ... and their largest possible gains
    for t in bwd:
        u = order[t]
        if _may_parent(pc, v, u) and choice[u] != offsets[u]:
            behind += 1
            room += scores[offsets[u]] - sc(scores, choice[u])
    acc = 0.0
    jv = cv
    for k in range(bwd.shape[0] - 1, -1, -1):    # u's gain v
        if behind == 0 or acc + room + sc(scores, jv) - sv <= best_gain:
            break
        t = bwd[k]
        u = order[t]
        if jv >= 0 and _may_parent(pp, v, u) and contains(ptr, items, jv, u):
            jv = first_consistent(ptr, items, pos, t, jv + 1, offsets[v + 1])
            if jv < 0:
                break
        cu = choice[u]
        if _may_parent(pc, v, u) and cu != offsets[u]:
            behind -= 1
            room -= scores[offsets[u]] - sc(scores, cu)
            nu = first_containing(inv_ptr, inv, v, ptr, items, pos, t, offsets[u],
                                  cu if cu >= 0 else offsets[u + 1])
            if nu >= 0:
                acc += scores[nu] - sc(scores, cu)
                g = acc + sc(scores, jv) - sv
                if g > best_gain:
                    best_gain = g
                    best_t = t
    return best_t, best_gain


@numba.njit(cache=True)
def move(offsets, ptr, items, order, pos, choice, inv_ptr, inv, pc, i, t):
    """Move the variable v at position i to position t, updating the choices incrementally:
    v rescans its head (forward) or tail (backward); a passed variable only if it lost v from
    its candidate (forward) or may have v as a parent (backward, ``pc[v]``)."""
    v = order[i]
    if t > i:
        for k in range(i, t):
            order[k] = order[k + 1]
    else:
        for k in range(i, t, -1):
            order[k] = order[k - 1]
    order[t] = v
    lo, hi = min(i, t), max(i, t) + 1
    for k in range(lo, hi):
        pos[order[k]] = k
    cv = choice[v]
    if t > i:
        nv = first_consistent(ptr, items, pos, t, offsets[v], cv if cv >= 0 else offsets[v + 1])
        if nv >= 0:
            choice[v] = nv
        for k in range(i, t):
            u = order[k]
            cu = choice[u]
            if cu >= 0 and _may_parent(pc, v, u) and contains(ptr, items, cu, v):
                choice[u] = first_consistent(ptr, items, pos, k, cu + 1, offsets[u + 1])
    else:
        if cv >= 0:
            for a in range(ptr[cv], ptr[cv + 1]):
                if pos[items[a]] >= t:
                    choice[v] = first_consistent(ptr, items, pos, t, cv + 1, offsets[v + 1])
                    break
        for k in range(t + 1, i + 1):
            u = order[k]
            cu = choice[u]
            if cu != offsets[u] and _may_parent(pc, v, u):
                nu = first_containing(inv_ptr, inv, v, ptr, items, pos, k, offsets[u],
                                      cu if cu >= 0 else offsets[u + 1])
                if nu >= 0:
                    choice[u] = nu


@numba.njit(cache=True)
def local_climb(offsets, ptr, items, scores, order, pos, choice, inv_ptr, inv, stack, onstack,
                istack, ionstack, state, rel, window, eps, budget, buf):
    """Hill climbing by adjacent swaps (Teyssier & Koller 2005) and, with ``window > 0``,
    insertion moves (a variable moves up to ``window`` positions), from two worklists.

    ``stack[:state[0]]``: positions i whose swap (i, i+1) must be (re)checked (a swap at i
    changes only the swaps at i-1 and i+1; an insertion only those next to the moved
    variable and to the passed variables related to it); ``istack[:state[3]]``: positions
    whose variable's insertions must be checked: the two swapped variables, or the moved
    one and the passed ones that may be its parent or child (variables whose surroundings
    changed otherwise are not re-checked, which keeps a move's cost near O(window) instead
    of O(window^2)).  Swaps are exhausted first, then one insertion is checked, and so on,
    until both lists are empty (no adjacent swap improves by more than ``eps``) or
    ``budget`` evaluations were made; the lists persist in the arrays, so calling again
    continues exactly.  ``rel``, ``buf``: see :func:`best_insertion`.  ``state[1]`` /
    ``state[4]`` count swaps / insertions made, ``state[2]`` evaluations.  Returns True when
    both lists are empty.
    """
    n = order.shape[0]
    top = state[0]
    itop = state[3]
    evals = 0
    while evals < budget:
        if top > 0:
            top -= 1
            i = stack[top]
            onstack[i] = False
            evals += 1
            if _try_swap(offsets, ptr, items, scores, order, pos, choice, inv_ptr, inv, i, eps):
                state[1] += 1
                if i + 1 <= n - 2:
                    top = _push(stack, top, onstack, i + 1)
                if i >= 1:
                    top = _push(stack, top, onstack, i - 1)
                if window > 0:
                    itop = _push(istack, itop, ionstack, i + 1)
                    itop = _push(istack, itop, ionstack, i)
        elif itop > 0:
            itop -= 1
            i = istack[itop]
            ionstack[i] = False
            evals += 1
            t, gain = best_insertion(offsets, ptr, items, scores, order, pos, choice, inv_ptr, inv,
                                     rel, i, window, eps, buf)
            if t != i:
                pp, pc = rel[0], rel[1]
                move(offsets, ptr, items, order, pos, choice, inv_ptr, inv, pc, i, t)
                state[4] += 1
                lo, hi = min(i, t), max(i, t)
                v = order[t]
                # re-check the swaps and insertions around v and of the passed variables
                # related to v (the others' predecessor sets only lost or gained v)
                for k in range(hi, lo - 1, -1):
                    u = order[k]
                    if k == t or _may_parent(pc, v, u) or _may_parent(pp, v, u):
                        itop = _push(istack, itop, ionstack, k)
                        if k <= n - 2:
                            top = _push(stack, top, onstack, k)
                        if k >= 1:
                            top = _push(stack, top, onstack, k - 1)
                if lo >= 1:
                    top = _push(stack, top, onstack, lo - 1)
                if hi <= n - 2:
                    top = _push(stack, top, onstack, hi)
        else:
            break
    state[0] = top
    state[3] = itop
    state[2] += evals
    return top == 0 and itop == 0


# ---------------------------------------------------------------------- ILS perturbation


@numba.njit(cache=True)
def shuffle_segment(order, pos, lo, hi, keys):
    """Reorder positions ``lo..hi-1`` by ``keys`` (argsort of random numbers), update ``pos``."""
    w = hi - lo
    seg = order[lo:hi].copy()
    idx = np.argsort(keys[:w])
    for t in range(w):
        order[lo + t] = seg[idx[t]]
        pos[order[lo + t]] = lo + t


# ---------------------------------------------------------------------- ASOBS


@numba.njit(cache=True)
def asobs_decode(offsets, ptr, items, order, choice, desc, pos, stamp, stack):
    """ASOBS decoding of ``order`` (Scanagatta et al. 2015, §4, acyclic selection).

    V_n .. V_1 in turn take the first (best) candidate none of whose parents is a
    descendant of V_j in the network built so far; then the new descendants
    D = desc(V_j) + {V_j} are pushed up from V_j's parents to their ancestors.  Before this
    step nothing has V_j as a descendant (V_j had no parents), so a node reached twice in
    one push already holds D: a stamp per node replaces the paper's "already marked" test.

    Descendant sets are bitsets over *positions*, one row per position: at step j all of them
    lie in positions >= j (only processed variables have parents), so every union touches
    only the words from j/64 on.  ``desc``: (n, ceil(n/64)) uint64 work array; ``pos``,
    ``stamp``: (n,) int64 work arrays; ``stack`` of size >= n * max_in_degree + 1.
    Fills ``choice`` (-1 where no candidate fits; never where OBS finds one, Theorem 3).
    """
    n = order.shape[0]
    W = desc.shape[1]
    set_positions(order, pos)
    desc[:, :] = 0
    stamp[:] = n
    for k in range(n - 1, -1, -1):
        v = order[k]
        j = -1
        for c in range(offsets[v], offsets[v + 1]):
            ok = True
            for a in range(ptr[c], ptr[c + 1]):
                q = pos[items[a]]
                if (desc[k, q >> 6] >> np.uint64(q & 63)) & np.uint64(1):
                    ok = False
                    break
            if ok:
                j = c
                break
        choice[v] = j
        if j < 0:
            continue
        desc[k, k >> 6] |= np.uint64(1) << np.uint64(k & 63)   # D = desc(V_j) + {V_j}
        lo = k >> 6
        hi = W
        while hi > lo + 1 and desc[k, hi - 1] == 0:
            hi -= 1
        top = 0
        for a in range(ptr[j], ptr[j + 1]):
            stack[top] = pos[items[a]]
            top += 1
        while top > 0:
            top -= 1
            x = stack[top]
            if stamp[x] == k:
                continue
            stamp[x] = k
            for w in range(lo, hi):
                desc[x, w] |= desc[k, w]
            if x > k and choice[order[x]] >= 0:      # processed: push up to its parents
                cx = choice[order[x]]
                for a in range(ptr[cx], ptr[cx + 1]):
                    stack[top] = pos[items[a]]
                    top += 1


@numba.njit(cache=True)
def topological_order(ptr, items, choice, ref_order, out):
    """A topological order of the DAG ``choice`` that stays as close to ``ref_order`` as
    possible (Kahn's algorithm, always taking the ready variable earliest in ``ref_order``,
    with a binary heap of reference positions).  Returns the number of variables placed
    (n unless the graph has a cycle)."""
    n = choice.shape[0]
    refpos = np.empty(n, dtype=np.int64)
    set_positions(ref_order, refpos)
    indeg = np.zeros(n, dtype=np.int64)
    cnt = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        j = choice[v]
        if j >= 0:
            indeg[v] = ptr[j + 1] - ptr[j]
            for a in range(ptr[j], ptr[j + 1]):
                cnt[items[a] + 1] += 1
    for v in range(n):
        cnt[v + 1] += cnt[v]
    child = np.empty(cnt[n], dtype=np.int64)
    fill = cnt[:n].copy()
    for v in range(n):
        j = choice[v]
        if j >= 0:
            for a in range(ptr[j], ptr[j + 1]):
                p = items[a]
                child[fill[p]] = v
                fill[p] += 1
    heap = np.empty(n, dtype=np.int64)
    hn = 0
    for v in range(n):
        if indeg[v] == 0:
            hn = _heap_push(heap, hn, refpos[v])
    placed = 0
    while hn > 0:
        key = heap[0]
        hn = _heap_pop(heap, hn)
        v = ref_order[key]
        out[placed] = v
        placed += 1
        for t in range(cnt[v], cnt[v + 1]):
            c = child[t]
            indeg[c] -= 1
            if indeg[c] == 0:
                hn = _heap_push(heap, hn, refpos[c])
    return placed


@numba.njit(cache=True, inline="always")
def _heap_push(heap, hn, key):
    i = hn
    heap[i] = key
    while i > 0:
        p = (i - 1) >> 1
        if heap[p] <= heap[i]:
            break
        heap[p], heap[i] = heap[i], heap[p]
        i = p
    return hn + 1


@numba.njit(cache=True, inline="always")
def _heap_pop(heap, hn):
    hn -= 1
    heap[0] = heap[hn]
    i = 0
    while True:
        l = 2 * i + 1
        if l >= hn:
            break
        c = l
        if l + 1 < hn and heap[l + 1] < heap[l]:
            c = l + 1
        if heap[i] <= heap[c]:
            break
        heap[i], heap[c] = heap[c], heap[i]
        i = c
    return hn


# ---------------------------------------------------------------------- greedy start


@numba.njit(cache=True)
def greedy_order(offsets, ptr, items, scores, inv_ptr, inv, weight, tie, out):
    """Min-loss greedy ordering: repeatedly place the unplaced variable whose best candidate
    among the placed variables loses least against its best candidate overall (loss times
    ``weight[v]``; ties by ``tie[v]``, both random for randomised starts).

    Incremental: a candidate becomes available when its last parent is placed (``inv``:
    candidates containing each variable, CSR by ``inv_ptr``); a lazy heap keyed by loss holds
    the variables.  O(total parent-set size + m + n log n).  Returns the number placed (n
    for a feasible cache)."""
    n = offsets.shape[0] - 1
    m = ptr.shape[0] - 1
    missing = np.empty(m, dtype=np.int32)
    for j in range(m):
        missing[j] = ptr[j + 1] - ptr[j]
    fam = np.empty(m, dtype=np.int32)
    best = np.full(n, -1, dtype=np.int64)
    for v in range(n):
        for j in range(offsets[v], offsets[v + 1]):
            fam[j] = v
            if missing[j] == 0 and best[v] < 0:
                best[v] = j
    hk = np.empty(m + n, dtype=np.float64)
    ht = np.empty(m + n, dtype=np.int64)
    hv = np.empty(m + n, dtype=np.int64)
    hn = 0
    placed = np.zeros(n, dtype=np.bool_)
    for v in range(n):
        if best[v] >= 0:
            key = (scores[offsets[v]] - scores[best[v]]) * weight[v]
            hn = _kheap_push(hk, ht, hv, hn, key, tie[v], v)
    count = 0
    while hn > 0:
        v = hv[0]
        key = hk[0]
        hn = _kheap_pop(hk, ht, hv, hn)
        if placed[v] or key != (scores[offsets[v]] - scores[best[v]]) * weight[v]:
            continue
        placed[v] = True
        out[count] = v
        count += 1
        for t in range(inv_ptr[v], inv_ptr[v + 1]):
            j = inv[t]
            missing[j] -= 1
            u = fam[j]
            if missing[j] == 0 and not placed[u] and (best[u] < 0 or j < best[u]):
                best[u] = j
                key = (scores[offsets[u]] - scores[j]) * weight[u]
                hn = _kheap_push(hk, ht, hv, hn, key, tie[u], u)
    return count


@numba.njit(cache=True, inline="always")
def _kless(hk, ht, i, j):
    return hk[i] < hk[j] or (hk[i] == hk[j] and ht[i] < ht[j])


@numba.njit(cache=True, inline="always")
def _kswap(hk, ht, hv, i, j):
    hk[i], hk[j] = hk[j], hk[i]
    ht[i], ht[j] = ht[j], ht[i]
    hv[i], hv[j] = hv[j], hv[i]


@numba.njit(cache=True, inline="always")
def _kheap_push(hk, ht, hv, hn, key, tie, v):
    i = hn
    hk[i] = key
    ht[i] = tie
    hv[i] = v
    while i > 0:
        p = (i - 1) >> 1
        if not _kless(hk, ht, i, p):
            break
        _kswap(hk, ht, hv, i, p)
        i = p
    return hn + 1


@numba.njit(cache=True, inline="always")
def _kheap_pop(hk, ht, hv, hn):
    hn -= 1
    _kswap(hk, ht, hv, 0, hn)
    i = 0
    while True:
        l = 2 * i + 1
        if l >= hn:
            break
        c = l
        if l + 1 < hn and _kless(hk, ht, l + 1, l):
            c = l + 1
        if not _kless(hk, ht, c, i):
            break
        _kswap(hk, ht, hv, i, c)
        i = c
    return hn


@numba.njit(cache=True)
def inverse_index(n, ptr, items, inv_ptr, inv):
    """Fill ``inv_ptr`` (n+1) and ``inv`` (len(items), int32 or int64): the candidates whose
    parent set contains each variable."""
    m = ptr.shape[0] - 1
    inv_ptr[:] = 0
    for k in range(items.shape[0]):
        inv_ptr[items[k] + 1] += 1
    for v in range(n):
        inv_ptr[v + 1] += inv_ptr[v]
    fill = inv_ptr[:n].copy()
    for j in range(m):
        for a in range(ptr[j], ptr[j + 1]):
            v = items[a]
            inv[fill[v]] = j
            fill[v] += 1
