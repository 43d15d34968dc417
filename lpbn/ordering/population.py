"""A population of local optima for the ASOBS chain: order crossover when a climb stalls.

A memetic step in the manner of MINOBS (Lee & van Beek, "Metaheuristics for score-and-search
Bayesian network structure learning", Canadian AI 2017): iterated local search on one
ordering until ``generation`` restarts in a row leave it where it is, then that local optimum
joins an elite :class:`Population` (the best ``size`` distinct scores) and the chain climbs
again from a new individual: from a random permutation until the population is full, then
from a *child*, the order crossover (Davis 1985) of the topological orders of two members,
which keeps a contiguous half of one parent's order in place and fills the other positions
with the remaining variables in the other parent's order.  What two good networks share
(the placement of most variables relative to each other) survives, the rest is mixed, and
the climb from the child starts far above a random permutation's.

Measured with ``lpbn.solve(cache, "asobs", bound="trivial", time_limit=60, seed=s)`` (the
search alone; its OBS-trail chain and this chain take turns), seeds 1-4, without -> with the
population (10 members, ``generation`` 100), on the explored caches of issue 12 (``lpbn score
DATA.train.csv.gz``): connect4 -236,231 / -236,231 / -236,023 / -236,465 -> -236,012.85 in
every seed (by 21-24 s; 300 s of the old search had found the same DAG); plants -231,425 /
-231,435 / -231,400 / -231,439 -> -231,369 / -231,369 / -231,393 / -231,378; accidents level
(-351,140.64, where every run ends).  BLIP caches, seed 1: diabetes-5000 -2,094,377 ->
-2,091,288, pigs-5000 -1,675,339.7 -> -1,675,335.8, munin-5000 (1,041 variables, 90 s)
-1,024,862 -> -1,024,502; a 2,000-variable synthetic network (120 s, seeds 0-1) -5,306,261 /
-5,306,258 -> -5,305,317 / -5,305,542.  results/scale/README.md, "A population for ASOBS's own chain".
"""

from __future__ import annotations

import numpy as np

from .obs import Point
from .workspace import Workspace


class Population:
    """The best ``size`` local optima with distinct scores (their DAG's topological orders)."""

    def __init__(self, size: int):
        self.size = int(size)
        self.orders: list[np.ndarray] = []
        self.scores: list[float] = []

    def join(self, ws: Workspace, pt: Point) -> bool:
        """Keep ``pt`` if its score is new and among the best ``size``; whether it was kept."""
        if any(abs(pt.score - s) <= ws.eps for s in self.scores):
            return False
        if len(self.orders) >= self.size:
            worst = int(np.argmin(self.scores))
            if pt.score <= self.scores[worst]:
                return False
            del self.orders[worst], self.scores[worst]
        self.orders.append(ws.topological(pt.dag, pt.order))
        self.scores.append(float(pt.score))
        return True

    def child(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """A new individual's ordering: a random permutation while the population is not
        full (diversity first), then the crossover of two random members.  Draws the same
        numbers whatever the members' contents (reproducible for a seed)."""
        perm = rng.permutation(n).astype(np.int64)
        pick = rng.random(2)
        lo = int(rng.integers(0, n - n // 2 + 1))
        if len(self.orders) < max(2, self.size):
            return perm
        i = int(pick[0] * len(self.orders))
        j = int(pick[1] * (len(self.orders) - 1))
        j += j >= i
        return order_crossover(self.orders[i], self.orders[j], lo, n // 2)


def order_crossover(a: np.ndarray, b: np.ndarray, lo: int, width: int) -> np.ndarray:
    """Order crossover (OX, Davis 1985): ``a[lo:lo + width]`` stays in place, the other
    positions take the remaining variables in the order they have in ``b``."""
    n = len(a)
    seg = a[lo:lo + width]
    taken = np.zeros(n, dtype=bool)
    taken[seg] = True
    rest = b[~taken[b]]
    return np.concatenate([rest[:lo], seg, rest[lo:]]).astype(np.int64)
