"""Incumbent improvement for ``method="dual"``: ordering-based local search (OBS).

Jaakkola et al. 2010 §5.2 decode a DAG from the min-regret order (eqs. 15-16); a better
lower bound (incumbent) prunes the branch and bound (§6) and shrinks the reported gap.
:class:`OrderSearch` climbs from such decoded orders (and from its own best order) by
adjacent swaps and insertions (Teyssier & Koller 2005, :mod:`lpbn.ordering.quick`), then
perturbs the best order (iterated local search) for a budget counted in climbs, so
runs are reproducible (the solver credits climbs in proportion to its CD sweeps).

The searcher never touches the bound: it only offers DAGs, whose score is recomputed
exactly by :meth:`ScoreCache.best_for_order`, so it cannot invalidate a certificate.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..cache import ScoreCache
from ..result import DAG
from ..signals import pending


class OrderSearch:
    """Iterated OBS over orders of ``cache`` with a persistent best order and RNG."""

    def __init__(self, cache: ScoreCache, seed: int = 0):
        from ..ordering import quick as obs
        self._obs = obs
        self.cache = cache
        self.n = cache.n
        self.rng = np.random.default_rng(seed)
        self.bits = np.ascontiguousarray(cache.bits)
        self.pre = np.zeros((self.n + 1, self.bits.shape[1]), dtype=np.uint64)
        self.choice = np.empty(self.n, dtype=np.int64)
        sc = cache.scores
        self.eps = 1e-12 * max(1.0, float(np.abs(sc).max()) if len(sc) else 1.0)
        self.best_order: np.ndarray | None = None
        self.best_score = -math.inf
        self.seconds = 0.0
        self.climbs = 0
        self.perturb_climbs = 0
        self._ws = None                      # ASOBS decoding of the best order (made when first used)

    def on_cache(self, cache: ScoreCache) -> OrderSearch:
        """The same search (RNG, best order, counters) over another cache of the same
        variables, e.g. after reduced-cost fixing removed candidates."""
        new = OrderSearch(cache)
        new.rng = self.rng
        new.seconds, new.climbs, new.perturb_climbs = self.seconds, self.climbs, self.perturb_climbs
        if self.best_order is not None:
            new.best_order = self.best_order.copy()
            new.best_score = float(cache.best_for_order(new.best_order)[1])
        return new

    def _climb(self, order: np.ndarray) -> float:
        self.climbs += 1
        s = self._obs._climb(self.bits, self.cache.offsets, self.cache.scores, order, self.pre,
                             self.choice, self.eps)
        if s > self.best_score + self.eps:
            self.best_score, self.best_order = float(s), order.copy()
        return s

    def _perturbed(self) -> np.ndarray:
        n = self.n
        if self.best_order is None or self.climbs % 8 == 0:
            return self.rng.permutation(n).astype(np.int64)
        cand = self.best_order.copy()
        width = int(self.rng.integers(2, max(3, min(n, 8)) + 1))
        start = int(self.rng.integers(0, n - width + 1))
        seg = cand[start:start + width].copy()
        self.rng.shuffle(seg)
        cand[start:start + width] = seg
        return cand

    def run(self, climbs: int, starts=(), patience: int | None = None,
            deadline: float = math.inf) -> tuple[np.ndarray, float] | None:
        """Climb from every order in ``starts``, then perturb-and-climb the best order at
        most ``climbs`` times, stopping after ``patience`` climbs without improvement.
        The effort is counted in climbs, so a run is reproducible; ``deadline`` (a
        ``perf_counter`` time) only guards the solver's time limit.  Returns (candidate
        choice, exact score) of the best order, or None."""
        t0 = time.perf_counter()
        try:
            if self.best_order is None and not len(starts):
                self._climb(self._obs._greedy_start(self.cache))
            for o in starts:
                if o is not None:
                    self._climb(np.array(o, dtype=np.int64))
            since = 0
            for _ in range(max(0, int(climbs)) if self.n > 2 else 0):
                if (patience is not None and since >= patience) or time.perf_counter() > deadline \
                        or pending() is not None:
                    break
                before = self.best_score
                self._climb(self._perturbed())
                self.perturb_climbs += 1
                since = 0 if self.best_score > before else since + 1
        finally:
            self.seconds += time.perf_counter() - t0
        if self.best_order is None:
            return None
        choice, total = self.cache.best_for_order(self.best_order)
        lifted, score = self._acyclic_selection(self.best_order)
        return (lifted, score) if score > total else (choice, float(total))

    def _acyclic_selection(self, order: np.ndarray) -> tuple[np.ndarray, float]:
        """The ASOBS DAG of ``order`` (Scanagatta et al. 2015, §4, Theorem 3: each variable also
        takes a parent set with later variables when that adds no cycle, so it scores at least
        the order's OBS DAG), with its exact score."""
        if self._ws is None:
            from ..ordering.workspace import Workspace
            self._ws = Workspace(self.cache)
        choice = np.empty(self.n, dtype=np.int64)
        self._ws.decode_asobs(np.asarray(order, dtype=np.int64), choice)
        return choice, self._ws.total(choice)


def dag_order(cache: ScoreCache, choice: np.ndarray) -> np.ndarray | None:
    """A topological order of the DAG given by candidate indices (None if cyclic)."""
    order = DAG(cache.names, [cache.parents(int(j)) for j in choice]).topological_order()
    return None if order is None else np.array(order, dtype=np.int64)
