"""The exhaustive check behind ``"kind": "exhaustive"`` certificates: the best score of any DAG,
recomputed by the subset dynamic programme in plain numpy (part of ``lpbn verify``).

Like :mod:`lpbn.verify`, this shares no code with the solvers (the DP method, :mod:`lpbn.dp`,
is numba kernels over a different layout).  It is the check for caches on which no eq. 8 tree
finishes (dense caches with a wide LP gap, e.g. letter: 9,298 candidate sets over 17
variables), where the proof is the recomputation itself: Silander & Myllymäki (2006) —
every DAG has a sink v whose parents lie in the rest, so the best DAG over a set S scores

    F(S) = max_{v in S} [ F(S - v) + best_v(S - v) ],   best_v(U) = max_{s candidate of v, s ⊆ U} W_v(s),

and F(V) is the maximum over all DAGs.  ``best_v`` is a subset-maximum transform over the
2^(n-1) subsets of the other variables (one pass per variable bit), F is filled in blocks of
subsets that share their high variables (:func:`best_dag_score`).  Memory is n · 2^(n-1)
two-byte ranks plus 2^n float64 (:func:`check_bytes`: 9.1 GiB at n = 28), time n^2 · 2^(n-1)
(steel, n = 28: a few minutes).  Certificates of this kind
are written up to :data:`MAX_N` variables; verify runs the check when the machine has the
memory free and says how much it needs when not.
"""

from __future__ import annotations

import math
import os

import numpy as np

#: the most variables an exhaustive certificate is written for: the check's memory
#: (:func:`check_bytes`) is 9.1 GiB at 28 variables and 18.5 GiB at 29, so 28 is the largest n
#: whose check fits a 16-GB machine
MAX_N = 28

#: low bits per block of :func:`best_dag_score`: a block's F (2^18 doubles, 2 MB) and the
#: parts of the tables it reads stay in cache, and 2^(n-18) blocks keep numpy's per-call
#: overhead small beside the work
BLOCK_BITS = 18



def table_bytes(n: int, wide: int = 0) -> int:
    """The best-parent tables: 2^(n-1) ranks per variable, two bytes each (four for the
    ``wide`` variables with 65,535 candidates or more)."""
    return (n + wide) * (1 << max(n - 1, 0)) * 2


def check_bytes(n: int, wide: int = 0) -> int:
    """Peak memory of :func:`best_dag_score` on n variables: the tables, F (2^n float64) and
    the block's index arrays (three int64 per low sink and subset of a block) and scratch."""
    b = min(n, BLOCK_BITS)
    return table_bytes(n, wide) + 8 * (1 << n) + 24 * b * (1 << max(b - 1, 0)) + 32 * (1 << b)


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


def shortfall(n: int, wide: int = 0) -> str | None:
    """Why the check cannot run here (too many variables, or not enough free memory), else None."""
    if n > MAX_N:
        return f"the exhaustive check is for at most {MAX_N} variables, not {n}"
    need, free = check_bytes(n, wide), available_bytes()
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


def best_dag_score(pc, block_bits: int = BLOCK_BITS) -> float:
    """The best score of any DAG over the candidates of ``pc`` (a :class:`lpbn.verify.PlainCache`).

    F is filled block by block: a block holds the 2^b subsets S = h ∪ L that share the high
    variables h (the top n - b bits) and differ in the low ones L.  Every proper subset of S
    comes first in integer order, so when block h is reached every block h - v is final; a
    sink v among the high variables reads block h - v at the same L (one contiguous slice of F
    and of v's table), a sink among the low ones reads the block itself at L - v, filled layer
    by layer of |L| (index arrays built once for all blocks)."""
    n = pc.n
    why = shortfall(n, wide_tables(pc))
    if why is not None:
        raise ValueError(why)
    ranks, scores = _best_tables(pc)
    b = min(n, block_bits)
    steps = _low_steps(b)
    F = np.empty(1 << n)
    span = 1 << b
    for h in range(1 << (n - b)):
        block = np.full(span, -np.inf)
        if h == 0:
            block[0] = 0.0
        for v in range(b, n):                     # sinks among the high variables
            if h >> (v - b) & 1:
                g = h & ~(1 << (v - b))
                below = F[g << b:(g + 1) << b]
                hv = (g & ((1 << (v - b)) - 1)) | ((g >> (v - b + 1)) << (v - b))   # g without bit v
                at = hv << b
                np.maximum(block, below + scores[v][ranks[v][at:at + span]], out=block)
        for v, put, get, low in steps:           # sinks among the low variables, by layer
            block[put] = np.maximum(block[put], block[get] + scores[v][ranks[v][(h << (b - 1)) + low]])
        F[h << b:(h + 1) << b] = block
    out = float(F[-1])
    return out if math.isfinite(out) else -math.inf


def wide_tables(pc) -> int:
    """Variables whose ranks need four bytes (65,535 candidates or more)."""
    return int(np.count_nonzero(np.diff(np.asarray(pc.offsets)) >= np.iinfo(np.uint16).max))


def _low_steps(b: int) -> list[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """For a block of b low bits, layer by layer of |L| (k = 1..b) and per low sink v: the
    positions L of the layer holding v, L - v, and L - v with bit v squeezed out (its index
    among the subsets of the other low variables)."""
    idx = np.arange(1 << b, dtype=np.int64)
    size = np.zeros(1, dtype=np.uint8)
    for _ in range(b):
        size = np.concatenate([size, size + 1])
    steps = []
    for k in range(1, b + 1):
        layer = idx[size == k]
        for v in range(b):
            put = layer[(layer >> v) & 1 == 1]
            get = put & ~(1 << v)
            steps.append((v, put, get, (get & ((1 << v) - 1)) | ((get >> (v + 1)) << v)))
    return steps


__all__ = ["BLOCK_BITS", "MAX_N", "best_dag_score", "check_bytes", "shortfall", "table_bytes", "wide_tables"]
