"""numba kernels of :mod:`lpbn.dp` (the subset DP where numpy does not run it, see
:func:`lpbn.dp.numpy_path`): the max-zeta transform of one variable's BestScore table and a
chunk of the order DP, and their parallel drivers.

Parallel order DP: write a subset as ``S = H·2^b + L`` (``H`` its high ``n - b`` bits, the
*block*).  ``Score(S)`` reads ``Score(S∖{X})``, which lies in the same block (``X`` a low bit,
an earlier ``L``) or in block ``H∖{X}`` (one high bit fewer).  So the blocks whose ``H`` have
the same number of bits are independent once those with one bit fewer are done: they run in
parallel, layer by layer, each block in increasing order within itself.  Every table entry is
computed by exactly one thread with the same arithmetic as the serial loop, so the tables are
identical to the serial run's for any number of threads.
"""

from __future__ import annotations

import numba
import numpy as np

from .errors import InputError
from .tuning import BLOCK_HIGH_BITS, PARALLEL_MIN_N, TRANSFORM_BLOCK


def set_threads(threads: int | None) -> int:
    """Let the next parallel kernels use ``threads`` threads (None or 0: every core numba
    sees); returns the count."""
    if isinstance(threads, bool) or not (threads is None or isinstance(threads, (int, np.integer))) \
            or (threads is not None and threads < 0):
        raise InputError(f"threads must be a non-negative integer (0: every core), got {threads!r}")
    most = numba.config.NUMBA_NUM_THREADS
    count = most if not threads else min(int(threads), most)
    numba.set_num_threads(count)
    return count


def workers_for(n: int, threads: int | None) -> int:
    """Threads the table kernels use for ``n`` variables: 1 (the serial kernels, no parallel
    runtime loaded) below :data:`PARALLEL_MIN_N`, else :func:`set_threads`'s count."""
    count = set_threads(threads)
    return 1 if n < PARALLEL_MIN_N else count


def block_layers(n: int) -> tuple[int, list[np.ndarray]]:
    """``(b, layers)``: the low-bit count and the blocks ``H`` grouped by their number of
    bits (see the module docstring); one block of everything when ``n`` is small."""
    high = min(BLOCK_HIGH_BITS, max(0, n - 12))          # blocks of at least 2^12 subsets
    b = n - high
    hs = np.arange(1 << high, dtype=np.int64)
    bits = np.zeros(hs.size, dtype=np.int64)
    for k in range(high):
        bits += (hs >> k) & 1
    return b, [hs[bits == k] for k in range(high + 1)]


def run_best_score_tables(masks, scores, offsets, tables, workers: int, stop) -> bool:
    """Every variable's BestScore table into ``tables``, ``workers`` variables at a time;
    False when ``stop()`` said so between them."""
    n = tables.shape[0]
    for lo in range(0, n, workers):
        if workers > 1:
            best_score_tables(masks, scores, offsets, lo, min(n, lo + workers), tables)
        else:
            best_score_table(masks, scores, offsets[lo], offsets[lo + 1], lo, tables[lo])
        if stop():
            return False
    return True


def run_subsets(serial, parallel, args: tuple, n: int, workers: int, stop) -> bool:
    """A recurrence over the subsets ``1 .. 2^n - 1`` in which ``S`` reads ``S ∖ {X}``:
    ``serial(*args, start, stop)`` over ranges in increasing order with one worker, else
    ``parallel(*args, b, highs)`` layer by layer (module docstring); False when ``stop()``
    said so between steps."""
    if workers > 1:
        low, layers = block_layers(n)
        for k, highs in enumerate(layers):
            parallel(*args, low, highs)
            if k + 1 < len(layers) and stop():
                return False
        return True
    full = 1 << n
    chunk = max(1 << 16, full // 64)
    for start in range(1, full, chunk):
        serial(*args, start, min(full, start + chunk))
        if start + chunk < full and stop():
            return False
    return True


@numba.njit(cache=True, inline="always")
def compress(U, i):
    """Drop bit i from U (subsets of V∖{i} are indexed with n-1 bits)."""
    low = U & ((1 << i) - 1)
    return low | ((U >> (i + 1)) << i)


@numba.njit(cache=True)
def best_score_table(masks, scores, start, stop, i, t):
    """t[U] = BestScore(X_i, U) for every U ⊆ V∖{i} (max-zeta transform)."""
    size = t.shape[0]
    for u in range(size):
        t[u] = -np.inf
    for j in range(start, stop):
        u = compress(np.int64(masks[j]), i)
        if scores[j] > t[u]:
            t[u] = scores[j]
    subset_max_transform(t)


@numba.njit(cache=True, inline="always")
def _subset_steps(t, lo, hi, step, last):
    """Bits ``step..last-1`` of the subset-max transform on ``t[lo:hi]``."""
    while step < last:
        for base in range(lo, hi, 2 * step):
            for k in range(base, base + step):
                if t[k] > t[k + step]:
                    t[k + step] = t[k]
        step *= 2


@numba.njit(cache=True)
def subset_max_transform(t):
    """t[U] = max over W ⊆ U of t[W], in place (len(t) a power of two).  The low bits are
    done block by block while a block sits in cache, then the high bits over the whole table:
    the same maxima with the independent blocks in another order, so the same result.
    (Strips across the rows for the high bits were tried as well: slower.)"""
    size = t.shape[0]
    block = min(size, TRANSFORM_BLOCK)
    for lo in range(0, size, block):
        _subset_steps(t, lo, lo + block, 1, block)
    _subset_steps(t, 0, size, block, size)


@numba.njit(cache=True, inline="always")
def _superset_steps(t, lo, hi, step, last):
    while step < last:
        for base in range(lo, hi, 2 * step):
            for k in range(base, base + step):
                t[k] = max(t[k], t[k + step])
        step *= 2


@numba.njit(cache=True)
def superset_max_transform(t):
    """t[U] = max over W ⊇ U of t[W], in place; blocked as :func:`subset_max_transform`."""
    size = t.shape[0]
    block = min(size, TRANSFORM_BLOCK)
    for lo in range(0, size, block):
        _superset_steps(t, lo, lo + block, 1, block)
    _superset_steps(t, 0, size, block, size)


@numba.njit(cache=True, parallel=True)
def best_score_tables(masks, scores, offsets, lo, hi, tables):
    """:func:`best_score_table` for the variables ``lo..hi-1``, in parallel."""
    for i in numba.prange(lo, hi):
        best_score_table(masks, scores, offsets[i], offsets[i + 1], i, tables[i])


@numba.njit(cache=True, parallel=True)
def order_dp_blocks(tables, f, leaf, n, b, highs):
    """:func:`order_dp` over the blocks ``highs`` (one layer), in parallel."""
    for t in numba.prange(highs.shape[0]):
        base = highs[t] << b
        order_dp(tables, f, leaf, n, max(base, 1), base + (1 << b))


@numba.njit(cache=True)
def order_dp(tables, f, leaf, n, start, stop):
    """f[S] = best network over S, leaf[S] = its sink, for start <= S < stop (the order DP of
    Silander & Myllymäki 2006, as written in Malone et al. 2011, §3)."""
    for S in range(start, stop):
        best = -np.inf
        bl = -1
        for i in range(n):
            if (S >> i) & 1:
                U = S ^ (1 << i)
                v = f[U] + tables[i, compress(U, i)]
                if v > best:
                    best = v
                    bl = i
        f[S] = best
        leaf[S] = bl
