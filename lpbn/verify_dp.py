"""The exhaustive check behind ``"kind": "exhaustive"`` certificates: the best score of any DAG,
recomputed by the subset dynamic programme in plain numpy (part of ``lpbn verify``).

Like :mod:`lpbn.verify`, this shares no code with the solvers (the DP method, :mod:`lpbn.dp`,
is numba kernels over a different layout).  It is the check for caches on which no eq. 8 tree
finishes (dense caches with a wide LP gap, e.g. letter: 9,298 candidate sets over 17
variables), where the proof is the recomputation itself: Silander & Myllymäki (2006) —
every DAG has a sink v whose parents lie in the rest, so the best DAG over a set S scores

    F(S) = max_{v in S} [ F(S - v) + best_v(S - v) ],   best_v(U) = max_{s candidate of v, s ⊆ U} W_v(s),

and F(V) is the maximum over all DAGs.  ``best_v`` is a subset-maximum transform over the
2^(n-1) subsets of the other variables (one pass per variable bit), F runs over subsets by
size.  Memory is n · 2^(n-1) two-byte ranks plus 2^n float64 (``MAX_BYTES`` caps the ranks: n <= 25),
time n^2 · 2^(n-1).
"""

from __future__ import annotations

import math

import numpy as np

#: memory the best-parent tables may take: n * 2^(n-1) candidate ranks of 2 bytes (n = 25:
#: 838 MB; n = 26 would need 1.7 GB), plus 2^n float64 for F (n = 25: 268 MB)
MAX_BYTES = 1 << 30


def table_bytes(n: int) -> int:
    return n * (1 << max(n - 1, 0)) * 2


def _best_tables(pc) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per variable v: its candidates' scores best first (then -inf), and over the 2^(n-1)
    subsets U of the other variables (bit b: the b-th other variable) the rank of v's best
    candidate inside U (the smallest rank: a subset-minimum transform over ranks, so the
    table holds 2-byte ranks rather than scores)."""
    n = pc.n
    ranks, sorted_scores = [], []
    for v in range(n):
        lo, hi = int(pc.offsets[v]), int(pc.offsets[v + 1])
        order = lo + np.argsort(-pc.scores[lo:hi], kind="stable")
        dtype = np.uint16 if hi - lo < np.iinfo(np.uint16).max else np.uint32
        none = hi - lo                          # the rank of "no candidate inside U"
        f = np.full(1 << (n - 1), none, dtype=dtype)
        for r, j in enumerate(order):
            idx = 0
            for p in pc.parents(int(j)):
                idx |= 1 << (p if p < v else p - 1)
            f[idx] = min(int(f[idx]), r)
        for b in range(n - 1):              # subset minimum: f[U] = min over the subsets of U
            g = f.reshape(-1, 2, 1 << b)
            np.minimum(g[:, 1, :], g[:, 0, :], out=g[:, 1, :])
        ranks.append(f)
        sorted_scores.append(np.append(pc.scores[order], -np.inf))
    return ranks, sorted_scores


def best_dag_score(pc) -> float:
    """The best score of any DAG over the candidates of ``pc`` (a :class:`lpbn.verify.PlainCache`)."""
    n = pc.n
    if table_bytes(n) > MAX_BYTES:
        raise ValueError(f"the exhaustive check needs {table_bytes(n) / 2**30:.1f} GiB for {n} variables")
    ranks, scores = _best_tables(pc)
    full = np.arange(1 << n, dtype=np.int64)
    size = np.zeros(1 << n, dtype=np.uint8)
    for b in range(n):
        size += ((full >> b) & 1).astype(np.uint8)
    del full
    F = np.full(1 << n, -np.inf)
    F[0] = 0.0
    for k in range(1, n + 1):
        S = np.flatnonzero(size == k)
        acc = np.full(len(S), -np.inf)
        for v in range(n):
            has = ((S >> v) & 1).astype(bool)
            rest = S[has] & ~(1 << v)
            low = rest & ((1 << v) - 1)
            U = low | ((rest >> (v + 1)) << v)      # the rest without bit v: index into v's table
            acc[has] = np.maximum(acc[has], F[rest] + scores[v][ranks[v][U]])
        F[S] = acc
    out = float(F[-1])
    return out if math.isfinite(out) else -math.inf


__all__ = ["MAX_BYTES", "best_dag_score", "table_bytes"]
