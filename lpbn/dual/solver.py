"""``method="dual"``: Jaakkola et al. 2010 cluster LP relaxation, dual CD, branch and bound.

* :func:`root_relaxation` — the LP relaxation over a cluster family (eq. 7) solved in the
  dual (eq. 8), with optional separation (§5.3) and an exact polish so ``converged`` is honest.
* :func:`solve_dual` — the exact anytime solver: root relaxation, then best-first branch
  and bound on the dual bound (§6), pruning with the best decoded DAG (§5.2); the search is
  :class:`lpbn.dual.bnb.BranchAndBound`, its branching rules are in :mod:`lpbn.dual.branching`.

The gap is closed when ``upper_bound <= score + tolerance * max(1, |score|)`` with
``control.tolerance`` (1e-9 relative by default).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..cache import ScoreCache
from ..control import SolveControl
from ..errors import InputError
from ..incumbent import Incumbent, dag_of
from ..lp.clusters import ClusterFamily
from ..result import DAG, SolveResult
from .bnb import BranchAndBound
from ..tuning import POLISH_MAX_ROWS
from .options import LP_POLISH, DualOptions
from .polish import polish
from .relax import closed, relax
from .state import DualState

CONVERGED_RTOL = 1e-7


@dataclass
class RootRelaxation:
    """The LP relaxation over ``clusters`` solved in the dual.

    ``value`` is a valid upper bound on the LP (and on every DAG's score); ``converged``
    says it equals the LP optimum over ``clusters`` (to ~1e-7 relative): either the bound
    met a decoded DAG's score (the LP is tight) or the exact polish confirmed it.
    """

    value: float
    clusters: ClusterFamily
    converged: bool
    best_score: float
    best_dag: DAG | None
    lam: np.ndarray = field(repr=False, default=None)
    stats: dict[str, Any] = field(default_factory=dict)
    #: every cluster row of the final state, (K, W) uint64, and its k (1: eq. 6, else a
    #: k-cluster), aligned with ``lam`` (``clusters`` holds the k = 1 rows only)
    cluster_bits: np.ndarray = field(repr=False, default=None)
    cluster_k: np.ndarray = field(repr=False, default=None)


def root_relaxation(cache: ScoreCache, clusters: ClusterFamily | None = None, *, separate: bool = True,
                    time_limit: float | None = None, max_iters: int | None = None,
                    lp_polish: bool | str = True, start: tuple | None = None) -> RootRelaxation:
    """Solve the cluster LP relaxation (Jaakkola 2010 eq. 7) in the dual (eq. 8).

    ``start = (cluster_bits, cluster_k, lam)`` (a previous result's rows, their k and λ,
    e.g. over a cache that has since gained candidates) warm-starts the descent: eq. 8 is a
    valid bound for every λ >= 0 over any cache, so the old λ is a feasible starting point
    and column generation (:mod:`lpbn.pricing`) need not rediscover its clusters each pass.

    With ``separate=False`` only the given clusters (plus the simplex constraints) are
    used.  ``max_iters`` caps the number of CD sweeps.  Unless the bound already meets a
    decoded DAG, the dual LP over the final clusters is solved exactly (``lp_polish``, as in
    :class:`~lpbn.dual.options.DualOptions`: ``"nodes"`` or true, ``"root"``, ``"off"`` or
    false), so ``converged`` is True only when ``value`` is the LP optimum.  With
    ``separate=True`` and ``lp_polish="nodes"`` the rounds also polish, so primal (LP-point)
    separation can add clusters.
    """
    mode = {True: "nodes", False: "off", None: "nodes", "auto": "nodes"}.get(lp_polish, lp_polish)
    if mode not in LP_POLISH:
        raise InputError(f"root_relaxation: lp_polish must be one of 'auto', 'off', 'root', 'nodes' "
                         f"(or true, false), got {lp_polish!r}")
    can_polish = cache.m <= POLISH_MAX_ROWS
    t0 = time.perf_counter()
    deadline = math.inf if time_limit is None else t0 + time_limit
    state = DualState(cache, clusters)
    if start is not None:
        for row, k in zip(start[0], start[1]):
            state.add_cluster_bits(row, int(k))
        state.set_lambda(_aligned(state, start))
    inc = Incumbent()
    value, lam, st = relax(state, inc, separate=separate, deadline=deadline, max_sweeps=max_iters,
                           tol=1e-12, lp_polish=separate and mode == "nodes" and can_polish)
    converged = closed(value, inc.score, 1e-12)
    lp_value = math.nan
    polished = False
    if not converged and mode != "off" and can_polish:
        remaining = None if time_limit is None else max(0.5, deadline - time.perf_counter())
        ok, lp_value = polish(state, remaining)
        polished = True
        value = min(value, state.value())
        if ok and abs(value - lp_value) <= CONVERGED_RTOL * max(1.0, abs(lp_value)):
            converged = True
        choice, score, _ = state.decode()
        inc.offer(choice, score)
    return RootRelaxation(value=float(value), clusters=state.family_of_clusters(), converged=bool(converged),
                          best_score=inc.score, best_dag=None if inc.choice is None else dag_of(cache, inc.choice),
                          lam=state.lam.copy(), cluster_bits=state.cbits.copy(),
                          cluster_k=state.ck.copy(),
                          stats={"sweeps": state.sweeps, "rounds": st.rounds, "clusters": state.K,
                                 **({"separation_errors": dict(state.separation_errors)}
                                    if state.separation_errors else {}),
                                 "polished": polished, "lp_value": lp_value,
                                 "seconds": time.perf_counter() - t0})


def _aligned(state: DualState, start: tuple) -> np.ndarray:
    """λ of ``start`` placed on the state's rows (rows of ``clusters`` first, then new ones)."""
    lam = np.zeros(state.K)
    for row, k, v in zip(start[0], start[1], start[2]):
        at = state.row_of(row, int(k))
        if at is not None:      # rows too small for their k are not added, and carry no λ
            lam[at] = v
    return lam


def solve_dual(cache: ScoreCache, control: SolveControl, **options: Any) -> SolveResult:
    """Exact anytime structure learning by the cluster LP dual and branch and bound (§5-6).

    ``options`` are the fields of :class:`~lpbn.dual.options.DualOptions` (each documented
    there; ``lpbn.solve.show_options("dual")`` lists them with their defaults), checked and
    built once by ``DualOptions.build`` before the solver starts.  ``lp_polish=False`` is the paper's
    pure coordinate descent + subgradient algorithm.
    """
    return BranchAndBound(cache, control, DualOptions.build(options, "dual")).run()


solve_dual.options_class = DualOptions
