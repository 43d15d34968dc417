"""Is ASOBS's DAG a local optimum of exact window re-orderings?  (issue 12: primal or dual gap)

    python tools/experiments/window_dp.py CACHE.jkl ASOBS_SECONDS WINDOW

CACHE.jkl is an explored cache (e.g. `lpbn score accidents.train.csv.gz -o accidents.jkl`).
Runs `lpbn.solve(cache, "asobs", bound="trivial", seed=0)` for ASOBS_SECONDS, takes a
topological order of its DAG and slides a window of WINDOW consecutive positions over it
(stride WINDOW // 2): a subset DP finds the best permutation of the window's variables with
every variable before the window fixed as a predecessor (the OBS score of the order, Teyssier
& Koller 2005, maximised exactly over the window's WINDOW! permutations in 2^WINDOW * WINDOW
best-parent look-ups).  Sweeps until no window improves; prints the OBS score and its ASOBS
decoding (Scanagatta et al. 2015, Theorem 3) after every sweep.
"""
import sys
import time

import numba as nb
import numpy as np

import lpbn
from lpbn.cache_kernels import best_within
from lpbn.ordering.asobs import asobs_dag


@nb.njit(cache=True)
def window_dp(order, start, w, offsets, bits, scores):
    """Best permutation of order[start:start + w] with order[:start] as predecessors."""
    W = bits.shape[1]
    pred = np.zeros(W, np.uint64)
    for i in range(start):
        v = order[i]
        pred[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    win = order[start:start + w]
    N = 1 << w
    f = np.full(N, -np.inf)
    last = np.full(N, -1, np.int64)
    f[0] = 0.0
    allowed = np.empty(W, np.uint64)
    for S in range(N):
        if f[S] == -np.inf:
            continue
        for k in range(W):
            allowed[k] = pred[k]
        for a in range(w):
            if S >> a & 1:
                v = win[a]
                allowed[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
        for a in range(w):
            if not S >> a & 1:
                j = best_within(bits, offsets[win[a]], offsets[win[a] + 1], allowed)
                if j >= 0 and f[S] + scores[j] > f[S | (1 << a)]:
                    f[S | (1 << a)] = f[S] + scores[j]
                    last[S | (1 << a)] = a
    perm = np.empty(w, np.int64)
    S = N - 1
    for p in range(w - 1, -1, -1):
        a = last[S]
        perm[p] = win[a]
        S &= ~(1 << a)
    return f[N - 1], perm


def obs_score(cache, order, bits):
    allowed = np.zeros(bits.shape[1], np.uint64)
    total = 0.0
    for v in order:
        total += cache.scores[best_within(bits, cache.offsets[v], cache.offsets[v + 1], allowed)]
        allowed[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    return total


def main(path, seconds, w):
    cache = lpbn.read_scores(path).prune_dominated()
    off = cache.offsets                  # each family best-first (ScoreCache's order)
    bits = np.ascontiguousarray(cache.bits)
    ra = lpbn.solve(cache, "asobs", time_limit=seconds, bound="trivial", seed=0)
    order = np.array(ra.dag.topological_order(), np.int64)
    cur = obs_score(cache, order, bits)
    print(f"asobs {ra.score:.2f}; OBS score of a topological order {cur:.2f}", flush=True)
    t = time.perf_counter()
    for sweep in range(100):
        improved = False
        for start in range(0, cache.n - w + 1, max(1, w // 2)):
            _, perm = window_dp(order, start, w, off, bits, cache.scores)
            new = order.copy()
            new[start:start + w] = perm
            s = obs_score(cache, new, bits)
            if s > cur + 1e-6:
                order, cur, improved = new, s, True
        _, decoded = asobs_dag(cache, order)
        print(f"sweep {sweep}: OBS {cur:.2f}, ASOBS decoding {decoded:.2f}, "
              f"{time.perf_counter() - t:.1f} s", flush=True)
        if not improved:
            break


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), int(sys.argv[3]))
