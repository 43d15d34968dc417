"""Parent limits for enumerating the k best DAGs (Chen, Darwiche & Choi, "On pruning with
the MDL score").

* Corollary 1 (:func:`lpbn.scoring.pruning.chen_corollary1`): ``d = floor(log2(2N/c))``,
  inflated until ``k <= 2^(d+1) - 1``; its per-variable form with exact entropies is
  :func:`lpbn.scoring.pruning.degree_bound` (Thm 5).
* Algorithm 2 (:func:`algorithm2_bound`): navigate the permutation tree from the end of the
  ordering; along a path, placed variables ``Y`` with their best parent sets ``U*`` among the
  still unplaced ones give ``s = prod 2^|U*|`` sub-DAGs (Thm 6) and the bound
  ``d(Y) = floor(log2(2N/c · α · (|Y|+1)))`` (Corollary 2); a path stops once
  ``k <= s · (2^(d(Y)+1) - 1)``.  The bound for X is the loosest ``d`` over all stopped
  paths.  (The paper returns ``d(Y_max)`` of the queue items; we take the maximum of
  ``d(Y')`` over the stopping tuples, which is never smaller, and give up — no bound — if a
  complete ordering never stops.)

Safety for ties: ``U*`` is the smallest optimal set in a k = 1 cache (ties: smaller first),
so every sub-DAG has strictly fewer edges than any DAG it replaces with an equal score.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from .scores import penalty_coef
from ..tuning import ALGORITHM2_BUDGET as DEFAULT_BUDGET


def d_of_y(N: int, c_bits: float, alpha: float, ny: int) -> int:
    """Chen et al. Corollary 2: ``floor(log2(2N / c · α · (|Y| + 1)))``."""
    return int(math.floor(math.log2(2.0 * N / c_bits * alpha * (ny + 1))))


def algorithm2_bound(base, arities, N: int, kind: int, x: int, k: int,
                     budget: int = DEFAULT_BUDGET) -> int | None:
    """Chen et al. Algorithm 2 for variable ``x`` on a k = 1 cache ``base`` (or None)."""
    n = base.n
    rx = int(arities[x])
    if rx < 2 or int(np.min(arities)) < 2:
        return None
    c_bits = float(penalty_coef(kind, N)) / math.log(2.0)
    if c_bits <= 0:
        return None
    queue = deque([(frozenset(range(n)), 0, 1, 1.0)])  # (Z, |Y|, s, alpha)
    worst = -1
    nodes = 0
    while queue:
        Z, ny, s, alpha = queue.popleft()
        for z in Z:
            nodes += 1
            if nodes > budget:
                return None
            Z2 = Z - {z}
            if z != x:
                j, _ = base.best_parent_set(z, sorted(Z2))
                u = int(base.sizes[j]) if j is not None and j >= 0 else 0
                ny2, s2 = ny + 1, s * (2 ** u)
                alpha2 = max(alpha, math.log2(int(arities[z])) / (rx - 1))
            else:
                ny2, s2, alpha2 = ny, s, alpha
            d = d_of_y(N, c_bits, alpha2, ny2)
            if k <= s2 * (2 ** (d + 1) - 1):
                worst = max(worst, d)
            elif not Z2:
                return None  # a complete ordering without a bound
            else:
                queue.append((Z2, ny2, s2, alpha2))
    return worst if worst >= 0 else None


def algorithm2_bounds(base, ds, kind: int, k: int, budget: int = DEFAULT_BUDGET):
    """Per-variable Algorithm 2 limits (``n`` for variables where it gives none) and a summary."""
    lim = np.full(ds.n, ds.n - 1, dtype=np.int64)
    got = 0
    for x in range(ds.n):
        b = algorithm2_bound(base, ds.arities, ds.N, kind, x, k, budget)
        if b is not None:
            lim[x] = min(lim[x], b)
            got += 1
    return lim, {"variables_bounded": got, "limits": [int(v) for v in lim]}
