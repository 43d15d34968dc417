"""Numba kernels of the frontier BFBnB search over the order graph (Malone et al. 2011).

Sets of variables are single uint64 words (``n <= 64``).  Scores follow lpbn's convention
(log-scores, higher is better); the paper's MDL costs are their negatives, so its
``f = g + h`` lower bound on cost becomes an *upper* bound on score here, and "prune
f > upper" becomes "prune f <= incumbent".

BestScore(X, U) -- the paper's parent graphs (§5.2) -- is answered from the pruned score
cache directly: candidates of X are stored best first, so the first candidate whose
parent mask is a subset of U is BestScore(X, U).  The subset test runs 64 candidates at a
time on bit vectors (the sparse parent graphs of Yuan & Malone 2013): ``bv[w, Y]`` has
bit t set when candidate 64·w + t of X does not contain Y, so the AND of ``bv[w, Y]`` over
Y ∉ U marks the candidates inside U and its lowest set bit is the best one.  It is only
ever computed for order-graph nodes U that survived pruning, which is exactly the
paper's ``isPresent`` restriction of the parent graphs (§5.1), without materialising any
n·2^(n-1) table.

Duplicate detection without a hash table.  Layer l is sorted in combinadic (colex)
order, which for single-word sets is ascending order of the masks.  For a fixed leaf X,
U ↦ U ∪ {X} is monotone on the sets without X, so the successors through leaf X come out
of a sequential scan of layer l already sorted: layer l+1 is the n-way merge of these n
sorted streams, with duplicates (the same S reached through different leaves) detected
and resolved (best g kept) as they meet in the merge -- the "sort, then merge with
delayed duplicate detection" of §5.4 (Korf 2008), where the sorted runs are produced on
the fly instead of being written first.  Every access is sequential, so each stream reads
layer l through its own buffer (RAM or disk) and layer l+1 is written out sequentially.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def best_within(masks, start, stop, notu):
    """BestScore(X, U): first (best) candidate in ``start:stop`` whose mask avoids ``notu``."""
    for j in range(start, stop):
        if masks[j] & notu == 0:
            return j
    return -1


_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_TABLE = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_TABLE[((1 << _i) * 0x03F79D71B4CB0A89 & 0xFFFFFFFFFFFFFFFF) >> 58] = _i


@numba.njit(cache=True, inline="always")
def lowest_bit(word):
    """Index of the lowest set bit of a non-zero uint64 (de Bruijn multiplication)."""
    low = word & (~word + np.uint64(1))
    return _DEBRUIJN_TABLE[(low * _DEBRUIJN) >> np.uint64(58)]


@numba.njit(cache=True, inline="always")
def best_bits(x, u, n, woff, bv, starts):
    """BestScore(X, U) on bit vectors (see module doc): global candidate index or -1."""
    one = np.uint64(1)
    for w in range(woff[x], woff[x + 1]):
        acc = np.uint64(0xFFFFFFFFFFFFFFFF)
        for y in range(n):
            # y in U: OR with all ones leaves acc alone (branch free)
            acc &= bv[w, y] | (np.uint64(0) - ((u >> np.uint64(y)) & one))
        if acc:
            return starts[x] + (w - woff[x]) * 64 + lowest_bit(acc)
    return -1


@numba.njit(cache=True)
def build_bitvectors(masks, starts, stops, n):
    """``woff`` (n+1) and ``bv`` (words, n) of every variable's best-first candidate list."""
    woff = np.zeros(n + 1, dtype=np.int64)
    for x in range(n):
        woff[x + 1] = woff[x] + (stops[x] - starts[x] + 63) // 64
    bv = np.zeros((woff[n], n), dtype=np.uint64)
    for x in range(n):
        for t in range(stops[x] - starts[x]):
            m = masks[starts[x] + t]
            w = woff[x] + t // 64
            bit = np.uint64(1) << np.uint64(t % 64)
            for y in range(n):
                if not (m >> np.uint64(y)) & np.uint64(1):
                    bv[w, y] |= bit
    return woff, bv


NEED_REFILL = 1
DONE = -1
OUTPUT_FULL = -2
YIELD = -3


@numba.njit(cache=True, inline="always")
def _h(s, full, group_lo, group_mask, table_off, tables):
    """h(S) = Σ_i T_i((V∖S) ∩ G_i) (pattern databases, :mod:`lpbn.bfbnb.heuristic`)."""
    r = full & ~s
    h = 0.0
    for i in range(group_lo.shape[0]):
        h += tables[table_off[i] + np.int64((r >> np.uint64(group_lo[i])) & group_mask[i])]
    return h


