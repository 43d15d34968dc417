"""The best DAG found so far by an exact method: :class:`Incumbent`.

A DAG is held as its *choice*: one global candidate index of a :class:`~lpbn.cache.ScoreCache`
per variable.  Heuristics offer choices (decoding of the dual, Jaakkola et al. 2010 §5.2;
ordering-based local search; rounding of an LP point; MIP solutions); the incumbent keeps the
best one, and its score is the lower bound that prunes a branch and bound (§6) or closes a
MIP's gap.  Used by ``method="dual"`` (:mod:`lpbn.dual`) and by ``"highs"`` and
``"pulp-cbc"`` (:mod:`lpbn.highs`).  (:class:`lpbn.certified._IncumbentSlot` is something
else: a slot shared between processes.)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .cache import ScoreCache
from .result import DAG, SolveResult


def dag_of(cache: ScoreCache, choice: np.ndarray) -> DAG:
    """The DAG whose parent sets are the candidates ``choice`` (one per variable)."""
    return DAG(cache.names, [cache.parents(int(j)) for j in choice])


def choice_is_acyclic(cache: ScoreCache, choice: np.ndarray) -> bool:
    return dag_of(cache, choice).is_acyclic()


class Incumbent:
    """Best choice (candidate per variable) offered so far, and its score.

    :meth:`offer` keeps a choice when its score is strictly higher and every variable has a
    candidate (no ``-1``: ``ScoreCache.best_for_order`` gives one for a variable without a
    candidate among its predecessors).  The score is the caller's (a decoder that already
    summed it) or, without one, summed from ``cache``.  With ``check_acyclic`` a choice is
    also checked to be a DAG (for MIP and LP-rounding solutions, which may be cyclic);
    without it the caller guarantees acyclicity (the dual's decoders build choices from an
    order).  ``on_improve(score)`` is called at every improvement (e.g. to report it to a
    :class:`~lpbn.control.SolveControl`); ``offers`` counts the offers.
    """

    def __init__(self, cache: ScoreCache | None = None, on_improve: Callable[[float], None] | None = None,
                 *, check_acyclic: bool = False):
        if check_acyclic and cache is None:
            raise ValueError("Incumbent(check_acyclic=True) needs the cache")
        self.cache = cache
        self.on_improve = on_improve
        self.check_acyclic = check_acyclic
        self.choice: np.ndarray | None = None
        self.score = -math.inf
        self.offers = 0

    def offer(self, choice: Any, score: float | None = None) -> bool:
        """Keep ``choice`` if it is complete, better and (with ``check_acyclic``) acyclic;
        True when it was kept."""
        self.offers += 1
        if choice is None:
            return False
        choice = np.asarray(choice)
        if np.any(choice < 0):
            return False
        if score is None:
            score = float(np.sum(self.cache.scores[choice]))
        if score > self.score and (not self.check_acyclic or choice_is_acyclic(self.cache, choice)):
            self.score = float(score)
            self.choice = np.array(choice, dtype=np.int64)
            if self.on_improve is not None:
                self.on_improve(self.score)
            return True
        return False

    def result(self, control: Any, status: str, method: str, stats: dict, message: str = "",
               extra: dict | None = None) -> SolveResult:
        """The SolveResult with this incumbent, the best bound of ``control`` (a
        :class:`~lpbn.control.SolveControl`) and its trace."""
        dag = dag_of(self.cache, self.choice) if self.choice is not None else None
        bound = control.bound     # checked against the score by the control, never clamped
        return SolveResult(dag=dag, score=self.score, upper_bound=bound, status=status,
                           method=method, stats=stats, trace=list(control.trace), message=message,
                           extra=extra or {})
