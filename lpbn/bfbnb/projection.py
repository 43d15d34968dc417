"""How much work the order-graph search has left: a projection from the layers built so far.

The frontier search (:mod:`lpbn.bfbnb.search`) keeps, of the C(n, l) subsets in layer l of
the order graph, the fraction f_l that survived pruning.  That fraction falls from layer to
layer as the bound g + h meets the incumbent (Malone et al. 2011, §5.1), and how fast it falls
decides the size of the search: on soybean (n = 36) f drops by half per layer from layer 6 on
and the search ends after 17 M nodes; on wdbc (n = 31) it falls by a quarter per layer and the
widest layers would hold hundreds of millions.  After layer k the projection extrapolates the
ratio r_k = f_k / f_{k-1} with its own fall d = r_{k-1} - r_k held constant (r shrinks by d
per layer, never below 0), so

    N_remaining ≈ L_k + Σ_{j=k+1}^{n-1} C(n, j) · f_k · Π_{i=k+1}^{j} max(0, r_k - (i-k)·d),

the nodes of layer k (not yet expanded) and of the layers after it.  A linear fall of r is an
optimistic model on the searches measured (it undercounts both soybean's second hump of
layers, where the pattern databases lose their grip, and wdbc's slowing fall), so a projection
above a horizon is strong evidence that the search cannot finish within it
(:mod:`lpbn.race` uses it to hand a hopeless rival's core to the dual).  Time is the projected
nodes times the seconds per expanded node measured over the layers built so far.
"""

from __future__ import annotations

import math
from typing import Sequence
from ..tuning import BFBNB_MIN_MEASURED_SECONDS as MIN_MEASURED_SECONDS


def remaining_nodes(layer_sizes: Sequence[int], n: int) -> float:
    """Projected order-graph nodes still to expand after the layers ``layer_sizes`` (layer 0,
    the empty set, first); ``inf`` before three layers are known (no ratio and fall yet),
    0 once a layer is empty or the search reached the goal."""
    k = len(layer_sizes) - 1
    if k >= n or (k >= 0 and layer_sizes[k] == 0):
        return 0.0
    if k < 2:
        return math.inf
    f = [layer_sizes[j] / math.comb(n, j) for j in (k - 2, k - 1, k)]
    if f[0] <= 0 or f[1] <= 0:
        return 0.0
    r = min(1.0, f[2] / f[1])
    fall = max(0.0, min(1.0, f[1] / f[0]) - r)
    total = float(layer_sizes[k])
    frac = f[2]
    for j in range(k + 1, n):
        r = max(0.0, r - fall)
        frac *= r
        if frac <= 0.0:
            break
        total += math.comb(n, j) * frac
    return total


def remaining_seconds(layer_sizes: Sequence[int], n: int, layer_seconds: float) -> float | None:
    """:func:`remaining_nodes` times the seconds per node expanded so far (``layer_seconds``
    spent building layers 1..k from the nodes of layers 0..k-1); None while no projection can
    be made (fewer than three layers, or less than MIN_MEASURED_SECONDS of them)."""
    left = remaining_nodes(layer_sizes, n)
    if left == 0.0:
        return 0.0
    done = sum(layer_sizes[:-1])
    if not math.isfinite(left) or done <= 0 or layer_seconds < MIN_MEASURED_SECONDS:
        return None
    return left * layer_seconds / done
