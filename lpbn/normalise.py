"""Numerics independent of the score scale: solve a normalised copy, map the answer back.

The optimal DAG does not change under a positive scaling of every score or a constant shift of
one variable's scores (each variable takes exactly one parent set).  The LP solvers do not see
it that way: HiGHS's feasibility tolerances are absolute (1e-7), so scores near 1e10 (where one
ulp is ~2e-6) or 1e-6 (where 1e-7 is a tenth of a score) break its LPs, and ``max(|score|, 1)``
in the relative gap turns tiny scores' tolerance absolute.  :func:`plan` therefore gives every
method a copy of a cache whose largest absolute score lies outside [SANE_LOW, SANE_HIGH]:
each variable's scores shifted by its best score (so every score is <= 0 and the family's best
is exactly 0) and all multiplied by an exact power of two that brings the largest shifted score
to about TARGET.  Inside that range the cache is solved as given, so the measured behaviour of
every cache in the suites stands (their largest scores are 10^2-10^7).

Mapping back (:class:`Normalisation`): the DAG is the same graph (parents by name, scored on
the original cache); a bound ``b'`` on the copy gives ``Σ shift_i + b' / 2^k`` plus the
rounding the copy's scores carry (:meth:`Normalisation.error`): the multiplication by 2^k is
exact, the subtraction ``s - shift_i`` rounds by at most half an ulp of its result, so every
DAG's score on the copy is within ``EPS/2 Σ_i max_j |s_ij - shift_i|`` (in the original's
units) of its exact transform.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .bound import EPS
from .cache import ScoreCache

#: caches whose largest absolute score lies in this range are solved as given: below 1 the
#: ``max(|score|, 1)`` of the relative gap makes the tolerance absolute, above 2^30 one ulp
#: (2^30 * 2^-52 = 2.4e-7) exceeds the LP solvers' feasibility tolerance (1e-7)
SANE_LOW = 1.0
SANE_HIGH = 2.0 ** 30
#: the largest absolute shifted score of a normalised copy, about (a power of two near it)
TARGET = 2.0 ** 16


@dataclass
class Normalisation:
    """A normalised copy of ``original`` (see the module docstring) and the maps back."""

    original: ScoreCache
    cache: ScoreCache
    shift: np.ndarray            # per variable, the original's best score
    exponent: int                # copy = (original - shift) * 2**exponent

    @property
    def offset(self) -> float:
        return math.fsum(self.shift.tolist())

    def error(self) -> float:
        """The rounding of the copy's scores, summed over variables, in the original's units
        (plus the rounding of the map itself, added in :meth:`bound_back`)."""
        span = np.abs(self.cache.scores)
        per_var = np.maximum.reduceat(span, np.asarray(self.cache.offsets[:-1], dtype=np.int64))
        return EPS * math.fsum(per_var.tolist()) * math.ldexp(1.0, -self.exponent)

    def value_back(self, value: float) -> float:
        """A score or bound of the copy in the original's units (without error terms)."""
        if not math.isfinite(value):
            return value
        return self.offset + math.ldexp(value, -self.exponent)

    def bound_back(self, bound: float) -> float:
        """A valid bound on the original from a valid bound on the copy: :meth:`value_back`
        raised by :meth:`error` and the rounding of the final addition."""
        if not math.isfinite(bound):
            return bound
        scaled = math.ldexp(bound, -self.exponent)
        return self.offset + scaled + self.error() + EPS * (abs(self.offset) + abs(scaled))


def plan(cache: ScoreCache) -> Normalisation | None:
    """The normalised copy of ``cache`` (a :class:`Normalisation`), or None when its scores
    are already in the sane range (or all zero)."""
    scores = np.asarray(cache.scores, dtype=np.float64)
    top = float(np.max(np.abs(scores))) if scores.size else 0.0
    if top == 0.0 or SANE_LOW <= top <= SANE_HIGH:
        return None
    shift = np.asarray(cache.best_unconstrained(), dtype=np.float64)
    shifted = scores - shift[cache.family]
    span = float(np.max(np.abs(shifted)))
    exponent = 0 if span == 0.0 else round(math.log2(TARGET / span))
    copy = ScoreCache(cache.names, cache.offsets, np.ldexp(shifted, exponent), cache.pset_ptr,
                      cache.pset_items, meta=dict(cache.meta, normalised=True), source=cache.source,
                      check_feasible=False)
    return Normalisation(cache, copy, shift, exponent)


__all__ = ["SANE_HIGH", "SANE_LOW", "TARGET", "Normalisation", "plan"]
