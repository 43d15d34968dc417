"""The ILP over an LP point's support: a primal heuristic shared by the LP methods.

Given a point η of the η-LP (a root's, or a branch-and-bound node's), the integer program over
the candidates in its support and the incumbent's own is small where the LP is nearly integral,
and its optimum is often a DAG the rounding of η misses: the restricted master heuristic of
column generation, or RENS (Berthold 2014, "RENS: the optimal rounding", Math. Prog. Comp. 6)
without its bounds.  It is solved by the HiGHS ILP (``method="highs"``), which the caller passes in
(``ilp``): the HiGHS root its own function, the dual the one its control lends it
(:meth:`lpbn.control.SolveControl.helper`, wired by the front door), so that the dual does not
import the ILP's package and no method imports the registry or the front door.  Callers: the HiGHS root before its MIP
(:func:`lpbn.highs.ilp.solve_highs`, ``support_mip``) and the dual's nodes
(:class:`lpbn.dual.bnb.BranchAndBound`, ``support_mip``).
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from .cache import ScoreCache
from .control import SolveControl
from .errors import ScoreFileError
from .lp.separation import SUPPORT_TOL
from .result import SolveResult


def support_ilp(cache: ScoreCache, eta: np.ndarray, incumbent_choice: np.ndarray | None,
                time_limit: float, watch: Callable[[], str | None] | None = None,
                ilp: Callable[..., SolveResult] | None = None) -> tuple[np.ndarray | None, dict]:
    """The best DAG over the candidates in the support of ``eta`` (above SUPPORT_TOL) and the
    incumbent's, by the HiGHS ILP from the incumbent within ``time_limit`` seconds (``watch``:
    a stop poll, e.g. the caller's ``should_stop``; ``ilp``: the HiGHS ILP's function,
    ``fn(cache, control, **options)``, None when the caller has none: no DAG).  Returns (that DAG as candidate indices of
    ``cache``, or None when the sub-cache has none or the ILP found none; stats ``columns``,
    ``status``, ``seconds``).  The ILP's bound is over the sub-cache only and is not used."""
    if ilp is None:
        return None, {}
    t0 = time.perf_counter()
    keep = np.asarray(eta, dtype=np.float64) > SUPPORT_TOL
    if incumbent_choice is not None:
        keep[np.asarray(incumbent_choice, dtype=np.int64)] = True
    if np.any(np.bincount(cache.family[keep], minlength=cache.n) == 0):
        return None, {}                         # a variable without a column: no sub-cache
    try:
        sub = cache.select(keep)
    except ScoreFileError:                      # without an incumbent a support may hold no DAG
        return None, {}
    start = None if incumbent_choice is None else [cache.parents(int(j)) for j in incumbent_choice]
    inner = SolveControl(time_limit=time_limit)
    inner.watch = watch
    result = ilp(sub, inner, prune=False, support_mip=False, start_search=False,
                                      start=start)
    stats = {"columns": int(keep.sum()), "status": result.status,
             "seconds": round(time.perf_counter() - t0, 3)}
    if result.dag is None:
        return None, stats
    choice = cache.indices_of(result.dag.parents)      # -1 where a set is not a candidate
    return (None if np.any(choice < 0) else choice.astype(np.int64)), stats
