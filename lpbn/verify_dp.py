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
size.  Memory is n · 2^(n-1) two-byte ranks plus 2^n float64 and the largest layer's index
arrays (:func:`check_bytes`: 11 GiB at n = 28), time n^2 · 2^(n-1).  Certificates of this kind
are written up to :data:`MAX_N` variables; verify runs the check when the machine has the
memory free and says how much it needs when not.
"""

from __future__ import annotations

import math
import os

import numpy as np

#: the most variables an exhaustive certificate is written for: the check's memory
#: (:func:`check_bytes`) is 11 GiB at 28 variables and 23 GiB at 29, so 28 is the largest n
#: whose check fits a 16-GB machine
MAX_N = 28


def table_bytes(n: int) -> int:
    """The best-parent tables: n · 2^(n-1) two-byte ranks."""
    return n * (1 << max(n - 1, 0)) * 2


def check_bytes(n: int) -> int:
    """Peak memory of :func:`best_dag_score` on n variables: the tables, F (2^n float64), the
    subset sizes (2^n bytes) and about six int64 arrays over the largest layer (C(n, n/2) sets)."""
    return table_bytes(n) + 9 * (1 << n) + 6 * 8 * math.comb(n, n // 2)


def available_bytes() -> int | None:
    """Memory the system can give without swapping (``MemAvailable`` of /proc/meminfo; None
    where it cannot be read)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def shortfall(n: int) -> str | None:
    """Why the check cannot run here (too many variables, or not enough free memory), else None."""
    if n > MAX_N:
        return f"the exhaustive check is for at most {MAX_N} variables, not {n}"
    need, free = check_bytes(n), available_bytes()
    if free is not None and need > free:
        return f"the exhaustive check over {n} variables needs {need / 2**30:.1f} GiB, {free / 2**30:.1f} GiB is free"
    return None


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
    why = shortfall(n)
    if why is not None:
        raise ValueError(why)
    ranks, scores = _best_tables(pc)
    size = np.zeros(1, dtype=np.uint8)         # popcount of every subset, by doubling
    for _ in range(n):
        size = np.concatenate([size, size + 1])
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


__all__ = ["MAX_N", "best_dag_score", "check_bytes", "shortfall", "table_bytes"]