@numba.njit(cache=True, inline="always")
def _fill(x, bk, bg, blen, bpos, bdone, n, full, woff, bv, starts, scores, group_lo,
          group_mask, table_off, tables, threshold, qk, qg, qc, qh, qn, hstate, state, fstate):
    """Refill stream x's (empty) queue with its next kept successors (EXPANDORDERGRAPH's inner
    step, §5.1-5.2): S = U ∪ {x}, g = g(U) + BestScore(x, U), pruned when
    f = g + h(S) <= threshold.  Working one stream at a time for a whole queue keeps its
    bit vectors and input in cache.  Returns 1 when the input buffer must be refilled
    first, else 0 (hstate[x] = 1 queue non-empty, 2 stream finished).
    """
    low = np.uint64(1) << np.uint64(x)
    cap = qk.shape[1]
    q = 0
    while q < cap and bpos[x] < blen[x]:
        u = bk[x, bpos[x]]
        gu = bg[x, bpos[x]]
        bpos[x] += 1
        if u & low:
            continue
        state[1] += 1
        j = best_bits(x, u, n, woff, bv, starts)
        if j < 0:
            state[3] += 1
            continue
        gs = gu + scores[j]
        s = u | low
        f = gs + _h(s, full, group_lo, group_mask, table_off, tables)
        if f <= threshold:
            state[2] += 1
            if f > fstate[1]:
                fstate[1] = f
            continue
        if f > fstate[0]:
            fstate[0] = f
        qk[x, q] = s
        qg[x, q] = gs
        qc[x, q] = j
        q += 1
    qh[x] = 0
    qn[x] = q
    if q > 0:
        hstate[x] = 1
        return 0
    if bdone[x]:
        hstate[x] = 2
        return 0
    return NEED_REFILL


@numba.njit(cache=True, nogil=True)
def merge_expand(bk, bg, blen, bpos, bdone, n, woff, bv, starts, scores, group_lo,
                 group_mask, table_off, tables, threshold, qk, qg, qc, qh, qn, hstate,
                 out_k, out_g, out_c, ocount, state, fstate, max_pops):
    """Build the next layer as the merge of the n per-leaf successor streams (see module doc).

    Stream x reads layer l from its buffer ``bk[x, bpos[x]:blen[x]]`` (``bdone[x]``: no more
    data beyond the buffer) and queues its kept successors in ``qk/qg/qc[x]`` (head
    ``qh[x]``, length ``qn[x]``).  Successors are popped in ascending key order; equal keys
    are merged into one output record with the best g and its leaf's candidate (the minimum
    is found by a linear scan of the n queue heads, n <= 64, which beat a binary heap in
    measurements).  Resumable: returns ``x >= 0`` when stream x needs a refill,
    ``OUTPUT_FULL`` when the output buffer is full (the caller flushes all but the last
    record), ``YIELD`` after ``max_pops`` pops (time-limit checks), ``DONE`` at the end.

    ``state`` (int64): [pops, generated, pruned, infeasible]; ``fstate``: [max f kept,
    max f pruned].  Releases the GIL: the blocks of one layer (:mod:`lpbn.bfbnb.blocks`) run
    in threads.
    """
    full = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(64 - n)
    for x in range(n):
        if hstate[x] == 0:
            if _fill(x, bk, bg, blen, bpos, bdone, n, full, woff, bv, starts, scores, group_lo,
                     group_mask, table_off, tables, threshold, qk, qg, qc, qh, qn, hstate,
                     state, fstate):
                return x
    pops = 0
    maxkey = np.uint64(0xFFFFFFFFFFFFFFFF)
    while True:
        x = -1
        key = maxkey
        for y in range(n):
            if hstate[y] == 1 and qk[y, qh[y]] <= key:
                key = qk[y, qh[y]]
                x = y
        if x < 0:
            break
        i = qh[x]
        oc = ocount[0]
        if oc > 0 and out_k[oc - 1] == key:
            if qg[x, i] > out_g[oc - 1]:
                out_g[oc - 1] = qg[x, i]
                out_c[oc - 1] = qc[x, i]
        else:
            if oc == out_k.shape[0]:
                return OUTPUT_FULL
            out_k[oc] = key
            out_g[oc] = qg[x, i]
            out_c[oc] = qc[x, i]
            ocount[0] = oc + 1
        state[0] += 1
        qh[x] = i + 1
        qn[x] -= 1
        if qn[x] == 0:
            hstate[x] = 0
            if _fill(x, bk, bg, blen, bpos, bdone, n, full, woff, bv, starts, scores, group_lo,
                     group_mask, table_off, tables, threshold, qk, qg, qc, qh, qn, hstate,
                     state, fstate):
                return x
        pops += 1
        if pops >= max_pops:
            return YIELD
    return DONE
