"""Bound safety: the one place where a method's upper bound meets its incumbent.

lpbn's promise is a proven upper bound beside every DAG (``score <= optimum <= bound``).  A
bound below the best DAG's score is the one visible symptom of an invalid bound, so it is
never clamped away: every bound a method reports passes through :func:`check` (from
:meth:`lpbn.control.SolveControl.improved`, and from the front door :func:`lpbn.solve.solve`
on the result), and a crossing beyond the tolerance is a detected fault, status ``error``
(:data:`lpbn.result.ERROR`) with a message naming the method and both numbers.

The tolerance policy (docs/trust.md) is written here once:

* ``optimal`` is declared when ``bound - score <= slack(score, margin)``:
  :data:`~lpbn.result.OPTIMALITY_TOLERANCE` relative to ``max(|score|, 1)`` plus the error
  the bound computation itself carries (``margin``, already added to the reported bound), so
  the tolerance is never tighter than what the bound computation guarantees;
* a bound below the score by more than the same slack is a fault.

Bounds from duals (eq. 8 of Jaakkola et al. 2010, valid for *any* dual values) carry only the
rounding of their sums (``math.fsum`` per variable maximum: a few ulps), so their margin is
:func:`rounding_margin`.  A MIP solver's dual bound (HiGHS, CBC) has no duals to recompute it
from; it carries :func:`mip_margin`, the error its node LPs may hide within the solver's
feasibility tolerance.
"""

from __future__ import annotations

import math

from .result import ERROR, OPTIMALITY_TOLERANCE, relative_gap

#: HiGHS's and CBC's default primal/dual feasibility tolerance: the reduced cost a node LP may
#: leave unpriced on each column (absolute, in the units of the objective the solver sees)
SOLVER_FEASIBILITY_TOLERANCE = 1e-7
#: 2**-52: the relative rounding of one float64 operation (twice the unit roundoff)
EPS = 2.0 ** -52


def slack(score: float, margin: float = 0.0, tolerance: float = OPTIMALITY_TOLERANCE) -> float:
    """The absolute distance within which a bound meets ``score``: ``tolerance`` relative to
    ``max(|score|, 1)`` plus the bound's own error ``margin`` (a bound raised by its margin
    to be valid meets the score when, without it, it would: a method cannot declare
    optimality tighter than its bound is computed)."""
    return tolerance * max(abs(score), 1.0) + margin


def closed(score: float, bound: float, margin: float = 0.0, tolerance: float = OPTIMALITY_TOLERANCE) -> bool:
    """Whether ``bound`` proves ``score`` optimal within :func:`slack`."""
    if not (math.isfinite(score) and math.isfinite(bound)):
        return False
    return bound - score <= slack(score, margin, tolerance)


def crossing(method: str, score: float, bound: float, margin: float = 0.0,
             tolerance: float = OPTIMALITY_TOLERANCE) -> str | None:
    """The fault message when ``bound`` lies below ``score`` by more than :func:`slack`, else
    None.  Such a bound is invalid (no DAG scores above a valid bound), so the run's claim is
    void: the message names the method and both numbers."""
    if not (math.isfinite(score) and math.isfinite(bound)):
        return None
    if score - bound <= slack(score, margin, tolerance):
        return None
    return (f"invalid bound detected in method {method!r}: upper bound {bound!r} lies below the "
            f"score {score!r} of a DAG it found (by {score - bound:.6g}, relative "
            f"{-relative_gap(score, bound):.3g}); the bound is wrong, so no optimality is claimed")


def guard(result, method: str | None = None, margin: float = 0.0,
          tolerance: float = OPTIMALITY_TOLERANCE):
    """Check a finished :class:`~lpbn.result.SolveResult`: a bound crossing its score turns
    it into status ``error`` with :func:`crossing`'s message (the DAG and both numbers kept as
    they are, for the user to see); returns the result."""
    if result.status == ERROR:
        return result
    fault = crossing(method or result.method, result.score, result.upper_bound, margin, tolerance)
    if fault is not None:
        result.stats = dict(result.stats or {})
        result.stats["claimed_status"] = result.status
        result.status = ERROR
        result.message = fault + (f" (the method said: {result.message})" if result.message else "")
    return result


def rounding_margin(magnitudes: float, terms: int) -> float:
    """A bound on the rounding error of a sum of ``terms`` float64 values whose absolute values
    add up to ``magnitudes``: each term carries at most one rounding (half an ulp, <= EPS/2
    relative) before it is summed exactly by ``math.fsum``, whose result is rounded once."""
    return EPS * (terms + 2) * magnitudes


def mip_margin(n: int, tolerance: float = SOLVER_FEASIBILITY_TOLERANCE) -> float:
    """The margin on a MIP solver's dual bound over ``n`` variables: its node LPs' bounds are
    exact for duals whose reduced costs the solver accepted up to ``tolerance``; in the η ILP
    each variable's convexity row picks one column, so the Lagrangian bound of those duals
    (eq. 8) exceeds the LP value by at most ``tolerance`` per variable; doubled for the column
    scaling the solver applies (powers of two near 1 on 0/1 columns).  Derived from the
    solver's stated tolerances, not proven in interval arithmetic: a bound that needs a proof
    is recomputed from duals (``--certificate``)."""
    return 2.0 * n * tolerance


def tree_bound(incumbent: float, *open_bounds: float) -> float:
    """The branch-and-bound bound: the largest bound of a node still open (or of a part of
    the tree that could not be searched), or the incumbent's score when every node was
    closed, each closed node having been pruned at a bound at most the incumbent's.  This
    is the search's bound itself, not a clamp: every argument is a valid bound on its
    part of the search space."""
    return max((incumbent,) + tuple(open_bounds))


def with_fixed(bound_rest: float, floor: float) -> float:
    """The bound of a search over the candidates left by reduced-cost fixing
    (``bound_rest``) combined with the fixed ones, each in no DAG above ``floor``: a DAG
    either avoids every fixed candidate (at most ``bound_rest``) or takes one (at most
    ``floor``)."""
    return max(bound_rest, floor)


__all__ = [
    "SOLVER_FEASIBILITY_TOLERANCE",
    "closed",
    "crossing",
    "guard",
    "mip_margin",
    "rounding_margin",
    "slack",
    "tree_bound",
    "with_fixed",
]
