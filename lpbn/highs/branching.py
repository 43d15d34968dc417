"""Edge branching over the η LP, shared by the LP branch and bounds of the ``highs`` method.

A split picks a variable i and a parent p whose LP mass μ[p, i] = Σ_{s ∋ p} η_i(s) (eq. 3's
edge marginals, Jaakkola et al. 2010) is fractional: one child keeps i's parent sets that
contain p, the other those that do not.  The edge is chosen by strong branching (Achterberg
et al. 2005): the children's LP values probed from the node's basis with a few hundred
simplex iterations, the split whose two values fall furthest below the node's (their
product) wins.  Used by :func:`lpbn.highs.certify.certify_tree` (the recorded proof) and
:func:`lpbn.highs.branch_price.branch_and_price` (the search after a dense cache's root).
"""

from __future__ import annotations

import math

import numpy as np

from ..cache import ScoreCache
from ..lp.model import EtaLP
from ..lp.separation import edge_marginals
from ..tuning import STRONG_EDGES as STRONG, STRONG_ITERATIONS


def meets_parent(cache: ScoreCache, i: int, p: int) -> np.ndarray:
    """Per candidate of i: does its parent set contain p?"""
    lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
    word = cache.bits[lo:hi, p >> 6]
    return ((word >> np.uint64(p & 63)) & np.uint64(1)).astype(bool)


def strong_edge_split(cache: ScoreCache, lp: EtaLP, eta: np.ndarray, allowed: np.ndarray, value: float,
                      threshold: float) -> tuple[int, int] | None:
    """(variable i, parent p) to split on, by strong branching: among the ``STRONG``
    fractional edges whose LP mass μ[p, i] = Σ_{s ∋ p} η_i(s) is nearest 1/2 (and whose
    split leaves both sides of i's allowed parent sets non-empty), the one whose two
    children's LP values (probed from the node's basis, :meth:`EtaLP.probe`) fall furthest
    below the node's, as the product of the two falls towards the target."""
    mu = edge_marginals(cache, eta)
    frac = (mu > 1e-9) & (mu < 1.0 - 1e-9)
    ps, iis = np.nonzero(frac)
    options = []
    for k in np.argsort(np.abs(mu[ps, iis] - 0.5), kind="stable"):
        i, p = int(iis[k]), int(ps[k])
        lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
        has, ok = meets_parent(cache, i, p), allowed[lo:hi]
        if (has & ok).any() and (~has & ok).any():
            options.append((i, p, lo + np.flatnonzero(has & ok), lo + np.flatnonzero(~has & ok)))
            if len(options) >= STRONG:
                break
    if len(options) <= 1:
        return options[0][:2] if options else None
    gap = max(value - threshold, 1e-12)
    best, best_key = None, -1.0
    for i, p, meets, misses in options:
        # fixing the meeting sets to 0 leaves the disjoint side, and vice versa
        v_disjoint, v_meets = lp.probe([meets, misses], iteration_limit=STRONG_ITERATIONS)
        falls = [min(gap, value - v) if math.isfinite(v) or v < 0 else 0.0 for v in (v_disjoint, v_meets)]
        key = max(falls[0], 1e-6 * gap) * max(falls[1], 1e-6 * gap)
        if key > best_key:
            best, best_key = (i, p), key
    return best
