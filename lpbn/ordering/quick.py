"""Ordering-based search with adjacent swaps (OBS; Teyssier & Koller 2005).

A fast heuristic solution: an ordering of the variables determines the best DAG
consistent with it (every variable takes its best candidate among its predecessors,
:meth:`ScoreCache.best_for_order`).  Hill climbing over orderings by swapping adjacent
variables only changes the families of the two swapped variables, so each move is scored
with two best-first scans.  Local optima are escaped by iterated local search (random
segment shuffles, keep the best).  Malone et al. 2011 §5.1 use such a heuristic solution
as the bound that prunes the order graph.

Works for any n (multi-word bitsets).  This is the quick incumbent search of the exact
methods (``bfbnb``, ``dual``, ``highs``, k-best), on the cache's bitsets; the scalable OBS
and ASOBS of ``method="obs"``/``"asobs"`` are :func:`lpbn.ordering.ordering_search`; this
one is :func:`quick_ordering_search`.
"""

from __future__ import annotations

import math
import time

import numba
import numpy as np

from ..cache import ScoreCache
from ..cache_kernels import best_within as _best_in  # best-first scan, shared kernel
from ..signals import pending


@numba.njit(cache=True)
def _evaluate(bits, offsets, scores, order, pre, choice):
    """Fill prefix sets ``pre`` (n+1, W) and best choices; return the total score."""
    n = order.shape[0]
    W = bits.shape[1]
    total = 0.0
    for w in range(W):
        pre[0, w] = 0
    for k in range(n):
        v = order[k]
        j = _best_in(bits, offsets[v], offsets[v + 1], pre[k])
        choice[v] = j
        total += _sc(scores, j)
        for w in range(W):
            pre[k + 1, w] = pre[k, w]
        pre[k + 1, v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    return total


@numba.njit(cache=True)
def _climb(bits, offsets, scores, order, pre, choice, eps):
    """Hill climbing by adjacent swaps, then insertion moves, to a local optimum of both
    (in place); return the score."""
    n = order.shape[0]
    W = bits.shape[1]
    total = _evaluate(bits, offsets, scores, order, pre, choice)
    if n < 2:
        return total
    tmp = np.empty(W, dtype=np.uint64)
    outer = True
    while outer:
        _swap_climb(bits, offsets, scores, order, pre, choice, eps, tmp)
        outer = _insertion_pass(bits, offsets, scores, order, pre, choice, eps)
    total = 0.0
    for v in range(n):
        total += _sc(scores, choice[v])
    return total


@numba.njit(cache=True)
def _swap_climb(bits, offsets, scores, order, pre, choice, eps, tmp):
    """Adjacent-swap hill climbing (Teyssier & Koller 2005) to a local optimum (in place)."""
    n = order.shape[0]
    W = bits.shape[1]
    improved = True
    while improved:
        improved = False
        for i in range(n - 1):
            a = order[i]
            b = order[i + 1]
            # after the swap: b sees pre[i], a sees pre[i] + b
            jb = _best_in(bits, offsets[b], offsets[b + 1], pre[i])
            if jb < 0:
                continue
            for w in range(W):
                tmp[w] = pre[i, w]
            tmp[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
            ja = _best_in(bits, offsets[a], offsets[a + 1], tmp)
            if ja < 0:
                continue
            old = _sc(scores, choice[a]) + _sc(scores, choice[b])
            new = scores[ja] + scores[jb]
            if new > old + eps:
                order[i] = b
                order[i + 1] = a
                choice[a] = ja
                choice[b] = jb
                for w in range(W):
                    pre[i + 1, w] = tmp[w]
                improved = True


@numba.njit(cache=True, inline="always")
def _sc(scores, j):
    return scores[j] if j >= 0 else -np.inf


@numba.njit(cache=True)
def _insertion_pass(bits, offsets, scores, order, pre, choice, eps):
    """One pass of insertion moves (move one variable to another position); True if improved.

    Moving v from position i forward past w_1..w_k is a chain of adjacent swaps: v's allowed
    parents grow to pre[i] + {w_1..w_k} while each w_t loses v, so the score change of every
    target position is accumulated with two best-first scans per step (same backwards).
    """
    n = order.shape[0]
    W = bits.shape[1]
    allowed = np.empty(W, dtype=np.uint64)
    tmp = np.empty(W, dtype=np.uint64)
    improved = False
    for i in range(n):
        v = order[i]
        cur_v = _sc(scores, choice[v])
        vb = np.uint64(1) << np.uint64(v & 63)
        # forward
        best_delta = eps
        best_j = -1
        acc = 0.0
        for w in range(W):
            allowed[w] = pre[i, w]
        for t in range(i + 1, n):
            u = order[t]
            allowed[u >> 6] |= np.uint64(1) << np.uint64(u & 63)
            for w in range(W):
                tmp[w] = pre[t, w]
            tmp[v >> 6] &= ~vb
            ju = _best_in(bits, offsets[u], offsets[u + 1], tmp)
            if ju < 0:
                break
            acc += scores[ju] - _sc(scores, choice[u])
            jv = _best_in(bits, offsets[v], offsets[v + 1], allowed)
            if jv >= 0:
                d = acc + scores[jv] - cur_v
                if d > best_delta:
                    best_delta = d
                    best_j = t
        # backward
        acc = 0.0
        for t in range(i - 1, -1, -1):
            u = order[t]
            for w in range(W):
                tmp[w] = pre[t, w]
            tmp[v >> 6] |= vb
            ju = _best_in(bits, offsets[u], offsets[u + 1], tmp)
            acc += _sc(scores, ju) - _sc(scores, choice[u])
            jv = _best_in(bits, offsets[v], offsets[v + 1], pre[t])
            if jv >= 0:
                d = acc + scores[jv] - cur_v
                if d > best_delta:
                    best_delta = d
                    best_j = t
        if best_j >= 0:
            if best_j > i:
                for t in range(i, best_j):
                    order[t] = order[t + 1]
            else:
                for t in range(i, best_j, -1):
                    order[t] = order[t - 1]
            order[best_j] = v
            _evaluate(bits, offsets, scores, order, pre, choice)
            improved = True
    return improved


def _greedy_start(cache: ScoreCache) -> np.ndarray:
    """Place next the variable that loses least against its unconstrained best score."""
    n = cache.n
    best = cache.best_unconstrained()
    placed: list[int] = []
    allowed = np.zeros(cache.words, dtype=np.uint64)
    left = set(range(n))
    while left:
        pick, loss = -1, math.inf
        for v in left:
            j, s = cache.best_parent_set(v, allowed)
            if j >= 0 and best[v] - s < loss:
                pick, loss = v, best[v] - s
        placed.append(pick)
        left.discard(pick)
        allowed[pick >> 6] |= np.uint64(1) << np.uint64(pick & 63)
    return np.array(placed, dtype=np.int64)


def quick_ordering_search(cache: ScoreCache, seed: int = 0, time_limit: float = 1.0,
                          max_restarts: int | None = None,
                          patience: int | None = None,
                          start: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Best ordering found by OBS within ``time_limit`` seconds, and its DAG's score.

    Starts from a greedy ordering (or ``start``, e.g. an LP point's order), climbs by adjacent swaps and insertion moves, then
    repeatedly perturbs the
    best ordering (a random segment is shuffled; every 8th restart is a fresh random
    permutation) and climbs again, until ``time_limit``, ``max_restarts`` or ``patience``
    restarts in a row without improvement, or a stop request (:mod:`lpbn.signals`).  Returns
    ``(order, score)``; the DAG is ``cache.best_for_order(order)``.  Deterministic for a given
    seed and restart count.
    """
    n = cache.n
    rng = np.random.default_rng(seed)
    bits = np.ascontiguousarray(cache.bits)
    offsets, scores = cache.offsets, cache.scores
    pre = np.zeros((n + 1, bits.shape[1]), dtype=np.uint64)
    choice = np.empty(n, dtype=np.int64)
    eps = 1e-12 * max(1.0, float(np.abs(scores).max()) if len(scores) else 1.0)
    deadline = time.perf_counter() + max(0.0, time_limit)
    order = _greedy_start(cache) if start is None else np.array(start, dtype=np.int64)
    best_score = _climb(bits, offsets, scores, order, pre, choice, eps)
    best_order = order.copy()
    restarts = since = 0
    while n > 2 and time.perf_counter() < deadline and (max_restarts is None or restarts < max_restarts) \
            and (patience is None or since < patience) and pending() is None:
        restarts += 1
        since += 1
        if restarts % 8 == 0:
            cand = rng.permutation(n).astype(np.int64)
        else:
            cand = best_order.copy()
            width = int(rng.integers(2, max(3, min(n, 8)) + 1))
            start = int(rng.integers(0, n - width + 1))
            seg = cand[start:start + width].copy()
            rng.shuffle(seg)
            cand[start:start + width] = seg
        s = _climb(bits, offsets, scores, cand, pre, choice, eps)
        if s > best_score + eps:
            best_score, best_order = s, cand.copy()
            since = 0
    # recompute exactly (sums in order) so the score matches cache.best_for_order
    _, total = cache.best_for_order(best_order)
    return best_order, float(total)
