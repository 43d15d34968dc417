"""Reduced-cost fixing: the candidate parent sets no DAG better than the incumbent can use.

For multipliers λ >= 0 every DAG (a parent set s_i per variable) satisfies, by the chain of
Jaakkola et al. 2010 eq. 8 (with the k-cluster rows of Cussens et al. 2017),

    score(G) <= Σ_i W_i(s_i; λ) - Σ_C k_C λ_C  =  U(λ) - Σ_i (M_i - W_i(s_i; λ)),

where W_i(s; λ) = s_i's score + Σ_{C ∋ i, |s ∩ C| < k_C} λ_C (eq. 9), M_i = max_s W_i(s; λ)
(eq. 14) and U(λ) = Σ_i M_i - Σ_C k_C λ_C is the dual objective.  Every regret
M_i - W_i(s_i; λ) is >= 0, so a DAG that gives variable i the candidate j scores at most
U(λ) - regret_j(λ): the dual form of LP reduced-cost fixing (Nemhauser & Wolsey 1988, §II.5;
SCIP and GOBNILP fix columns the same way).  A candidate whose bound is below the incumbent's
score can leave the search: no DAG through it can improve on the incumbent.

:class:`RootFixing` keeps the root's λ (the bound is valid for the whole search, unlike a
node's) and re-fixes cheaply whenever the incumbent improves; the branch and bound rebuilds
its cache without the fixed candidates when enough of them go (a smaller LP, cheaper CD
sweeps).  Any λ >= 0 will do, so the root also fixes from the λ of one of its own rounds
once that removes most candidates, and goes on over the rest.  The certificate records each
fixing's λ and threshold, in order, and ``lpbn verify`` recomputes the fixed sets itself
(:func:`lpbn.verify._fixing`).
"""

from __future__ import annotations

import math

import numpy as np

from .state import DualState

#: Fix against the incumbent's score minus this relative margin, so that the certificate's
#: threshold (the score itself) fixes at least what the solver fixed despite rounding.
FIXING_MARGIN = 1e-9


def candidate_bounds(state: DualState) -> np.ndarray:
    """U(λ) - regret_j(λ) for every candidate j of the state's cache at its current λ
    (-inf for disallowed candidates and when the restricted problem has no DAG)."""
    value = state.value()
    if not math.isfinite(value):
        return np.full(state.cache.m, -math.inf)
    w = state.scores + state.adj
    with np.errstate(invalid="ignore"):
        return np.where(state.allowed, value - (state.M[state.family] - w), -math.inf)


def candidate_bounds_at(cache, cluster_bits: np.ndarray, cluster_k: np.ndarray,
                        lam: np.ndarray) -> tuple[np.ndarray, float]:
    """:func:`candidate_bounds` and U(λ) for every candidate of ``cache`` at multipliers
    ``lam`` on the clusters ``cluster_bits`` (rows of uint64 words) with their ``cluster_k``,
    wherever λ came from: any λ >= 0 gives valid bounds.  λ from the LP of the
    dominance-pruned cache (:meth:`lpbn.cache.ScoreCache.prune_dominated`) serves the full
    cache unchanged: a dominated set scores no better than its subset and meets every
    cluster at least as often, so it never raises a maximum M_i and U(λ) is the same."""
    state = DualState(cache)
    for row, k in zip(cluster_bits, cluster_k):
        if not state.add_cluster_bits(row, int(k)):
            raise ValueError("candidate_bounds_at: duplicate or too small cluster row")
    state.set_lambda(np.asarray(lam, dtype=np.float64))
    return candidate_bounds(state), float(state.value())


class RootFixing:
    """Reduced-cost fixing from one λ valid over the whole search (the root's).

    ``bounds[j]`` is the bound on every DAG using candidate j of ``cache`` (the cache the
    bounds were computed on; :meth:`remap` carries them to a sub-cache).  :meth:`keep` is the
    mask of the candidates that may still beat ``best``.
    """

    def __init__(self, state: DualState):
        self.bounds = candidate_bounds(state)
        self.lam = state.lam.copy()
        self.below = -math.inf           # the largest threshold applied so far

    def keep(self, best: float) -> np.ndarray:
        """Candidates whose bound reaches ``best`` (less a FIXING_MARGIN slack)."""
        if not math.isfinite(best):
            return np.ones(len(self.bounds), dtype=np.bool_)
        threshold = best - FIXING_MARGIN * max(1.0, abs(best))
        self.below = max(self.below, best)
        return self.bounds >= threshold

    def remap(self, kept: np.ndarray) -> None:
        """Follow the cache to the sub-cache of the ``kept`` candidates."""
        self.bounds = self.bounds[kept]

    def certificate(self) -> dict | None:
        """λ and threshold for the certificate (None when nothing was ever fixed)."""
        if not math.isfinite(self.below):
            return None
        return {"lambda": self.lam, "below": float(self.below)}
